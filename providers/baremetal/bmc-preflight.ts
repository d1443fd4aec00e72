/**
 * What `cloud-controller-manager check` asks of the BMCs: one read-only GET of each distinct Redfish system
 * the file inventory names, and one sentence per problem naming the machine, the BMC address and what to
 * fix. A BMC whose credentials come from a Secret is not asked: `check` has no API client to read it with,
 * and a GET without them proves nothing. With `inventory.source: cluster` there are no file machines to ask.
 */
import type { Logger } from "../../src/log/logger.ts";
import { Semaphore } from "../../src/util/concurrency.ts";
import type { BmcCredentials, BmcSettings } from "./bmc-config.ts";
import type { Inventory } from "./inventory.ts";
import { judgePower, type RedfishReply } from "./power-state.ts";
import type { Login, RedfishApi } from "./redfish-api.ts";

/** One Redfish system and the machines that name it. */
export interface BmcTarget {
  readonly machines: readonly string[];
  readonly bmc: BmcSettings;
}

export interface BmcPreflightDeps {
  readonly inventory: Inventory;
  readonly api: RedfishApi;
  readonly readCredentials: (credentials: BmcCredentials) => Promise<Login | undefined>;
  readonly logger: Logger;
  /** Systems asked at a time, over all BMCs (the power lookup's per-BMC limit). */
  readonly concurrency?: number;
  /** For all the GETs together; a BMC not asked by then is reported as not checked. */
  readonly totalMs?: number;
}

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_TOTAL_MS = 30_000;
/** Bun's and BoringSSL's words for a certificate or handshake failure. */
const TLS_FAILURE = /certificate|self[ -]signed|\bCERT_|\bTLS\b|\bSSL\b|handshake/i;

/** The distinct systems the file inventory's machines name, each with the machines naming it. */
export function bmcTargets(inventory: Inventory): BmcTarget[] {
  if (inventory.source !== "file") return [];
  const byUrl = new Map<string, { machines: string[]; bmc: BmcSettings }>();
  for (const [name, machine] of inventory.byName) {
    if (!machine.bmc) continue;
    const found = byUrl.get(machine.bmc.url) ?? { machines: [], bmc: machine.bmc };
    found.machines.push(name);
    byUrl.set(machine.bmc.url, found);
  }
  return [...byUrl.values()];
}

function credentialsToFix(credentials: BmcCredentials): string {
  switch (credentials.kind) {
    case "directory":
      return `fix the files username and password in ${credentials.path}`;
    case "none":
      return "give credentialsDirectory or credentialsName (none is sent now)";
    case "secret":
      return `fix the username and password in Secret ${credentials.namespace || "<manager namespace>"}/${credentials.name}`;
  }
}

function unreachable(failure: string, bmc: BmcSettings): string {
  const tls = bmc.url.startsWith("https:") && TLS_FAILURE.test(failure);
  const fix = tls
    ? "give caFile (the CA that signed the BMC's certificate) or disableCertificateVerification: true"
    : "check the address and that the manager can reach the BMC";
  return `no answer (${failure}); ${fix}`;
}

/** How a problem names its target: the machines, then the BMC. */
function whoOf(target: BmcTarget): string {
  return `machine ${target.machines.join(", ")}: BMC ${target.bmc.address}`;
}

/**
 * The problem one reply shows, or undefined when the system answered with a power state the provider
 * reads. Pure: the sentence `check` prints.
 */
export function bmcProblem(target: BmcTarget, reply: RedfishReply): string | undefined {
  const { bmc } = target;
  const who = whoOf(target);
  if ("failure" in reply) return `${who}: ${unreachable(reply.failure, bmc)}`;
  const { status } = reply;
  if (status === 401 || status === 403)
    return `${who} refused the credentials (HTTP ${status}); ${credentialsToFix(bmc.credentials)}`;
  if (status === 404)
    return `${who} has no such system (HTTP 404): the address's /Systems/<id> is wrong; see the BMC's /redfish/v1/Systems for the id`;
  if (status !== 200)
    return `${who} answered HTTP ${status} to a GET of the system; check the BMC (busy, or the address is not its Redfish system)`;
  const verdict = judgePower(reply);
  if (verdict.kind !== "unknown") return undefined;
  return `${who} answered without a PowerState the provider reads (${JSON.stringify(reply.powerState ?? null)}); the address must name a Redfish ComputerSystem`;
}

async function ask(target: BmcTarget, deps: BmcPreflightDeps, signal: AbortSignal): Promise<string | undefined> {
  let login: Login | undefined;
  try {
    login = await deps.readCredentials(target.bmc.credentials);
  } catch (error) {
    return `${whoOf(target)}: cannot read the credentials: ${(error as Error).message}`;
  }
  const reply = await deps.api.getSystem(target.bmc, login, signal);
  if (signal.aborted) return undefined;
  return bmcProblem(target, reply);
}

/** Asks each system once, `concurrency` at a time, all within `totalMs` (or until `signal` aborts). */
export async function preflightBmcs(deps: BmcPreflightDeps, signal: AbortSignal): Promise<string[]> {
  const log = deps.logger;
  if (deps.inventory.source === "cluster")
    log.info("preflight: no BMC asked: with inventory.source cluster the machines are read by the running manager");
  const targets = bmcTargets(deps.inventory);
  const askable = targets.filter((t) => t.bmc.credentials.kind !== "secret");
  for (const t of targets.filter((t) => t.bmc.credentials.kind === "secret"))
    log.info(`preflight: BMC ${t.bmc.address} not asked: its credentials are a Secret only the running manager reads`);
  const totalMs = deps.totalMs ?? DEFAULT_TOTAL_MS;
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(totalMs)]);
  const slots = new Semaphore(deps.concurrency ?? DEFAULT_CONCURRENCY);
  let unasked = 0;
  const answers = await Promise.all(
    askable.map((t) =>
      slots.run(async () => {
        const problem = bounded.aborted ? undefined : await ask(t, deps, bounded);
        if (bounded.aborted) unasked += 1;
        return problem;
      }),
    ),
  );
  const problems = answers.filter((p): p is string => p !== undefined);
  const why = signal.aborted ? "the check was stopped" : `the BMCs together took over ${totalMs} ms`;
  if (unasked > 0) problems.push(`${unasked} BMC(s) not checked: ${why}`);
  else log.debug(`preflight: ${askable.length} BMC(s) asked, ${problems.length} problem(s)`);
  return problems;
}
