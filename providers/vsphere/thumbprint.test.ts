import { describe, expect, test } from "bun:test";
import { normalizeThumbprint, pinnedTls, pinnedWithCa, type PeerCertificate } from "./thumbprint.ts";

const PIN = "AB:".repeat(19) + "CD";
const PIN256 = "EF:".repeat(31) + "01";
const cert = (fingerprint: string, issuer?: PeerCertificate | "self"): PeerCertificate => {
  const made: { fingerprint: string; fingerprint256: string; raw: Uint8Array; issuerCertificate?: PeerCertificate } = {
    fingerprint,
    fingerprint256: fingerprint === PIN ? PIN256 : "00:".repeat(31) + "00",
    raw: new TextEncoder().encode(fingerprint),
  };
  made.issuerCertificate = issuer === "self" ? made : issuer;
  return made;
};
const outcome = (leaf: PeerCertificate): string => {
  const pin = pinnedTls(leaf, PIN);
  return pin instanceof Error ? pin.message : "pinned";
};
const ROOT = cert("00:".repeat(19) + "01", "self");

describe("thumbprint pinning", () => {
  test.each([
    [PIN.toLowerCase(), PIN],
    [` ${PIN} `, PIN],
    ["AB:CD", undefined],
    [PIN.replaceAll(":", ""), undefined],
    [PIN.replace("AB", "XY"), undefined],
    [PIN256.toLowerCase(), PIN256],
    [PIN256 + ":02", undefined],
    [PIN + ":02", undefined],
  ])("normalizeThumbprint(%p) is %p", (text, expected) => {
    expect(normalizeThumbprint(text)).toBe(expected);
  });

  test("a self-signed leaf, or a leaf whose chain ends in a self-signed root, is pinned", () => {
    for (const leaf of [cert(PIN, "self"), cert(PIN, ROOT)]) {
      const pin = pinnedTls(leaf, PIN);
      if (pin instanceof Error) throw pin;
      expect(pin.ca).toStartWith("-----BEGIN CERTIFICATE-----\n");
      expect(pin.checkServerIdentity("vc", { fingerprint: PIN.toLowerCase() })).toBeUndefined();
      expect(pin.checkServerIdentity("vc", { fingerprint: ROOT.fingerprint })?.message).toContain("not the configured");
    }
  });

  test("another leaf, or a chain presented without its root, is an error naming why", () => {
    expect(outcome(cert(ROOT.fingerprint, "self"))).toContain(`thumbprint ${ROOT.fingerprint}`);
    expect(outcome(cert(PIN, cert("99:".repeat(19) + "99")))).toContain("does not present the root");
  });

  test("a SHA-256 thumbprint is compared with the SHA-256 fingerprint", () => {
    const pin = pinnedTls(cert(PIN, "self"), PIN256);
    if (pin instanceof Error) throw pin;
    expect(pin.checkServerIdentity("vc", { fingerprint: PIN, fingerprint256: PIN256.toLowerCase() })).toBeUndefined();
    expect(pin.checkServerIdentity("vc", { fingerprint: PIN })?.message).toContain("SHA-256 thumbprint (none)");
    expect(outcome(cert(ROOT.fingerprint, "self"))).toContain("SHA-1 thumbprint");
  });

  test("with a caFile, that CA is trusted and the thumbprint still checked on every connection", () => {
    const pin = pinnedWithCa("PEM", PIN);
    expect(pin.ca).toBe("PEM");
    expect(pin.checkServerIdentity("vc", { fingerprint: PIN })).toBeUndefined();
    expect(pin.checkServerIdentity("vc", { fingerprint: ROOT.fingerprint })?.message).toContain("not the configured");
  });
});
