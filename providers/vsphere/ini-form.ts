/**
 * Upstream's INI form of vsphere.conf, read into the YAML form's shape so one reader checks both:
 * `[Global]` → global, `[VirtualCenter "<server>"]` → vcenter.<server> (server = the subsection),
 * `[Labels]`, `[Nodes]`; kebab-case keys become the YAML form's camelCase (`insecure-flag` → insecureFlag).
 */
import { parseIni, type IniEntry } from "../aws/ini.ts";
import type { Problems, Raw } from "../shared/config-reader.ts";

/** The INI form starts (after comments) with a `[Section]` header; YAML never does. */
export function looksLikeIni(text: string): boolean {
  const first = text.split(/\r?\n/).find((line) => !/^\s*([#;].*)?$/.test(line));
  return first !== undefined && /^\s*\[\s*[A-Za-z]/.test(first) && !/^\s*\[.*[,{]/.test(first);
}

const camel = (key: string): string => key.toLowerCase().replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Section names as the YAML form spells them; others keep their own name (and are refused later). */
const SECTIONS: Record<string, string> = {
  global: "global",
  virtualcenter: "vcenter",
  labels: "labels",
  nodes: "nodes",
};
/** Keys whose camel form differs from the YAML form's spelling. */
const KEY_FORMS: Record<string, string> = { caFile: "caFile", ipFamily: "ipFamily", vmUuid: "vmUUID" };

/** Where an entry goes: its section, or for [VirtualCenter "<server>"] that server's entry. */
function bucketOf(p: Problems, raw: Record<string, Raw>, section: string, entry: IniEntry): Raw {
  const bucket = (raw[section] ??= {});
  if (section !== "vcenter") return bucket;
  const server = entry.subsection ?? "";
  if (server === "")
    p.add(
      `(INI) line ${entry.line}`,
      '[VirtualCenter] needs the server as its subsection: [VirtualCenter "vc.example.com"]',
    );
  return (bucket[server] ??= { server }) as Raw;
}

const VCENTER_HEADER = /^\s*\[\s*virtualcenter\s+"([^"]+)"\s*\]\s*([#;].*)?$/i;

/** A `[VirtualCenter "<server>"]` section without keys (all from [Global]) names its vCenter too. */
function withEveryVCenter(vcenters: Raw, text: string): Raw {
  for (const line of text.split(/\r?\n/)) {
    const server = VCENTER_HEADER.exec(line)?.[1];
    if (server !== undefined) vcenters[server] ??= { server };
  }
  return vcenters;
}

export interface IniForm {
  readonly raw: Raw;
  /** YAML-form paths (`global.insecureFlag`) and how the file spells them (`[Global] insecure-flag`). */
  readonly spelling: ReadonlyMap<string, string>;
}

/** Section names as upstream's documentation writes them (the file's own case is not kept). */
const HEADERS: Record<string, string> = {
  virtualcenter: "VirtualCenter",
  loadbalancer: "LoadBalancer",
  nsxt: "NSXT",
};

function headerOf(entry: IniEntry): string {
  const name = HEADERS[entry.section] ?? entry.section.charAt(0).toUpperCase() + entry.section.slice(1);
  return entry.subsection === undefined ? `[${name}]` : `[${name} "${entry.subsection}"]`;
}

export function iniToRaw(p: Problems, text: string): IniForm | undefined {
  const parsed = parseIni(text);
  if (!parsed.ok) {
    for (const error of parsed.errors) p.add("(INI)", error);
    return undefined;
  }
  const raw: Record<string, Raw> = {};
  const spelling = new Map<string, string>();
  for (const entry of parsed.entries) {
    const section = SECTIONS[entry.section] ?? entry.section;
    const key = KEY_FORMS[camel(entry.key)] ?? camel(entry.key);
    bucketOf(p, raw, section, entry)[key] = entry.value;
    const path = section === "vcenter" ? `vcenter.${entry.subsection ?? ""}` : section;
    spelling.set(path, headerOf(entry));
    spelling.set(`${path}.${key}`, `${headerOf(entry)} ${entry.key}`);
  }
  raw.vcenter = withEveryVCenter(raw.vcenter ?? {}, text);
  return { raw, spelling };
}

/** A problem as the INI file spells its key: `[Global] insecure-flag: …` for `global.insecureFlag: …`. */
export function inIniTerms(problem: string, spelling: ReadonlyMap<string, string>): string {
  const paths = [...spelling.keys()].filter(
    (path) => problem.startsWith(`${path}: `) || problem.startsWith(`${path}.`),
  );
  const longest = paths.sort((a, b) => b.length - a.length)[0];
  return longest === undefined ? problem : `${spelling.get(longest) ?? longest}${problem.slice(longest.length)}`;
}
