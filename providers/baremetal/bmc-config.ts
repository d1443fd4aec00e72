/**
 * A machine's `bmc`: the Redfish system whose power state the instance calls read. Field names follow
 * metal3's BareMetalHost (`address`, `credentialsName`, `disableCertificateVerification`), and so does the
 * address syntax: `redfish://` (HTTPS), `redfish+https://`, `redfish+http://`, or a plain http(s) URL. metal3's
 * other Redfish drivers (`redfish-virtualmedia`, `idrac-redfish`, `idrac-virtualmedia`, `ilo5-redfish`,
 * `ilo5-virtualmedia`, each also with `+http`/`+https`) read power state the same way, so a
 * BareMetalHost's address can be copied as it is; the boot method they name does not matter here.
 *
 * ```yaml
 * bmc:
 *   address: redfish://10.0.9.11/redfish/v1/Systems/1
 *   credentialsName: worker-1-bmc     # a Secret with keys username and password
 *   credentialsNamespace: metal       # default: the manager's own namespace
 *   caFile: /etc/bmc/ca.pem           # or disableCertificateVerification: true
 * ```
 */
import {
  isDnsLabel,
  isDnsSubdomain,
  mappingAt,
  onlyKeys,
  optionalBool,
  optionalString,
} from "../shared/config-reader.ts";
import type { Problems, Raw } from "../shared/config-reader.ts";

/** Where the BMC's user name and password come from. */
export type BmcCredentials =
  /** A Secret with keys `username` and `password` (metal3's layout); namespace "" is the manager's own. */
  | { readonly kind: "secret"; readonly namespace: string; readonly name: string }
  /** Files `username` and `password` in a directory (a mounted Secret). */
  | { readonly kind: "directory"; readonly path: string }
  /** No Authorization header (a BMC or emulator that asks for none). */
  | { readonly kind: "none" };

export interface BmcSettings {
  /** The Redfish ComputerSystem resource, as an http(s) URL. */
  readonly url: string;
  /** The address as written, for messages. */
  readonly address: string;
  readonly credentials: BmcCredentials;
  readonly disableCertificateVerification: boolean;
  readonly caFile?: string;
}

const BMC_KEYS = [
  "address",
  "credentialsName",
  "credentialsNamespace",
  "credentialsDirectory",
  "disableCertificateVerification",
  "caFile",
];
/** metal3's Redfish drivers; `<driver>:` and `<driver>+https:` are HTTPS, `<driver>+http:` plain HTTP. */
const REDFISH_DRIVERS = [
  "redfish",
  "redfish-virtualmedia",
  "idrac-redfish",
  "idrac-virtualmedia",
  "ilo5-redfish",
  "ilo5-virtualmedia",
];
const SCHEMES: Readonly<Record<string, string>> = Object.fromEntries<string>([
  ["https:", "https:"],
  ["http:", "http:"],
  ...REDFISH_DRIVERS.flatMap((d): [string, string][] => [
    [`${d}:`, "https:"],
    [`${d}+https:`, "https:"],
    [`${d}+http:`, "http:"],
  ]),
]);
const SYSTEM_PATH = /\/Systems\/[^/]+$/;

/** The http(s) URL of a BMC address, or why the address is not one. */
export function redfishSystemUrl(address: string): { url: string } | { problem: string } {
  let parsed: URL;
  try {
    parsed = new URL(address);
  } catch {
    return { problem: `${JSON.stringify(address)} is not a URL` };
  }
  const scheme = SCHEMES[parsed.protocol];
  if (!scheme)
    return {
      problem:
        `${JSON.stringify(address)}: the scheme must be redfish://, redfish+https://, redfish+http://, ` +
        "https://, http:// or another of metal3's Redfish drivers (idrac-redfish://, ilo5-redfish://, …); " +
        "power state is read over Redfish only (not IPMI, iRMC or iLO 4)",
    };
  const path = parsed.pathname.replace(/\/+$/, "");
  if (parsed.host === "" || !SYSTEM_PATH.test(path))
    return { problem: `${JSON.stringify(address)} must name one system: redfish://<host>/redfish/v1/Systems/<id>` };
  if (parsed.username !== "" || parsed.search !== "")
    return { problem: `${JSON.stringify(address)}: no user, password or query in the address; use credentialsName` };
  return { url: `${scheme}//${parsed.host}${path}` };
}

function checkSecretNames(p: Problems, path: string, name?: string, namespace?: string): void {
  if (namespace !== undefined && name === undefined) p.add(`${path}.credentialsNamespace`, "needs credentialsName");
  if (name !== undefined && !isDnsSubdomain(name))
    p.add(`${path}.credentialsName`, `${JSON.stringify(name)} is not a valid Secret name`);
  if (namespace !== undefined && !isDnsLabel(namespace))
    p.add(`${path}.credentialsNamespace`, `${JSON.stringify(namespace)} is not a valid namespace name`);
}

function readCredentials(p: Problems, raw: Raw, path: string): BmcCredentials {
  const name = optionalString(p, raw, "credentialsName", path);
  const namespace = optionalString(p, raw, "credentialsNamespace", path);
  const directory = optionalString(p, raw, "credentialsDirectory", path);
  if (name !== undefined && directory !== undefined)
    p.add(path, "give credentialsName (a Secret) or credentialsDirectory (files), not both");
  checkSecretNames(p, path, name, namespace);
  if (name !== undefined) return { kind: "secret", namespace: namespace ?? "", name };
  if (directory !== undefined) return { kind: "directory", path: directory };
  return { kind: "none" };
}

/** The `bmc` mapping of one machine; undefined when absent or broken (the problems say why). */
export function parseBmc(p: Problems, value: unknown, path: string): BmcSettings | undefined {
  const raw = mappingAt(p, value, path);
  if (!raw) return undefined;
  onlyKeys(p, raw, path, BMC_KEYS);
  const address = optionalString(p, raw, "address", path);
  if (address === undefined) {
    p.add(`${path}.address`, "is required: the Redfish system, e.g. redfish://<host>/redfish/v1/Systems/<id>");
    return undefined;
  }
  const target = redfishSystemUrl(address);
  if ("problem" in target) p.add(`${path}.address`, target.problem);
  const disableCertificateVerification = optionalBool(p, raw, "disableCertificateVerification", path) ?? false;
  const caFile = optionalString(p, raw, "caFile", path);
  if (caFile !== undefined && disableCertificateVerification)
    p.add(path, "give caFile or disableCertificateVerification, not both");
  const credentials = readCredentials(p, raw, path);
  if ("problem" in target) return undefined;
  return { url: target.url, address, credentials, disableCertificateVerification, caFile };
}
