/**
 * A kubeconfig whose client certificate and key are files, renewed in place: the manager's HTTP client
 * speaks as the new identity once it has looked again (every 5 minutes; shortened here), its kept-alive
 * connection made with the old certificate closed, and a pair that cannot be used never replaces the one
 * in use. Against the real kube-apiserver, which reports who it took the caller for (SelfSubjectReview).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { socketClient, type HttpClient } from "../../src/kube/http1/client.ts";
import { resolveConnection } from "../../src/kube/kubeconfig.ts";
import { issueCertificate, type KeyPair } from "../../src/pki/x509.ts";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { uniqueName } from "../harness/fixtures.ts";
import { clientCertKubeconfig } from "../harness/kubeconfig.ts";

const REVIEW = JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" });

async function whoAmI(client: HttpClient): Promise<string> {
  const answer = await client.send("/apis/authentication.k8s.io/v1/selfsubjectreviews", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: REVIEW,
    timeoutMs: 10_000,
  });
  const body = JSON.parse(await answer.text()) as { status?: { userInfo?: { username?: string } } };
  return body.status?.userInfo?.username ?? `HTTP ${answer.status}`;
}

describe("kubeconfig client certificate renewed in place", () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await controlPlane();
  }, 300_000);

  test("new connections use the renewed pair; a mismatched pair is refused and the one in use kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ccm-cert-rotation-"));
    const [certFile, keyFile] = [join(dir, "client.crt"), join(dir, "client.key")];
    const write = (cert: KeyPair, key: KeyPair = cert): void => {
      writeFileSync(certFile, cert.certPem);
      writeFileSync(keyFile, key.keyPem);
    };
    const issue = (name: string): KeyPair =>
      issueCertificate({ subject: { commonName: name }, clientAuth: true }, cp.pki.ca);
    const [first, renewed, stray] = [uniqueName("first"), uniqueName("renewed"), uniqueName("stray")];
    write(issue(first));
    // Relative to the kubeconfig's folder, as client-go resolves them.
    const files = { name: "u", certFile: "client.crt", keyFile: "client.key" };
    const kubeconfig = clientCertKubeconfig(join(dir, "kubeconfig"), cp, files);
    const connection = await resolveConnection({ kubeconfig, master: "" });
    expect(connection.tls).toMatchObject({ certFile, keyFile });
    const told: string[] = [];
    const client = socketClient(connection.server, connection.tls, {
      certificate: { intervalMs: 200, report: (message) => told.push(message) },
    });
    expect(await whoAmI(client)).toBe(first);
    const renewedPair = issue(renewed);
    write(renewedPair);
    // The kept-alive connection made with the first pair is not reused once the renewed one is read.
    await Bun.sleep(300);
    expect(await whoAmI(client)).toBe(renewed);
    write(issue(stray), renewedPair);
    await Bun.sleep(300);
    expect(await whoAmI(client)).toBe(renewed);
    expect(told).toEqual([
      `client certificate ${certFile} changed: new connections use it`,
      `client certificate ${certFile} not reloaded, the one in use is kept: the key is not the certificate's`,
    ]);
  }, 60_000);
});
