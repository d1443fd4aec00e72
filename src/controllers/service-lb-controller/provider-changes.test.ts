import { describe, expect, test } from "bun:test";
import type { LoadBalancerChange } from "../../cloud/provider.ts";
import type { Service } from "../../kube/objects.ts";
import { WorkQueue } from "../../kube/queue.ts";
import { exponentialLimiter } from "../../kube/rate-limiters.ts";
import { loadBalancerService } from "../../../test/harness/fixtures.ts";
import {
  followProviderChanges,
  pacedSchedule,
  mergeChange,
  needsResync,
  reachIn,
  type ChangeScope,
} from "./provider-changes.ts";

function svc(
  name: string,
  o: { ns?: string; ingress?: number; families?: ("IPv4" | "IPv6")[]; deleting?: boolean; type?: "ClusterIP" } = {},
): Service {
  const s = loadBalancerService(name, o.ns ?? "ns", { ipFamilies: o.families });
  if (o.ingress)
    s.status = { loadBalancer: { ingress: Array.from({ length: o.ingress }, (_, i) => ({ ip: `10.0.0.${i}` })) } };
  if (o.deleting) s.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
  if (o.type) s.spec = { ...s.spec, type: o.type };
  return s;
}

describe("needsResync", () => {
  const cases: [string, Service, "waiting" | "all" | undefined, boolean, boolean][] = [
    ["out of reach", svc("a"), undefined, true, false],
    ["waiting: no ingress", svc("a"), "waiting", false, true],
    ["waiting: served", svc("a", { ingress: 1 }), "waiting", false, false],
    ["waiting: served, but its last sync failed", svc("a", { ingress: 1 }), "waiting", true, true],
    [
      "waiting: one address of a dual-stack pair",
      svc("a", { ingress: 1, families: ["IPv4", "IPv6"] }),
      "waiting",
      false,
      true,
    ],
    ["all: served", svc("a", { ingress: 1 }), "all", false, true],
    ["all: being deleted", svc("a", { ingress: 1, deleting: true }), "all", true, false],
  ];
  for (const [name, service, reach, failing, want] of cases)
    test(name, () => expect(needsResync(service, reach, failing)).toBe(want));
});

describe("mergeChange", () => {
  test("a namespace's reach widens with every-namespace changes and with its own, never narrows", () => {
    const scope: ChangeScope = { byNamespace: new Map() };
    const merge = (change: LoadBalancerChange): void => mergeChange(scope, change);
    merge({ namespace: "a", waitingOnly: true });
    expect([reachIn(scope, "a"), reachIn(scope, "b")]).toEqual(["waiting", undefined]);
    merge({ namespace: "b" });
    merge({ namespace: "b", waitingOnly: true });
    expect([reachIn(scope, "a"), reachIn(scope, "b")]).toEqual(["waiting", "all"]);
    merge({ waitingOnly: true });
    expect(reachIn(scope, "c")).toBe("waiting");
    merge({});
    expect([reachIn(scope, "a"), reachIn(scope, "c")]).toEqual(["all", "all"]);
  });
});

describe("followProviderChanges", () => {
  function harness(services: Service[]): {
    queue: WorkQueue;
    emit: (change: LoadBalancerChange) => void;
    passes: (() => void)[];
    stop: () => void;
    listeners: () => number;
  } {
    const queue = new WorkQueue({ name: "service", rateLimiter: exponentialLimiter(5_000, 300_000) });
    const listeners = new Set<(change: LoadBalancerChange) => void>();
    const passes: (() => void)[] = [];
    const stop = followProviderChanges({
      balancer: {
        onChange: (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
      services: { get: () => undefined, list: () => services, size: services.length },
      queue,
      servedClass: "",
      schedule: (pass) => passes.push(pass),
    });
    return {
      queue,
      emit: (change) => listeners.forEach((l) => l(change)),
      passes,
      stop,
      listeners: () => listeners.size,
    };
  }

  test("a failed Service waiting out its backoff is queued at once; served ones stay; a burst is one pass", async () => {
    // Both served (an ingress address each): only the one whose last sync failed is waiting.
    const services = [
      svc("failed", { ingress: 1 }),
      svc("served", { ingress: 1 }),
      svc("plain", { type: "ClusterIP" }),
    ];
    const h = harness(services);
    h.queue.addRateLimited("ns/failed");
    expect(h.queue.length).toBe(0);
    for (let i = 0; i < 50; i++) h.emit({ waitingOnly: true });
    expect(h.passes).toHaveLength(1);
    h.passes[0]!();
    expect(h.queue.length).toBe(1);
    expect(await h.queue.get()).toBe("ns/failed");
    h.stop();
    h.queue.shutDown();
  });

  test("a change in one namespace queues every served Service there and none elsewhere; stop removes the listener", async () => {
    const h = harness([svc("a", { ns: "x", ingress: 1 }), svc("b", { ns: "y", ingress: 1 })]);
    h.emit({ namespace: "x" });
    h.passes.shift()!();
    expect(await h.queue.get()).toBe("x/a");
    expect(h.queue.length).toBe(0);
    h.stop();
    expect(h.listeners()).toBe(0);
    h.queue.shutDown();
  });

  test("a load balancer without onChange: nothing to follow, nothing ever queued", () => {
    let listed = 0;
    const added: string[] = [];
    const stop = followProviderChanges({
      balancer: {},
      services: { get: () => undefined, list: () => (listed++, []), size: 0 },
      queue: { add: (key) => void added.push(key), numRequeues: () => 0 },
      servedClass: "",
      schedule: () => {
        throw new Error("no pass without onChange");
      },
    });
    stop();
    expect({ listed, added }).toEqual({ listed: 0, added: [] });
  });

  test("passes are paced: the first at once, the next no sooner than a second after it, changes merged meanwhile", () => {
    const waits: number[] = [];
    let now = 0;
    const schedule = pacedSchedule(
      (run, ms) => {
        waits.push(ms);
        now += ms;
        run();
      },
      () => now,
    );
    let passes = 0;
    schedule(() => passes++);
    now += 200;
    schedule(() => passes++);
    now += 5000;
    schedule(() => passes++);
    expect({ passes, waits }).toEqual({ passes: 3, waits: [0, 800, 0] });
  });
});
