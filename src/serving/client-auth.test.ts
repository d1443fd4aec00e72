import { describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { issueCertificate, type KeyPair } from "../pki/x509.ts";
import { authenticateCertificate, chainsTo, parseBundle, type ClientCertAuth } from "./client-auth.ts";

const x = (pair: KeyPair): X509Certificate => new X509Certificate(pair.certPem);
const clientCA = issueCertificate({ subject: { commonName: "client-ca" }, isCA: true });
const proxyCA = issueCertificate({ subject: { commonName: "proxy-ca" }, isCA: true });
const intermediate = issueCertificate({ subject: { commonName: "intermediate" }, isCA: true }, clientCA);
const alice = issueCertificate(
  { subject: { commonName: "alice", organizations: ["dev", "ops"] }, clientAuth: true },
  clientCA,
);
const serverOnly = issueCertificate({ subject: { commonName: "web" }, serverAuth: true }, clientCA);
const viaIntermediate = issueCertificate({ subject: { commonName: "bob" }, clientAuth: true }, intermediate);
const proxy = issueCertificate({ subject: { commonName: "front-proxy" }, clientAuth: true }, proxyCA);

const auth: ClientCertAuth = {
  clientCA: [x(clientCA)],
  requestHeader: {
    ca: [x(proxyCA)],
    allowedNames: ["front-proxy"],
    usernameHeaders: ["X-Remote-User"],
    uidHeaders: ["X-Remote-Uid"],
    groupHeaders: ["X-Remote-Group"],
    extraHeaderPrefixes: ["X-Remote-Extra-"],
  },
};
const headers = (pairs: [string, string][]): Map<string, string[]> => {
  const map = new Map<string, string[]>();
  for (const [k, v] of pairs) map.set(k.toLowerCase(), [...(map.get(k.toLowerCase()) ?? []), v]);
  return map;
};

describe("chainsTo", () => {
  test.each([
    ["a leaf issued by the root", [alice], true],
    ["a leaf through an intermediate the client sent", [viaIntermediate, intermediate], true],
    ["a leaf whose intermediate is missing", [viaIntermediate], false],
    ["a server-only certificate", [serverOnly], false],
    ["another CA's leaf", [proxy], false],
  ] as const)("%s", (_title, chain, want) => {
    expect(chainsTo(chain.map(x), [x(clientCA)])).toBe(want);
  });

  test("an expired leaf", () => {
    expect(chainsTo([x(alice)], [x(clientCA)], new Date(Date.now() + 400 * 86_400_000))).toBe(false);
  });

  test("bundles hold every certificate", () => {
    expect(parseBundle(`${clientCA.certPem}\n${proxyCA.certPem}`).map((c) => c.subject)).toEqual([
      "CN=client-ca",
      "CN=proxy-ca",
    ]);
  });
});

describe("authenticateCertificate", () => {
  test("x509: common name is the user, organizations the groups", () => {
    expect(authenticateCertificate(auth, { chain: [x(alice)], headers: new Map() })).toEqual({
      user: { username: "alice", groups: ["dev", "ops"] },
    });
  });

  test("request header: the headers name the user, every group value, uid and extras", () => {
    const peer = {
      chain: [x(proxy)],
      headers: headers([
        ["X-Remote-User", "carol"],
        ["X-Remote-Uid", "42"],
        ["X-Remote-Group", "a"],
        ["X-Remote-Group", "b"],
        ["X-Remote-Extra-Scopes", "s1"],
        ["X-Remote-Extra-Acme.com%2Fteam", "t"],
      ]),
    };
    expect(authenticateCertificate(auth, peer)).toEqual({
      user: { username: "carol", uid: "42", groups: ["a", "b"], extra: { scopes: ["s1"], "acme.com/team": ["t"] } },
    });
  });

  test("request header: a proxy not in the allowed names is an error; no username header falls through", () => {
    const other = issueCertificate({ subject: { commonName: "other" }, clientAuth: true }, proxyCA);
    expect(
      authenticateCertificate(auth, { chain: [x(other)], headers: headers([["X-Remote-User", "carol"]]) }),
    ).toHaveProperty("error");
    expect(authenticateCertificate(auth, { chain: [x(proxy)], headers: new Map() })).toBeUndefined();
  });

  test("no certificate, or one from no configured CA: undefined (a token may still authenticate)", () => {
    expect(authenticateCertificate(auth, { chain: [], headers: new Map() })).toBeUndefined();
    const rogue = issueCertificate(
      { subject: { commonName: "rogue" }, clientAuth: true },
      issueCertificate({ subject: { commonName: "x" }, isCA: true }),
    );
    expect(authenticateCertificate(auth, { chain: [x(rogue)], headers: new Map() })).toBeUndefined();
  });
});
