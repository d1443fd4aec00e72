/**
 * The address and TLS flags take effect on the secure port: the families served, minimum version, TLS 1.2
 * cipher suites and SNI certificates, observed from a real TLS client handshaking with the server.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type ConnectionOptions, type TLSSocket } from "node:tls";
import type { ServingConfig } from "../config/config.ts";
import { loadConfig } from "../config/load.ts";
import { createLogger } from "../log/logger.ts";
import { issueCertificate } from "../pki/x509.ts";
import { createHealthRegistry } from "./health.ts";
import { startSecureServer, type SecureServer } from "./server.ts";
import { resolveTls } from "../config/tls-options.ts";

const dir = mkdtempSync(join(tmpdir(), "ccm-serving-tls-"));
const sni = issueCertificate({
  subject: { commonName: "metrics.example.com" },
  serverAuth: true,
  dnsNames: ["metrics.example.com"],
});
writeFileSync(join(dir, "sni.crt"), sni.certPem);
writeFileSync(join(dir, "sni.key"), sni.keyPem);

const servers: SecureServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function serve(flags: string[], port = 0): Promise<number> {
  const loaded = loadConfig(
    ["--cloud-provider=fake", "--bind-address=127.0.0.1", "--secure-port=1", ...flags],
    ["fake"],
  );
  if (!loaded.ok) throw new Error(loaded.errors.join("\n"));
  const config: ServingConfig = { ...loaded.config.serving, securePort: port };
  const tls = resolveTls({
    minVersion: config.tlsMinVersion,
    cipherSuites: config.tlsCipherSuites,
    curvePreferences: config.tlsCurvePreferences,
  });
  if (!tls.ok) throw new Error(tls.errors.join("\n"));
  const server = await startSecureServer({
    config,
    tls: tls.settings,
    sniCertKeys: config.sniCertKeys,
    clientCAs: () => [],
    logger: createLogger({ verbosity: 0, format: "text", write: () => undefined }),
    health: createHealthRegistry({}),
    authorize: () => Promise.resolve({ allowed: true }),
    handlers: {},
    hostname: "localhost",
  });
  servers.push(server);
  return server.port;
}

/** The handshake's outcome: the negotiated protocol, cipher and server certificate, or the error. */
function handshake(
  port: number,
  options: ConnectionOptions,
  host = "127.0.0.1",
): Promise<{ protocol: string | null; cipher: string; subject: string } | Error> {
  return new Promise((resolve) => {
    const socket: TLSSocket = connect(port, host, { rejectUnauthorized: false, ...options });
    socket.once("secureConnect", () => {
      const raw = socket.getPeerCertificate().raw;
      resolve({
        protocol: socket.getProtocol(),
        cipher: socket.getCipher().standardName,
        subject: new X509Certificate(raw).subject,
      });
      socket.destroy();
    });
    socket.once("error", (error: Error) => resolve(error));
  });
}

const hasIPv6Loopback = Object.values(networkInterfaces()).some((addresses) =>
  addresses?.some((a) => a.internal && a.family === "IPv6"),
);

describe("--bind-address", () => {
  test("0.0.0.0 (the default) serves both families, as Go's listener does", async () => {
    const port = await serve(["--bind-address=0.0.0.0"]);
    expect(await handshake(port, {}, "127.0.0.1")).not.toBeInstanceOf(Error);
    // Without an IPv6 loopback (IPv6 off on this host) the port takes IPv4 alone.
    if (hasIPv6Loopback) expect(await handshake(port, {}, "::1")).not.toBeInstanceOf(Error);
  });

  test("a given address serves that address alone", async () => {
    const port = await serve(["--bind-address=127.0.0.1"]);
    expect(await handshake(port, {}, "127.0.0.1")).not.toBeInstanceOf(Error);
    if (hasIPv6Loopback) expect(await handshake(port, {}, "::1")).toBeInstanceOf(Error);
  });
});

