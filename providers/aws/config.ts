/**
 * The AWS cloud-config: upstream's gcfg INI file (cloud-provider-aws `config.go`), limited to the keys
 * that mean something without instance metadata. Every problem is reported at once, each naming its key.
 *
 * ```ini
 * [Global]
 * Region = eu-west-1                 ; else Zone minus its letter, else the SDK chain (AWS_REGION, profile)
 * KubernetesClusterID = prod         ; tag kubernetes.io/cluster/prod; required (no instance metadata)
 * VPC = vpc-0abc…                    ; else the VPC of the load balancer's backend instances
 * SubnetID = subnet-0abc…            ; fallback subnet for load balancers when discovery finds none
 * RouteTableID = rtb-0abc…           ; else the one route table tagged for the cluster
 * ElbSecurityGroup = sg-0abc…        ; one shared group for every ELB instead of one per ELB
 * DisableSecurityGroupIngress = true ; never touch the nodes' security groups
 *
 * RoleARN = arn:aws:iam::111122223333:role/ccm   ; AssumeRole (cross-account) through STS
 * SourceARN = arn:aws:eks:…          ; sent with AssumeRole (aws:SourceArn / aws:SourceAccount conditions)
 *
 * [ServiceOverride "1"]              ; private endpoints (also AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_EC2, …)
 * Service = ec2
 * Region = eu-west-1
 * URL = https://ec2.vpce.example
 * SigningRegion = eu-west-1
 * ```
 *
 * As upstream's gcfg reading, a key with an empty value is the same as a key left out.
 */
import { parseIni, parseIniBool, type IniEntry } from "./ini.ts";
import {
  missingOverrides,
  parseOverrides,
  type OverridableService,
  type ServiceOverride,
} from "./service-overrides.ts";

export type { OverridableService, ServiceOverride } from "./service-overrides.ts";
export type IpFamily = "ipv4" | "ipv6";

/** `RoleARN` (and `SourceARN`): credentials from STS AssumeRole, the SDK chain's as the caller's. */
export interface AssumeRole {
  readonly roleARN: string;
  /** Empty: no source headers. */
  readonly sourceARN: string;
}

export interface AwsConfig {
  /** Empty: the SDK's region chain decides. */
  readonly region: string;
  readonly zone: string;
  readonly vpc: string;
  readonly subnetID: string;
  readonly routeTableID: string;
  readonly clusterID: string;
  /** KubernetesClusterTag was given: resources also carry and match the legacy `KubernetesCluster` tag. */
  readonly legacyClusterTag: boolean;
  readonly disableSecurityGroupIngress: boolean;
  readonly elbSecurityGroup: string;
  /** `NLBSecurityGroupMode = Managed`: each new NLB gets its own security group (upstream: any other value is off). */
  readonly nlbManagedSecurityGroup: boolean;
  readonly nodeIPFamilies: readonly IpFamily[];
  readonly healthProbe: { readonly shared: boolean; readonly port: number; readonly path: string };
  readonly overrides: readonly ServiceOverride[];
  readonly assumeRole: AssumeRole | undefined;
}

const PATTERNS: Readonly<Record<string, [RegExp, string]>> = {
  zone: [/^[a-z]{2}(-[a-z]+)+-\d+[a-z]$/, "an availability zone such as us-west-2a"],
  region: [/^[a-z]{2}(-[a-z]+)+-\d+$/, "a region such as us-west-2"],
  vpc: [/^vpc-[0-9a-f]+$/, "a VPC ID such as vpc-0123abcd"],
  subnetid: [/^subnet-[0-9a-f]+$/, "a subnet ID such as subnet-0123abcd"],
  routetableid: [/^rtb-[0-9a-f]+$/, "a route table ID such as rtb-0123abcd"],
  elbsecuritygroup: [/^sg-[0-9a-f]+$/, "a security group ID such as sg-0123abcd"],
  kubernetesclusterid: [/^[A-Za-z0-9][A-Za-z0-9._:/+=@-]{0,99}$/, "a cluster ID of letters, digits and ._:/+=@-"],
  kubernetesclustertag: [/^[A-Za-z0-9][A-Za-z0-9._:/+=@-]{0,99}$/, "a cluster ID of letters, digits and ._:/+=@-"],
  clusterserviceloadbalancerhealthprobemode: [/^(ServiceNodePort|Shared)$/, "ServiceNodePort or Shared"],
  clusterservicesharedloadbalancerhealthprobepath: [/^\/\S*$/, "an absolute path"],
  clusterservicesharedloadbalancerhealthprobeport: [/^\d{1,5}$/, "a port number"],
  rolearn: [/^arn:aws[a-z-]*:iam::\d{12}:role\/\S+$/, "an IAM role ARN such as arn:aws:iam::111122223333:role/name"],
  sourcearn: [
    /^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:\d{12}:\S+$/,
    "an ARN such as arn:aws:eks:us-west-2:111122223333:cluster/name",
  ],
};

/** Upstream keys this provider refuses rather than silently ignores, with the reason. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  supportedtopologyinstancetypepattern: "topology labels (DescribeInstanceTopology) are not supported",
};

const SCALAR_KEYS = [...Object.keys(PATTERNS), "disablesecuritygroupingress", "nodeipfamilies", "nlbsecuritygroupmode"];

type Problems = string[];

function keyProblem(e: IniEntry, key: string): string | undefined {
  if (UNSUPPORTED[key]) return `[Global] ${e.key}: not supported by this provider: ${UNSUPPORTED[key]}`;
  if (!SCALAR_KEYS.includes(key)) return `[Global] ${e.key}: unknown key (line ${e.line})`;
  const [pattern, what] = PATTERNS[key] ?? [/.*/, ""];
  return pattern.test(e.value) ? undefined : `[Global] ${e.key}: ${JSON.stringify(e.value)} is not ${what}`;
}

