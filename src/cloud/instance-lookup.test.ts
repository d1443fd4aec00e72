import { describe, expect, test } from "bun:test";
import { kubeletNode } from "../../test/harness/fixtures.ts";
import type { Node } from "../kube/objects.ts";
import { InstanceNotFoundError, NotImplementedError } from "./errors.ts";
import { CloudCallTimeoutError, createInstanceLookup } from "./instance-lookup.ts";
import type { Answer, InstanceMetadata, InstancesV2, InstanceState } from "./provider.ts";

const metadataFor = (node: Node): InstanceMetadata => ({
  providerID: `test://${node.metadata.name}`,
  instanceType: "t",
  nodeAddresses: [],
  zone: "z",
  region: "r",
});
const nodes = (n: number): Node[] => Array.from({ length: n }, (_, i) => kubeletNode(`node-${i}`));

interface Recorder {
  readonly batches: string[][];
  readonly singles: string[];
}

/** A provider whose batch calls answer from `answer` and record which nodes each call carried. */
function batchingProvider(
  rec: Recorder,
  maxBatchSize: number,
  answer: (node: Node) => Answer<InstanceMetadata | undefined> = (node) => ({ value: metadataFor(node) }),
): InstancesV2 {
  const fail = (): never => {
    throw new Error("single-node call made although batching is offered");
  };
  return {
    instanceExists: fail,
    instanceShutdown: fail,
    instanceMetadata: fail,
    batch: {
      maxBatchSize,
      async instanceMetadataBatch(batch) {
        rec.batches.push(batch.map((n) => n.metadata.name));
        await Bun.sleep(1);
        return batch.map(answer);
      },
      instanceStateBatch(batch) {
        rec.batches.push(batch.map((n) => n.metadata.name));
        return Promise.resolve(
          batch.map((n): Answer<InstanceState> =>
            n.metadata.name === "gone" ? { value: { exists: false } } : { value: { exists: true, shutdown: false } },
          ),
        );
      },
    },
  };
}

describe("instance lookup with a batching provider", () => {
  test("questions asked together become ceil(N / size) calls, size = min(flag, provider limit)", async () => {
    const cases = [
      { n: 1, flag: 100, provider: 50, calls: [1] },
      { n: 120, flag: 100, provider: 50, calls: [50, 50, 20] },
      { n: 120, flag: 40, provider: 500, calls: [40, 40, 40] },
      { n: 7, flag: 100, provider: 100, calls: [7] },
    ];
    for (const c of cases) {
      const rec: Recorder = { batches: [], singles: [] };
      const lookup = createInstanceLookup(batchingProvider(rec, c.provider), { windowMs: 5, maxBatchSize: c.flag });
      expect(lookup.batchSize).toBe(Math.min(c.flag, c.provider));
      const answers = await Promise.all(nodes(c.n).map((n) => lookup.metadata(n)));
      expect(rec.batches.map((b) => b.length)).toEqual(c.calls);
      expect(answers.map((a) => a?.providerID)).toEqual(nodes(c.n).map((n) => `test://${n.metadata.name}`));
    }
  });

  test("questions further apart than the window go in separate calls", async () => {
    const rec: Recorder = { batches: [], singles: [] };
    const lookup = createInstanceLookup(batchingProvider(rec, 100), { windowMs: 5, maxBatchSize: 100 });
    const [a, b] = nodes(2) as [Node, Node];
    const first = lookup.metadata(a);
    await Bun.sleep(30);
    await Promise.all([first, lookup.metadata(b)]);
    expect(rec.batches).toEqual([["node-0"], ["node-1"]]);
  });

  test("a per-node error fails only that node; undefined metadata stays undefined", async () => {
    const rec: Recorder = { batches: [], singles: [] };
    const answer = (node: Node): Answer<InstanceMetadata | undefined> => {
      if (node.metadata.name === "node-1") return { error: new InstanceNotFoundError("gone") };
      if (node.metadata.name === "node-2") return { value: undefined };
      return { value: metadataFor(node) };
    };
    const lookup = createInstanceLookup(batchingProvider(rec, 100, answer), { windowMs: 1, maxBatchSize: 100 });
    const results = await Promise.allSettled(nodes(3).map((n) => lookup.metadata(n)));
    expect(rec.batches).toHaveLength(1);
    expect(results[0]).toEqual({ status: "fulfilled", value: metadataFor(kubeletNode("node-0")) });
    expect(results[1]?.status === "rejected" && results[1].reason instanceof InstanceNotFoundError).toBe(true);
    expect(results[2]).toEqual({ status: "fulfilled", value: undefined });
  });

  test("a failed batch call, or one with the wrong number of answers, fails every caller in it", async () => {
    for (const broken of ["throws", "short"] as const) {
      const instances: InstancesV2 = {
        ...batchingProvider({ batches: [], singles: [] }, 100),
        batch: {
          maxBatchSize: 100,
          instanceMetadataBatch: (batch) => {
            if (broken === "throws") return Promise.reject(new Error("RequestLimitExceeded"));
            return Promise.resolve(batch.slice(1).map((n) => ({ value: metadataFor(n) })));
          },
          instanceStateBatch: () => Promise.reject(new Error("unused")),
        },
      };
      const lookup = createInstanceLookup(instances, { windowMs: 1, maxBatchSize: 100 });
      const results = await Promise.allSettled(nodes(3).map((n) => lookup.metadata(n)));
      expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    }
  });

  test("state answers come from the state batch; exists:false only where the provider said so", async () => {
    const rec: Recorder = { batches: [], singles: [] };
    const lookup = createInstanceLookup(batchingProvider(rec, 100), { windowMs: 1, maxBatchSize: 100 });
    const states = await Promise.all([kubeletNode("gone"), kubeletNode("here")].map((n) => lookup.state(n)));
    expect(states).toEqual([{ exists: false }, { exists: true, shutdown: false }]);
    expect(rec.batches).toEqual([["gone", "here"]]);
  });

  test("a batch call that never answers times out as an error", async () => {
    const instances: InstancesV2 = {
      ...batchingProvider({ batches: [], singles: [] }, 100),
      batch: {
        maxBatchSize: 100,
        instanceMetadataBatch: () => new Promise(() => undefined),
        instanceStateBatch: () => new Promise(() => undefined),
      },
    };
    const lookup = createInstanceLookup(instances, { windowMs: 1, maxBatchSize: 100, timeoutMs: 20 });
    const error = await lookup.state(kubeletNode("a")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudCallTimeoutError);
  });
});

