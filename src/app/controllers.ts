/**
 * Every controller this build can run, by canonical name (upstream `DefaultInitFuncConstructors`).
 */
import { cloudNodeController } from "../controllers/cloud-node/controller.ts";
import type { ControllerName } from "../controllers/names.ts";
import { nodeLifecycleController } from "../controllers/node-lifecycle/controller.ts";
import { createNodeRouteController } from "../controllers/node-route/controller.ts";
import { createServiceLbController } from "../controllers/service-lb/controller.ts";
import type { ControllerFactory } from "./context.ts";

export function controllerFactories(): Partial<Record<ControllerName, ControllerFactory>> {
  return {
    "cloud-node-controller": cloudNodeController,
    "cloud-node-lifecycle-controller": nodeLifecycleController,
    "node-route-controller": createNodeRouteController,
    "service-lb-controller": createServiceLbController,
  };
}
