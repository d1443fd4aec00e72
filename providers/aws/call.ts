/**
 * Every AWS call goes through one loop that:
 * - bounds each attempt with a timeout, also when the HTTP layer never answers (Bun + SDK hang reports);
 * - retries throttling (`RequestLimitExceeded` …), 5xx and network failures with capped, jittered
 *   exponential backoff, and holds back every other call while the account is being throttled
 *   (upstream's cross-request retry delay);
 * - reports every attempt to `observeCall` ("throttled" for throttling answers);
 * - fails with `AwsCallError` carrying the AWS error code, so callers never mistake a failed call for
 *   an answer.
 */
import type { CallOutcome, ProviderContext } from "../../src/cloud/provider.ts";
import { sleep } from "../../src/util/clock.ts";

export interface CallOptions {
  /** Per attempt. */
  readonly requestTimeoutMs?: number;
  readonly maxAttempts?: number;
  /** First backoff step; doubles per attempt up to `maxBackoffMs`, with full jitter. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
}

/** A call that failed for good: `code` is the AWS error code (or `RequestTimeout` / `NetworkError`). */
export class AwsCallError extends Error {
  override readonly name = "AwsCallError";
  readonly code: string;
  readonly operation: string;
  constructor(operation: string, code: string, message: string, options?: ErrorOptions) {
    super(`${operation}: ${code}: ${message}`, options);
    this.code = code;
    this.operation = operation;
  }
}

/** The AWS error code of a failed call, or undefined for other errors. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof AwsCallError ? error.code : undefined;
}

const THROTTLE_CODES = new Set([
  "RequestLimitExceeded",
  "Throttling",
  "ThrottlingException",
  "ThrottledException",
  "RequestThrottled",
  "RequestThrottledException",
  "TooManyRequestsException",
  "EC2ThrottledException",
  "SlowDown",
  "PriorRequestNotComplete",
]);

interface Failure {
  readonly code: string;
  readonly message: string;
  readonly throttled: boolean;
  readonly retryable: boolean;
}

type SdkError = {
  name?: string;
  message?: string;
  $fault?: string;
  $metadata?: { httpStatusCode?: number };
  code?: string;
};

function classify(error: unknown, timedOut: boolean): Failure {
  if (timedOut)
    return {
      code: "RequestTimeout",
      message: "no answer within the request timeout",
      throttled: false,
      retryable: true,
    };
  const e = error as SdkError;
  const message = e.message ?? String(error);
  // No $metadata: the request never got an HTTP answer (connection refused, reset, DNS).
  if (e.$metadata === undefined)
    return {
      code: "NetworkError",
      message: `${e.code ?? e.name ?? "Error"}: ${message}`,
      throttled: false,
      retryable: true,
    };
  return serviceFailure(e, message);
}

function serviceFailure(e: SdkError, message: string): Failure {
  const code = e.name ?? "Unknown";
  const status = e.$metadata?.httpStatusCode ?? 0;
  const throttled = THROTTLE_CODES.has(code) || status === 429;
  return { code, message, throttled, retryable: throttled || e.$fault === "server" || status >= 500 };
}

/** One SDK call: the client's `send` with the command built from `input`. */
export type Send<I, O> = (input: I, options: { abortSignal: AbortSignal }) => Promise<O>;

/** An operation of the API: `(input, signal?) => output`, through the retry loop. */
export type Operation = <I, O>(operation: string, send: Send<I, O>) => (input: I, signal?: AbortSignal) => Promise<O>;

/** The loop, with its throttling state shared by every operation it makes. */
export function createCaller(options: CallOptions, context: Pick<ProviderContext, "observeCall">): Operation {
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 5;
  const backoffMs = options.backoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 20_000;
  let throttledUntil = 0;

  const backoff = (attempt: number): number => Math.random() * Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1));

  async function attempt<I, O>(
    operation: string,
    send: Send<I, O>,
    input: I,
    signal: AbortSignal | undefined,
  ): Promise<{ value: O } | { failure: Failure }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const abortSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const started = performance.now();
    const record = (outcome: CallOutcome): void =>
      context.observeCall(operation, (performance.now() - started) / 1000, outcome);
    try {
      // The race makes the timeout hold even if the HTTP layer ignores the abort signal.
      const answer = await Promise.race([send(input, { abortSignal }), aborted(abortSignal)]);
      record("success");
      return { value: answer };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const failure = classify(error, timeout.aborted);
      record(failure.throttled ? "throttled" : "error");
      return { failure };
    }
  }

  async function call<I, O>(operation: string, send: Send<I, O>, input: I, signal?: AbortSignal): Promise<O> {
    for (let n = 1; ; n++) {
      const wait = throttledUntil - Date.now();
      if (wait > 0) await sleep(wait, signal);
      signal?.throwIfAborted();
      const result = await attempt(operation, send, input, signal);
      if ("value" in result) return result.value;
      const { failure } = result;
      if (!failure.retryable || n >= maxAttempts) {
        const suffix = n > 1 ? ` (after ${n} attempts)` : "";
        throw new AwsCallError(operation, failure.code, `${failure.message}${suffix}`);
      }
      const delay = backoff(n);
      if (failure.throttled) throttledUntil = Math.max(throttledUntil, Date.now() + delay);
      await sleep(delay, signal);
    }
  }

  return (operation, send) => (input, signal) => call(operation, send, input, signal);
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
  });
}
