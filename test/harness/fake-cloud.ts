/**
 * A fake cloud served from the test process: CCM processes reach it through `endpoint` in their
 * cloud-config, and the test changes it (instances, faults) and reads its call counters directly. It
 * outlives any CCM restart, like a real cloud.
 */
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeCloud, parseFakeConfig } from "../../providers/fake/index.ts";
import { serveFakeCloud } from "../../providers/fake/server.ts";

export interface TestFakeCloud {
  readonly engine: FakeCloud;
  readonly endpoint: string;
  /** A cloud-config file pointing the CCM at this cloud. */
  readonly configFile: string;
  stop(): Promise<void>;
}

export function startFakeCloud(yaml = "", extra: Record<string, unknown> = {}): TestFakeCloud {
  const parsed = parseFakeConfig(yaml);
  if (!parsed.ok) throw new Error(`bad fake cloud config: ${parsed.errors.join("; ")}`);
  const engine = new FakeCloud(parsed.config);
  const server = serveFakeCloud(engine);
  const endpoint = `http://127.0.0.1:${server.port}`;
  const configFile = join(mkdtempSync(join(tmpdir(), "fake-cloud-")), "cloud.yaml");
  writeFileSync(configFile, JSON.stringify({ endpoint, ...extra }));
  return { engine, endpoint, configFile, stop: () => server.stop(true) };
}
