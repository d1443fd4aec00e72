/**
 * A kubeconfig whose cluster names a `proxy-url` reaches the real kube-apiserver through that proxy
 * (HTTP CONNECT), client certificate and bearer token alike, as client-go does; without one the manager
 * connects directly.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { KubeConfig } from "@kubernetes/client-node";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import { resolveConnection } from "../../src/kube/kubeconfig.ts";
import { TokenBucket } from "../../src/kube/token-bucket.ts";
import { createTransport } from "../../src/kube/transport.ts";
import { connectProxy } from "../harness/connect-proxy.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { INTEGRATION_TIMEOUT_MS } from "./support.ts";

setDefaultTimeout(INTEGRATION_TIMEOUT_MS);

/** A copy of `path` whose cluster names `proxy` as its proxy-url. */
function proxiedKubeconfig(path: string, proxy: string): string {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  const clusters = kc.clusters.map((c) => ({ ...c, proxyUrl: proxy }));
  kc.loadFromOptions({ clusters, users: kc.users, contexts: kc.contexts, currentContext: kc.currentContext });
  const file = join(mkdtempSync(join(tmpdir(), "ccm-proxy-")), "kubeconfig");
  writeFileSync(file, kc.exportConfig());
  return file;
}

/**
 * `kubectl proxy`'s part: plain HTTP on loopback, each request sent on to the API server over TLS as
 * the identity of `kubeconfig`.
 */
async function plainHttpProxy(kubeconfig: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const upstream = await resolveConnection({ kubeconfig, master: "" });
  const authorization = await upstream.authorization();
  const { ca, cert, key } = upstream.tls;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      if (authorization) headers.set("Authorization", authorization);
      return fetch(`${upstream.server}${url.pathname}${url.search}`, { headers, tls: { ca, cert, key } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

/** The kind of the answer to a list of Nodes, which the restricted identity may read. */
async function listNodes(kubeconfig: string, master = ""): Promise<string> {
  const connection = await resolveConnection({ kubeconfig, master });
  const transport = createTransport({ connection, limiter: TokenBucket.create(0, 0), userAgent: "proxy-test" });
  const list = await transport.json<{ kind: string }>({ method: "GET", path: "/api/v1/nodes", query: { limit: 1 } });
  return list.kind;
}

describe("kubeconfig proxy-url (real kube-apiserver)", () => {
  let cp: ControlPlane;
  let proxy: ReturnType<typeof connectProxy>;
  beforeAll(async () => {
    cp = await controlPlane();
    proxy = connectProxy();
  });
  afterAll(() => proxy.listener.stop(true));

  test("the client certificate and the bearer-token identities both go through the proxy", async () => {
    const server = new URL(cp.server).host;
    for (const kubeconfig of [cp.kubeconfigs.ccm, cp.kubeconfigs.ccmToken]) {
      const before = proxy.targets.length;
      const proxied = proxiedKubeconfig(kubeconfig, `http://127.0.0.1:${proxy.listener.port}`);
      expect((await resolveConnection({ kubeconfig: proxied, master: "" })).proxy).toBe(
        `http://127.0.0.1:${proxy.listener.port}`,
      );
      expect(await listNodes(proxied)).toBe("NodeList");
      expect(proxy.targets.slice(before)).toContain(server);
    }
  });

  test("an http:// server (--master, as for `kubectl proxy`) is spoken to in plain HTTP", async () => {
    const plain = await plainHttpProxy(cp.kubeconfigs.ccm);
    try {
      expect(await listNodes("", plain.url)).toBe("NodeList");
    } finally {
      await plain.stop();
    }
  });

  test("without proxy-url, and with HTTPS_PROXY set for a loopback server, the connection is direct", async () => {
    const before = proxy.targets.length;
    const env = { HTTPS_PROXY: `http://127.0.0.1:${proxy.listener.port}` };
    expect((await resolveConnection({ kubeconfig: cp.kubeconfigs.ccm, master: "", env })).proxy).toBeUndefined();
    expect(await listNodes(cp.kubeconfigs.ccm)).toBe("NodeList");
    expect(proxy.targets.length).toBe(before);
  });
});
