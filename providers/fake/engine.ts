/**
 * The fake cloud itself: instances, load balancers and routes in memory, with injected latency, errors and
 * throttling, and a counter per operation. It is driven either in-process or through `server.ts`, so a
 * test, several CCM replicas and a restarted CCM can all share one cloud.
 */
import { bits, formatIP, parseCIDR, type CIDR } from "../../src/net/ip.ts";
import { sleep } from "../../src/util/clock.ts";
import type { Defaults, FakeConfig, FakeInstance, Faults, InstanceState } from "./config.ts";
import type {
  EnsuredFakeLoadBalancer,
  FakeLoadBalancer,
  FakeRoute,
  LbRequest,
  NodeRef,
  RouteRequest,
  WireError,
} from "./wire.ts";

export class FakeCloudError extends Error {
  readonly code: WireError["code"];
  constructor(code: WireError["code"], message: string) {
    super(message);
    this.code = code;
  }
}

const LB_PREFIX = "lb.fake.cloud/";
const KNOWN_LB_ANNOTATIONS = new Set([`${LB_PREFIX}hostname`, `${LB_PREFIX}reject`]);

export class FakeCloud {
  readonly #instances = new Map<string, FakeInstance>();
  readonly #byProviderID = new Map<string, string>();
  readonly #lbs = new Map<string, FakeLoadBalancer>();
  readonly #routes = new Map<string, FakeRoute>();
  readonly #calls = new Map<string, number>();
  readonly #allocated = new Set<string>();
  /** Names removed by hand: `autoInstances` must not bring them back. */
  readonly #removed = new Set<string>();
  #faults: Faults;
  #defaults: Defaults;
  #autoInstances: boolean;
  #pools: CIDR[];
  #hostnameSuffix: string;
  #tokens = 0;
  #tokensAt = Date.now();

  constructor(config: FakeConfig) {
    this.#faults = config.faults;
    this.#defaults = config.defaults;
    this.#autoInstances = config.autoInstances;
    this.#pools = config.ipPool.map((c) => parseCIDR(c)).filter((c) => c !== undefined);
    this.#hostnameSuffix = config.hostnameSuffix;
    for (const inst of config.instances) this.putInstance(inst);
  }

  // --- admin (tests, the admin endpoint, file reloads) ---

  /** Replaces the declared instances and faults; load balancers and routes are kept. */
  reload(config: FakeConfig): void {
    this.#instances.clear();
    this.#byProviderID.clear();
    for (const inst of config.instances) this.putInstance(inst);
    this.#faults = config.faults;
    this.#defaults = config.defaults;
    this.#autoInstances = config.autoInstances;
  }

  putInstance(instance: FakeInstance): void {
    this.#removed.delete(instance.name);
    const previous = this.#instances.get(instance.name);
    if (previous) this.#byProviderID.delete(previous.providerID);
    this.#instances.set(instance.name, instance);
    this.#byProviderID.set(instance.providerID, instance.name);
  }

  /** A full instance from a partial one, with the configured defaults. */
  instanceWithDefaults(partial: Partial<FakeInstance> & { name: string }): FakeInstance {
    return {
      providerID: `fake://${partial.name}`,
      instanceType: this.#defaults.instanceType,
      zone: this.#defaults.zone,
      region: this.#defaults.region,
      addresses: [],
      labels: {},
      state: "running",
      ...partial,
    };
  }

  setInstanceState(name: string, state: InstanceState): void {
    const inst = this.#instances.get(name) ?? this.instanceWithDefaults({ name });
    this.putInstance({ ...inst, state });
  }

  removeInstance(name: string): void {
    const inst = this.#instances.get(name);
    if (inst) this.#byProviderID.delete(inst.providerID);
    this.#instances.delete(name);
    this.#removed.add(name);
  }

  setFaults(faults: Faults): void {
    this.#faults = faults;
  }

  get faults(): Faults {
    return this.#faults;
  }

