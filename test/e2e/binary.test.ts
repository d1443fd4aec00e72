/**
 * The compiled executable on its own: it runs from an empty directory with nothing beside it, talks TLS to
 * a real kube-apiserver as the restricted identity (client certificate, and bearer token), starts its
 * controllers and exits 0 on SIGTERM.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { totalmem } from "node:os";
import pkg from "../../package.json" with { type: "json" };
import { lonelyBinary } from "../harness/binary.ts";
import { startCcm } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { grantLease } from "../harness/rbac.ts";
import { FTL_JIT, HEAP_SIZING_RAM_BYTES, HOLE_PURGE_INTERVAL, JSC_RAM_SIZE } from "../../src/app/runtime-tuning.ts";

describe("compiled binary", () => {
  test("prints its version and git commit from an empty directory", async () => {
    const { dir, binary } = await lonelyBinary();
    expect(readdirSync(dir)).toEqual(["cloud-controller-manager"]);
    const proc = Bun.spawn([binary, "--version"], { cwd: dir, env: { PATH: "/usr/bin:/bin" }, stdout: "pipe" });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    expect(out).toMatch(
      new RegExp(
        `^cloud-controller-manager v${pkg.version.replaceAll(".", "\\.")} \\(commit [0-9a-f]{12}(-dirty)?\\)\\n$`,
      ),
    );
  });

  test("--version=raw fills upstream's version.Info from the build: tree state and the commit's date", async () => {
    const { dir, binary } = await lonelyBinary();
    const proc = Bun.spawn([binary, "--version=raw"], { cwd: dir, env: { PATH: "/usr/bin:/bin" }, stdout: "pipe" });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    const commit = /GitCommit:"([0-9a-f]{12})(-dirty)?"/.exec(out);
    expect(commit).not.toBeNull();
    expect(out).toContain(`GitTreeState:"${commit?.[2] ? "dirty" : "clean"}"`);
    expect(out).toMatch(/BuildDate:"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"/);
  });

  test("rejects bad flags with status 2 and one line per problem", async () => {
    const { dir, binary } = await lonelyBinary();
    const proc = Bun.spawn([binary, "--cloud-provider=fake", "--kube-api-burst=lots", "--controllers=nope"], {
      cwd: dir,
      stderr: "pipe",
    });
    const err = await new Response(proc.stderr).text();
    expect(await proc.exited).toBe(2);
    expect(err.trim().split("\n")).toEqual([
      'error: invalid value "nope" for flag --controllers: "nope" is not in the list of known controllers',
      'error: invalid value "lots" for flag --kube-api-burst: must be an integer',
    ]);
  });

  for (const identity of ["ccm", "ccmToken"] as const) {
    test(`runs as the restricted identity over TLS (${identity === "ccm" ? "client certificate" : "bearer token"}) and exits 0 on SIGTERM`, async () => {
      const cp = await controlPlane();
      const { dir, binary } = await lonelyBinary();
      const lease = `e2e-${identity.toLowerCase()}`;
      await grantLease(lease);
      const ccm = startCcm({
        binary,
        cwd: dir,
        env: { PATH: "/usr/bin:/bin" },
        args: [
          "--cloud-provider=fake",
          `--kubeconfig=${cp.kubeconfigs[identity]}`,
          "--secure-port=0",
          `--leader-elect-resource-name=${lease}`,
          "--cluster-cidr=10.244.0.0/16",
        ],
      });
      await ccm.waitForLine(/successfully acquired lease kube-system\/e2e-/);
      await ccm.waitForLine(
        /started 4 controller\(s\): cloud-node-controller, cloud-node-lifecycle-controller, node-route-controller, service-lb-controller/,
      );
      await ccm.waitForLine(/caches synced: \d+ node\(s\), \d+ service\(s\)/);
      // It re-executed itself (same PID) with its runtime settings (app/runtime-tuning.ts).
      const environ = readFileSync(`/proc/${ccm.proc.pid}/environ`, "utf8").split("\0");
      expect(environ).toContain(`${JSC_RAM_SIZE}=${Math.min(totalmem(), HEAP_SIZING_RAM_BYTES)}`);
      expect(environ).toContain(`${HOLE_PURGE_INTERVAL}=1000`);
      expect(environ).toContain(`${FTL_JIT}=false`);
      expect(await ccm.stop("SIGTERM")).toBe(0);
      expect(ccm.output()).not.toMatch(/forbidden|Forbidden/);
    });
  }

  test("runs its controllers in worker threads from the single file (--controller-threads=2)", async () => {
    const cp = await controlPlane();
    const { dir, binary } = await lonelyBinary();
    const ccm = startCcm({
      binary,
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
      args: [
        "--cloud-provider=fake",
        `--kubeconfig=${cp.kubeconfigs.ccm}`,
        "--secure-port=0",
        "--leader-elect=false",
        "--cluster-cidr=10.244.0.0/16",
        "--controller-threads=2",
      ],
    });
    // Per-key controllers on both threads, the route controller on thread 0 alone.
    await ccm.waitForLine(
      /thread-0\] started 4 controller\(s\): cloud-node-controller, cloud-node-lifecycle-controller, node-route-controller, service-lb-controller/,
    );
    await ccm.waitForLine(
      /thread-1\] started 3 controller\(s\): cloud-node-controller, cloud-node-lifecycle-controller, service-lb-controller/,
    );
    expect(await ccm.stop("SIGTERM")).toBe(0);
  });
});
