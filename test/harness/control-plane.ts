/**
 * One real control plane per test run, started on first use and stopped after the last test (see
 * test/setup.ts). Run directories (logs, PKI, kubeconfigs) are kept for the last three finished runs and
 * for every run still going.
 */
import { freshRunDir } from "../../scripts/control-plane/run-dirs.ts";
import { startControlPlane, type ControlPlane } from "../../scripts/control-plane/control-plane.ts";

let shared: Promise<ControlPlane> | undefined;

export function controlPlane(): Promise<ControlPlane> {
  shared ??= startControlPlane({
    dir: freshRunDir("test-runs"),
    log: (line) => console.error(`[control-plane] ${line}`),
  }).then((cp) => {
    console.error(`[control-plane] ${cp.server}; logs and kubeconfigs in ${cp.dir}`);
    return cp;
  });
  return shared;
}

export async function stopControlPlane(): Promise<void> {
  if (!shared) return;
  const cp = await shared.catch(() => undefined);
  shared = undefined;
  await cp?.stop();
}
