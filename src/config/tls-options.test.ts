import { describe, expect, test } from "bun:test";
import { parseSniCertKey, resolveTls, sniMatches } from "./tls-options.ts";

const flags = (o: { minVersion?: string; cipherSuites?: string[]; curvePreferences?: string[] }) => ({
  minVersion: "",
  cipherSuites: [],
  curvePreferences: [],
  ...o,
});

describe("resolveTls", () => {
  test("defaults: TLS 1.2 and the runtime's suites and curves", () => {
    expect(resolveTls(flags({}))).toEqual({
      ok: true,
      settings: { minVersion: "TLSv1.2", ciphers: undefined, ecdhCurve: undefined },
    });
  });

  test("Go names become OpenSSL's, in order; TLS 1.3 suites are accepted and always on", () => {
    const resolved = resolveTls(
      flags({
        minVersion: "VersionTLS10",
        cipherSuites: [
          "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_AES_128_GCM_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        ],
        curvePreferences: ["X25519", "23"],
      }),
    );
    expect(resolved).toEqual({
      ok: true,
      settings: {
        minVersion: "TLSv1",
        ciphers: "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256",
        ecdhCurve: "X25519:P-256",
      },
    });
  });

  test.each([
    [{ minVersion: "VersionTLS14" }, /--tls-min-version: "VersionTLS14" is not one of/],
    [{ cipherSuites: ["TLS_FOO"] }, /--tls-cipher-suites: unknown cipher suite "TLS_FOO"/],
    [
      { cipherSuites: ["TLS_RSA_WITH_RC4_128_SHA"] },
      /--tls-cipher-suites: TLS_RSA_WITH_RC4_128_SHA is not supported by this runtime/,
    ],
    [{ curvePreferences: ["CurveP224"] }, /--tls-curve-preferences: unknown curve "CurveP224"/],
  ])("rejects %p", (o, message) => {
    const resolved = resolveTls(flags(o));
    expect(resolved.ok).toBe(false);
    expect(!resolved.ok && resolved.errors.join("\n")).toMatch(message);
  });
});

describe("SNI certificates", () => {
  test.each([
    ["a.crt,a.key", { certFile: "a.crt", keyFile: "a.key", names: [] }],
    [
      "a.crt,a.key:*.example.com,example.com",
      { certFile: "a.crt", keyFile: "a.key", names: ["*.example.com", "example.com"] },
    ],
  ])("parses %p", (value, want) => {
    expect(parseSniCertKey(value)).toEqual(want);
  });

  test("rejects a value without a key file", () => {
    expect(parseSniCertKey("a.crt")).toMatch(/is not certfile,keyfile/);
  });

  test.each([
    ["*.example.com", "a.example.com", true],
    ["*.example.com", "a.b.example.com", false],
    ["*.example.com", "example.com", false],
    ["Example.com", "example.COM", true],
  ])("%p matches %p: %p", (pattern, name, want) => {
    expect(sniMatches(pattern, name)).toBe(want);
  });
});
