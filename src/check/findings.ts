/**
 * The decisions of `cloud-controller-manager check`, apart from the reads that feed them: each function
 * takes what was read and returns table rows. `fail` makes the command exit non-zero; `note` informs.
 */
import type { Config } from "../config/config.ts";
import type { Lease, Node } from "../kube/objects.ts";
import { TAINT_UNINITIALIZED } from "../kube/well-known.ts";
import { describeAccess, type Access } from "../manifests/access.ts";
import { cidrContains, formatCIDR, parseCIDR, type CIDR } from "../net/ip.ts";

export type Status = "ok" | "fail" | "note";

export interface Finding {
  readonly check: string;
  readonly status: Status;
  readonly detail: string;
}

/** Names beyond this many are summarised, so a big cluster still gets a readable table. */
const MAX_NAMES = 10;

export function nameList(names: readonly string[]): string {
  const shown = names.slice(0, MAX_NAMES).join(", ");
  return names.length > MAX_NAMES ? `${shown} and ${names.length - MAX_NAMES} more` : shown;
}

const hasTaint = (node: Node): boolean => (node.spec?.taints ?? []).some((t) => t.key === TAINT_UNINITIALIZED);

/**
 * A node with neither a providerID nor the uninitialized taint was registered by a kubelet without
 * `--cloud-provider=external`.
 */
export function registeredWithoutExternal(node: Node): boolean {
  return !node.spec?.providerID && !hasTaint(node);
}

export function nodeFindings(nodes: readonly Node[]): Finding[] {
  const bad = nodes.filter(registeredWithoutExternal).map((n) => n.metadata.name);
  const waiting = nodes.filter(hasTaint).length;
  const findings: Finding[] = [];
  if (bad.length > 0) {
    findings.push({
      check: "nodes",
      status: "fail",
      detail: `${bad.length} node(s) registered without --cloud-provider=external (no providerID, no ${TAINT_UNINITIALIZED} taint), so they will never be initialised: ${nameList(bad)}. Restart their kubelets with --cloud-provider=external.`,
    });
  } else
    findings.push({
      check: "nodes",
      status: "ok",
      detail: `${nodes.length} node(s), none registered without --cloud-provider=external`,
    });
  if (waiting > 0)
    findings.push({
      check: "nodes",
      status: "note",
      detail: `${waiting} node(s) carry the uninitialized taint and wait for this manager`,
    });
  return findings;
}

function inside(cluster: readonly CIDR[], pod: CIDR): boolean {
  return cluster.some(
    (c) =>
      c.family === pod.family && c.prefix <= pod.prefix && cidrContains(c, { family: pod.family, value: pod.base }),
  );
}

function podCidrs(node: Node): string[] {
  return node.spec?.podCIDRs ?? (node.spec?.podCIDR ? [node.spec.podCIDR] : []);
}

/** Route checks: only when the route controller will run (enabled, routes on, provider has Routes). */
export function clusterCidrFindings(nodes: readonly Node[], config: Config, providerHasRoutes: boolean): Finding[] {
  const check = "cluster-cidr";
  if (!config.controllers.includes("node-route-controller") || !config.configureCloudRoutes)
    return [{ check, status: "note", detail: "routes are off: pod CIDRs not checked" }];
  if (!providerHasRoutes)
    return [
      {
        check,
        status: "note",
        detail: `provider ${config.cloudProvider} has no routes: node-route-controller will be skipped`,
      },
    ];
  if (config.clusterCidrs.length === 0) {
    return [
      {
        check,
        status: "fail",
        detail:
          "--configure-cloud-routes is on but --cluster-cidr is empty, so node-route-controller will not start: set --cluster-cidr, or --configure-cloud-routes=false",
      },
    ];
  }
  const clusterText = config.clusterCidrs.map(formatCIDR).join(",");
  const outside = nodes.flatMap((n) =>
    podCidrs(n)
      .filter((text) => {
        const cidr = parseCIDR(text);
        return !cidr || !inside(config.clusterCidrs, cidr);
      })
      .map((text) => `${n.metadata.name} (${text})`),
  );
  const withCidr = nodes.filter((n) => podCidrs(n).length > 0).length;
  if (outside.length > 0) {
    return [
      {
        check,
        status: "fail",
        detail: `${outside.length} podCIDR(s) outside --cluster-cidr=${clusterText}, so they get no route: ${nameList(outside)}`,
      },
    ];
  }
  return [
    {
      check,
      status: "ok",
      detail: `${withCidr} of ${nodes.length} node(s) have podCIDRs, all inside --cluster-cidr=${clusterText}`,
    },
  ];
}

/** Seconds since the holder's last renewal, or undefined when its lease has expired (by this machine's clock). */
function freshRenewal(lease: Lease, nowMs: number): number | undefined {
  const renewed = Date.parse(lease.spec?.renewTime ?? "");
  const expiresAt = renewed + (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
  if (Number.isNaN(renewed) || expiresAt < nowMs) return undefined;
  return Math.max(0, Math.round((nowMs - renewed) / 1000));
}

/** Another holder whose renewal has not yet expired is another manager running. */
export function leaseFindings(lease: Lease | undefined, config: Config, nowMs: number): Finding[] {
  const check = "lease";
  const where = `${config.leaderElection.resourceNamespace}/${config.leaderElection.resourceName}`;
  if (!config.leaderElection.enabled)
    return [
      { check, status: "note", detail: "--leader-elect=false: make sure no other cloud-controller-manager runs" },
    ];
  const holder = lease?.spec?.holderIdentity ?? "";
  if (!lease || holder === "") return [{ check, status: "ok", detail: `Lease ${where} is free` }];
  const ago = freshRenewal(lease, nowMs);
  if (ago === undefined) return [{ check, status: "ok", detail: `Lease ${where} was held by ${holder}, expired` }];
  return [
    {
      check,
      status: "fail",
      detail: `Lease ${where} is held by ${holder} (renewed ${ago}s ago): another cloud-controller-manager is running (expected only when adding a standby)`,
    },
  ];
}

export interface AccessAnswer {
  readonly access: Access;
  /** Why it is needed (see `neededFor`). */
  readonly neededFor: string;
  readonly allowed: boolean;
}

/** `subject` names whose permissions these are (the kubeconfig's identity, or a controller's ServiceAccount). */
export function rbacFindings(answers: readonly AccessAnswer[], subject: string): Finding[] {
  const check = "rbac";
  const gaps = answers.filter((a) => !a.allowed);
  if (gaps.length === 0)
    return [{ check, status: "ok", detail: `${subject}: all ${answers.length} needed permission(s) granted` }];
  return gaps.map((g) => ({
    check,
    status: "fail",
    detail: `${subject} may not ${describeAccess(g.access)} (needed by ${g.neededFor})`,
  }));
}

export function providerFindings(name: string, problems: readonly string[] | undefined): Finding[] {
  const check = "cloud";
  if (problems === undefined)
    return [
      {
        check,
        status: "note",
        detail: `provider ${name} has no preflight: configuration parsed, credentials not tried`,
      },
    ];
  if (problems.length === 0)
    return [{ check, status: "ok", detail: `provider ${name}: configuration parsed, its preflight found no problem` }];
  return problems.map((p) => ({ check, status: "fail", detail: `provider ${name}: ${p}` }));
}

export const failed = (findings: readonly Finding[]): boolean => findings.some((f) => f.status === "fail");
