/**
 * What a BMC's answer means for a Node: the pure part of the Redfish lookup. Only two answers are facts
 * about the machine: a ComputerSystem with a known `PowerState`, and HTTP 404 on the system resource
 * while the BMC's Systems collection answers 200 without the system among its members (a BMC that is
 * restarting may answer 404 for everything). Everything else (no answer, a timeout, a redirect, 5xx,
 * refused credentials, an unreadable body, a 404 the collection does not confirm) is "unknown": an error
 * for that node, which never deletes it and never taints it.
 */
import type { InstanceState } from "../../src/cloud/provider.ts";

/** One GET of the system resource: its HTTP status and, for a 200, the `PowerState` it carried. */
export type RedfishReply =
  | { readonly status: number; readonly powerState?: unknown }
  /** No HTTP answer at all: connection refused, TLS failure, timeout. */
  | { readonly failure: string };

/**
 * One GET of the Systems collection the system belongs to: its HTTP status and, for a 200 with a readable
 * `Members` list, whether the system is among them (false only when that list is the whole collection).
 */
export type SystemsReply = { readonly status: number; readonly listed?: boolean } | { readonly failure: string };

export type PowerVerdict =
  | { readonly kind: "running"; readonly powerState: string }
  | { readonly kind: "shutdown" }
  /** HTTP 404, confirmed by the Systems collection: the BMC answers and has no such system. */
  | { readonly kind: "gone" }
  | { readonly kind: "unknown"; readonly reason: string };

/** The Systems collection's URL for a system's URL: its path without the last segment. */
export function systemsUrlOf(systemUrl: string): string {
  const url = new URL(systemUrl);
  url.pathname = url.pathname.replace(/\/+$/, "").replace(/\/[^/]*$/, "");
  url.search = "";
  return url.toString();
}

const pathOf = (ref: string, base: string): string => new URL(ref, base).pathname.replace(/\/+$/, "");

interface CollectionBody {
  readonly Members?: unknown;
  readonly "Members@odata.nextLink"?: unknown;
  readonly "Members@odata.count"?: unknown;
}

/** Whether this page lists every member: no next page, and no count above the members it lists. */
function complete(body: CollectionBody, listed: number): boolean {
  const count = body["Members@odata.count"];
  return body["Members@odata.nextLink"] === undefined && !(typeof count === "number" && count > listed);
}

/**
 * Whether a Systems collection body lists the system at `systemUrl`; undefined when it has no member
 * list, or lists it not but is only a page of the collection (`Members@odata.nextLink`, or
 * `Members@odata.count` above the members listed): the system may be on another page.
 */
export function listsSystem(body: unknown, systemUrl: string): boolean | undefined {
  const collection = (body ?? {}) as CollectionBody;
  const members = collection.Members;
  if (!Array.isArray(members)) return undefined;
  const wanted = pathOf(systemUrl, systemUrl);
  const found = members.some((m) => {
    const id = (m as { "@odata.id"?: unknown } | null)?.["@odata.id"];
    return typeof id === "string" && pathOf(id, systemUrl) === wanted;
  });
  return found || (complete(collection, members.length) ? false : undefined);
}

/** A 404 on the system means "gone" only when the collection answered and does not list it. */
function judgeMissing(systems: SystemsReply | undefined): PowerVerdict {
  const why = "HTTP 404 for the system, but";
  if (systems === undefined) return { kind: "unknown", reason: `${why} the Systems collection was not asked` };
  if ("failure" in systems)
    return { kind: "unknown", reason: `${why} no answer from the Systems collection: ${systems.failure}` };
  if (systems.status !== 200)
    return { kind: "unknown", reason: `${why} the Systems collection answered HTTP ${systems.status}` };
  if (systems.listed === false) return { kind: "gone" };
  const listed = systems.listed ? "still lists it" : "has no complete, readable Members list";
  return { kind: "unknown", reason: `${why} the Systems collection ${listed}` };
}

/**
 * Redfish `PowerState` values that mean the machine runs (or is about to). `PoweringOff` is still running:
 * the next look sees `Off`. `Paused` is powered and holds its workloads' memory.
 */
const RUNNING = ["On", "PoweringOn", "PoweringOff", "Paused"];

/** Why a non-200, non-404 answer tells nothing. */
function unclear(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: the BMC redirects; give the system's own address`;
  if (status === 401 || status === 403) return `HTTP ${status}: the BMC refused the credentials`;
  return `HTTP ${status}`;
}

/** The verdict on a system's reply; `systems` is the collection's answer, asked after a 404. */
export function judgePower(reply: RedfishReply, systems?: SystemsReply): PowerVerdict {
  if ("failure" in reply) return { kind: "unknown", reason: `no answer: ${reply.failure}` };
  const { status, powerState } = reply;
  if (status === 404) return judgeMissing(systems);
  if (status !== 200) return { kind: "unknown", reason: unclear(status) };
  if (powerState === "Off") return { kind: "shutdown" };
  if (typeof powerState === "string" && RUNNING.includes(powerState)) return { kind: "running", powerState };
  return { kind: "unknown", reason: `unrecognised PowerState ${JSON.stringify(powerState ?? null)}` };
}

/**
 * The instance state a verdict stands for; "unknown" throws (a plain error: "could not find out", which
 * the lifecycle controller answers by doing nothing for that node).
 */
export function stateFromPower(verdict: PowerVerdict, what: string): InstanceState {
  switch (verdict.kind) {
    case "running":
      return { exists: true, shutdown: false };
    case "shutdown":
      return { exists: true, shutdown: true };
    case "gone":
      return { exists: false };
    case "unknown":
      throw new Error(`cannot tell the power state of ${what}: ${verdict.reason}`);
  }
}
