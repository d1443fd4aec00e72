/**
 * One cloud for both managers: the fake cloud served by `cloud-controller-manager fake-cloud` in a process
 * of its own, reached by either manager over the same loopback HTTP protocol (ours through its fake
 * provider with `endpoint:`, the Go reference through its wire client), with the same latency per call.
 * The cloud counts every call it answers; its CPU is neither manager's.
 */
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "../control-plane/ports.ts";
import { terminate } from "../control-plane/control-plane.ts";
import { benchInstance } from "./objects.ts";
import { ProcSampler } from "./proc-stats.ts";

export interface CloudSettings {
  readonly latencyMs: number;
  /** Instances the cloud knows: bench-node-1 … bench-node-<instances>. */
  readonly instances: number;
}

export interface RunningCloud {
  readonly endpoint: string;
  readonly sampler: ProcSampler;
  /** Calls answered so far, by operation. */
  calls(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** The environment of every process the benchmark starts: never Bun's stand-in mode (see bench.ts). */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && key !== "BUN_BE_BUN") env[key] = value;
  return { ...env, ...extra };
}

export function cloudConfig(s: CloudSettings): string {
  return JSON.stringify({
    faults: { latency: `${s.latencyMs}ms` },
    defaults: { instanceType: "fake.small", zone: "zone-a", region: "region-1" },
    instances: Array.from({ length: s.instances }, (_, k) => benchInstance(k + 1)),
    loadBalancers: { ipPool: ["198.18.0.0/15"] },
  });
}

/** Starts the shared fake cloud with `binary` (our compiled manager) and waits until it answers. */
export async function startCloud(binary: string, dir: string, s: CloudSettings): Promise<RunningCloud> {
  const config = join(dir, "fake-cloud.json");
  writeFileSync(config, cloudConfig(s));
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const log = openSync(join(dir, "fake-cloud.log"), "a");
  const proc: Subprocess = Bun.spawn([binary, "fake-cloud", `--config=${config}`, `--listen=127.0.0.1:${port}`], {
    stdout: log,
    stderr: log,
    env: childEnv(),
  });
  closeSync(log);
  const calls = async (): Promise<Record<string, number>> =>
    (await (await fetch(`${endpoint}/admin/calls`, { signal: AbortSignal.timeout(10_000) })).json()) as Record<
      string,
      number
    >;
  await waitUntilServing(proc, calls);
  const sampler = new ProcSampler(proc.pid);
  return {
    endpoint,
    sampler,
    calls,
    async stop() {
      sampler.stop();
      await terminate(proc, 5000);
    },
  };
}

/** Waits until the cloud has answered `count` calls of `operation`. */
export async function waitForCalls(
  calls: () => Promise<Record<string, number>>,
  operation: string,
  count: number,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = (await calls())[operation] ?? 0;
    if (done >= count) return;
    if (Date.now() > deadline)
      throw new Error(`only ${done} of ${count} ${operation} calls after ${timeoutMs / 1000} s`);
    await Bun.sleep(100);
  }
}

async function waitUntilServing(proc: Subprocess, probe: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`fake cloud exited with status ${proc.exitCode} (see fake-cloud.log)`);
    try {
      await probe();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`fake cloud not serving after 60 s: ${(error as Error).message}`);
      await Bun.sleep(100);
    }
  }
}
