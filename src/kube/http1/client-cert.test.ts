import { describe, expect, test } from "bun:test";
import { issueCertificate } from "../../pki/x509.ts";
import { ClientCertificate, pairProblem, reloadDecision, type CertificatePair } from "./client-cert.ts";

const issue = (name: string): CertificatePair => {
  const pair = issueCertificate({ subject: { commonName: name }, clientAuth: true });
  return { cert: pair.certPem, key: pair.keyPem };
};
const [first, second] = [issue("first"), issue("second")];

describe("reloadDecision", () => {
  test.each([
    { name: "the same files: keep", read: first, want: "keep" },
    { name: "a renewed pair: use it", read: second, want: "use" },
    {
      name: "the new certificate with the old key: refuse",
      read: { cert: second.cert, key: first.key },
      want: "refuse",
    },
    {
      name: "a half-written certificate: refuse",
      read: { cert: second.cert.slice(0, 80), key: second.key },
      want: "refuse",
    },
    { name: "an unreadable file: refuse", read: new Error("ENOENT: no such file"), want: "refuse" },
  ])("$name", ({ read, want }) => {
    expect(reloadDecision(first, read).action).toBe(want);
  });

  test("a mismatched pair says so", () => {
    expect(pairProblem({ cert: second.cert, key: first.key })).toBe("the key is not the certificate's");
    expect(pairProblem(second)).toBeUndefined();
  });
});

describe("ClientCertificate", () => {
  const files = (pair: CertificatePair): Map<string, string> =>
    new Map([
      ["/etc/k/client.crt", pair.cert],
      ["/etc/k/client.key", pair.key],
    ]);
  const material = { ...first, certFile: "/etc/k/client.crt", keyFile: "/etc/k/client.key", rejectUnauthorized: true };

  function setup(on: Map<string, string>) {
    let now = 0;
    const told: [string, boolean][] = [];
    const read = (path: string): string => {
      const text = on.get(path);
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    };
    const certificate = new ClientCertificate(material, {
      read,
      now: () => now,
      report: (message, refused) => told.push([message, refused]),
      intervalMs: 1000,
    });
    return { certificate, told, advance: (ms: number) => (now += ms) };
  }

  test("looks at the files once per interval; a renewed pair is a new generation", () => {
    const on = files(first);
    const { certificate, told, advance } = setup(on);
    expect(certificate.refresh()).toBe(0);
    for (const [path, text] of files(second)) on.set(path, text);
    advance(999);
    expect(certificate.refresh()).toBe(0);
    expect(certificate.tls.cert).toBe(first.cert);
    advance(1);
    expect(certificate.refresh()).toBe(1);
    expect(certificate.tls).toMatchObject({ cert: second.cert, key: second.key, certFile: "/etc/k/client.crt" });
    expect(told).toEqual([["client certificate /etc/k/client.crt changed: new connections use it", false]]);
  });

  test("a pair that cannot be used keeps the one in use, told once until it changes", () => {
    const on = files(first);
    const { certificate, told, advance } = setup(on);
    on.set("/etc/k/client.crt", second.cert);
    for (let i = 0; i < 3; i++) {
      advance(1000);
      expect(certificate.refresh()).toBe(0);
    }
    expect(certificate.tls.cert).toBe(first.cert);
    expect(told).toEqual([
      [
        "client certificate /etc/k/client.crt not reloaded, the one in use is kept: the key is not the certificate's",
        true,
      ],
    ]);
    on.set("/etc/k/client.key", second.key);
    advance(1000);
    expect(certificate.refresh()).toBe(1);
    expect(certificate.tls.key).toBe(second.key);
  });

  test("material without both files is never read again", () => {
    let reads = 0;
    let now = 0;
    const certificate = new ClientCertificate(
      { ...first, certFile: "/etc/k/client.crt", rejectUnauthorized: true },
      { read: () => String(++reads), now: () => (now += 10), intervalMs: 1 },
    );
    for (let i = 0; i < 3; i++) expect(certificate.refresh()).toBe(0);
    expect(reads).toBe(0);
  });
});
