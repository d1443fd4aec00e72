import { describe, expect, test } from "bun:test";
import { normalizeThumbprint, pinnedTls, type PeerCertificate } from "./thumbprint.ts";

const PIN = "AB:".repeat(19) + "CD";
const cert = (fingerprint: string, issuer?: PeerCertificate | "self"): PeerCertificate => {
  const made: { fingerprint: string; raw: Uint8Array; issuerCertificate?: PeerCertificate } = {
    fingerprint,
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
});
