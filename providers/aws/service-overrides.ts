/**
 * `[ServiceOverride "name"]` sections: private endpoints (VPC interface endpoints in air-gapped VPCs), as
 * upstream reads them. Upstream's service names are SDK service IDs; `elasticloadbalancing` is one
 * endpoint for both load-balancer APIs (classic and v2 share it), so an `elasticloadbalancingv2` section
 * is needed only to send v2 elsewhere. `SigningRegion` and `SigningName` change how requests are signed,
 * as upstream's SDK options do; `SigningMethod` is accepted and, as upstream, not used (always SigV4).
 *
 * Once any service this provider calls has an override, every one it calls needs one: a service left
 * on its public name would be a DNS failure at the first call in a VPC without Internet access, so it
 * is reported at start instead.
 */
import type { IniEntry } from "./ini.ts";

/** The APIs the provider calls: EC2, classic ELB, ELBv2, and STS for `RoleARN`. */
export type OverridableService = "ec2" | "elb" | "elbv2" | "sts";

export interface ServiceOverride {
  readonly service: OverridableService;
  readonly region: string;
  readonly url: string;
  /** The SigV4 scope's region; defaults to `region`. */
  readonly signingRegion: string;
  /** The SigV4 scope's service; empty: the API's own. */
  readonly signingName: string;
}

const SERVICES: Readonly<Record<string, OverridableService>> = {
  ec2: "ec2",
  elasticloadbalancing: "elb",
  "elastic load balancing": "elb",
  elb: "elb",
  elasticloadbalancingv2: "elbv2",
  "elastic load balancing v2": "elbv2",
  elbv2: "elbv2",
  sts: "sts",
};

/** Upstream service IDs this provider never calls (volumes, KMS, metadata): accepted, not used. */
const UNUSED = new Set(["kms", "autoscaling", "ec2metadata", "imds", "s3", "iam", "ecr"]);

const KEYS = ["service", "region", "url", "signingregion", "signingmethod", "signingname"];
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** The name upstream uses for a service, for messages. */
export function upstreamName(service: OverridableService): string {
  return { ec2: "ec2", elb: "elasticloadbalancing", elbv2: "elasticloadbalancingv2", sts: "sts" }[service];
}

function problems(where: string, get: (key: string) => string): string[] {
  const p: string[] = [];
  const service = get("service").toLowerCase();
  if (!SERVICES[service] && !UNUSED.has(service)) {
    p.push(
      `${where} Service: ${JSON.stringify(get("service"))} is not ec2, elasticloadbalancing, elasticloadbalancingv2 or sts`,
    );
  }
  let url: URL | undefined;
  try {
    url = new URL(get("url"));
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol))
    p.push(`${where} URL: ${JSON.stringify(get("url"))} is not an http(s) URL`);
  if (!REGION.test(get("region")))
    p.push(`${where} Region: ${JSON.stringify(get("region"))} is not a region such as us-west-2`);
  const signing = get("signingregion");
  if (signing !== "" && !REGION.test(signing))
    p.push(`${where} SigningRegion: ${JSON.stringify(signing)} is not a region`);
  return p;
}

function one(p: string[], name: string, entries: readonly IniEntry[]): ServiceOverride | undefined {
  const where = `[ServiceOverride ${JSON.stringify(name)}]`;
  const get = (key: string): string => entries.find((e) => e.key.toLowerCase() === key)?.value.trim() ?? "";
  for (const e of entries)
    if (!KEYS.includes(e.key.toLowerCase())) p.push(`${where} ${e.key}: unknown key (line ${e.line})`);
  const found = problems(where, get);
  p.push(...found);
  const service = SERVICES[get("service").toLowerCase()];
  if (!service || found.length > 0) return undefined;
  const region = get("region");
  return {
    service,
    region,
    url: get("url"),
    signingRegion: get("signingregion") || region,
    signingName: get("signingname"),
  };
}

/** Every section parsed; duplicates of one service and region are reported, as upstream does. */
export function parseOverrides(p: string[], sections: ReadonlyMap<string, readonly IniEntry[]>): ServiceOverride[] {
  const out: ServiceOverride[] = [];
  for (const [name, entries] of sections) {
    const o = one(p, name, entries);
    if (!o) continue;
    if (out.some((x) => x.service === o.service && x.region === o.region)) {
      p.push(
        `[ServiceOverride ${JSON.stringify(name)}]: a second override for ${upstreamName(o.service)} in ${o.region}`,
      );
    } else out.push(o);
  }
  return out;
}

/** The override serving `service` in `region` (any region when empty); ELBv2 falls back to ELB's. */
export function overrideFor(
  overrides: readonly ServiceOverride[],
  service: OverridableService,
  region: string,
): ServiceOverride | undefined {
  const match = (s: OverridableService): ServiceOverride | undefined =>
    overrides.find((o) => o.service === s && (region === "" || o.region === region));
  return match(service) ?? (service === "elbv2" ? match("elb") : undefined);
}

/** With overrides in use, the services among `needed` that would still go to a public endpoint. */
export function missingOverrides(
  overrides: readonly ServiceOverride[],
  needed: readonly OverridableService[],
  region: string,
): string[] {
  if (overrides.length === 0) return [];
  const missing = needed.filter((s) => !overrideFor(overrides, s, region));
  const where = region === "" ? "" : ` in ${region}`;
  return missing.map(
    (s) =>
      `[ServiceOverride] no override for ${upstreamName(s)}${where}: with private endpoints configured, every service called needs one (${needed.map(upstreamName).join(", ")}); a public endpoint is never tried`,
  );
}
