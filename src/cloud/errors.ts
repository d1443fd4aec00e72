/**
 * The closed set of errors a provider may throw to mean something specific (upstream's sentinels and
 * `api.RetryError`). Callers test with `instanceof`, never by message. Any other error means "unknown,
 * try again later".
 *
 * `instanceof` recognises an error by its code, not by its class object: a provider whose code
 * is compiled as a module graph of its own (the aws provider, loaded only when it is the one chosen; see
 * `scripts/build.ts`) has its own copy of these classes, and its errors must mean the same.
 */
export type CloudErrorCode = "InstanceNotFound" | "NotImplemented" | "ImplementedElsewhere" | "Retry";

abstract class CloudError extends Error {
  abstract readonly code: CloudErrorCode;

  static override [Symbol.hasInstance](value: unknown): boolean {
    const own = (this as { CODE?: CloudErrorCode }).CODE;
    return own !== undefined && value instanceof Error && (value as { code?: unknown }).code === own;
  }
}

/** The instance does not exist. Never for a stopped instance. */
export class InstanceNotFoundError extends CloudError {
  static readonly CODE: CloudErrorCode = "InstanceNotFound";
  override readonly name = "InstanceNotFoundError";
  readonly code = "InstanceNotFound";
  constructor(message = "instance not found", options?: ErrorOptions) {
    super(message, options);
  }
}

/** The provider does not implement this call. */
export class NotImplementedError extends CloudError {
  static readonly CODE: CloudErrorCode = "NotImplemented";
  override readonly name = "NotImplementedError";
  readonly code = "NotImplemented";
  constructor(message = "unimplemented", options?: ErrorOptions) {
    super(message, options);
  }
}

/** Another controller owns this load balancer; the service controller treats it as success. */
export class ImplementedElsewhereError extends CloudError {
  static readonly CODE: CloudErrorCode = "ImplementedElsewhere";
  override readonly name = "ImplementedElsewhereError";
  readonly code = "ImplementedElsewhere";
  constructor(message = "implemented by alternate to cloud provider", options?: ErrorOptions) {
    super(message, options);
  }
}

/** Call again after exactly `retryAfterMs`, instead of exponential backoff. */
export class RetryError extends CloudError {
  static readonly CODE: CloudErrorCode = "Retry";
  override readonly name = "RetryError";
  readonly code = "Retry";
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number, options?: ErrorOptions) {
    super(message, options);
    this.retryAfterMs = retryAfterMs;
  }
}

/** Finds a RetryError anywhere in a `cause` chain (upstream unwraps with errors.As). */
export function findRetryError(error: unknown): RetryError | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof RetryError) return e;
  }
  return undefined;
}