function repeated(values: ReadonlyMap<string, readonly string[]>): string[] {
  return [...values]
    .filter(([key, list]) => list.length > 1 && key !== "nodeipfamilies")
    .map(([key, list]) => `[Global] ${key}: given ${list.length} times`);
}

function globalValues(p: Problems, entries: readonly IniEntry[]): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const e of entries) {
    const key = e.key.toLowerCase();
    const known = SCALAR_KEYS.includes(key) || UNSUPPORTED[key] !== undefined;
    if (e.value === "" && known) continue;
    const problem = keyProblem(e, key);
    if (problem) p.push(problem);
    if (SCALAR_KEYS.includes(key)) values.set(key, [...(values.get(key) ?? []), e.value]);
  }
  p.push(...repeated(values));
  return values;
}

function clusterID(p: Problems, get: (key: string) => string): string {
  const id = get("kubernetesclusterid");
  const legacy = get("kubernetesclustertag");
  if (id !== "" && legacy !== "" && id !== legacy)
    p.push(
      `[Global] KubernetesClusterID ${JSON.stringify(id)} and KubernetesClusterTag ${JSON.stringify(legacy)} must be equal when both are set`,
    );
  if (id === "" && legacy === "")
    p.push(
      "[Global] KubernetesClusterID: required (without instance metadata the cluster ID cannot be read from this machine's tags)",
    );
  return id || legacy;
}

function region(p: Problems, get: (key: string) => string): string {
  const explicit = get("region");
  const zone = get("zone");
  const fromZone = zone === "" ? "" : zone.slice(0, -1);
  if (explicit !== "" && fromZone !== "" && explicit !== fromZone)
    p.push(`[Global] Zone ${JSON.stringify(zone)} is not in Region ${JSON.stringify(explicit)}`);
  return explicit || fromZone;
}

function families(p: Problems, list: readonly string[]): IpFamily[] {
  if (list.length === 0) return ["ipv4"];
  const out = list.map((v) => v.toLowerCase());
  for (const v of out)
    if (v !== "ipv4" && v !== "ipv6") p.push(`[Global] NodeIPFamilies: ${JSON.stringify(v)} is not ipv4 or ipv6`);
  if (new Set(out).size !== out.length) p.push("[Global] NodeIPFamilies: a family is given twice");
  return out as IpFamily[];
}

function sections(
  p: Problems,
  entries: readonly IniEntry[],
): { global: IniEntry[]; overrides: Map<string, IniEntry[]> } {
  const global: IniEntry[] = [];
  const overrides = new Map<string, IniEntry[]>();
  for (const e of entries) {
    if (e.section === "global" && e.subsection === undefined) global.push(e);
    else if (e.section === "serviceoverride" && e.subsection !== undefined)
      overrides.set(e.subsection, [...(overrides.get(e.subsection) ?? []), e]);
    else
      p.push(
        `line ${e.line}: unknown section [${e.section}${e.subsection === undefined ? "" : ` "${e.subsection}"`}] (known: [Global], [ServiceOverride "name"])`,
      );
  }
  return { global, overrides };
}

function healthProbe(p: Problems, get: (key: string) => string): AwsConfig["healthProbe"] {
  const port = Number(get("clusterservicesharedloadbalancerhealthprobeport") || "10256");
  if (port < 1 || port > 65535)
    p.push(`[Global] ClusterServiceSharedLoadBalancerHealthProbePort: ${port} is not a port from 1 to 65535`);
  return {
    shared: get("clusterserviceloadbalancerhealthprobemode") === "Shared",
    port,
    path: get("clusterservicesharedloadbalancerhealthprobepath") || "/healthz",
  };
}

export function parseAwsConfig(
  text: string | undefined,
): { ok: true; config: AwsConfig } | { ok: false; errors: string[] } {
  const ini = parseIni(text ?? "");
  if (!ini.ok) return ini;
  const p: Problems = [];
  const { global, overrides } = sections(p, ini.entries);
  const values = globalValues(p, global);
  const get = (key: string): string => values.get(key)?.[0] ?? "";
  const disable = parseIniBool(get("disablesecuritygroupingress"));
  if (disable === undefined)
    p.push(
      `[Global] DisableSecurityGroupIngress: ${JSON.stringify(get("disablesecuritygroupingress"))} is not true or false`,
    );
  const config: AwsConfig = {
    region: region(p, get),
    zone: get("zone"),
    vpc: get("vpc"),
    subnetID: get("subnetid"),
    routeTableID: get("routetableid"),
    clusterID: clusterID(p, get),
    legacyClusterTag: get("kubernetesclustertag") !== "",
    disableSecurityGroupIngress: disable ?? false,
    elbSecurityGroup: get("elbsecuritygroup"),
    nlbManagedSecurityGroup: get("nlbsecuritygroupmode") === "Managed",
    nodeIPFamilies: families(p, values.get("nodeipfamilies") ?? []),
    healthProbe: healthProbe(p, get),
    overrides: parseOverrides(p, overrides),
    assumeRole: get("rolearn") === "" ? undefined : { roleARN: get("rolearn"), sourceARN: get("sourcearn") },
  };
  const needed: OverridableService[] = ["ec2", "elb", "elbv2", ...(config.assumeRole ? ["sts" as const] : [])];
  p.push(...missingOverrides(config.overrides, needed, config.region));
  return p.length > 0 ? { ok: false, errors: p } : { ok: true, config };
}
