import { expect, test } from "bun:test";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { issueCertificate } from "./x509.ts";

test("a CA-signed leaf verifies against the CA and carries its names and usages", () => {
  const ca = issueCertificate({ subject: { commonName: "ca" }, isCA: true });
  const leaf = issueCertificate(
    {
      subject: { commonName: "user", organizations: ["g1", "g2"] },
      clientAuth: true,
      serverAuth: true,
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1", "::1"],
    },
    ca,
  );
  const cert = new X509Certificate(leaf.certPem);
  expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
  expect(cert.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
  expect(cert.subject.split("\n")).toEqual(["O=g1", "O=g2", "CN=user"]);
  expect(cert.subjectAltName).toBe("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1");
  expect(cert.ca).toBe(false);
  expect(new X509Certificate(ca.certPem).ca).toBe(true);
  expect(cert.checkPrivateKey(createPrivateKey(leaf.keyPem))).toBe(true);
});

test("a self-signed certificate verifies against itself", () => {
  const self = issueCertificate({ subject: { commonName: "localhost" }, serverAuth: true, dnsNames: ["localhost"] });
  const cert = new X509Certificate(self.certPem);
  expect(cert.verify(cert.publicKey)).toBe(true);
  expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now() + 300 * 86_400_000);
});

test("an RSA certificate (self-signed, and a leaf an RSA CA signs) verifies and carries an RSA key", () => {
  const ca = issueCertificate({ subject: { commonName: "ca" }, isCA: true, keyType: "rsa" });
  const leaf = issueCertificate({ subject: { commonName: "leaf" }, serverAuth: true }, ca);
  const caCert = new X509Certificate(ca.certPem);
  expect(caCert.verify(caCert.publicKey)).toBe(true);
  expect(caCert.publicKey.asymmetricKeyType).toBe("rsa");
  expect(new X509Certificate(leaf.certPem).verify(caCert.publicKey)).toBe(true);
  expect(new X509Certificate(leaf.certPem).publicKey.asymmetricKeyType).toBe("ec");
});
