/**
 * Classic ELB policies, named as cloud-provider-aws names them: `k8s-SSLNegotiationPolicy-<name>` (type
 * SSLNegotiationPolicyType, referencing the predefined policy) on every SSL/HTTPS listener, and
 * `k8s-proxyprotocol-enabled` (ProxyProtocolPolicyType) on every backend port. Unlike upstream, removing
 * an annotation takes its policy off the listeners and backends again, so the ELB follows the Service.
 */
import type {
  BackendServerDescription,
  ListenerDescription,
  Listener,
  PolicyAttribute,
} from "@aws-sdk/client-elastic-load-balancing";
import type { AwsApi } from "../api.ts";
import type { ListenerOptions } from "../lb-listener-options.ts";

export const PROXY_PROTOCOL_POLICY = "k8s-proxyprotocol-enabled";
const SSL_POLICY_PREFIX = "k8s-SSLNegotiationPolicy-";
export const sslPolicyName = (predefined: string): string => `${SSL_POLICY_PREFIX}${predefined}`;

export interface PolicySpec {
  readonly name: string;
  readonly type: string;
  readonly attributes: readonly PolicyAttribute[];
}

export interface PolicyPlan {
  readonly create: readonly PolicySpec[];
  /** Policies to set per LB port (listeners) and per instance port (backends). */
  readonly listeners: ReadonlyMap<number, readonly string[]>;
  readonly backends: ReadonlyMap<number, readonly string[]>;
}

export interface ElbPolicyState {
  /** Names of the policies defined on the ELB. */
  readonly defined: readonly string[];
  readonly listeners: readonly ListenerDescription[];
  readonly backends: readonly BackendServerDescription[];
}

const TLS_PROTOCOLS = new Set(["SSL", "HTTPS"]);
const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x) => b.includes(x));

function wantedListenerPolicies(current: readonly string[], policy: string | undefined): string[] {
  const others = current.filter((n) => !n.startsWith(SSL_POLICY_PREFIX));
  return policy ? [...others, sslPolicyName(policy)] : others;
}

function policiesToCreate(state: ElbPolicyState, options: ListenerOptions): PolicySpec[] {
  const create: PolicySpec[] = [];
  const ssl = options.tls?.policy;
  if (ssl && !state.defined.includes(sslPolicyName(ssl))) {
    create.push({
      name: sslPolicyName(ssl),
      type: "SSLNegotiationPolicyType",
      attributes: [{ AttributeName: "Reference-Security-Policy", AttributeValue: ssl }],
    });
  }
  if (options.proxyProtocol && !state.defined.includes(PROXY_PROTOCOL_POLICY)) {
    create.push({
      name: PROXY_PROTOCOL_POLICY,
      type: "ProxyProtocolPolicyType",
      attributes: [{ AttributeName: "ProxyProtocol", AttributeValue: "true" }],
    });
  }
  return create;
}

function listenerPlan(state: ElbPolicyState, policy: string | undefined): Map<number, string[]> {
  const listeners = new Map<number, string[]>();
  for (const d of state.listeners) {
    const l = d.Listener;
    if (!l || !TLS_PROTOCOLS.has(l.Protocol?.toUpperCase() ?? "")) continue;
    const current = d.PolicyNames ?? [];
    const want = wantedListenerPolicies(current, policy);
    if (!sameSet(want, current)) listeners.set(l.LoadBalancerPort!, want);
  }
  return listeners;
}

function backendPlan(state: ElbPolicyState, ports: readonly number[], proxyProtocol: boolean): Map<number, string[]> {
  const backends = new Map<number, string[]>();
  for (const port of new Set(ports)) {
    const current = state.backends.find((b) => b.InstancePort === port)?.PolicyNames ?? [];
    const others = current.filter((n) => n !== PROXY_PROTOCOL_POLICY);
    const want = proxyProtocol ? [...others, PROXY_PROTOCOL_POLICY] : others;
    if (!sameSet(want, current)) backends.set(port, want);
  }
  return backends;
}

/** What to create and set so the ELB's policies match `options` for the `desired` listeners. */
export function planPolicies(
  state: ElbPolicyState,
  desired: readonly Listener[],
  options: ListenerOptions,
): PolicyPlan {
  return {
    create: policiesToCreate(state, options),
    listeners: listenerPlan(state, options.tls?.policy),
    backends: backendPlan(
      state,
      desired.map((l) => l.InstancePort!),
      options.proxyProtocol,
    ),
  };
}

/** Brings the ELB's policies to `options`: defines missing policies, then sets listeners and backends. */
export interface PolicyTarget {
  readonly name: string;
  /** The ELB as described after its listeners were synced. */
  readonly state: Omit<ElbPolicyState, "defined">;
  readonly listeners: readonly Listener[];
  readonly options: ListenerOptions;
}

export async function syncPolicies(api: AwsApi, t: PolicyTarget, signal?: AbortSignal): Promise<void> {
  const { name, state } = t;
  const described = await api.elb.describeLoadBalancerPolicies({ LoadBalancerName: name }, signal);
  const defined = (described.PolicyDescriptions ?? []).map((p) => p.PolicyName ?? "");
  const plan = planPolicies({ ...state, defined }, t.listeners, t.options);
  for (const p of plan.create) {
    await api.elb.createLoadBalancerPolicy(
      { LoadBalancerName: name, PolicyName: p.name, PolicyTypeName: p.type, PolicyAttributes: [...p.attributes] },
      signal,
    );
  }
  for (const [port, names] of plan.listeners) {
    await api.elb.setLoadBalancerPoliciesOfListener(
      { LoadBalancerName: name, LoadBalancerPort: port, PolicyNames: [...names] },
      signal,
    );
  }
  for (const [port, names] of plan.backends) {
    await api.elb.setLoadBalancerPoliciesForBackendServer(
      { LoadBalancerName: name, InstancePort: port, PolicyNames: [...names] },
      signal,
    );
  }
}
