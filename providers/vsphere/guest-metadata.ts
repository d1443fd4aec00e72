/**
 * The addresses statically configured for a VM in its `guestinfo.metadata` extraConfig: the cloud-init
 * metadata CAPV writes (YAML, its `network` key a netplan v2 config, itself plain or encoded as
 * `network.encoding` says). Upstream (sortStaticallyConfiguredAddressesFirst) puts these first among the
 * guest's IPs, so a VIP that VMware Tools happens to list first (kube-vip on a control-plane VM) is not taken
 * for the node's own address. Pure: any metadata that cannot be read yields no addresses and a reason, never
 * an error, since a node must not fail over metadata it does not need.
 */
import { gunzipSync } from "node:zlib";
import { formatIP, parseIP } from "../../src/net/ip.ts";

/** The two extraConfig values as vCenter holds them (either may be absent). */
export interface GuestMetadata {
  readonly metadata?: string;
  readonly encoding?: string;
}

/** Canonical IP texts (formatIP), in the order the metadata lists them; `ignored` says why there are none. */
export interface StaticAddresses {
  readonly addresses: readonly string[];
  readonly ignored?: string;
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** cloud-init's encodings (its VMware datasource): none, base64/b64, gzip+base64/gz+b64. */
function decode(text: string, encoding: string | undefined): string {
  const how = (encoding ?? "").trim().toLowerCase();
  if (how === "") return text;
  if (!["base64", "b64", "gzip+base64", "gz+b64"].includes(how)) throw new Error(`unknown encoding ${how}`);
  if (!BASE64.test(text)) throw new Error("not base64");
  const bytes = Buffer.from(text, "base64");
  return (how.startsWith("gz") ? gunzipSync(bytes) : bytes).toString("utf8");
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseMap(text: string, what: string): Record<string, unknown> {
  const parsed: unknown = Bun.YAML.parse(text);
  if (!isMap(parsed)) throw new Error(`${what} is not a YAML mapping`);
  return parsed;
}

/** The netplan config of the metadata: `network` itself, or decoded from its `network.encoding`. */
function networkOf(metadata: Record<string, unknown>): Record<string, unknown> {
  const network = metadata.network;
  const encoding = metadata["network.encoding"];
  if (typeof network === "string" && typeof encoding === "string")
    return parseMap(decode(network, encoding), "the decoded network config");
  if (!isMap(network)) throw new Error("no network config");
  return network;
}

/** `addresses` of every entry of `ethernets` (netplan's `10.0.0.5/24` strings, or its map form), prefix stripped. */
function ethernetAddresses(network: Record<string, unknown>): string[] {
  const inner = isMap(network.network) ? network.network : network;
  const ethernets = isMap(inner.ethernets) ? Object.values(inner.ethernets) : [];
  return ethernets.flatMap((eth) => {
    const list: unknown = isMap(eth) ? eth.addresses : undefined;
    if (!Array.isArray(list)) return [];
    return list.flatMap((a: unknown) => (typeof a === "string" ? [a] : isMap(a) ? Object.keys(a) : []));
  });
}

export function staticAddressesOf(guest: GuestMetadata): StaticAddresses {
  if (guest.metadata === undefined || guest.metadata.trim() === "") return { addresses: [] };
  try {
    const metadata = parseMap(decode(guest.metadata, guest.encoding), "guestinfo.metadata");
    const texts = ethernetAddresses(networkOf(metadata));
    const ips = texts.flatMap((t) => {
      const ip = parseIP(t.split("/")[0]?.trim() ?? "");
      return ip ? [formatIP(ip)] : [];
    });
    return { addresses: [...new Set(ips)] };
  } catch (error) {
    return { addresses: [], ignored: `guestinfo.metadata ignored: ${(error as Error).message}` };
  }
}
