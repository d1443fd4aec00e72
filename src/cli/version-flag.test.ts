import { describe, expect, test } from "bun:test";
import { rawVersion, versionRequest } from "./version-flag.ts";

const build = { version: "v1.36.3-ccm.1", commit: "abc", treeState: "clean", date: "2026-11-25T03:00:00Z" };

describe("--version", () => {
  test.each([
    [[], { kind: "none" }],
    [["--version"], { kind: "print" }],
    [["--version=true"], { kind: "print" }],
    [["--version=false"], { kind: "none" }],
    [["--version=raw"], { kind: "raw" }],
    [["--version", "--version=false"], { kind: "none" }],
    [["--version=v1.36.3"], { kind: "report", version: "v1.36.3" }],
    [["--version=v1.36.3-custom+build.7"], { kind: "report", version: "v1.36.3-custom+build.7" }],
  ])("%p", (argv, want) => {
    expect(versionRequest(argv, build)).toEqual(want as never);
  });

  test.each([
    [["--version=v1.35.0"], /must match major\/minor\/patch of default version "v1.36.3-ccm.1"/],
    [["--version=junk"], /invalid argument "junk" for "--version" flag/],
  ])("%p is refused", (argv, message) => {
    const request = versionRequest(argv, build);
    expect(request.kind).toBe("error");
    expect(request.kind === "error" && request.message).toMatch(message);
  });

  test("raw: upstream's version.Info layout", () => {
    expect(rawVersion(build)).toMatch(
      /^version\.Info\{Major:"1", Minor:"36", GitVersion:"v1\.36\.3-ccm\.1", GitCommit:"abc", GitTreeState:"clean", BuildDate:"2026-11-25T03:00:00Z", .*Platform:"linux\/\w+"\}$/,
    );
  });
});
