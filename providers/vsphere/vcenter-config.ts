/**
 * The vCenter connection of a vsphere.conf: upstream's `global` defaults merged under the one `vcenter`
 * entry. Upstream allows several vCenters; this provider talks to exactly one (a second is refused by
 * name), which covers the single-vCenter sites the CPI is almost always deployed to.
 */
import { isMapping, onlyKeys, type Problems, type Raw } from "../shared/config-reader.ts";
import { ignoredIn, IGNORED_VCENTER_KEYS } from "./ignored-keys.ts";
import { normalizeThumbprint } from "./thumbprint.ts";
import { isScalar, unspelled } from "./yaml-literals.ts";

export type Credentials =
  | { readonly kind: "inline"; readonly username: string; readonly password: string }
  /** A Secret holding `<server>.username` and `<server>.password` (upstream's layout). */
  | { readonly kind: "secret"; readonly namespace: string; readonly name: string }
  /** A mounted Secret: files `<server>.username` and `<server>.password` in this directory. */
  | { readonly kind: "directory"; readonly path: string };

export interface VCenterSettings {
  readonly server: string;
  readonly port: number;
  /** Datacenter names searched; empty: every datacenter of the vCenter. */
  readonly datacenters: readonly string[];
  readonly insecure: boolean;
  /** PEM file of the CA that signed the vCenter certificate; empty: the system's trust store. */
  readonly caFile: string;
  /** SHA-1 or SHA-256 fingerprint the vCenter leaf certificate must have (upper case); empty: not pinned. */
  readonly thumbprint: string;
  readonly credentials: Credentials;
  /** Address families in order of preference (upstream `ipFamily`). */
  readonly ipFamilies: readonly ("ipv4" | "ipv6")[];
}

const SHARED_KEYS = [
  "port",
  "user",
  "password",
  "datacenters",
  "insecureFlag",
  "caFile",
  "thumbprint",
  "secretName",
  "secretNamespace",
  "secretsDirectory",
  "ipFamily",
];
const IGNORED_KEYS = Object.keys(IGNORED_VCENTER_KEYS);
const REFUSED: Record<string, string> = {
  tenantRef: "tenant references (several vCenters behind one name) are not supported",
  caPath: "not supported; give one PEM file in caFile",
};

function refuse(p: Problems, raw: Raw, path: string): void {
  for (const [key, reason] of Object.entries(REFUSED)) if (raw[key] !== undefined) p.add(`${path}.${key}`, reason);
}

function text(p: Problems, raw: Raw, key: string, path: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  // A password is used as written: quotes (INI and YAML) keep its spaces, and upstream trims nothing.
  if (typeof value === "string") return key === "password" ? value : value.trim();
  p.add(`${path}.${key}`, isScalar(value) ? unspelled(value) : "must be a string");
  return undefined;
}

/** The port as text: a number (upstream's type) whatever its spelling. */
const portText = (p: Problems, raw: Raw, path: string): string | undefined =>
  typeof raw.port === "number" ? String(raw.port) : text(p, raw, "port", path);

function bool(p: Problems, raw: Raw, key: string, path: string): boolean | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "boolean") return value;
  const v = typeof value === "string" || typeof value === "number" ? String(value).toLowerCase() : "";
  if (["true", "1", "yes", "on"].includes(v)) return true;
  if (["false", "0", "no", "off"].includes(v)) return false;
  p.add(`${path}.${key}`, "must be true or false");
  return undefined;
}

function list(p: Problems, raw: Raw, key: string, path: string): string[] | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value) && value.every((v) => typeof v === "string"))
    return value.map((v) => v.trim()).filter((v) => v !== "");
  const scalar = Array.isArray(value) ? value.find(isScalar) : undefined;
  if (scalar !== undefined) {
    p.add(`${path}.${key}`, `an item ${unspelled(scalar)}`);
    return undefined;
  }
  if (typeof value === "string")
    return value
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== "");
  p.add(`${path}.${key}`, "must be a list or a comma-separated string");
  return undefined;
}

function port(p: Problems, value: string | undefined, path: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = Number(value);
  if (Number.isInteger(n) && n > 0 && n < 65536) return n;
  p.add(`${path}.port`, `${JSON.stringify(value)} is not a TCP port`);
  return undefined;
}

/** None given, or only empty items (`ip-family = ""`, `[]`): ipv4, as upstream's validateIPFamily. */
function families(p: Problems, values: string[] | undefined, path: string): ("ipv4" | "ipv6")[] {
  if (!values || values.length === 0) return ["ipv4"];
  const out = values.map((v) => v.toLowerCase());
  for (const v of out)
    if (v !== "ipv4" && v !== "ipv6") p.add(`${path}.ipFamily`, `${JSON.stringify(v)} is not ipv4 or ipv6`);
  return out.filter((v): v is "ipv4" | "ipv6" => v === "ipv4" || v === "ipv6");
}

