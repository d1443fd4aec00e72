/**
 * kubelet's `alpha.kubernetes.io/provided-node-ip` annotation (`--node-ip` with an external cloud
 * provider) and the address filter it drives (upstream component-helpers `ParseNodeIPAnnotation` and
 * cloud-provider `GetNodeAddressesFromNodeIP`). Pure.
 */
import type { Node, NodeAddress } from "../../kube/objects.ts";
import { ANNOTATION_PROVIDED_NODE_IP } from "../../kube/well-known.ts";
import { formatIP, ipEqual, isUnspecified, parseIP, type IP } from "../../net/ip.ts";

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/**
 * Strict, as upstream: every entry must parse, and the value is one IP or a dual-stack pair without an
 * unspecified address.
 */
export function parseNodeIPAnnotation(text: string): Parsed<IP[]> {
  const ips: IP[] = [];
  for (const entry of text.split(",")) {
    const ip = parseIP(entry);
    if (!ip || entry !== entry.trim()) return { ok: false, error: `could not parse ${JSON.stringify(entry)}` };
    ips.push(ip);
  }
  const problem = pairProblem(ips);
  return problem ? { ok: false, error: problem } : { ok: true, value: ips };
}

function pairProblem(ips: readonly IP[]): string | undefined {
  const [first, second] = ips;
  if (ips.length > 2 || (first && second && first.family === second.family))
    return "must contain either a single IP or a dual-stack pair of IPs";
  if (first && second && (isUnspecified(first) || isUnspecified(second)))
    return "dual-stack node IP cannot include '0.0.0.0' or '::'";
  return undefined;
}

/**
 * For each provided IP, every cloud address equal to it comes first (in cloud order) and its type is
 * "taken"; then every cloud address of a type not taken. So the node IP leads, and other addresses of the
 * same type (secondary IPs) are dropped. A provided IP the cloud does not report is an error.
 */
export function addressesForNodeIPs(nodeIPs: readonly IP[], cloud: readonly NodeAddress[]): Parsed<NodeAddress[]> {
  const chosen: NodeAddress[] = [];
  const taken = new Set<string>();
  for (const ip of nodeIPs) {
    const matching = cloud.filter((a) => sameIP(a.address, ip));
    if (matching.length === 0)
      return { ok: false, error: `failed to get node address from cloud provider that matches ip: ${formatIP(ip)}` };
    for (const a of matching) {
      chosen.push({ type: a.type, address: a.address });
      taken.add(a.type);
    }
  }
  return {
    ok: true,
    value: [...chosen, ...cloud.filter((a) => !taken.has(a.type)).map((a) => ({ type: a.type, address: a.address }))],
  };
}

/** The node's addresses as the provided-node-ip annotation allows them; unchanged without the annotation. */
export function applyProvidedNodeIP(node: Node, cloud: readonly NodeAddress[]): Parsed<NodeAddress[]> {
  const annotation = node.metadata.annotations?.[ANNOTATION_PROVIDED_NODE_IP];
  if (annotation === undefined) return { ok: true, value: [...cloud] };
  const parsed = parseNodeIPAnnotation(annotation);
  if (!parsed.ok) return { ok: false, error: `failed to parse node IP ${JSON.stringify(annotation)}: ${parsed.error}` };
  return addressesForNodeIPs(parsed.value, cloud);
}

function sameIP(text: string, ip: IP): boolean {
  const parsed = parseIP(text);
  return parsed !== undefined && ipEqual(parsed, ip);
}
