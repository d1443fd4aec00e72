/**
 * The systemd install, with the compiled binary: the generated unit passes `systemd-analyze verify`, its
 * ExecStart= (with the environment file expanded as systemd does) runs the manager against the real
 * control plane as the restricted identity, and `install systemd` writes exactly the unit, environment
 * file and sysusers entry it prints.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../scripts/control-plane/ports.ts";
import { compiledBinary } from "../harness/binary.ts";
import { startCcm } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { uniqueName } from "../harness/fixtures.ts";
import { grantLease } from "../harness/rbac.ts";
import { serviceStart } from "../harness/systemd-unit.ts";

/** systemd's default PATH for services; the service gets nothing else but its EnvironmentFile=. */
const SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

async function run(binary: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([binary, ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { status: await proc.exited, stdout, stderr };
}

async function generated(binary: string, kind: string, flags: string[]): Promise<string> {
  const result = await run(binary, ["manifests", kind, ...flags]);
  if (result.status !== 0) throw new Error(`manifests ${kind} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

/** A host layout with files that exist: kubeconfig, cloud-config, environment file. */
function hostFiles(): { dir: string; kubeconfig: string; cloudConfig: string; envFile: string } {
  const dir = mkdtempSync(join(tmpdir(), "ccm-systemd-"));
  const paths = {
    dir,
    kubeconfig: join(dir, "ccm.conf"),
    cloudConfig: join(dir, "cloud.conf"),
    envFile: join(dir, "cloud-controller-manager.env"),
  };
  writeFileSync(paths.kubeconfig, "apiVersion: v1\nkind: Config\n");
  writeFileSync(paths.cloudConfig, "autoInstances: true\n");
  return paths;
}

const analyze = Bun.which("systemd-analyze");

async function verify(unitPath: string): Promise<{ status: number; ourLines: string[] }> {
  const proc = Bun.spawn([analyze!, "verify", unitPath], { stdout: "pipe", stderr: "pipe" });
  const stderr = await new Response(proc.stderr).text();
  const status = await proc.exited;
  return {
    status,
    ourLines: stderr.split("\n").filter((l) => l.includes(unitPath) || /not executable|Unknown key|Failed to/.test(l)),
  };
}

describe("systemd unit", () => {
  // systemd-analyze comes with Debian's systemd package (.ci/run installs it); without it there is nothing to verify
  // with.
  const verifyName = analyze
    ? "passes systemd-analyze verify; a broken unit does not"
    : "systemd-analyze verify: skipped, systemd-analyze is not installed (Debian package systemd)";
  test.skipIf(!analyze)(
    verifyName,
    async () => {
      const binary = await compiledBinary();
      const host = hostFiles();
      const flags = [
        "--cloud-provider=fake",
        `--binary=${binary}`,
        `--env-file=${host.envFile}`,
        `--kubeconfig=${host.kubeconfig}`,
        `--cloud-config=${host.cloudConfig}`,
        "--cert-dir=/var/lib/cloud-controller-manager",
        "--cluster-cidr=10.244.0.0/16",
      ];
      writeFileSync(host.envFile, await generated(binary, "systemd-env", flags));
      const unit = join(host.dir, "cloud-controller-manager.service");
      writeFileSync(unit, await generated(binary, "systemd", flags));
      expect(await verify(unit)).toEqual({ status: 0, ourLines: [] });

      const unknownKey = join(host.dir, "unknown-key.service");
      writeFileSync(unknownKey, readFileSync(unit, "utf8").replace("ProtectHome=yes", "ProtectHomes=yes"));
      expect((await verify(unknownKey)).ourLines.join("\n")).toContain("Unknown key 'ProtectHomes'");
      const missingBinary = join(host.dir, "missing-binary.service");
      writeFileSync(
        missingBinary,
        await generated(binary, "systemd", [...flags, `--binary=${join(host.dir, "nowhere")}`]),
      );
      expect((await verify(missingBinary)).status).not.toBe(0);
    },
    60_000,
  );

  test("its ExecStart runs the manager: Lease acquired, /healthz 200 over HTTPS, check sees the holder, exit 0 on SIGTERM", async () => {
    const cp = await controlPlane();
    const binary = await compiledBinary();
    const host = hostFiles();
    const lease = uniqueName("systemd");
    await grantLease(lease);
    const port = await freePort();
    const flags = [
      "--cloud-provider=fake",
      `--binary=${binary}`,
      `--env-file=${host.envFile}`,
      `--kubeconfig=${cp.kubeconfigs.ccm}`,
      `--cloud-config=${host.cloudConfig}`,
      `--secure-port=${port}`,
      `--leader-elect-resource-name=${lease}`,
      "--cluster-cidr=10.244.0.0/16",
    ];
    writeFileSync(host.envFile, await generated(binary, "systemd-env", flags));
    const { command, env } = serviceStart(await generated(binary, "systemd", flags));
    expect(command[0]).toBe(binary);
    expect(command.slice(1)).toContain(`--secure-port=${port}`);

    const ccm = startCcm({
      binary: command[0],
      args: command.slice(1),
      cwd: "/",
      cleanEnv: true,
      env: { PATH: SYSTEMD_PATH, ...env },
    });
    await ccm.waitForLine(new RegExp(`successfully acquired lease kube-system/${lease} `), 60_000);
    const health = await fetch(`https://127.0.0.1:${port}/healthz`, { tls: { rejectUnauthorized: false } });
    expect(health.status).toBe(200);
    expect(await health.text()).toBe("ok"); // upstream's body, no newline

    const check = await run(binary, ["check", ...command.slice(1), "--output=json"]);
    expect(check.status).toBe(1);
    const findings = (JSON.parse(check.stdout) as { findings: { check: string; status: string; detail: string }[] })
      .findings;
    const leaseRows = findings.filter((f) => f.check === "lease");
    expect(leaseRows.map((f) => f.status)).toEqual(["fail"]);
    expect(leaseRows[0]!.detail).toMatch(
      new RegExp(
        `^Lease kube-system/${lease} is held by \\S+_[0-9a-f-]+ \\(renewed \\d+s ago\\): another cloud-controller-manager is running`,
      ),
    );

    expect(await ccm.stop("SIGTERM")).toBe(0);
  }, 120_000);
});

