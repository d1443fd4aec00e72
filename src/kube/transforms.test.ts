import { describe, expect, test } from "bun:test";
import { changeOf } from "./informer-mirror.ts";
import type { Node, NodeCondition } from "./objects.ts";
import { trimNode } from "./transforms.ts";

const condition = (type: string, beat: string): NodeCondition => ({
  type,
  status: "True",
  reason: `${type}Reason`,
  lastHeartbeatTime: beat,
  lastTransitionTime: "2026-11-26T00:00:00Z",
});

const kubeletNode = (resourceVersion: string, beat: string): Node => ({
  metadata: { name: "n", resourceVersion, managedFields: [{ manager: "kubelet" }] } as Node["metadata"],
  spec: { providerID: "fake://n" },
  status: {
    conditions: ["MemoryPressure", "Ready", "NetworkUnavailable"].map((type) => condition(type, beat)),
    addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
  },
});

describe("trimNode", () => {
  test("keeps Ready and NetworkUnavailable, without their heartbeat times; drops managedFields", () => {
    const trimmed = trimNode(kubeletNode("1", "2026-11-26T10:00:00Z"));
    expect(trimmed.status?.conditions).toEqual([
      { type: "Ready", status: "True", reason: "ReadyReason", lastTransitionTime: "2026-11-26T00:00:00Z" },
      {
        type: "NetworkUnavailable",
        status: "True",
        reason: "NetworkUnavailableReason",
        lastTransitionTime: "2026-11-26T00:00:00Z",
      },
    ]);
    expect(trimmed.metadata).toEqual({ name: "n", resourceVersion: "1" });
  });

  test("a status heartbeat trims to the cached Node at a newer resourceVersion", () => {
    const before = trimNode(kubeletNode("1", "2026-11-26T10:00:00Z"));
    const after = trimNode(kubeletNode("2", "2026-11-26T10:05:00Z"));
    expect(changeOf(before, after)).toBe("version");
    const moved = trimNode({ ...kubeletNode("3", "2026-11-26T10:05:00Z"), spec: { providerID: "fake://m" } });
    expect(changeOf(before, moved)).toBe("object");
  });
});
