import { describe, expect, test } from "bun:test";
import { rawVersion, versionRequest } from "./version-flag.ts";
import { runCommand } from "./run-cli.test-support.ts";

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

describe("--version on the command line", () => {
  test.each([
    [["--version", "--bogus"], ["error: unknown flag: --bogus"]],
    [["--bogus", "--version=raw"], ["error: unknown flag: --bogus"]],
    [["--version", "--kubeconfig"], ["error: flag needs an argument: --kubeconfig"]],
    [["--version", "extra"], ['error: "cloud-controller-manager" does not take any arguments, got ["extra"]']],
    [
      ["--version", "--secure-port=abc", "--leader-elect=maybe", "--node-monitor-period=soon"],
      [
        'error: invalid value "abc" for flag --secure-port: must be an integer',
        'error: invalid value "maybe" for flag --leader-elect: must be true or false',
        'error: invalid value "soon" for flag --node-monitor-period: must be a duration such as 300ms, 10s or 5m0s',
      ],
    ],
    [
      ["--version=raw", "--feature-gates=Bogus=true"],
      [
        'error: invalid value "Bogus=true" for flag --feature-gates: unrecognized feature gate: Bogus (--help lists the known ones)',
      ],
    ],
  ])("%p: refused before the version is printed, as pflag and cobra do", async (argv, want) => {
    const r = await runCommand(argv);
    expect({ code: r.code, out: r.out, err: r.err.trimEnd().split("\n") }).toEqual({ code: 2, out: "", err: want });
  });

  test("what only a run checks is not: the version is printed and the command quits", async () => {
    const r = await runCommand(["--version", "--cloud-provider=nowhere", "--cloud-config=/does/not/exist"]);
    expect(r.code).toBe(0);
    expect(r.out).toStartWith("cloud-controller-manager v");
  });
});

describe("-h, --help is a bool flag, as cobra's", () => {
  test.each([
    [["--help=true"], 0, "help"],
    [["-h=1"], 0, "help"],
    [["--help", "--help=false", "--version"], 0, "version"],
    [["--help=false", "--version"], 0, "version"],
    [["--help=maybe"], 2, 'error: invalid value "maybe" for flag --help: not a boolean\n'],
  ])("%p", async (argv, code, want) => {
    const r = await runCommand(argv);
    expect(r.code).toBe(code);
    if (want === "help") expect(r.out).toContain("--cloud-provider");
    else if (want === "version") expect(r.out).toStartWith("cloud-controller-manager v");
    else expect(r.err).toBe(want);
  });
});
