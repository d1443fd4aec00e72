import { describe, expect, test } from "bun:test";
import type { Node, Service } from "../../kube/objects.ts";
import {
  FINALIZER_LB_CLEANUP,
  LABEL_EXCLUDE_FROM_EXTERNAL_LB,
  TAINT_TO_BE_DELETED_BY_AUTOSCALER,
} from "../../kube/well-known.ts";
import { kubeletNode, loadBalancerService } from "../../../test/harness/fixtures.ts";
import {
  excludedByLabel,
  includedInLoadBalancers,
  ingressEqual,
  needsCleanup,
  needsUpdate,
  nodeSetIdentity,
  shouldSyncUpdatedNode,
  wantsLoadBalancer,
} from "./predicates.ts";

const CLASS = "example.com/lb";

function svc(change: (s: Service) => void = () => undefined): Service {
  const s = loadBalancerService("web", "ns");
  s.metadata.uid = "uid-1";
  s.spec!.ports = [{ name: "http", protocol: "TCP", port: 80, targetPort: 8080, nodePort: 30080 }];
  change(s);
  return s;
}

function node(name: string, change: (n: Node) => void = () => undefined): Node {
  const n = kubeletNode(name, { uninitialized: false, providerID: `fake://${name}` });
  change(n);
  return n;
}

describe("wantsLoadBalancer", () => {
  test.each([
    { name: "LoadBalancer, no class", service: svc(), served: "", want: true },
    { name: "ClusterIP", service: svc((s) => (s.spec!.type = "ClusterIP")), served: "", want: false },
    { name: "NodePort", service: svc((s) => (s.spec!.type = "NodePort")), served: "", want: false },
    {
      name: "classed, no --load-balancer-class (upstream ignores it)",
      service: svc((s) => (s.spec!.loadBalancerClass = CLASS)),
      served: "",
      want: false,
    },
    { name: "classed, our class", service: svc((s) => (s.spec!.loadBalancerClass = CLASS)), served: CLASS, want: true },
    {
      name: "classed, another class",
      service: svc((s) => (s.spec!.loadBalancerClass = "other.io/lb")),
      served: CLASS,
      want: false,
    },
    { name: "no class while serving a class", service: svc(), served: CLASS, want: true },
  ])("$name", ({ service, served, want }) => {
    expect(wantsLoadBalancer(service, served)).toBe(want);
  });
});

describe("needsCleanup", () => {
  const withFinalizer = (s: Service): void => void (s.metadata.finalizers = ["other.io/keep", FINALIZER_LB_CLEANUP]);
  test.each([
    {
      name: "no finalizer, deleting",
      service: svc((s) => (s.metadata.deletionTimestamp = "2026-01-01T00:00:00Z")),
      want: false,
    },
    { name: "finalizer, LoadBalancer, alive", service: svc(withFinalizer), want: false },
    {
      name: "finalizer, deleting",
      service: svc((s) => {
        withFinalizer(s);
        s.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
      }),
      want: true,
    },
    {
      name: "finalizer, type changed to ClusterIP",
      service: svc((s) => {
        withFinalizer(s);
        s.spec!.type = "ClusterIP";
      }),
      want: true,
    },
    {
      name: "someone else's finalizer only, type changed",
      service: svc((s) => ((s.metadata.finalizers = ["other.io/keep"]), (s.spec!.type = "ClusterIP"))),
      want: false,
    },
  ])("$name", ({ service, want }) => {
    expect(needsCleanup(service)).toBe(want);
  });
});

