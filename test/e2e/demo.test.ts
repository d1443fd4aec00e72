/**
 * `npm run demo`, the main job end to end, as a new user runs it (with the executable this run built):
 * the three Nodes initialised from the fake cloud, a LoadBalancer Service given its address, a route per
 * Node, and the manager stopped cleanly.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { compiledBinary } from "../harness/binary.ts";

const root = join(import.meta.dir, "..", "..");

describe("npm run demo", () => {
  test("initialises the nodes, serves a LoadBalancer Service, creates a route per node", async () => {
    const binary = await compiledBinary();
    const proc = Bun.spawn([process.execPath, "scripts/demo.ts", "--binary", binary], {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect(code, `${out}\n${err}`).toBe(0);
    for (const n of [1, 2, 3]) {
      expect(out).toMatch(new RegExp(`demo-node-${n} +fake://demo-node-${n} +demo-zone-[abc] +fake\\.(medium|large)`));
      expect(out).toMatch(new RegExp(`10\\.244\\.${n - 1}\\.0/24 +demo-node-${n} +false`));
    }
    expect(out).toMatch(
      /default\/demo-web +LoadBalancer +203\.0\.113\.\d+ +80\/TCP +service\.kubernetes\.io\/load-balancer-cleanup/,
    );
    expect(out).toContain("cloud-controller-manager exited with status 0");
  }, 180_000);
});
