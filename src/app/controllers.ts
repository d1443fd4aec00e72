/**
 * Every controller this build can run, by canonical name (upstream `DefaultInitFuncConstructors`).
 */
import { cloudNodeController } from "../controllers/cloud-node/controller.ts";
import type { ControllerName } from "../controllers/names.ts";
import { nodeLifecycleController } from "../controllers/node-lifecycle/controller.ts";
import type { ControllerFactory } from "./context.ts";

export function controllerFactories(): Partial<Record<ControllerName, ControllerFactory>> {
  return {
    "cloud-node-controller": cloudNodeController,
    "cloud-node-lifecycle-controller": nodeLifecycleController,
  };
}