describe("needsUpdate", () => {
  const base = svc();
  test.each([
    { name: "identical", change: () => undefined, want: false },
    { name: "labels only", change: (s: Service) => void (s.metadata.labels = { a: "b" }), want: false },
    { name: "selector only", change: (s: Service) => void (s.spec!.selector = { app: "other" }), want: false },
    {
      name: "ipFamilyPolicy only",
      change: (s: Service) => void (s.spec!.ipFamilyPolicy = "PreferDualStack"),
      want: false,
    },
    {
      name: "status only",
      change: (s: Service) => void (s.status = { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } }),
      want: false,
    },
    { name: "type flip", change: (s: Service) => void (s.spec!.type = "ClusterIP"), want: true },
    {
      name: "source ranges",
      change: (s: Service) => void (s.spec!.loadBalancerSourceRanges = ["10.0.0.0/8"]),
      want: true,
    },
    { name: "port number", change: (s: Service) => void (s.spec!.ports![0]!.port = 81), want: true },
    {
      name: "port added",
      change: (s: Service) => void s.spec!.ports!.push({ name: "https", protocol: "TCP", port: 443 }),
      want: true,
    },
    { name: "nodePort", change: (s: Service) => void (s.spec!.ports![0]!.nodePort = 30081), want: true },
    { name: "targetPort", change: (s: Service) => void (s.spec!.ports![0]!.targetPort = "http"), want: true },
    { name: "appProtocol", change: (s: Service) => void (s.spec!.ports![0]!.appProtocol = "h2c"), want: true },
    { name: "port name", change: (s: Service) => void (s.spec!.ports![0]!.name = "web"), want: true },
    { name: "protocol", change: (s: Service) => void (s.spec!.ports![0]!.protocol = "UDP"), want: true },
    { name: "sessionAffinity", change: (s: Service) => void (s.spec!.sessionAffinity = "ClientIP"), want: true },
    {
      name: "sessionAffinityConfig",
      change: (s: Service) => void (s.spec!.sessionAffinityConfig = { clientIP: { timeoutSeconds: 60 } }),
      want: true,
    },
    { name: "loadBalancerIP", change: (s: Service) => void (s.spec!.loadBalancerIP = "203.0.113.9"), want: true },
    { name: "externalIPs", change: (s: Service) => void (s.spec!.externalIPs = ["192.0.2.1"]), want: true },
    {
      name: "annotation added",
      change: (s: Service) => void (s.metadata.annotations = { "lb.fake.cloud/x": "1" }),
      want: true,
    },
    { name: "UID (recreated)", change: (s: Service) => void (s.metadata.uid = "uid-2"), want: true },
    {
      name: "externalTrafficPolicy",
      change: (s: Service) => void (s.spec!.externalTrafficPolicy = "Local"),
      want: true,
    },
    { name: "healthCheckNodePort", change: (s: Service) => void (s.spec!.healthCheckNodePort = 32000), want: true },
    { name: "second IP family", change: (s: Service) => void (s.spec!.ipFamilies = ["IPv4", "IPv6"]), want: true },
  ])("$name → $want", ({ change, want }) => {
    const updated = structuredClone(base);
    change(updated);
    expect(needsUpdate(base, updated, "")).toBe(want);
  });

  test("labels alone: a sync only for a provider that reads them (pools chosen by serviceSelectors)", () => {
    const relabelled = svc((s) => (s.metadata.labels = { pool: "blue" }));
    expect(needsUpdate(base, relabelled, "")).toBe(false);
    expect(needsUpdate(base, relabelled, "", true)).toBe(true);
    expect(needsUpdate(relabelled, structuredClone(relabelled), "", true)).toBe(false);
  });

  test("neither version wants a load balancer: never", () => {
    const a = svc((s) => (s.spec!.type = "ClusterIP"));
    const b = svc((s) => ((s.spec!.type = "ClusterIP"), (s.spec!.ports![0]!.port = 81)));
    expect(needsUpdate(a, b, "")).toBe(false);
  });

  test("a classed Service counts only with its class served", () => {
    const a = svc((s) => (s.spec!.loadBalancerClass = CLASS));
    const b = svc((s) => ((s.spec!.loadBalancerClass = CLASS), (s.spec!.ports![0]!.port = 81)));
    expect(needsUpdate(a, b, "")).toBe(false);
    expect(needsUpdate(a, b, CLASS)).toBe(true);
  });
});

