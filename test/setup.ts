/** Preloaded by bun test: tears down the shared control plane and every tracked process at the end. */
import { afterAll } from "bun:test";
import { stopControlPlane } from "./harness/control-plane.ts";
import { existsSync } from "node:fs";
import { CCM_LOG_DIR } from "./harness/ccm.ts";
import { killAll } from "./harness/processes.ts";

afterAll(async () => {
  killAll("SIGKILL");
  await stopControlPlane();
  if (existsSync(CCM_LOG_DIR)) console.error(`[harness] logs of every cloud-controller-manager process of this run: ${CCM_LOG_DIR}`);
});
