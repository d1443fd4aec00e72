/** PKI files for the test control plane: one CA, the serving certificate, client certificates, SA keys. */
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { issueCertificate, type KeyPair } from "../../src/pki/x509.ts";

export interface ClientFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface Pki {
  readonly ca: KeyPair;
  readonly caFile: string;
  readonly servingCertFile: string;
  readonly servingKeyFile: string;
  readonly saPublicKeyFile: string;
  readonly saPrivateKeyFile: string;
  readonly clients: { readonly admin: ClientFiles; readonly ccm: ClientFiles };
  /** Issues another client certificate (CN = user, O = groups) signed by the CA. */
  issueClient(name: string, user: string, groups?: readonly string[]): ClientFiles;
}

export function writePki(dir: string, users: { admin: string; ccm: string }): Pki {
  mkdirSync(dir, { recursive: true });
  const put = (name: string, pair: KeyPair): ClientFiles => {
    const certFile = join(dir, `${name}.crt`);
    const keyFile = join(dir, `${name}.key`);
    writeFileSync(certFile, pair.certPem);
    writeFileSync(keyFile, pair.keyPem, { mode: 0o600 });
    return { certFile, keyFile };
  };
  const ca = issueCertificate({
    subject: { commonName: "cloud-controller-manager-test-ca" },
    isCA: true,
    validDays: 30,
  });
  const caFiles = put("ca", ca);
  const serving = put(
    "apiserver",
    issueCertificate(
      {
        subject: { commonName: "kube-apiserver" },
        serverAuth: true,
        dnsNames: ["localhost", "kubernetes", "kubernetes.default.svc"],
        ipAddresses: ["127.0.0.1", "10.96.0.1"],
      },
      ca,
    ),
  );
  const issueClient = (name: string, user: string, groups: readonly string[] = []): ClientFiles =>
    put(name, issueCertificate({ subject: { commonName: user, organizations: groups }, clientAuth: true }, ca));
  const sa = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const saPublicKeyFile = join(dir, "sa.pub");
  const saPrivateKeyFile = join(dir, "sa.key");
  writeFileSync(saPublicKeyFile, sa.publicKey.export({ type: "spki", format: "pem" }));
  writeFileSync(saPrivateKeyFile, sa.privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  return {
    ca,
    caFile: caFiles.certFile,
    servingCertFile: serving.certFile,
    servingKeyFile: serving.keyFile,
    saPublicKeyFile,
    saPrivateKeyFile,
    clients: { admin: issueClient("admin", users.admin, ["system:masters"]), ccm: issueClient("ccm", users.ccm) },
    issueClient,
  };
}
