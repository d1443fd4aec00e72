/**
 * A node's addresses from its guest's NICs, with upstream's rules: Hostname is the guest host name;
 * loopback, link-local and unspecified addresses never count; for each vNIC (and each family in
 * `ipFamily` order) an address inside `internalNetworkSubnetCidr` / `externalNetworkSubnetCidr` becomes
 * InternalIP / ExternalIP, else the NIC's network name decides, else the NIC's first address is both.
 * Beyond upstream: addresses inside `exclude*NetworkSubnetCidr` are skipped for that role, and a NIC with
 * no address of a family is passed over instead of failing the whole node (upstream fails it).
 */
import type { NodeAddress } from "../../src/kube/objects.ts";
import { cidrContains, parseCIDR, parseIP, type CIDR, type IP } from "../../src/net/ip.ts";
import type { IpFamily, NodeNetworks } from "./config.ts";
import type { GuestNic } from "./queries.ts";

export type AddressAnswer = { readonly addresses: NodeAddress[] } | { readonly error: string };

/** Loopback, link-local and unspecified addresses never identify a node. */
const LOCAL_ONLY = ["127.0.0.0/8", "169.254.0.0/16", "0.0.0.0/32", "::1/128", "fe80::/10", "::/128"].map(
  (c) => parseCIDR(c) as CIDR,
);

const usable = (ip: IP): boolean => !LOCAL_ONLY.some((c) => c.family === ip.family && cidrContains(c, ip));

function familyIps(ips: readonly string[], family: IpFamily): { text: string; ip: IP }[] {
  const want = family === "ipv4" ? 4 : 6;
  return ips.flatMap((text) => {
    const ip = parseIP(text);
    return ip && ip.family === want && usable(ip) ? [{ text, ip }] : [];
  });
}

const inAny = (cidrs: readonly CIDR[], ip: IP): boolean => cidrs.some((c) => cidrContains(c, ip));
const sameName = (a: string | undefined, b: string): boolean => a !== undefined && a.toLowerCase() === b.toLowerCase();

class AddressList {
  readonly list: NodeAddress[] = [];
  add(type: NodeAddress["type"], address: string): void {
    if (!this.list.some((a) => a.type === type && a.address === address)) this.list.push({ type, address });
  }
}

/** Whether `ip` on `nic` is selected as the internal (or external) address: subnet first, then network name. */
function selects(nets: NodeNetworks, role: "internal" | "external", nic: GuestNic, ip: IP): boolean {
  const [subnet, name, excluded] =
    role === "internal"
      ? [nets.internalSubnet, nets.internalNetworkName, nets.excludeInternalSubnets]
      : [nets.externalSubnet, nets.externalNetworkName, nets.excludeExternalSubnets];
  if (inAny(excluded, ip)) return false;
  return (subnet !== undefined && cidrContains(subnet, ip)) || sameName(name, nic.network);
}

/** One NIC, one family: what it contributes; false when it contributes nothing. */
function addFromNic(out: AddressList, nic: GuestNic, ips: { text: string; ip: IP }[], nets: NodeNetworks): boolean {
  const internal = ips.find(({ ip }) => selects(nets, "internal", nic, ip));
  const external = ips.find(({ ip }) => selects(nets, "external", nic, ip));
  if (internal) out.add("InternalIP", internal.text);
  if (external) out.add("ExternalIP", external.text);
  if (internal || external) return true;
  const first = ips.find(
    ({ ip }) => !inAny(nets.excludeInternalSubnets, ip) || !inAny(nets.excludeExternalSubnets, ip),
  );
  if (!first) return false;
  if (!inAny(nets.excludeInternalSubnets, first.ip)) out.add("InternalIP", first.text);
  if (!inAny(nets.excludeExternalSubnets, first.ip)) out.add("ExternalIP", first.text);
  return true;
}

/** vNICs only; with both network names set, only NICs on one of them. */
function considered(nic: GuestNic, nets: NodeNetworks): boolean {
  if (nic.deviceConfigId === -1) return false;
  if (nets.internalNetworkName === undefined || nets.externalNetworkName === undefined) return true;
  return sameName(nets.internalNetworkName, nic.network) || sameName(nets.externalNetworkName, nic.network);
}

export function nodeAddressesOf(
  hostName: string,
  nics: readonly GuestNic[],
  nets: NodeNetworks,
  families: readonly IpFamily[],
): AddressAnswer {
  if (hostName === "") return { error: "the VM's guest host name is empty (VMware Tools not running yet?)" };
  if (nics.length === 0)
    return { error: "the VM's guest reports no network interfaces (VMware Tools not running yet?)" };
  const out = new AddressList();
  out.add("Hostname", hostName);
  let found = false;
  for (const nic of nics.filter((n) => considered(n, nets))) {
    for (const family of families) found = addFromNic(out, nic, familyIps(nic.ips, family), nets) || found;
  }
  if (!found) return { error: `no usable ${families.join(" or ")} address on the VM's guest NICs` };
  return { addresses: out.list };
}
