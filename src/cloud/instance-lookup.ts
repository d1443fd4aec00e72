/**
 * Per-node instance questions as the node controllers ask them, answered with the fewest cloud calls.
 * When the provider offers `instances.batch`, calls made within `windowMs` of each other are coalesced
 * into one batched call of at most min(`maxBatchSize`, provider's `maxBatchSize`) nodes, so N nodes cost
 * O(N / batch) cloud calls instead of O(N). Otherwise each question is the upstream single-node call.
 *
 * Contract for callers: an answer is only ever a provider's answer. A failed, throttled or timed-out call,
 * for the whole batch or for one node, rejects that node's promise; it never turns into "does not exist".
 */
import { NotImplementedError } from "./errors.ts";
import type { Answer, InstanceMetadata, InstancesV2, InstanceState } from "./provider.ts";
import type { Node } from "../kube/objects.ts";

export interface InstanceLookup {
  /**
   * How many questions one cloud call can answer: 1 without batching. Callers that have many nodes to
   * ask about issue this many at once, so the batches fill.
   */
  readonly batchSize: number;
  /** `undefined` is the provider's "skip this node for now" (upstream's nil metadata). */
  metadata(node: Node): Promise<InstanceMetadata | undefined>;
  state(node: Node): Promise<InstanceState>;
}

export interface InstanceLookupOptions {
  /** How long to collect questions before one batched call (`--cloud-batch-window`). */
  readonly windowMs: number;
  /** The most nodes in one batched call (`--cloud-batch-size`); the provider's own limit also applies. */
  readonly maxBatchSize: number;
  /** A call without an answer by then fails (default 30 s), so a hung cloud cannot hold a worker forever. */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** The cloud gave no answer in time. Like every other failure it means "unknown", never "gone". */
export class CloudCallTimeoutError extends Error {
  override readonly name = "CloudCallTimeoutError";
}

export function createInstanceLookup(instances: InstancesV2, options: InstanceLookupOptions): InstanceLookup {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { batch } = instances;
  if (!batch) {
    return {
      batchSize: 1,
      metadata: (node) => bounded(timeoutMs, "instance metadata", (signal) => instances.instanceMetadata(node, signal)),
      state: (node) => bounded(timeoutMs, "instance state", (signal) => singleState(instances, node, signal)),
    };
  }
  const size = Math.max(1, Math.min(options.maxBatchSize, batch.maxBatchSize));
  const coalesce = <T>(
    what: string,
    call: (nodes: readonly Node[], signal: AbortSignal) => Promise<readonly Answer<T>[]>,
  ): ((node: Node) => Promise<T>) =>
    coalescer(size, options.windowMs, (nodes) =>
      bounded(timeoutMs, `${what} for ${nodes.length} node(s)`, (signal) => call(nodes, signal)),
    );
  return {
    batchSize: size,
    metadata: coalesce("instance metadata", (nodes, signal) => batch.instanceMetadataBatch(nodes, signal)),
    state: coalesce("instance state", (nodes, signal) => batch.instanceStateBatch(nodes, signal)),
  };
}

/** Upstream's two calls: exists, then shutdown. `NotImplemented` from shutdown means "not shut down". */
async function singleState(instances: InstancesV2, node: Node, signal: AbortSignal): Promise<InstanceState> {
  if (!(await instances.instanceExists(node, signal))) return { exists: false };
  try {
    return { exists: true, shutdown: await instances.instanceShutdown(node, signal) };
  } catch (error) {
    if (error instanceof NotImplementedError) return { exists: true, shutdown: false };
    throw error;
  }
}

interface Waiter<T> {
  readonly node: Node;
  readonly resolve: (value: T) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Collects questions for `windowMs` after the first one (or until `size` are waiting), then sends them as
 * one call. Each answer goes to its own caller; a failed call fails every caller of that batch.
 */
function coalescer<T>(
  size: number,
  windowMs: number,
  send: (nodes: readonly Node[]) => Promise<readonly Answer<T>[]>,
): (node: Node) => Promise<T> {
  let pending: Waiter<T>[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    const waiters = pending;
    pending = [];
    void deliver(waiters, send);
  };
  return (node) =>
    new Promise<T>((resolve, reject) => {
      pending.push({ node, resolve, reject });
      if (pending.length >= size) flush();
      else timer ??= setTimeout(flush, windowMs);
    });
}

async function deliver<T>(
  waiters: readonly Waiter<T>[],
  send: (nodes: readonly Node[]) => Promise<readonly Answer<T>[]>,
): Promise<void> {
  let answers: readonly Answer<T>[];
  try {
    answers = await send(waiters.map((w) => w.node));
    if (answers.length !== waiters.length)
      throw new Error(`the cloud provider returned ${answers.length} answer(s) for ${waiters.length} node(s)`);
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    for (const w of waiters) w.reject(failure);
    return;
  }
  waiters.forEach((w, i) => {
    const answer = answers[i] as Answer<T>;
    if ("error" in answer) w.reject(answer.error);
    else w.resolve(answer.value);
  });
}

/** Runs `call` with a signal that aborts after `ms`, and stops waiting then even if the provider does not. */
async function bounded<T>(ms: number, what: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new CloudCallTimeoutError(`${what}: no answer from the cloud provider within ${ms} ms`);
      controller.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([call(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
