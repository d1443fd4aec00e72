/** Preloaded by bun test: tears down the shared control plane and every tracked process at the end. */
import { afterAll } from "bun:test";
import { stopControlPlane } from "./harness/control-plane.ts";
import { killAll } from "./harness/processes.ts";

afterAll(async () => {
  killAll("SIGKILL");
  await stopControlPlane();
});
