/**
 * The fake provider's only way to its cloud: the in-process engine, or the shared engine behind
 * `endpoint` over HTTP. Every call is reported to the manager's cloud-call metrics with its outcome.
 */
import type { ProviderContext } from "../../src/cloud/provider.ts";
import { FakeCloud, FakeCloudError } from "./engine.ts";
import type { WireError } from "./wire.ts";

export interface FakeCloudApi {
  call<T>(operation: string, body: unknown, signal?: AbortSignal): Promise<T>;
}

const TIMEOUT_MS = 30_000;

export function inProcessApi(engine: FakeCloud, context: ProviderContext): FakeCloudApi {
  return {
    call: <T>(operation: string, body: unknown, signal?: AbortSignal) =>
      observed(context, operation, async () => (await engine.call(operation, body, signal)) as T),
  };
}

export function httpApi(endpoint: string, context: ProviderContext): FakeCloudApi {
  const base = endpoint.replace(/\/+$/, "");
  return {
    call: <T>(operation: string, body: unknown, signal?: AbortSignal) =>
      observed(context, operation, async () => {
        const timeout = AbortSignal.timeout(TIMEOUT_MS);
        const response = await fetch(`${base}/v1/call/${operation}`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        const answer = (await response.json()) as { error?: WireError } & T;
        if (answer.error) throw new FakeCloudError(answer.error.code, answer.error.message);
        return answer;
      }),
  };
}

async function observed<T>(context: ProviderContext, operation: string, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await call();
    context.observeCall(operation, (performance.now() - started) / 1000, "success");
    return result;
  } catch (error) {
    const throttled = error instanceof FakeCloudError && error.code === "Throttled";
    context.observeCall(operation, (performance.now() - started) / 1000, throttled ? "throttled" : "error");
    throw error;
  }
}
