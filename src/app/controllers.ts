/**
 * Every controller this build can run, by canonical name (upstream `DefaultInitFuncConstructors`).
 */
import { cloudNodeController } from "../controllers/cloud-node-controller/controller.ts";
import { cloudNodeLifecycleController } from "../controllers/cloud-node-lifecycle-controller/controller.ts";
import type { ControllerFactory } from "../controllers/context.ts";
import { nodeRouteController } from "../controllers/node-route-controller/controller.ts";
import { serviceLbController } from "../controllers/service-lb-controller/controller.ts";
import type { ControllerName } from "../names/controllers.ts";

export function controllerFactories(): Partial<Record<ControllerName, ControllerFactory>> {
  return {
    "cloud-node-controller": cloudNodeController,
    "cloud-node-lifecycle-controller": cloudNodeLifecycleController,
    "node-route-controller": nodeRouteController,
    "service-lb-controller": serviceLbController,
  };
}