/** Empty (as CAPV templates write an unset `${VSPHERE_TLS_THUMBPRINT}`) is the same as absent. */
function thumbprint(p: Problems, value: string | undefined, path: string): string {
  if (value === undefined || value === "") return "";
  const pin = normalizeThumbprint(value);
  if (pin === undefined)
    p.add(`${path}.thumbprint`, "must be a SHA-1 or SHA-256 fingerprint: 20 or 32 hex bytes separated by colons");
  return pin ?? "";
}

function credentials(p: Problems, pick: (key: string) => string | undefined, path: string): Credentials {
  const [user, password, secretName, secretNamespace, dir] = [
    "user",
    "password",
    "secretName",
    "secretNamespace",
    "secretsDirectory",
  ].map(pick);
  if (user && password) return { kind: "inline", username: user, password };
  if (secretName) {
    if (!secretNamespace) p.add(`${path}.secretNamespace`, "is required with secretName");
    return { kind: "secret", namespace: secretNamespace ?? "", name: secretName };
  }
  if (dir) return { kind: "directory", path: dir };
  p.add(path, "no credentials: give user and password, secretName and secretNamespace, or secretsDirectory");
  return { kind: "inline", username: "", password: "" };
}

/**
 * The one vCenter entry, with its name; problems when there is none or more than one. `[Global] server`
 * names a vCenter too, as upstream's: the same one when an entry has that name or server, else another.
 */
function theVCenter(p: Problems, vcenters: Raw, globalServer: string): { name: string; entry: Raw } {
  const named = (name: string): boolean => {
    const entry = vcenters[name];
    return name === globalServer || (isMapping(entry) && entry.server === globalServer);
  };
  const names = Object.keys(vcenters);
  if (globalServer !== "" && !names.some(named)) names.push(globalServer);
  if (names.length === 0) p.add("vcenter", 'name the vCenter: vcenter.<name>.server (INI: [VirtualCenter "<server>"])');
  if (names.length > 1)
    p.add("vcenter", `${names.length} vCenters given (${names.join(", ")}); this provider talks to exactly one`);
  const name = names[0] ?? "";
  const value = vcenters[name] ?? {};
  if (name !== "" && !isMapping(value)) p.add(`vcenter.${name}`, "must be a mapping");
  return { name, entry: isMapping(value) ? value : {} };
}

/** The vCenter settings; `ignored` collects the keys of upstream's schema that are present and not used. */
export function readVCenter(p: Problems, global: Raw, vcenters: Raw, ignored: string[]): VCenterSettings {
  const known = ["server", ...SHARED_KEYS, ...IGNORED_KEYS, ...Object.keys(REFUSED)];
  onlyKeys(p, global, "global", known);
  refuse(p, global, "global");
  const { name, entry } = theVCenter(p, vcenters, text(p, global, "server", "global") ?? "");
  const path = `vcenter.${name}`;
  onlyKeys(p, entry, path, known);
  refuse(p, entry, path);
  ignored.push(...ignoredIn(global, "global", IGNORED_VCENTER_KEYS), ...ignoredIn(entry, path, IGNORED_VCENTER_KEYS));
  // An empty value in the entry falls back to [Global]'s, as upstream's.
  const pick = (key: string): string | undefined => text(p, entry, key, path) || text(p, global, key, "global");
  const server = text(p, entry, "server", path) || name;
  if (server === "") p.add(`${path}.server`, "is required");
  // An empty list too (`datacenters = ""`, `[]`), as upstream's `len(vcConfig.Datacenters) == 0`.
  const pickList = (key: string): string[] | undefined => {
    const own = list(p, entry, key, path);
    return own && own.length > 0 ? own : list(p, global, key, "global");
  };
  return {
    server,
    port: port(p, portText(p, entry, path) || portText(p, global, "global"), path) ?? 443,
    datacenters: pickList("datacenters") ?? [],
    // Either one true is true, as upstream's: an entry's false does not override [Global]'s true.
    insecure: [bool(p, entry, "insecureFlag", path), bool(p, global, "insecureFlag", "global")].includes(true),
    caFile: pick("caFile") ?? "",
    thumbprint: thumbprint(p, pick("thumbprint"), path),
    credentials: credentials(p, pick, path),
    ipFamilies: families(p, pickList("ipFamily"), path),
  };
}
