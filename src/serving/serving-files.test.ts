import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueCertificate } from "../pki/x509.ts";
import { servingFileProblems } from "./serving-files.ts";

const dir = mkdtempSync(join(tmpdir(), "serving-files-"));
const file = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const pair = issueCertificate({ subject: { commonName: "a" }, serverAuth: true });
const other = issueCertificate({ subject: { commonName: "b" }, serverAuth: true });
const cert = file("a.crt", pair.certPem);
const key = file("a.key", pair.keyPem);
const none = {
  tlsCertFile: "",
  tlsPrivateKeyFile: "",
  sniCertKeys: [],
  clientCAFile: "",
  requestHeaderClientCAFile: "",
};

describe("servingFileProblems", () => {
  test("good files and no files are fine", () => {
    expect(servingFileProblems(none)).toEqual([]);
    expect(
      servingFileProblems({
        ...none,
        tlsCertFile: cert,
        tlsPrivateKeyFile: key,
        clientCAFile: cert,
        sniCertKeys: [{ certFile: cert, keyFile: key, names: [] }],
      }),
    ).toEqual([]);
  });

  test.each([
    [
      "a missing certificate",
      { tlsCertFile: join(dir, "nope.crt"), tlsPrivateKeyFile: key },
      `--tls-cert-file: cannot read ${JSON.stringify(join(dir, "nope.crt"))} (ENOENT)`,
    ],
    [
      "a key that is not PEM",
      { tlsCertFile: cert, tlsPrivateKeyFile: file("bad.key", "garbage") },
      "--tls-private-key-file: " + JSON.stringify(join(dir, "bad.key")) + " is not a PEM private key",
    ],
    [
      "a key of another certificate",
      { tlsCertFile: cert, tlsPrivateKeyFile: file("b.key", other.keyPem) },
      `--tls-private-key-file: ${JSON.stringify(join(dir, "b.key"))} does not match the certificate in ${JSON.stringify(cert)}`,
    ],
    [
      "an empty CA bundle",
      { clientCAFile: file("empty.crt", "") },
      `--client-ca-file: ${JSON.stringify(join(dir, "empty.crt"))} is not a PEM bundle of CA certificates`,
    ],
    [
      "a missing request-header CA",
      { requestHeaderClientCAFile: join(dir, "nope-ca.crt") },
      `--requestheader-client-ca-file: cannot read ${JSON.stringify(join(dir, "nope-ca.crt"))} (ENOENT)`,
    ],
    [
      "a missing SNI key",
      { sniCertKeys: [{ certFile: cert, keyFile: join(dir, "sni.key"), names: [] }] },
      `--tls-sni-cert-key: cannot read ${JSON.stringify(join(dir, "sni.key"))} (ENOENT)`,
    ],
  ])("%s", (_title, o, line) => {
    expect(servingFileProblems({ ...none, ...o })).toEqual([line]);
  });
});
