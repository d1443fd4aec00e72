import { describe, expect, test } from "bun:test";
import type { MirrorOp } from "../../kube/informer-mirror.ts";
import { createLogger } from "../../log/logger.ts";
import type { ToWorker } from "./protocol.ts";
import { mirrorOf, type WorkerScope } from "./worker-main.ts";

function scope(): { scope: WorkerScope; send: (ops: MirrorOp[]) => void } {
  const handlers: ((m: ToWorker) => void)[] = [];
  return {
    scope: { postMessage: () => undefined, onMessage: (h) => handlers.push(h) },
    send: (ops) => handlers.forEach((h) => h({ type: "informers", ops: JSON.stringify(ops) })),
  };
}

describe("a thread's mirror", () => {
  // Readiness waits for every thread's caches: a thread reports them synced when they sync, not at its
  // next once-a-second health report.
  test("tells the thread when a cache syncs, after applying the batch, and on no other batch", () => {
    const { scope: s, send } = scope();
    const synced: boolean[] = [];
    const informers = mirrorOf(s, createLogger({ verbosity: 0, format: "text", write: () => undefined }), () =>
      synced.push(informers.synced),
    );
    informers.nodes();
    const node = { apiVersion: "v1", kind: "Node", metadata: { name: "n1", resourceVersion: "1" } };
    send([["nodes", "set", node]]);
    expect(synced).toEqual([]);
    send([["nodes", "synced"]]);
    expect(synced).toEqual([true]);
    expect(informers.nodes().get("n1")?.metadata.name).toBe("n1");
    send([["nodes", "delete", node]]);
    expect(synced).toEqual([true]);
  });
});
