/**
 * A node's addresses from its guest's NICs, with upstream's rules (DiscoverNode / discoverIPs): Hostname
 * is the guest host name; the IPs of every vNIC are taken together, loopback, link-local and unspecified
 * ones left out, those statically configured in guestinfo.metadata first (in the metadata's order), the
 * rest in NIC order. Per family (in `ipFamily` order) at most one InternalIP and one
 * ExternalIP: the first IP inside one of `internalNetworkSubnetCidr` / `externalNetworkSubnetCidr` (the
 * subnets tried in the order given), else the first IP on the network named `internalVmNetworkName` /
 * `externalVmNetworkName`; only when neither role is found so, the family's first IP is both. An IP
 * inside `exclude*NetworkSubnetCidr` never takes that role. A family with no usable IP is passed over
 * (upstream fails the node); no usable IP in any family is an error.
 */
import type { NodeAddress } from "../../src/kube/objects.ts";
import { cidrContains, formatIP, parseCIDR, parseIP, type CIDR, type IP } from "../../src/net/ip.ts";
import type { IpFamily, NodeNetworks } from "./config.ts";
import type { GuestNic } from "./queries.ts";

export type AddressAnswer = { readonly addresses: NodeAddress[] } | { readonly error: string };

/** Loopback, link-local and unspecified addresses never identify a node. */
const LOCAL_ONLY = ["127.0.0.0/8", "169.254.0.0/16", "0.0.0.0/32", "::1/128", "fe80::/10", "::/128"].map(
  (c) => parseCIDR(c) as CIDR,
);

/** One guest IP and the vSphere network of the NIC it is on. */
interface Candidate {
  readonly text: string;
  readonly ip: IP;
  readonly network: string;
}

type Role = "internal" | "external";

const usable = (ip: IP): boolean => !LOCAL_ONLY.some((c) => c.family === ip.family && cidrContains(c, ip));
const inAny = (cidrs: readonly CIDR[], ip: IP): boolean => cidrs.some((c) => cidrContains(c, ip));
const sameName = (a: string | undefined, b: string): boolean => a !== undefined && a.toLowerCase() === b.toLowerCase();

/** What the guest tells of its addresses: VMware Tools' host name and NICs, and the metadata's static IPs. */
export interface GuestAddresses {
  readonly hostName: string;
  readonly nics: readonly GuestNic[];
  /** Canonical texts (formatIP) of the IPs statically configured in guestinfo.metadata, in its order. */
  readonly staticIps?: readonly string[];
}

/**
 * Every usable IP of the VM's vNICs (interfaces with deviceConfigId -1 are not vNICs): the statically
 * configured ones first, in the metadata's order, then the others in NIC order (a stable sort, as upstream's).
 */
function candidatesOf(nics: readonly GuestNic[], staticIps: readonly string[]): Candidate[] {
  const rank = new Map(staticIps.map((text, i) => [text, i]));
  const rankOf = (c: Candidate): number => rank.get(formatIP(c.ip)) ?? rank.size;
  return nics
    .filter((nic) => nic.deviceConfigId !== -1)
    .flatMap((nic) =>
      nic.ips.flatMap((text) => {
        const ip = parseIP(text);
        return ip && usable(ip) ? [{ text, ip, network: nic.network }] : [];
      }),
    )
    .sort((a, b) => rankOf(a) - rankOf(b));
}

function roleSettings(nets: NodeNetworks, role: Role): [readonly CIDR[], string | undefined, readonly CIDR[]] {
  return role === "internal"
    ? [nets.internalSubnets, nets.internalNetworkName, nets.excludeInternalSubnets]
    : [nets.externalSubnets, nets.externalNetworkName, nets.excludeExternalSubnets];
}

/** A role's pick among one family's candidates: by subnet (in the order given), then by network name. */
function matchRole(candidates: readonly Candidate[], nets: NodeNetworks, role: Role): Candidate | undefined {
  const [subnets, name] = roleSettings(nets, role);
  for (const subnet of subnets) {
    const found = candidates.find((c) => cidrContains(subnet, c.ip));
    if (found) return found;
  }
  return candidates.find((c) => sameName(name, c.network));
}

/** One family: the InternalIP and ExternalIP it contributes (either may be missing). */
function discoverFamily(
  all: readonly Candidate[],
  family: IpFamily,
  nets: NodeNetworks,
): { internal?: Candidate; external?: Candidate } {
  const want = family === "ipv4" ? 4 : 6;
  const ofFamily = all.filter((c) => c.ip.family === want);
  const allowed = (role: Role): Candidate[] => ofFamily.filter((c) => !inAny(roleSettings(nets, role)[2], c.ip));
  const [internals, externals] = [allowed("internal"), allowed("external")];
  const internal = matchRole(internals, nets, "internal");
  const external = matchRole(externals, nets, "external");
  if (internal || external) return { internal, external };
  return { internal: internals[0], external: externals[0] };
}

/** With both network names set, a VM on neither has no address upstream would choose. */
function onNamedNetwork(nics: readonly GuestNic[], nets: NodeNetworks): boolean {
  const { internalNetworkName: internal, externalNetworkName: external } = nets;
  if (internal === undefined || external === undefined) return true;
  return nics.some((n) => n.deviceConfigId !== -1 && (sameName(internal, n.network) || sameName(external, n.network)));
}

export function nodeAddressesOf(
  guest: GuestAddresses,
  nets: NodeNetworks,
  families: readonly IpFamily[],
): AddressAnswer {
  const { hostName, nics } = guest;
  if (hostName === "") return { error: "the VM's guest host name is empty (VMware Tools not running yet?)" };
  if (nics.length === 0)
    return { error: "the VM's guest reports no network interfaces (VMware Tools not running yet?)" };
  if (!onNamedNetwork(nics, nets))
    return { error: "no vNIC is on the internalVmNetworkName or externalVmNetworkName network" };
  const addresses: NodeAddress[] = [{ type: "Hostname", address: hostName }];
  const add = (type: NodeAddress["type"], c: Candidate | undefined): void => {
    if (c && !addresses.some((a) => a.type === type && a.address === c.text)) addresses.push({ type, address: c.text });
  };
  const candidates = candidatesOf(nics, guest.staticIps ?? []);
  for (const family of families) {
    const { internal, external } = discoverFamily(candidates, family, nets);
    add("InternalIP", internal);
    add("ExternalIP", external);
  }
  if (addresses.length === 1) return { error: `no usable ${families.join(" or ")} address on the VM's guest NICs` };
  return { addresses };
}
