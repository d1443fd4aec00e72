import { expect, test } from "bun:test";
import { parseStanza } from "./debs.ts";

test("parseStanza reads the candidate's fields, not a second version's", () => {
  const text = "Package: libc6\nVersion: 2.36-9+deb12u14\nSHA256: ab\n\nPackage: libc6\nVersion: 2.36-9\n";
  expect(parseStanza(text)).toEqual({ Package: "libc6", Version: "2.36-9+deb12u14", SHA256: "ab" });
});