describe("install systemd", () => {
  const installFlags = (host: ReturnType<typeof hostFiles>, binary: string) => [
    "--cloud-provider=fake",
    `--binary=${binary}`,
    `--kubeconfig=${host.kubeconfig}`,
    `--cloud-config=${host.cloudConfig}`,
    "--cluster-cidr=10.244.0.0/16",
  ];

  test("--dry-run prints the three files and writes nothing; without it they are written under --root", async () => {
    const binary = await compiledBinary();
    const host = hostFiles();
    const root = join(host.dir, "root");
    const dry = await run(binary, ["install", "systemd", ...installFlags(host, binary), `--root=${root}`, "--dry-run"]);
    expect(dry.status).toBe(0);
    expect(existsSync(root)).toBe(false);
    const unitPath = join(root, "etc/systemd/system/cloud-controller-manager.service");
    expect(dry.stdout).toContain(`# would write ${unitPath} (mode 644):\n# Generated by`);

    const real = await run(binary, ["install", "systemd", ...installFlags(host, binary), `--root=${root}`]);
    expect(real.status).toBe(0);
    const written = [
      "etc/sysusers.d/cloud-controller-manager.conf",
      "etc/default/cloud-controller-manager",
      "etc/systemd/system/cloud-controller-manager.service",
    ];
    expect(real.stdout.split("\n").slice(0, 3)).toEqual(written.map((p) => `wrote ${join(root, p)}`));
    expect(readdirSync(join(root, "etc")).sort()).toEqual(["default", "systemd", "sysusers.d"]);
    const unit = readFileSync(unitPath, "utf8");
    expect(unit).toBe(await generated(binary, "systemd", installFlags(host, binary)));
    expect(unit).toContain("EnvironmentFile=/etc/default/cloud-controller-manager\n");
    expect(readFileSync(join(root, "etc/default/cloud-controller-manager"), "utf8")).toBe(
      await generated(binary, "systemd-env", installFlags(host, binary)),
    );
    expect(readFileSync(join(root, "etc/sysusers.d/cloud-controller-manager.conf"), "utf8")).toContain(
      'u cloud-controller-manager - "Kubernetes cloud-controller-manager"',
    );
    expect(real.stdout.split("\n").slice(3)).toEqual([
      "next steps, as root (flags live in CCM_ARGS of the environment file):",
      "  systemd-sysusers /etc/sysusers.d/cloud-controller-manager.conf",
      `  chgrp cloud-controller-manager ${host.kubeconfig} ${host.cloudConfig}`,
      `  chmod g+r ${host.kubeconfig} ${host.cloudConfig}`,
      `  ${binary} check ${installFlags(host, binary)
        .filter((f) => !f.startsWith("--binary"))
        .join(" ")}`,
      "  systemctl daemon-reload && systemctl enable --now cloud-controller-manager",
      "",
    ]);
    const again = await run(binary, ["install", "systemd", ...installFlags(host, binary), `--root=${root}`]);
    expect(again.stdout.split("\n")[0]).toBe(`replaced ${join(root, written[0]!)}`);
  }, 60_000);

  test("refuses unreadable files and a cloud-config the provider rejects, naming the flag (exit 2)", async () => {
    const binary = await compiledBinary();
    const host = hostFiles();
    writeFileSync(host.cloudConfig, "instances: 3\n");
    const missing = join(host.dir, "missing.conf");
    const result = await run(binary, [
      "install",
      "systemd",
      "--cloud-provider=fake",
      "--configure-cloud-routes=false",
      `--kubeconfig=${missing}`,
      `--cloud-config=${host.cloudConfig}`,
      `--root=${host.dir}`,
    ]);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual([
      `error: invalid value ${JSON.stringify(missing)} for flag --kubeconfig: cannot read it: ENOENT: no such file or directory, access '${missing}'`,
    ]);
    const badConfig = await run(binary, [
      "install",
      "systemd",
      "--cloud-provider=fake",
      "--configure-cloud-routes=false",
      `--kubeconfig=${host.kubeconfig}`,
      `--cloud-config=${host.cloudConfig}`,
      `--root=${host.dir}`,
    ]);
    expect(badConfig.status).toBe(2);
    expect(badConfig.stderr).toBe(
      `error: invalid --cloud-config ${JSON.stringify(host.cloudConfig)}: instances: must be a list\n`,
    );
    expect(existsSync(join(host.dir, "etc"))).toBe(false);
  }, 60_000);
});
