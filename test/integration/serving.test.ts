/**
 * The secure port: health endpoints open, /metrics behind delegated authn/authz (TokenReview and
 * SubjectAccessReview against the real API server), and no listener at all with --secure-port=0.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVICE_ACCOUNTS } from "../../src/kube/api.ts";
import { applyObjects } from "../../scripts/control-plane/admin.ts";
import { freePort } from "../../scripts/control-plane/ports.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import { killCcms, startCcm } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { uniqueName } from "../harness/fixtures.ts";
import { grantLease } from "../harness/rbac.ts";
import { eventually } from "../harness/wait.ts";

async function tokenFor(serviceAccount: string): Promise<string> {
  const cp = await controlPlane();
  await cp.admin.create(SERVICE_ACCOUNTS, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: serviceAccount, namespace: "default" },
  });
  const answer = await cp.admin.create<{ status?: { token?: string } }>(
    SERVICE_ACCOUNTS,
    { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 600 } } as never,
    { namespace: "default", subresource: `${serviceAccount}/token` },
  );
  return answer.status?.token ?? "";
}

async function bindMetricsReader(serviceAccount: string): Promise<void> {
  const cp = await controlPlane();
  const name = `${serviceAccount}-metrics-reader`;
  await applyObjects(cp.admin, [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name },
      rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "ServiceAccount", name: serviceAccount, namespace: "default" }],
    },
  ] as unknown as KubeObject[]);
}

const get = (port: number, path: string, token?: string): Promise<Response> =>
  fetch(`https://127.0.0.1:${port}${path}`, {
    tls: { rejectUnauthorized: false },
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });

/** Listening TCP sockets owned by `pid` (its socket inodes matched against /proc/net/tcp{,6} LISTEN rows). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return "";
        }
      })
      .map((link) => /^socket:\[(\d+)\]$/.exec(link)?.[1])
      .filter((x): x is string => x !== undefined),
  );
  return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .slice(1)
      .map((row) => row.trim().split(/\s+/))
      .filter((f) => f[3] === "0A" && inodes.has(f[9] ?? ""))
      .map((f) => parseInt((f[1] ?? ":0").split(":")[1] ?? "0", 16)),
  );
}

describe("secure serving", () => {
  // A manager of the fake provider deletes every Node its cloud does not know: one left running by a failed
  // test would delete the Nodes of the test files after this one.
  afterEach(killCcms);

  test("health is open, /metrics needs an identity allowed to get it", async () => {
    const cp = await controlPlane();
    const port = await freePort();
    const lease = uniqueName("serving");
    await grantLease(lease);
    const ccm = startCcm({
      args: [
        "--cloud-provider=fake",
        `--kubeconfig=${cp.kubeconfigs.ccm}`,
        `--secure-port=${port}`,
        "--bind-address=127.0.0.1",
        "--configure-cloud-routes=false",
        `--leader-elect-resource-name=${lease}`,
      ],
    });
    await ccm.waitForLine(/serving securely on 127\.0\.0\.1:\d+/);
    await ccm.waitForLine(/caches synced/);

    expect((await get(port, "/healthz")).status).toBe(200);
    expect((await get(port, "/livez")).status).toBe(200);
    const ready = await get(port, "/readyz?verbose");
    expect(ready.status).toBe(200);
    expect(await ready.text()).toContain("[+]informer-sync ok");
    const verbose = await (await get(port, "/healthz?verbose")).text();
    expect(verbose).toContain("[+]leaderElection ok");
    expect(verbose).toContain("[+]cloud-node-controller ok");
    expect(verbose).toContain("[+]event-loop-lag ok");
    expect(await (await get(port, "/livez?verbose")).text()).not.toContain("event-loop-lag");

    // No credentials: anonymous, as upstream's delegating authentication, which RBAC does not let in.
    const anonymous = await get(port, "/metrics");
    expect([anonymous.status, await anonymous.text()]).toEqual([
      403,
      'Forbidden: user "system:anonymous" cannot get path "/metrics"\n',
    ]);
    expect((await get(port, "/metrics", "not-a-valid-token")).status).toBe(401);
    const stranger = uniqueName("stranger");
    expect((await get(port, "/metrics", await tokenFor(stranger))).status).toBe(403);
    const scraper = uniqueName("scraper");
    await bindMetricsReader(scraper);
    const token = await tokenFor(scraper);
    const metrics = await get(port, "/metrics", token);
    expect(metrics.status).toBe(200);
    const body = await metrics.text();
    expect(body).toContain(`leader_election_master_status{name="${lease}"} 1`);
    expect(body).toContain('running_managed_controllers{name="cloud-node",manager="cloud-controller-manager"} 1');
    expect(body).toMatch(/rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:\d+"\} \d+/);
    expect(body).toContain("workqueue_adds_total");
    // The main thread's lag is first sampled 250 ms after the start: a scrape soon after start may see none yet.
    await eventually("a lag sample", async () =>
      /cloud_controller_manager_event_loop_lag_seconds_count [1-9]\d*/.test(
        await (await get(port, "/metrics", token)).text(),
      ),
    );
    expect(await ccm.stop()).toBe(0);
  }, 90_000);

  test("--authentication-kubeconfig and --authorization-kubeconfig: the reviews go where they say", async () => {
    const cp = await controlPlane();
    const port = await freePort();
    const lease = uniqueName("serving-reviews");
    await grantLease(lease);
    const scraper = uniqueName("scraper");
    await bindMetricsReader(scraper);
    const token = await tokenFor(scraper);
    // An API server that is not there: SubjectAccessReviews cannot be answered, so nobody is let in.
    const nowhere = join(mkdtempSync(join(tmpdir(), "serving-reviews-")), "kubeconfig");
    const admin = JSON.parse(readFileSync(cp.kubeconfigs.admin, "utf8")) as {
      clusters: { cluster: { server: string } }[];
    };
    for (const { cluster } of admin.clusters) cluster.server = `https://127.0.0.1:${await freePort()}`;
    writeFileSync(nowhere, JSON.stringify(admin));
    const ccm = startCcm({
      args: [
        "--cloud-provider=fake",
        `--kubeconfig=${cp.kubeconfigs.ccm}`,
        `--authentication-kubeconfig=${cp.kubeconfigs.admin}`,
        `--authorization-kubeconfig=${nowhere}`,
        `--secure-port=${port}`,
        "--bind-address=127.0.0.1",
        "--configure-cloud-routes=false",
        `--leader-elect-resource-name=${lease}`,
      ],
    });
    await ccm.waitForLine(/serving securely on 127\.0\.0\.1:\d+/);
    expect((await get(port, "/healthz")).status).toBe(200);
    // TokenReviews answered (by the admin kubeconfig's API server): a bad token is simply refused.
    const stranger = await get(port, "/metrics", "not-a-valid-token");
    expect([stranger.status, (await stranger.text()).trim()]).toEqual([401, "Unauthorized"]);
    // The SubjectAccessReview for a good one cannot be asked: refused, saying so.
    const scrape = await get(port, "/metrics", token);
    expect(scrape.status).toBe(401);
    expect(await scrape.text()).toContain("could not be checked");
    expect(await ccm.stop()).toBe(0);
  }, 90_000);

  test("--secure-port=0 serves nothing", async () => {
    const cp = await controlPlane();
    const ccm = startCcm({
      args: [
        "--cloud-provider=fake",
        `--kubeconfig=${cp.kubeconfigs.ccm}`,
        "--secure-port=0",
        "--leader-elect=false",
        "--configure-cloud-routes=false",
      ],
    });
    await ccm.waitForLine(/secure serving is disabled/);
    await ccm.waitForLine(/caches synced/);
    expect(listeningPorts(ccm.proc.pid)).toEqual([]);
    expect(await ccm.stop()).toBe(0);
  }, 60_000);
});
