import { describe, expect, test } from "bun:test";
import { loadConfig } from "../config/load.ts";
import { describeAccess, expandRules, grantedAccess, neededFor, type Access } from "./access.ts";
import type { PolicyRule } from "../kube/objects.ts";
import { rbacManifests } from "./rbac.ts";

describe("expandRules", () => {
  const cases: { name: string; rules: PolicyRule[]; namespace?: string; expect: Access[] }[] = [
    {
      name: "verbs × resources",
      rules: [{ apiGroups: [""], resources: ["nodes", "nodes/status"], verbs: ["get", "patch"] }],
      expect: [
        { verb: "get", group: "", resource: "nodes" },
        { verb: "patch", group: "", resource: "nodes" },
        { verb: "get", group: "", resource: "nodes", subresource: "status" },
        { verb: "patch", group: "", resource: "nodes", subresource: "status" },
      ],
    },
    {
      name: "several groups",
      rules: [{ apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create"] }],
      expect: [
        { verb: "create", group: "", resource: "events" },
        { verb: "create", group: "events.k8s.io", resource: "events" },
      ],
    },
    {
      name: "names and a namespace",
      rules: [
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: ["a", "b"], verbs: ["update"] },
      ],
      namespace: "ns",
      expect: [
        { verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: "ns", name: "a" },
        { verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: "ns", name: "b" },
      ],
    },
    {
      name: "non-resource URLs",
      rules: [{ apiGroups: [], nonResourceURLs: ["/metrics"], verbs: ["get"] }],
      expect: [{ verb: "get", group: "", resource: "", path: "/metrics" }],
    },
  ];
  for (const c of cases) test(c.name, () => expect(expandRules(c.rules, c.namespace)).toEqual(c.expect));
});

describe("grantedAccess", () => {
  test("cluster rules are cluster-wide, Role rules stay in the Role's namespace, bindings grant nothing by themselves", () => {
    const granted = grantedAccess(rbacManifests({ namespace: "ccm-system", leaseName: "l" }));
    expect(granted.filter((a) => a.namespace !== undefined).every((a) => a.namespace === "ccm-system")).toBe(true);
    expect(granted.find((a) => a.resource === "leases" && a.name === "l" && a.verb === "update")).toEqual({
      verb: "update",
      group: "coordination.k8s.io",
      resource: "leases",
      namespace: "ccm-system",
      name: "l",
    });
    // Tokens only of the three controller identities: one of any kube-system ServiceAccount reaches cluster-admin.
    const tokens = granted.filter((a) => a.resource === "serviceaccounts" && a.subresource === "token");
    expect(tokens.map((a) => a.name).sort()).toEqual(["node-controller", "route-controller", "service-controller"]);
    const reads = granted.filter((a) => a.resource === "serviceaccounts" && a.verb === "get" && !a.subresource);
    expect(reads.every((a) => a.name !== undefined)).toBe(true);
    expect(granted.find((a) => a.resource === "nodes" && a.verb === "delete")).toEqual({
      verb: "delete",
      group: "",
      resource: "nodes",
    });
  });
});

describe("neededFor", () => {
  const config = (...argv: string[]) => {
    const loaded = loadConfig(["--cloud-provider=fake", ...argv], ["fake"]);
    if (!loaded.ok) throw new Error(loaded.errors.join("; "));
    return loaded.config;
  };
  const lease: Access = { verb: "update", group: "coordination.k8s.io", resource: "leases" };
  const token: Access = { verb: "create", group: "", resource: "serviceaccounts", subresource: "token" };
  const review: Access = { verb: "create", group: "authentication.k8s.io", resource: "tokenreviews" };
  const serviceStatus: Access = { verb: "patch", group: "", resource: "services", subresource: "status" };
  const node: Access = { verb: "patch", group: "", resource: "nodes" };
  const namespaces: Access = { verb: "watch", group: "", resource: "namespaces" };
  const future: Access = { verb: "get", group: "example.com", resource: "widgets" };
  const cases: { name: string; access: Access; argv: string[]; expect: string | undefined }[] = [
    { name: "leases with leader election", access: lease, argv: [], expect: "leader election" },
    { name: "no leases without it", access: lease, argv: ["--leader-elect=false"], expect: undefined },
    { name: "tokens only with per-controller credentials", access: token, argv: [], expect: undefined },
    {
      name: "tokens with per-controller credentials",
      access: token,
      argv: ["--use-service-account-credentials"],
      expect: "--use-service-account-credentials",
    },
    {
      name: "reviews for the secure port",
      access: review,
      argv: [],
      expect: "delegated authentication on the secure port",
    },
    { name: "no reviews without serving", access: review, argv: ["--secure-port=0"], expect: undefined },
    { name: "services for the service controller", access: serviceStatus, argv: [], expect: "service-lb-controller" },
    { name: "no services without it", access: serviceStatus, argv: ["--controllers=*,-service"], expect: undefined },
    {
      name: "namespaces for pools' selectors",
      access: namespaces,
      argv: [],
      expect: "address pools' namespaceSelectors (service-lb-controller)",
    },
    {
      name: "no namespaces without the service controller",
      access: namespaces,
      argv: ["--controllers=*,-service"],
      expect: undefined,
    },
    { name: "nodes always", access: node, argv: ["--controllers=service"], expect: "the manager" },
    { name: "rules added later are needed by default", access: future, argv: [], expect: "the manager" },
  ];
  for (const c of cases) test(c.name, () => expect(neededFor(c.access, config(...c.argv))).toBe(c.expect as string));
});

test("describeAccess", () => {
  expect([
    describeAccess({ verb: "patch", group: "", resource: "nodes", subresource: "status" }),
    describeAccess({
      verb: "get",
      group: "coordination.k8s.io",
      resource: "leases",
      namespace: "kube-system",
      name: "ccm",
    }),
    describeAccess({ verb: "get", group: "", resource: "", path: "/metrics" }),
  ]).toEqual(["patch nodes/status", 'get leases.coordination.k8s.io "ccm" in namespace kube-system', "get /metrics"]);
});
