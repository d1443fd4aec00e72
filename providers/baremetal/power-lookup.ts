/**
 * Power state per Redfish system, asked as the instance calls need it: one answer per system is kept for
 * `ttlMs` (the lifecycle controller asks about every node each period, and exists-then-shutdown asks
 * twice), concurrent questions about one system share one request, and each BMC endpoint serves at most
 * `perBmc` requests at a time (BMCs are small computers). Only "running" and "shutdown" are kept:
 * "unknown" and "gone" ask again, so the lifecycle controller's two answers a monitor period apart, which
 * it needs before it deletes a Node, are two questions to the BMC whatever the period. A 404 is confirmed
 * by a GET of the Systems collection before it counts as "gone". Credentials are kept for
 * `credentialsTtlMs` and read again as soon as a BMC refuses them.
 */
import { Semaphore } from "../../src/util/concurrency.ts";
import type { BmcCredentials, BmcSettings } from "./bmc-config.ts";
import { judgePower, type PowerVerdict } from "./power-state.ts";
import type { Login, RedfishApi } from "./redfish-api.ts";

export type PowerOf = (bmc: BmcSettings, signal?: AbortSignal) => Promise<PowerVerdict>;

export interface PowerLookupDeps {
  readonly api: RedfishApi;
  readonly readCredentials: (credentials: BmcCredentials) => Promise<Login | undefined>;
  readonly credentialKey: (credentials: BmcCredentials) => string;
  readonly ttlMs?: number;
  readonly credentialsTtlMs?: number;
  readonly perBmc?: number;
  readonly now?: () => number;
}

const DEFAULT_TTL_MS = 5_000;
const DEFAULT_CREDENTIALS_TTL_MS = 60_000;
const DEFAULT_PER_BMC = 4;

interface Memo<T> {
  get(key: string, load: () => Promise<T>): Promise<T>;
  drop(key: string): void;
}

/**
 * Promises by key: shared while pending, kept for `ttlMs` once settled with a value `keep` accepts,
 * forgotten at once otherwise (a rejection or an unkept value).
 */
export function expiringMemo<T>(ttlMs: number, now: () => number, keep: (value: T) => boolean): Memo<T> {
  const entries = new Map<string, { promise: Promise<T>; until: number }>();
  const forget = (key: string, entry: unknown): void => {
    if (entries.get(key) === entry) entries.delete(key);
  };
  return {
    get(key, load) {
      const hit = entries.get(key);
      if (hit && hit.until > now()) return hit.promise;
      const entry = { promise: load(), until: Number.POSITIVE_INFINITY };
      entries.set(key, entry);
      entry.promise.then(
        (value) => (keep(value) ? (entry.until = now() + ttlMs) : forget(key, entry)),
        () => forget(key, entry),
      );
      return entry.promise;
    },
    drop: (key) => entries.delete(key),
  };
}

const refused = (status: number): boolean => status === 401 || status === 403;

export function createPowerLookup(deps: PowerLookupDeps): PowerOf {
  const now = deps.now ?? Date.now;
  const verdicts = expiringMemo<PowerVerdict>(
    deps.ttlMs ?? DEFAULT_TTL_MS,
    now,
    (v) => v.kind === "running" || v.kind === "shutdown",
  );
  const logins = expiringMemo<Login | undefined>(deps.credentialsTtlMs ?? DEFAULT_CREDENTIALS_TTL_MS, now, () => true);
  const endpoints = new Map<string, Semaphore>();
  const endpointOf = (bmc: BmcSettings): Semaphore => {
    const host = new URL(bmc.url).host;
    const found = endpoints.get(host) ?? new Semaphore(deps.perBmc ?? DEFAULT_PER_BMC);
    endpoints.set(host, found);
    return found;
  };

  async function ask(bmc: BmcSettings, signal?: AbortSignal): Promise<PowerVerdict> {
    const key = deps.credentialKey(bmc.credentials);
    let login: Login | undefined;
    try {
      login = await logins.get(key, () => deps.readCredentials(bmc.credentials));
    } catch (error) {
      return { kind: "unknown", reason: `cannot read the BMC credentials: ${(error as Error).message}` };
    }
    const endpoint = endpointOf(bmc);
    const reply = await endpoint.run(() => deps.api.getSystem(bmc, login, signal));
    if ("status" in reply && refused(reply.status)) logins.drop(key);
    if (!("status" in reply) || reply.status !== 404) return judgePower(reply);
    return judgePower(reply, await endpoint.run(() => deps.api.getSystems(bmc, login, signal)));
  }

  return (bmc, signal) => verdicts.get(bmc.url, () => ask(bmc, signal));
}
