import { describe, expect, test } from "bun:test";
import { loadConfig } from "../config/load.ts";
import type { Lease, Node } from "../kube/objects.ts";
import {
  clusterCidrFindings,
  failed,
  leaseFindings,
  nameList,
  nodeFindings,
  providerFindings,
  rbacFindings,
  registeredWithoutExternal,
  type Finding,
} from "./findings.ts";
import { renderJson, renderTable } from "./report.ts";

const config = (...argv: string[]) => {
  const loaded = loadConfig(["--cloud-provider=fake", ...argv], ["fake"]);
  if (!loaded.ok) throw new Error(loaded.errors.join("; "));
  return loaded.config;
};

const UNINIT = { key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" as const };
const node = (name: string, spec: Node["spec"] = {}): Node => ({ metadata: { name }, spec });
const statuses = (findings: Finding[]) => findings.map((f) => f.status);

describe("nodes", () => {
  const cases: { name: string; node: Node; bad: boolean }[] = [
    { name: "tainted, waiting", node: node("a", { taints: [UNINIT] }), bad: false },
    { name: "initialised", node: node("b", { providerID: "fake://b" }), bad: false },
    {
      name: "no providerID, no taint",
      node: node("c", { taints: [{ key: "other", effect: "NoSchedule" }] }),
      bad: true,
    },
    { name: "no spec at all", node: { metadata: { name: "d" } }, bad: true },
  ];
  for (const c of cases) test(c.name, () => expect(registeredWithoutExternal(c.node)).toBe(c.bad));

  test("the bad ones are named, the waiting ones counted", () => {
    const findings = nodeFindings([
      node("a", { taints: [UNINIT] }),
      node("c"),
      node("d"),
      node("b", { providerID: "x://b" }),
    ]);
    expect(statuses(findings)).toEqual(["fail", "note"]);
    expect(findings[0]!.detail).toContain("2 node(s) registered without --cloud-provider=external");
    expect(findings[0]!.detail).toContain(": c, d.");
    expect(findings[1]!.detail).toBe("1 node(s) carry the uninitialized taint and wait for this manager");
    expect(statuses(nodeFindings([node("b", { providerID: "x://b" })]))).toEqual(["ok"]);
  });

  test("long lists are summarised", () => {
    expect(nameList(Array.from({ length: 12 }, (_, i) => `n${i}`))).toBe(
      "n0, n1, n2, n3, n4, n5, n6, n7, n8, n9 and 2 more",
    );
  });
});

describe("cluster-cidr", () => {
  const nodes = [
    node("a", { podCIDRs: ["10.244.1.0/24", "fd00:10:244:1::/64"] }),
    node("b", { podCIDR: "10.244.2.0/24" }),
    node("c"),
  ];
  const cases: {
    name: string;
    argv: string[];
    nodes: Node[];
    routes?: boolean;
    expect: Finding["status"];
    detail: RegExp;
  }[] = [
    {
      name: "all inside",
      argv: ["--cluster-cidr=10.244.0.0/16,fd00:10:244::/56"],
      nodes,
      expect: "ok",
      detail: /2 of 3 node\(s\) have podCIDRs, all inside --cluster-cidr=10\.244\.0\.0\/16,fd00:10:244::\/56/,
    },
    {
      name: "a podCIDR outside",
      argv: ["--cluster-cidr=10.244.0.0/16,fd00:10:244::/56"],
      nodes: [...nodes, node("d", { podCIDR: "10.96.0.0/24" })],
      expect: "fail",
      detail: /1 podCIDR\(s\) outside .*: d \(10\.96\.0\.0\/24\)/,
    },
    {
      name: "a family the cluster CIDR lacks",
      argv: ["--cluster-cidr=10.244.0.0/16"],
      nodes,
      expect: "fail",
      detail: /a \(fd00:10:244:1::\/64\)/,
    },
    {
      name: "wider than the cluster CIDR",
      argv: ["--cluster-cidr=10.244.0.0/16"],
      nodes: [node("w", { podCIDR: "10.0.0.0/8" })],
      expect: "fail",
      detail: /w \(10\.0\.0\.0\/8\)/,
    },
    { name: "routes on without --cluster-cidr", argv: [], nodes, expect: "fail", detail: /--cluster-cidr is empty/ },
    { name: "routes off", argv: ["--configure-cloud-routes=false"], nodes, expect: "note", detail: /routes are off/ },
    {
      name: "route controller disabled",
      argv: ["--controllers=*,-route"],
      nodes,
      expect: "note",
      detail: /routes are off/,
    },
    { name: "provider without routes", argv: [], nodes, routes: false, expect: "note", detail: /has no routes/ },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const [finding, ...rest] = clusterCidrFindings(c.nodes, config(...c.argv), c.routes ?? true);
      expect(rest).toEqual([]);
      expect(finding!.status).toBe(c.expect);
      expect(finding!.detail).toMatch(c.detail);
    });
  }
});