  calls(): Record<string, number> {
    return Object.fromEntries(this.#calls);
  }

  resetCalls(): void {
    this.#calls.clear();
  }

  instances(): FakeInstance[] {
    return [...this.#instances.values()];
  }

  loadBalancers(): FakeLoadBalancer[] {
    return [...this.#lbs.values()];
  }

  routes(): FakeRoute[] {
    return [...this.#routes.values()].map((r) => ({ ...r, blackhole: this.#isBlackhole(r) }));
  }

  /** Deletes a load balancer behind the controller's back (drift, or a delete finished elsewhere). */
  removeLoadBalancer(name: string): void {
    this.#deleteLoadBalancer(name);
  }

  /** Seeds a route directly (a route some other tool made, or one outside the cluster CIDR). */
  putRoute(route: FakeRoute): void {
    this.#routes.set(route.name, route);
  }

  // --- the cloud API ---

  /**
   * One cloud call: counted, delayed, possibly failed by the configured faults, then answered. A call
   * whose `signal` aborts during the delay (the client went away) fails without changing anything, like
   * a request that never reached the cloud.
   */
  async call(operation: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    this.#calls.set(operation, (this.#calls.get(operation) ?? 0) + 1);
    const latency = this.#faults.latencyMs + (this.#faults.operationLatencyMs?.[operation] ?? 0);
    if (latency > 0) await sleep(latency, signal).catch(() => undefined);
    if (signal?.aborted) throw new FakeCloudError("InternalError", `${operation} was cancelled by the client`);
    this.#injectFaults(operation);
    return this.#dispatch(operation, body);
  }

  #injectFaults(operation: string): void {
    const f = this.#faults;
    if (f.failAll === "throttle" || (f.throttle && !this.#takeToken(f.throttle))) {
      throw new FakeCloudError("Throttled", `RequestLimitExceeded: ${operation} was throttled`);
    }
    if (f.failAll === "error" || (f.errorRate > 0 && Math.random() < f.errorRate)) {
      throw new FakeCloudError("InternalError", `InternalError: ${operation} failed (injected fault)`);
    }
  }

  #takeToken(limit: { qps: number; burst: number }): boolean {
    const now = Date.now();
    this.#tokens = Math.min(limit.burst, this.#tokens + ((now - this.#tokensAt) * limit.qps) / 1000);
    this.#tokensAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  #dispatch(operation: string, body: unknown): unknown {
    const handler = this.#operations[operation];
    if (!handler) throw new FakeCloudError("InvalidParameter", `unknown operation ${operation}`);
    return handler(body as Record<string, unknown>);
  }

  /** The cloud API: every instance lookup shares one implementation but keeps its own counter name. */
  readonly #operations: Readonly<Record<string, (b: Record<string, unknown>) => unknown>> = {
    InstanceExists: (b) => this.#describe(b),
    InstanceShutdown: (b) => this.#describe(b),
    InstanceMetadata: (b) => this.#describe(b),
    InstanceMetadataBatch: (b) => this.#describe(b),
    InstanceStateBatch: (b) => this.#describe(b),
    GetLoadBalancer: (b) => ({ loadBalancer: this.#lbs.get(String(b.name)) ?? null }),
    EnsureLoadBalancer: (b) => this.#ensureLoadBalancer(b as unknown as LbRequest),
    UpdateLoadBalancer: (b) => this.#updateLoadBalancer(b as unknown as LbRequest),
    EnsureLoadBalancerDeleted: (b) => this.#deleteLoadBalancer(String(b.name)),
    ListRoutes: (b) => ({ routes: this.routes().filter((r) => r.clusterName === b.clusterName) }),
    CreateRoute: (b) => this.#createRoute(b as unknown as RouteRequest),
    DeleteRoute: (b) => {
      this.#routes.delete(String(b.name));
      return {};
    },
  };

  #describe(b: Record<string, unknown>): { instances: (FakeInstance | null)[] } {
    return { instances: (b.nodes as NodeRef[]).map((n) => this.#find(n) ?? null) };
  }

  #find(node: NodeRef): FakeInstance | undefined {
    const name = node.providerID ? this.#byProviderID.get(node.providerID) : node.name;
    const found = name === undefined ? undefined : this.#instances.get(name);
    if (found) return found;
    const auto =
      this.#autoInstances &&
      !this.#removed.has(node.name) &&
      (!node.providerID || node.providerID === `fake://${node.name}`);
    return auto ? this.instanceWithDefaults({ name: node.name }) : undefined;
  }

  #ensureLoadBalancer(req: LbRequest): { loadBalancer: EnsuredFakeLoadBalancer; warnings: string[] } {
    const rejected = req.annotations[`${LB_PREFIX}reject`];
    if (rejected !== undefined)
      throw new FakeCloudError("InvalidParameter", `annotation ${LB_PREFIX}reject: ${rejected || "rejected"}`);
    const warnings = Object.keys(req.annotations)
      .filter((k) => k.startsWith(LB_PREFIX) && !KNOWN_LB_ANNOTATIONS.has(k))
      .map((k) => `annotation ${k} is not supported by the fake cloud and was ignored`);
    const existing = this.#lbs.get(req.name);
    const ingress = existing?.ingress ?? this.#allocateIngress(req);
    const lb: FakeLoadBalancer = {
      ...req,
      ingress,
      ensureCount: (existing?.ensureCount ?? 0) + 1,
      updateCount: existing?.updateCount ?? 0,
    };
    this.#lbs.set(req.name, lb);
    const { nodes: _nodes, ...answer } = lb;
    return { loadBalancer: answer, warnings };
  }

  #updateLoadBalancer(req: LbRequest): Record<string, never> {
    const existing = this.#lbs.get(req.name);
    if (!existing) throw new FakeCloudError("NotFound", `load balancer ${req.name} not found`);
    this.#lbs.set(req.name, { ...existing, nodes: req.nodes, updateCount: existing.updateCount + 1 });
    return {};
  }

  #deleteLoadBalancer(name: string): Record<string, never> {
    const lb = this.#lbs.get(name);
    for (const ing of lb?.ingress ?? []) if (ing.ip) this.#allocated.delete(ing.ip);
    this.#lbs.delete(name);
    return {};
  }

  #allocateIngress(req: LbRequest): FakeLoadBalancer["ingress"] {
    if (req.annotations[`${LB_PREFIX}hostname`] === "true" || this.#hostnameSuffix !== "") {
      return [{ hostname: `${req.name}.${this.#hostnameSuffix || "lb.fake.cloud"}` }];
    }
    const families = req.ipFamilies.length > 0 ? req.ipFamilies : ["IPv4"];
    return families.map((family) => ({ ip: this.#nextIP(family === "IPv6" ? 6 : 4) }));
  }

  #nextIP(family: 4 | 6): string {
    for (const pool of this.#pools.filter((p) => p.family === family)) {
      const size = 1n << BigInt(bits(family) - pool.prefix);
      for (let i = 1n; i < size - 1n; i++) {
        const ip = formatIP({ family, value: pool.base + i });
        if (!this.#allocated.has(ip)) {
          this.#allocated.add(ip);
          return ip;
        }
      }
    }
    throw new FakeCloudError("InsufficientCapacity", `no free IPv${family} address left in the load balancer pool`);
  }

  #createRoute(req: RouteRequest): { route: FakeRoute } {
    const clash = [...this.#routes.values()].find(
      (r) => r.clusterName === req.clusterName && r.destinationCIDR === req.destinationCIDR,
    );
    if (clash && !this.#isBlackhole(clash)) {
      throw new FakeCloudError(
        "AlreadyExists",
        `RouteAlreadyExists: a route for ${req.destinationCIDR} exists (${clash.name})`,
      );
    }
    if (clash) this.#routes.delete(clash.name);
    const name = `${req.nameHint}-${req.destinationCIDR.replace(/[/:.]/g, "-")}`;
    const route: FakeRoute = {
      name,
      clusterName: req.clusterName,
      targetNode: req.targetNode,
      destinationCIDR: req.destinationCIDR,
      blackhole: false,
    };
    this.#routes.set(name, route);
    return { route };
  }

  /** A route whose target instance is gone or terminated is a blackhole, as on real clouds. */
  #isBlackhole(route: FakeRoute): boolean {
    if (route.blackhole) return true;
    const target = this.#instances.get(route.targetNode);
    if (!target) return !this.#autoInstances || this.#removed.has(route.targetNode);
    return target.state === "terminated";
  }
}