describe("instance lookup without batching", () => {
  const single = (state: "running" | "stopped" | "gone" | "noShutdown" | "broken", calls: string[]): InstancesV2 => ({
    instanceExists(node) {
      calls.push(`exists ${node.metadata.name}`);
      if (state === "broken") return Promise.reject(new Error("InternalError"));
      return Promise.resolve(state !== "gone");
    },
    instanceShutdown(node) {
      calls.push(`shutdown ${node.metadata.name}`);
      if (state === "noShutdown") return Promise.reject(new NotImplementedError());
      return Promise.resolve(state === "stopped");
    },
    instanceMetadata(node) {
      calls.push(`metadata ${node.metadata.name}`);
      return Promise.resolve(metadataFor(node));
    },
  });

  const table: { state: Parameters<typeof single>[0]; want: InstanceState | "error"; calls: string[] }[] = [
    { state: "running", want: { exists: true, shutdown: false }, calls: ["exists a", "shutdown a"] },
    { state: "stopped", want: { exists: true, shutdown: true }, calls: ["exists a", "shutdown a"] },
    { state: "gone", want: { exists: false }, calls: ["exists a"] },
    { state: "noShutdown", want: { exists: true, shutdown: false }, calls: ["exists a", "shutdown a"] },
    { state: "broken", want: "error", calls: ["exists a"] },
  ];
  for (const row of table) {
    test(`state of a ${row.state} instance: upstream's exists-then-shutdown calls`, async () => {
      const calls: string[] = [];
      const lookup = createInstanceLookup(single(row.state, calls), { windowMs: 5, maxBatchSize: 100 });
      expect(lookup.batchSize).toBe(1);
      const got = await lookup.state(kubeletNode("a")).catch(() => "error" as const);
      expect(got).toEqual(row.want);
      expect(calls).toEqual(row.calls);
    });
  }

  test("metadata is one single-node call per node", async () => {
    const calls: string[] = [];
    const lookup = createInstanceLookup(single("running", calls), { windowMs: 5, maxBatchSize: 100 });
    await Promise.all(nodes(3).map((n) => lookup.metadata(n)));
    expect(calls).toEqual(["metadata node-0", "metadata node-1", "metadata node-2"]);
  });
});
