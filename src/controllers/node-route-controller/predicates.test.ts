import { describe, expect, test } from "bun:test";
import type { Node, NodeAddress } from "../../kube/objects.ts";
import { formatCIDR, parseCIDR } from "../../net/ip.ts";
import { kubeletNode } from "../../../test/harness/fixtures.ts";
import {
  isNormalIPv4CIDR,
  normalCIDR,
  podCIDRs,
  sameAddresses,
  shouldReconcileUpdatedNode,
  validateClusterCidrs,
} from "./predicates.ts";

describe("validateClusterCidrs", () => {
  test.each([
    { name: "one IPv4", flag: "10.244.0.0/16", problem: undefined },
    { name: "one IPv6", flag: "fd00:10::/56", problem: undefined },
    { name: "dual-stack", flag: "10.244.0.0/16,fd00:10::/56", problem: undefined },
    { name: "empty", flag: "", problem: /^invalid value "" for flag --cluster-cidr: .*--configure-cloud-routes=false/ },
    {
      name: "three",
      flag: "10.1.0.0/16,10.2.0.0/16,fd00::/56",
      problem: /^invalid value "10.1.0.0\/16,10.2.0.0\/16,fd00::\/56" for flag --cluster-cidr: at most two/,
    },
    {
      name: "two IPv4",
      flag: "10.1.0.0/16,10.2.0.0/16",
      problem:
        /^invalid value "10.1.0.0\/16,10.2.0.0\/16" for flag --cluster-cidr: two CIDRs must be one IPv4 and one IPv6/,
    },
    { name: "two IPv6", flag: "fd00:1::/56,fd00:2::/56", problem: /one IPv4 and one IPv6/ },
  ])("$name", ({ flag, problem }) => {
    const parsed = flag === "" ? [] : flag.split(",").map((t) => parseCIDR(t)!);
    const result = validateClusterCidrs(parsed);
    if (problem) expect(result).toMatch(problem);
    else expect(result).toBeUndefined();
  });
});

describe("node changes that reach the route plan", () => {
  const base = kubeletNode("a", { nodeIP: "10.0.0.1", uninitialized: false });
  test.each([
    { name: "labels", change: (n: Node) => void (n.metadata.labels = { x: "y" }), want: false },
    {
      name: "conditions (our own writes)",
      change: (n: Node) => void (n.status!.conditions = [{ type: "NetworkUnavailable", status: "False" }]),
      want: false,
    },
    { name: "addresses reordered", change: (n: Node) => void n.status!.addresses!.reverse(), want: false },
    {
      name: "pod CIDRs assigned",
      change: (n: Node) => void ((n.spec!.podCIDRs = ["10.244.1.0/24"]), (n.spec!.podCIDR = "10.244.1.0/24")),
      want: true,
    },
    {
      name: "pod CIDR respelled with host bits",
      change: (n: Node) => void ((n.spec!.podCIDRs = ["10.244.0.7/24"]), (n.spec!.podCIDR = "10.244.0.7/24")),
      want: false,
    },
    {
      name: "address changed",
      change: (n: Node) => void (n.status!.addresses = [{ type: "InternalIP", address: "10.0.0.2" }]),
      want: true,
    },
  ])("$name → $want", ({ change, want }) => {
    base.spec!.podCIDRs = ["10.244.0.0/24"];
    base.spec!.podCIDR = "10.244.0.0/24";
    const after = structuredClone(base);
    change(after);
    expect(shouldReconcileUpdatedNode(base, after)).toBe(want);
  });

  test("podCIDRs falls back to the single podCIDR field and normalises", () => {
    const n = kubeletNode("a");
    n.spec!.podCIDR = "fd00:0010:0000:0001::/64";
    expect(podCIDRs(n)).toEqual(["fd00:10:0:1::/64"]);
  });
});

describe("normalCIDR", () => {
  test.each([
    { text: "10.244.1.0/24", normal: true },
    { text: "0.0.0.0/0", normal: true },
    { text: "255.255.255.255/32", normal: true },
    { text: "10.244.1.7/24", normal: false },
    { text: "10.244.1.0/33", normal: false },
    { text: "010.244.1.0/24", normal: false },
    { text: "10.244.1.0/024", normal: false },
    { text: "256.0.0.0/8", normal: false },
    { text: " 10.244.1.0/24", normal: false },
    { text: "fd00:0010::/64", normal: false },
    { text: "fd00:10::/64", normal: false },
    { text: "not a cidr", normal: false },
  ])("$text: normal IPv4 $normal, and the same answer as the general parse", ({ text, normal }) => {
    expect(isNormalIPv4CIDR(text)).toBe(normal);
    const cidr = parseCIDR(text);
    expect(normalCIDR(text)).toBe(cidr ? formatCIDR(cidr) : text);
  });
});

describe("sameAddresses", () => {
  const a: NodeAddress = { type: "InternalIP", address: "10.0.0.1" };
  const b: NodeAddress = { type: "Hostname", address: "a" };
  test.each([
    { x: [a, b], y: [a, b], want: true },
    { x: [a, b], y: [b, a], want: true },
    { x: [a], y: [a, b], want: false },
    { x: [a, a], y: [a], want: true },
    { x: undefined, y: [], want: true },
    { x: [a], y: [{ ...a, type: "ExternalIP" }], want: false },
  ])("%#", ({ x, y, want }) => {
    expect(sameAddresses(x, y)).toBe(want);
  });
});
