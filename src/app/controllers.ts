/**
 * Every controller this build can run, by canonical name (upstream `DefaultInitFuncConstructors`).
 */
import type { ControllerName } from "../controllers/names.ts";
import type { ControllerFactory } from "./context.ts";

export function controllerFactories(): Partial<Record<ControllerName, ControllerFactory>> {
  return {};
}
