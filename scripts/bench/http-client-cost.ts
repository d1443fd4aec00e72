/**
 * CPU per request of Bun's `fetch` against the manager's HTTP/1.1 client on `Bun.connect` sockets
 * (src/kube/http1/client.ts), both keeping the same number of TLS connections alive and sending the same
 * PATCH (a Node's initialisation patch, answered with a 0.9 KB PartialObjectMetadata) to a TLS server in
 * another process.
 *
 *   bun scripts/bench/http-client-cost.ts [--requests 20000] [--connections 64] [--rounds 2]
 *
 * Why: Bun runs the HTTP of every `fetch` of every thread on one process-wide "HTTP Client" thread, so
 * controller threads parse their own JSON but not their own HTTP. A client on `Bun.connect` runs on the
 * calling thread's own event loop.
 */
import { socketClient } from "../../src/kube/http1/client.ts";
import { issueCertificate } from "../../src/pki/x509.ts";

const BODY = JSON.stringify({
  kind: "PartialObjectMetadata",
  apiVersion: "meta.k8s.io/v1",
  metadata: {
    name: "bench-node-1",
    resourceVersion: "12345",
    labels: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`label-${i}`, "v".repeat(30)])),
  },
});
const PATCH = JSON.stringify({
  metadata: { labels: { "node.kubernetes.io/instance-type": "fake.large" } },
  spec: { providerID: "fake://bench-node-1", taints: [] },
});
const PATH = "/api/v1/nodes/bench-node-1";

function option(argv: readonly string[], flag: string, fallback: number): number {
  const i = argv.indexOf(flag);
  const value = i >= 0 ? Number(argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${flag} takes a positive whole number`);
  return value;
}

/** The server side: answers every request with BODY. Runs in a child process. */
function serve(cert: string, key: string): void {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: { cert, key },
    async fetch(request) {
      await request.text();
      return new Response(BODY, { headers: { "content-type": "application/json" } });
    },
  });
  console.log(server.port);
}

type Send = () => Promise<void>;

function viaFetch(url: string, ca: string): Send {
  const init = {
    method: "PATCH",
    body: PATCH,
    headers: { "content-type": "application/merge-patch+json", authorization: "Bearer token" },
    tls: { ca },
    keepalive: true,
  };
  return async () => {
    const response = await fetch(url, init);
    JSON.parse(await response.text());
  };
}

/** The manager's own client (src/kube/http1/client.ts): one request at a time per sender, as with fetch. */
function viaSockets(port: number, ca: string): Send {
  const client = socketClient(`https://127.0.0.1:${port}`, { ca, rejectUnauthorized: true });
  const request = {
    method: "PATCH",
    body: PATCH,
    headers: { "content-type": "application/merge-patch+json", authorization: "Bearer token" },
  };
  return async () => {
    const answer = await client.send(PATH, request);
    JSON.parse(await answer.text());
  };
}

async function measure(name: string, senders: readonly Send[], requests: number): Promise<void> {
  let sent = 0;
  const before = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    senders.map(async (send) => {
      while (sent++ < requests) await send();
    }),
  );
  const cpu = process.cpuUsage(before);
  const perRequest = (cpu.user + cpu.system) / requests;
  const seconds = (performance.now() - started) / 1000;
  console.log(`${name}: ${requests} requests in ${seconds.toFixed(2)} s, ${perRequest.toFixed(1)} µs CPU per request`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "--serve") return serve(argv[1] ?? "", argv[2] ?? "");
  const requests = option(argv, "--requests", 20000);
  const connections = option(argv, "--connections", 64);
  const rounds = option(argv, "--rounds", 2);
  const pair = issueCertificate({ subject: { commonName: "127.0.0.1" }, ipAddresses: ["127.0.0.1"], serverAuth: true });
  const server = Bun.spawn([process.execPath, import.meta.path, "--serve", pair.certPem, pair.keyPem], {
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const reader = server.stdout.getReader();
    const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
    const url = `https://127.0.0.1:${port}${PATH}`;
    const fetched = Array.from({ length: connections }, () => viaFetch(url, pair.certPem));
    const client = viaSockets(port, pair.certPem);
    const sockets = Array.from({ length: connections }, () => client);
    // Warm both up (connections opened, code compiled) before measuring.
    await measure("warm-up, fetch", fetched, 2000);
    await measure("warm-up, sockets", sockets, 2000);
    for (let round = 1; round <= rounds; round++) {
      await measure(`round ${round}, fetch`, fetched, requests);
      await measure(`round ${round}, sockets`, sockets, requests);
    }
  } finally {
    server.kill();
  }
  process.exit(0);
}

if (import.meta.main) await main();