describe("lease", () => {
  const now = Date.parse("2026-01-01T00:00:30Z");
  const lease = (holder: string, renew: string, seconds = 15): Lease => ({
    metadata: { name: "cloud-controller-manager" },
    spec: { holderIdentity: holder, renewTime: renew, leaseDurationSeconds: seconds },
  });
  const cases: { name: string; lease?: Lease; argv?: string[]; expect: Finding["status"]; detail: RegExp }[] = [
    { name: "absent", expect: "ok", detail: /kube-system\/cloud-controller-manager is free/ },
    { name: "released", lease: lease("", "2026-01-01T00:00:29.000000Z"), expect: "ok", detail: /is free/ },
    {
      name: "held and fresh",
      lease: lease("host-a_1234", "2026-01-01T00:00:25.000000Z"),
      expect: "fail",
      detail: /held by host-a_1234 \(renewed 5s ago\)/,
    },
    {
      name: "held but expired",
      lease: lease("host-a_1234", "2026-01-01T00:00:10.000000Z"),
      expect: "ok",
      detail: /was held by host-a_1234, expired/,
    },
    { name: "leader election off", argv: ["--leader-elect=false"], expect: "note", detail: /--leader-elect=false/ },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const [finding] = leaseFindings(c.lease, config(...(c.argv ?? [])), now);
      expect(finding!.status).toBe(c.expect);
      expect(finding!.detail).toMatch(c.detail);
    });
  }
});

describe("rbac and provider", () => {
  test("one row per gap, naming what needs it", () => {
    const answers = [
      {
        access: { verb: "patch", group: "", resource: "nodes", subresource: "status" },
        neededFor: "the manager",
        allowed: false,
      },
      { access: { verb: "get", group: "", resource: "nodes" }, neededFor: "the manager", allowed: true },
    ];
    expect(rbacFindings(answers, "me")).toEqual([
      { check: "rbac", status: "fail", detail: "me may not patch nodes/status (needed by the manager)" },
    ]);
    expect(rbacFindings(answers.slice(1), "me")).toEqual([
      { check: "rbac", status: "ok", detail: "me: all 1 needed permission(s) granted" },
    ]);
  });

  test("provider preflight: absent is a note, problems fail", () => {
    expect(statuses(providerFindings("x", undefined))).toEqual(["note"]);
    // What was asked is the provider's to log (bare metal cannot ask a BMC whose credentials are a Secret).
    expect(providerFindings("x", [])).toEqual([
      { check: "cloud", status: "ok", detail: "provider x: configuration parsed, its preflight found no problem" },
    ]);
    expect(providerFindings("x", ["bad token"])).toEqual([
      { check: "cloud", status: "fail", detail: "provider x: bad token" },
    ]);
  });
});

describe("report", () => {
  const findings: Finding[] = [
    { check: "nodes", status: "ok", detail: "fine" },
    { check: "cluster-cidr", status: "fail", detail: "broken" },
  ];
  test("table", () => {
    expect(renderTable(findings)).toBe(
      "CHECK         STATUS  DETAIL\nnodes         OK      fine\ncluster-cidr  FAIL    broken\n\n1 problem(s) found\n",
    );
    expect(failed(findings)).toBe(true);
  });
  test("json", () => expect(JSON.parse(renderJson(findings))).toEqual({ ok: false, findings }));
});
