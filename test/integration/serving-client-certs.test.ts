/**
 * Client certificates on the secure port, as a Prometheus or an aggregating front proxy presents them:
 * the client CA comes from kube-apiserver's `kube-system/extension-apiserver-authentication` ConfigMap
 * (no --client-ca-file), the request-header CA from --requestheader-client-ca-file; either way the user
 * is authorised with a SubjectAccessReview against the real API server, like a bearer token.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyObjects } from "../../scripts/control-plane/admin.ts";
import { freePort } from "../../scripts/control-plane/ports.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import { issueCertificate, type KeyPair } from "../../src/pki/x509.ts";
import { startCcm, type CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { uniqueName } from "../harness/fixtures.ts";
import { grantLease } from "../harness/rbac.ts";

interface Presented {
  readonly cert: string;
  readonly key: string;
}

async function bindMetricsReader(user: string, paths = ["/metrics"]): Promise<void> {
  const cp = await controlPlane();
  const name = `${user}-metrics-reader`;
  await applyObjects(cp.admin, [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name },
      rules: [{ nonResourceURLs: paths, verbs: ["get"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: user }],
    },
  ] as unknown as KubeObject[]);
}

const pem = (pair: KeyPair): Presented => ({ cert: pair.certPem, key: pair.keyPem });

describe("secure serving with client certificates", () => {
  let ccm: CcmProcess;
  let port: number;
  let clusterCA: KeyPair;
  let frontProxyCA: KeyPair;

  const get = (path: string, client?: Presented, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`https://127.0.0.1:${port}${path}`, { headers, tls: { rejectUnauthorized: false, ...(client ?? {}) } });

  beforeAll(async () => {
    const cp = await controlPlane();
    clusterCA = cp.pki.ca;
    frontProxyCA = issueCertificate({ subject: { commonName: "front-proxy-ca" }, isCA: true });
    const dir = mkdtempSync(join(tmpdir(), "ccm-client-certs-"));
    writeFileSync(join(dir, "front-proxy-ca.crt"), frontProxyCA.certPem);
    port = await freePort();
    const lease = uniqueName("client-certs");
    await grantLease(lease);
    ccm = startCcm({
      args: [
        "--cloud-provider=fake",
        `--kubeconfig=${cp.kubeconfigs.ccm}`,
        `--secure-port=${port}`,
        "--bind-address=127.0.0.1",
        "--configure-cloud-routes=false",
        `--leader-elect-resource-name=${lease}`,
        `--requestheader-client-ca-file=${join(dir, "front-proxy-ca.crt")}`,
        "--requestheader-allowed-names=front-proxy-client",
      ],
    });
    await ccm.waitForLine(/serving securely on 127\.0\.0\.1:\d+.*client certificates accepted/);
  }, 120_000);

  afterAll(async () => {
    await ccm?.stop();
  });

  test("a certificate from the cluster CA (read from the ConfigMap): 200 with RBAC for /metrics, 403 without", async () => {
    const scraper = uniqueName("prometheus");
    await bindMetricsReader(scraper);
    const allowed = await get(
      "/metrics",
      pem(
        issueCertificate(
          { subject: { commonName: scraper, organizations: ["monitoring"] }, clientAuth: true },
          clusterCA,
        ),
      ),
    );
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain("rest_client_requests_total");
    const stranger = await get(
      "/metrics",
      pem(issueCertificate({ subject: { commonName: uniqueName("stranger") }, clientAuth: true }, clusterCA)),
    );
    expect(stranger.status).toBe(403);
    expect(await stranger.text()).toContain('cannot get path "/metrics"');
  });

  test("a certificate from an unknown CA: 401", async () => {
    const other = issueCertificate({ subject: { commonName: "rogue-ca" }, isCA: true });
    const response = await get(
      "/metrics",
      pem(
        issueCertificate(
          { subject: { commonName: "system:admin", organizations: ["system:masters"] }, clientAuth: true },
          other,
        ),
      ),
    );
    expect(response.status).toBe(401);
  });

  test("a front proxy's certificate vouches for the user in X-Remote-User; a proxy not in the allowed names does not", async () => {
    const user = uniqueName("proxied");
    await bindMetricsReader(user);
    const proxy = pem(
      issueCertificate({ subject: { commonName: "front-proxy-client" }, clientAuth: true }, frontProxyCA),
    );
    expect((await get("/metrics", proxy, { "X-Remote-User": user, "X-Remote-Group": "viewers" })).status).toBe(200);
    expect((await get("/metrics", proxy, { "X-Remote-User": uniqueName("nobody") })).status).toBe(403);
    const impostor = pem(issueCertificate({ subject: { commonName: "someone-else" }, clientAuth: true }, frontProxyCA));
    expect((await get("/metrics", impostor, { "X-Remote-User": user })).status).toBe(401);
  });

  test("upstream's client, build, feature and delegated-auth metrics; /metrics/slis and /configz", async () => {
    const scraper = uniqueName("slis");
    await bindMetricsReader(scraper, ["/metrics", "/metrics/slis", "/configz"]);
    const client = pem(issueCertificate({ subject: { commonName: scraper }, clientAuth: true }, clusterCA));
    expect((await get("/healthz")).status).toBe(200);
    const body = await (await get("/metrics", client)).text();
    for (const series of [
      /rest_client_rate_limiter_duration_seconds_bucket\{le="0.005",verb="GET",host="127\.0\.0\.1:\d+"\} \d+/,
      /rest_client_request_size_bytes_bucket\{le="64",verb="GET",host="[^"]+"\} \d+/,
      /rest_client_response_size_bytes_bucket\{le="16777216",verb="GET",host="[^"]+"\} \d+/,
      /# TYPE rest_client_request_retries_total counter/,
      /kubernetes_build_info\{major="\d+",minor="\d+",git_version="v[^"]+",.*platform="linux\/(amd64|arm64)"\} 1/,
      /kubernetes_feature_enabled\{name="WatchList",stage="BETA"\} 1/,
      /kubernetes_feature_enabled\{name="CloudControllerManagerWebhook",stage="ALPHA"\} 0/,
      /apiserver_delegated_authz_request_total\{code="201"\} \d+/,
      /apiserver_delegated_authz_request_duration_seconds_bucket\{le="0.25",code="201"\} \d+/,
      /# TYPE apiserver_delegated_authn_request_total counter/,
    ])
      expect(body).toMatch(series);
    const slis = await (await get("/metrics/slis", client)).text();
    expect(slis).toContain('kubernetes_healthcheck{name="ping",type="healthz"} 1');
    expect(slis).toMatch(/kubernetes_healthchecks_total\{name="ping",type="healthz",status="success"\} \d+/);
    const config = (await (await get("/configz", client)).json()) as Record<
      string,
      { kind: string; KubeCloudShared: { CloudProvider: { Name: string } } }
    >;
    expect(config["cloudcontrollermanager.config.k8s.io"]).toMatchObject({
      kind: "CloudControllerManagerConfiguration",
      KubeCloudShared: { CloudProvider: { Name: "fake" } },
    });
    expect(
      (
        await get(
          "/configz",
          pem(issueCertificate({ subject: { commonName: uniqueName("nosy") }, clientAuth: true }, clusterCA)),
        )
      ).status,
    ).toBe(403);
  });
});
