/**
 * Every controller this build can run, by canonical name (upstream `DefaultInitFuncConstructors`).
 */
import type { ControllerName } from "../controllers/names.ts";
import { createNodeRouteController } from "../controllers/node-route/controller.ts";
import { createServiceLbController } from "../controllers/service-lb/controller.ts";
import type { ControllerFactory } from "./context.ts";

export function controllerFactories(): Partial<Record<ControllerName, ControllerFactory>> {
  return {
    "node-route-controller": createNodeRouteController,
    "service-lb-controller": createServiceLbController,
  };
}
