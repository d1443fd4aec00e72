/**
 * Problems that depend on both the flags and the provider's capabilities, found before anything starts
 * (no Lease taken, no controller run): upstream exits on them after winning the election; reporting them
 * with the other bad input is kinder and loses nothing.
 */
import type { Config } from "../config/config.ts";
import type { CloudProvider } from "../cloud/provider.ts";
import { validateClusterCidrs } from "../controllers/node-route-controller/predicates.ts";

export function startupProblems(config: Config, provider: CloudProvider): string[] {
  const routesOn = config.controllers.includes("node-route-controller") && config.configureCloudRoutes && provider.routes !== undefined;
  const cidrProblem = routesOn ? validateClusterCidrs(config.clusterCidrs) : undefined;
  return cidrProblem ? [cidrProblem] : [];
}