describe("node-set predicates", () => {
  const label = (value: string) => node("n", (n) => (n.metadata.labels![LABEL_EXCLUDE_FROM_EXTERNAL_LB] = value));
  test.each([
    { name: "no label", n: node("n"), excluded: false },
    { name: "true", n: label("true"), excluded: true },
    { name: "True", n: label("True"), excluded: true },
    { name: "1", n: label("1"), excluded: true },
    { name: "false (included since v1.34)", n: label("false"), excluded: false },
    { name: "0", n: label("0"), excluded: false },
    { name: "F", n: label("F"), excluded: false },
    { name: "empty (unparsable)", n: label(""), excluded: true },
    { name: "yes (unparsable)", n: label("yes"), excluded: true },
  ])("exclusion label $name → excluded $excluded", ({ n, excluded }) => {
    expect(excludedByLabel(n)).toBe(excluded);
    expect(includedInLoadBalancers(n)).toBe(!excluded);
  });

  test.each([
    { name: "a plain node", n: node("n"), included: true },
    {
      name: "being deleted",
      n: node("n", (x) => (x.metadata.deletionTimestamp = "2026-01-01T00:00:00Z")),
      included: false,
    },
    {
      name: "autoscaler taint",
      n: node(
        "n",
        (x) => (x.spec!.taints = [{ key: TAINT_TO_BE_DELETED_BY_AUTOSCALER, value: "1", effect: "NoSchedule" }]),
      ),
      included: false,
    },
    {
      name: "other taint",
      n: node("n", (x) => (x.spec!.taints = [{ key: "example.com/t", effect: "NoSchedule" }])),
      included: true,
    },
    {
      name: "NotReady (readiness is no predicate)",
      n: node("n", (x) => (x.status!.conditions = [{ type: "Ready", status: "False" }])),
      included: true,
    },
    { name: "unschedulable", n: node("n", (x) => (x.spec!.unschedulable = true)), included: true },
  ])("$name → included $included", ({ n, included }) => {
    expect(includedInLoadBalancers(n)).toBe(included);
  });

  test.each([
    {
      name: "nothing relevant",
      change: (n: Node) => void (n.status!.conditions = [{ type: "Ready", status: "False" }]),
      want: false,
    },
    {
      name: "address change",
      change: (n: Node) => void (n.status!.addresses = [{ type: "InternalIP", address: "10.9.9.9" }]),
      want: false,
    },
    {
      name: "exclusion label added",
      change: (n: Node) => void (n.metadata.labels![LABEL_EXCLUDE_FROM_EXTERNAL_LB] = "true"),
      want: true,
    },
    {
      name: "exclusion label false (no change in result)",
      change: (n: Node) => void (n.metadata.labels![LABEL_EXCLUDE_FROM_EXTERNAL_LB] = "false"),
      want: false,
    },
    { name: "providerID", change: (n: Node) => void (n.spec!.providerID = "fake://other"), want: true },
    {
      name: "autoscaler taint",
      change: (n: Node) => void (n.spec!.taints = [{ key: TAINT_TO_BE_DELETED_BY_AUTOSCALER, effect: "NoSchedule" }]),
      want: true,
    },
    {
      name: "deletion timestamp",
      change: (n: Node) => void (n.metadata.deletionTimestamp = "2026-01-01T00:00:00Z"),
      want: true,
    },
  ])("node update: $name → sync $want", ({ change, want }) => {
    const before = node("n");
    const after = structuredClone(before);
    change(after);
    expect(shouldSyncUpdatedNode(before, after)).toBe(want);
  });

  test("nodeSetIdentity compares names and providerIDs, not order", () => {
    const [a, b] = [node("a"), node("b")];
    const same = (x: Node[], y: Node[]): boolean => nodeSetIdentity(x) === nodeSetIdentity(y);
    expect(same([a, b], [b, a])).toBe(true);
    expect(same([a, b], [a])).toBe(false);
    expect(same([a], [node("a", (n) => (n.spec!.providerID = "fake://replaced"))])).toBe(false);
    expect(same([], [])).toBe(true);
  });
});

describe("ingressEqual", () => {
  test.each([
    { name: "both empty", a: undefined, b: [], want: true },
    {
      name: "same IP, ipMode defaulted by the API server",
      a: [{ ip: "1.2.3.4" }],
      b: [{ ip: "1.2.3.4", ipMode: "VIP" as const }],
      want: true,
    },
    { name: "different IP", a: [{ ip: "1.2.3.4" }], b: [{ ip: "1.2.3.5" }], want: false },
    { name: "Proxy vs VIP", a: [{ ip: "1.2.3.4", ipMode: "Proxy" as const }], b: [{ ip: "1.2.3.4" }], want: false },
    { name: "hostname", a: [{ hostname: "x.example" }], b: [{ hostname: "x.example" }], want: true },
    { name: "one more", a: [{ ip: "1.2.3.4" }], b: [{ ip: "1.2.3.4" }, { ip: "2001:db8::1" }], want: false },
  ])("$name", ({ a, b, want }) => {
    expect(ingressEqual(a, b)).toBe(want);
  });
});