describe("start-up failures name their flags", () => {
  test("a port in use: upstream's words, the address as given", async () => {
    const taken = await serve(["--bind-address=127.0.0.1"]);
    const failure = await serve(["--bind-address=127.0.0.1"], taken).then(
      () => new Error("started on a port in use"),
      (error: unknown) => error as Error,
    );
    expect(failure.message).toMatch(
      new RegExp(`^failed to listen on 127\\.0\\.0\\.1:${taken} \\(--bind-address, --secure-port\\): .*EADDRINUSE`),
    );
  });

  test("a --cert-dir that cannot be made", async () => {
    writeFileSync(join(dir, "a-file"), "");
    const failure = await serve([`--cert-dir=${join(dir, "a-file", "certs")}`]).then(
      () => new Error("started without its certificate"),
      (error: unknown) => error as Error,
    );
    expect(failure.message).toStartWith(
      `error creating self-signed certificates in --cert-dir "${join(dir, "a-file", "certs")}": `,
    );
  });
});

describe("secure port TLS settings (node:tls client handshakes)", () => {
  test("--tls-min-version=VersionTLS13 refuses a TLS 1.2 client and serves a TLS 1.3 one", async () => {
    const port = await serve(["--tls-min-version=VersionTLS13"]);
    expect(await handshake(port, { maxVersion: "TLSv1.2" })).toBeInstanceOf(Error);
    expect(await handshake(port, {})).toMatchObject({ protocol: "TLSv1.3" });
  });

  test("--tls-cipher-suites limits TLS 1.2 to the suites named", async () => {
    const port = await serve(["--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"]);
    expect(await handshake(port, { maxVersion: "TLSv1.2" })).toMatchObject({
      cipher: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    });
    expect(await handshake(port, { maxVersion: "TLSv1.2", ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256" })).toBeInstanceOf(
      Error,
    );
  });

  test("--tls-cipher-suites of RSA suites only: the self-signed certificate is RSA, so TLS 1.2 still connects", async () => {
    const suites = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384";
    // An ECDSA pair kept in --cert-dir by an earlier start is replaced, not served.
    const certDir = join(dir, "rsa-cert-dir");
    await serve([`--cert-dir=${certDir}`]);
    const port = await serve([`--tls-cipher-suites=${suites}`, `--cert-dir=${certDir}`]);
    const answer = await handshake(port, { maxVersion: "TLSv1.2" });
    if (answer instanceof Error) throw answer;
    expect(answer.protocol).toBe("TLSv1.2");
    expect(answer.cipher).toMatch(/^TLS_ECDHE_RSA_WITH_AES_(128|256)_GCM_SHA(256|384)$/);
  });

  test("a pair an operator put in --cert-dir is served as it is, whatever the cipher suites, never replaced", async () => {
    const certDir = join(dir, "operator-cert-dir");
    const own = issueCertificate({ subject: { commonName: "ccm.example.com" }, serverAuth: true, dnsNames: ["x"] });
    mkdirSync(certDir);
    writeFileSync(join(certDir, "cloud-controller-manager.crt"), own.certPem);
    writeFileSync(join(certDir, "cloud-controller-manager.key"), own.keyPem);
    const suites = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256";
    const port = await serve([`--tls-cipher-suites=${suites}`, `--cert-dir=${certDir}`]);
    expect(await handshake(port, {})).toMatchObject({ subject: "CN=ccm.example.com" });
    expect(readFileSync(join(certDir, "cloud-controller-manager.crt"), "utf8")).toBe(own.certPem);
    expect(readFileSync(join(certDir, "cloud-controller-manager.key"), "utf8")).toBe(own.keyPem);
  });

  test("--tls-sni-cert-key serves its certificate to clients asking for its name, the default to others", async () => {
    const port = await serve([`--tls-sni-cert-key=${join(dir, "sni.crt")},${join(dir, "sni.key")}`]);
    expect(await handshake(port, { servername: "metrics.example.com" })).toMatchObject({
      subject: "CN=metrics.example.com",
    });
    const other = await handshake(port, { servername: "localhost" });
    expect(other).not.toBeInstanceOf(Error);
    expect(other).not.toMatchObject({ subject: "CN=metrics.example.com" });
  });
});
