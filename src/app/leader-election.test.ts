/**
 * client-go's bookkeeping of a leader election, against a small Lease server that keeps one Lease with
 * its resourceVersion: the status metric, the fast path of a renewal and what counts as the slow path.
 * (Two replicas, SIGTERM and kill -9 are in test/integration/leader-election.test.ts.)
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { LeaderElectionConfig } from "../config/config.ts";
import type { Lease } from "../kube/objects.ts";
import { createLogger } from "../log/logger.ts";
import { realClock, type Clock } from "../util/clock.ts";
import { localApi } from "../../test/harness/local-api.ts";
import { createLeaderElector } from "./leader-election.ts";

const requests: string[] = [];
let stored: Lease | undefined;
let version = 0;

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    if (new URL(request.url).searchParams.has("watch")) return notFound(); // a standby's watch: not used here
    requests.push(request.method);
    if (request.method === "GET") return stored ? Response.json(stored) : notFound();
    const lease = (await request.json()) as Lease;
    if (request.method === "PUT" && lease.metadata.resourceVersion !== stored?.metadata.resourceVersion)
      return Response.json({ kind: "Status", code: 409, reason: "Conflict" }, { status: 409 });
    stored = { ...lease, metadata: { ...lease.metadata, resourceVersion: String(++version) } };
    return Response.json(stored, { status: request.method === "POST" ? 201 : 200 });
  },
});
afterAll(() => void server.stop(true));

function notFound(): Response {
  return Response.json({ kind: "Status", code: 404, reason: "NotFound" }, { status: 404 });
}

const config: LeaderElectionConfig = {
  enabled: true,
  leaseDurationMs: 1500,
  renewDeadlineMs: 1000,
  retryPeriodMs: 100,
  resourceName: "cloud-controller-manager",
  resourceNamespace: "kube-system",
  releaseOnShutdown: true,
};

function elector(
  statuses: boolean[],
  slowPaths: string[],
  events: string[] = [],
  clock: Clock = realClock,
): ReturnType<typeof createLeaderElector> {
  return createLeaderElector({
    api: localApi(server.port),
    config,
    identity: "host_1",
    logger: createLogger({ verbosity: 0, format: "text", write: () => undefined }),
    clock,
    recorder: { event: (_object, type, reason, message) => void events.push(`${type} ${reason} ${message}`) },
    onStatus: (leading) => statuses.push(leading),
    onSlowPath: () => slowPaths.push("slow"),
  });
}

describe("leader election", () => {
  test("status 0 from the start, one PUT per renewal, the slow path only after a failed PUT", async () => {
    const statuses: boolean[] = [];
    const slowPaths: string[] = [];
    const le = elector(statuses, slowPaths);
    expect(statuses).toEqual([false]);
    expect(await le.acquire(AbortSignal.timeout(5000))).toBe(true);
    expect(requests.splice(0)).toContain("POST");
    expect(stored?.spec).toMatchObject({ holderIdentity: "host_1", leaseDurationSeconds: 1, leaseTransitions: 0 });

    const renewing = new AbortController();
    const renewal = le.renew(renewing.signal);
    await Bun.sleep(350);
    expect(requests.length).toBeGreaterThan(0);
    expect(new Set(requests.splice(0))).toEqual(new Set(["PUT"]));
    expect(slowPaths).toEqual([]);

    // Written meanwhile by someone else (same holder, a newer resourceVersion): the PUT fails, then GET and PUT.
    stored = { ...stored!, metadata: { ...stored!.metadata, resourceVersion: String(++version) } };
    await Bun.sleep(250);
    expect(requests.slice(0, 3)).toEqual(["PUT", "GET", "PUT"]);
    expect(slowPaths).toEqual(["slow"]);
    renewing.abort();
    await renewal;
    expect(stored?.spec?.leaseTransitions).toBe(0);

    await le.release();
    expect(stored?.spec?.holderIdentity).toBe("");
    expect(statuses).toEqual([false, true, false]);
  });

  test("taking over a released Lease counts one more transition", async () => {
    const le = elector([], []);
    expect(await le.acquire(AbortSignal.timeout(5000))).toBe(true);
    expect(stored?.spec).toMatchObject({ holderIdentity: "host_1", leaseTransitions: 1 });
    await le.release();
  });

  test("release reads the Lease first: a newer version is released all the same, another holder's is left", async () => {
    const events: string[] = [];
    const le = elector([], [], events);
    expect(await le.acquire(AbortSignal.timeout(5000))).toBe(true);
    // Written after our last renewal (a renewal the shutdown cut short, say): our copy is stale.
    stored = { ...stored!, metadata: { ...stored!.metadata, resourceVersion: String(++version) } };
    requests.splice(0);
    await le.release();
    expect(requests).toEqual(["GET", "PUT"]);
    expect(stored?.spec).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
    expect(events).toEqual([
      "Normal LeaderElection host_1 became leader",
      "Normal LeaderElection host_1 stopped leading",
    ]);

    expect(await le.acquire(AbortSignal.timeout(5000))).toBe(true);
    stored = { ...stored, spec: { ...stored.spec, holderIdentity: "other_2" } };
    requests.splice(0);
    await le.release();
    expect(requests).toEqual(["GET"]);
    expect(stored?.spec?.holderIdentity).toBe("other_2");
    expect(le.leading).toBe(false);
    stored = { ...stored, spec: { ...stored.spec, holderIdentity: "" } };
  });

  test("a step of the wall clock does not make a Lease look expired: time passed is monotonic", async () => {
    const now = new Date("2026-12-02T10:00:00Z").getTime();
    stored = {
      ...stored!,
      spec: { holderIdentity: "other_2", leaseDurationSeconds: 1, renewTime: "2026-12-02T10:00:00.000000Z" },
    };
    let steps = 0;
    // Every reading of the wall clock is ten minutes later (NTP stepping it); the monotonic one is real.
    const stepping: Clock = { ...realClock, now: () => now + 600_000 * ++steps };
    const le = elector([], [], [], stepping);
    expect(await le.acquire(AbortSignal.timeout(600))).toBe(false);
    expect(stored?.spec?.holderIdentity).toBe("other_2");
    stored = { ...stored, spec: { ...stored.spec, holderIdentity: "" } };
  });

  test("a record without leaseDurationSeconds is expired, as client-go reads it (0 s), not our flag's", async () => {
    stored = { ...stored!, spec: { holderIdentity: "other_3", renewTime: "2026-12-02T10:00:00.000000Z" } };
    const le = elector([], []);
    expect(await le.acquire(AbortSignal.timeout(1000))).toBe(true);
    expect(stored?.spec?.holderIdentity).toBe("host_1");
    await le.release();
  });
});
