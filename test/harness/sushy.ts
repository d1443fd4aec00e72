/**
 * sushy-tools' Redfish emulator (the BMC emulator of OpenStack Ironic's tests) with its fake driver: a
 * pinned `sushy-tools` installed from PyPI into a virtualenv in the cache (once per version), started on
 * loopback with the given systems and an htpasswd file (basic auth on every system resource), killed at
 * the end. The fake driver keeps its systems in a SQLite state file of its own; `remove` deletes a system
 * there through sushy-tools' own store, which is what "the BMC no longer has this system" looks like.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../scripts/control-plane/ports.ts";
import { ensurePipTool, run, tail } from "./pip-tool.ts";
import { track } from "./processes.ts";

export const SUSHY_TOOLS_VERSION = "2.2.0";

export interface SushySystem {
  readonly uuid: string;
  readonly name: string;
  readonly powerState: "On" | "Off";
}

export interface Sushy {
  /** `redfish+http://127.0.0.1:<port>/redfish/v1/Systems/<uuid>`: metal3's syntax for a plain-HTTP BMC. */
  address(uuid: string): string;
  /** `POST …/Actions/ComputerSystem.Reset`; the fake driver applies it 1 to 11 s later, like real hardware. */
  reset(uuid: string, type: "On" | "ForceOff"): Promise<void>;
  /** The system's `PowerState` as the emulator reports it now. */
  powerState(uuid: string): Promise<string>;
  /** Deletes the system from the emulator's state: from then on its resource answers 404. */
  remove(uuid: string): Promise<void>;
  /** Kills the emulator: every request is refused from then on. */
  stop(): Promise<void>;
}

export interface SushyOptions {
  readonly systems: readonly SushySystem[];
  readonly username: string;
  readonly password: string;
}

export async function ensureSushyTools(
  log: (line: string) => void = (l) => console.error(`[sushy] ${l}`),
): Promise<string> {
  return ensurePipTool({
    dir: `sushy-tools-${SUSHY_TOOLS_VERSION}`,
    requirement: `sushy-tools==${SUSHY_TOOLS_VERSION}`,
    log,
  });
}

const python = (value: unknown): string => JSON.stringify(value);

function writeConfig(dir: string, options: SushyOptions): string {
  const systems = options.systems.map(
    (s) => `{"uuid": ${python(s.uuid)}, "name": ${python(s.name)}, "power_state": ${python(s.powerState)}}`,
  );
  const path = join(dir, "emulator.conf");
  writeFileSync(
    path,
    [
      "SUSHY_EMULATOR_FAKE_DRIVER = True",
      `SUSHY_EMULATOR_STATE_DIR = ${python(join(dir, "state"))}`,
      `SUSHY_EMULATOR_AUTH_FILE = ${python(join(dir, "htpasswd"))}`,
      `SUSHY_EMULATOR_FAKE_SYSTEMS = [${systems.join(", ")}]`,
      "",
    ].join("\n"),
  );
  return path;
}

export async function startSushy(options: SushyOptions): Promise<Sushy> {
  const venv = await ensureSushyTools();
  const dir = mkdtempSync(join(tmpdir(), "sushy-"));
  // sushy-tools checks bcrypt digests only; Bun writes the `$2b$` form it accepts.
  const digest = await Bun.password.hash(options.password, { algorithm: "bcrypt", cost: 4 });
  writeFileSync(join(dir, "htpasswd"), `${options.username}:${digest}\n`);
  const config = writeConfig(dir, options);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = track(
    Bun.spawn([join(venv, "bin", "sushy-emulator"), "--config", config, "-i", "127.0.0.1", "-p", String(port)], {
      stdout: "ignore",
      stderr: "pipe",
    }),
  );
  const log = tail(proc.stderr);
  const auth = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString("base64")}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`sushy-emulator exited ${proc.exitCode}:\n${log()}`);
    const up = await fetch(`${base}/redfish/v1/Systems`, { headers: { authorization: auth } }).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`sushy-emulator did not answer on ${base} within 60 s:\n${log()}`);
    await Bun.sleep(200);
  }
  const system = (uuid: string): string => `${base}/redfish/v1/Systems/${uuid}`;
  return {
    address: (uuid) => system(uuid).replace(/^http:/, "redfish+http:"),
    async reset(uuid, type) {
      const response = await fetch(`${system(uuid)}/Actions/ComputerSystem.Reset`, {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify({ ResetType: type }),
      });
      if (!response.ok) throw new Error(`reset ${type} of ${uuid}: HTTP ${response.status}:\n${log()}`);
    },
    async powerState(uuid) {
      const response = await fetch(system(uuid), { headers: { authorization: auth } });
      if (!response.ok) throw new Error(`GET ${uuid}: HTTP ${response.status}:\n${log()}`);
      return String(((await response.json()) as { PowerState?: unknown }).PowerState);
    },
    async remove(uuid) {
      const script = [
        "import sys",
        "from sushy_tools.emulator import memoize",
        "systems = memoize.PersistentDict()",
        "systems.make_permanent(sys.argv[1], 'fakedriver')",
        "del systems[sys.argv[2]]",
      ].join("\n");
      await run([join(venv, "bin", "python"), "-c", script, join(dir, "state"), uuid], `remove system ${uuid}`);
    },
    async stop() {
      proc.kill("SIGKILL");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
