/**
 * Preloaded by bun test. Builds kube-apiserver and etcd first when they are not cached yet (minutes, once):
 * here no test or hook timeout can cut the build short. `npm run test:unit` sets CCM_TEST_LAZY_CONTROL_PLANE=1:
 * then nothing is built up front, and a test that does ask for the control plane builds it then. At the end, tears down
 * the shared control plane
 * and every tracked process, and removes the test copies of the executable.
 */
import { afterAll } from "bun:test";
import { ensureKubeBinaries } from "../scripts/control-plane/binaries.ts";
import { stopControlPlane } from "./harness/control-plane.ts";
import { existsSync } from "node:fs";
import { removeCopies } from "./harness/binary.ts";
import { CCM_LOG_DIR } from "./harness/ccm.ts";
import { killAll } from "./harness/processes.ts";

if (process.env.CCM_TEST_LAZY_CONTROL_PLANE !== "1") {
  await ensureKubeBinaries((line) => console.error(`[control-plane] ${line}`));
}

afterAll(async () => {
  killAll("SIGKILL");
  await stopControlPlane();
  removeCopies();
  // Under `npm test` the run's folder is named only when a test failed (it is removed otherwise).
  if (existsSync(CCM_LOG_DIR) && process.env.CCM_TEST_RUN_DIR === undefined)
    console.error(`[harness] logs of every cloud-controller-manager process of this run: ${CCM_LOG_DIR}`);
});
