import { expect, test } from "bun:test";
import { debPurl, withDebianPackages, type Bom } from "./sbom.ts";

test("debPurl percent-encodes the version", () => {
  expect(debPurl("libc6", "2.36-9+deb12u14", "amd64")).toBe("pkg:deb/debian/libc6@2.36-9%2Bdeb12u14?arch=amd64");
});

test("withDebianPackages adds each package with its files, and makes the application depend on it", () => {
  const bom: Bom = {
    bomFormat: "CycloneDX",
    specVersion: "1.6",
    metadata: { component: { type: "application", name: "ccm", "bom-ref": "ccm@1" } },
    components: [{ type: "library", name: "a", "bom-ref": "ccm@1|a@1" }],
    dependencies: [{ ref: "ccm@1", dependsOn: ["ccm@1|a@1"] }, { ref: "ccm@1|a@1" }],
  };
  const deb = { name: "libc6", version: "2.36", arch: "amd64", file: "/x.deb", sha256: "d1" };
  const merged = withDebianPackages(bom, [{ deb, files: [{ path: "/lib/libc.so.6", sha256: "f1", pkg: "libc6" }] }]);
  const purl = "pkg:deb/debian/libc6@2.36?arch=amd64";
  expect(merged.components[1]).toMatchObject({
    type: "library",
    "bom-ref": purl,
    name: "libc6",
    version: "2.36",
    purl,
    hashes: [{ alg: "SHA-256", content: "d1" }],
    components: [{ type: "file", name: "/lib/libc.so.6", hashes: [{ alg: "SHA-256", content: "f1" }] }],
  });
  expect(merged.dependencies).toEqual([
    { ref: "ccm@1", dependsOn: ["ccm@1|a@1", purl] },
    { ref: "ccm@1|a@1" },
    { ref: purl },
  ]);
});
