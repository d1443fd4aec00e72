/**
 * Problems that depend on both the flags and the provider's capabilities, found before anything starts
 * (no Lease taken, no controller run): upstream exits on them after winning the election; reporting them
 * with the other bad input is kinder and loses nothing.
 */
import type { Config } from "../config/config.ts";
import type { CloudProvider } from "../cloud/provider.ts";
import { validateClusterCidrs } from "../controllers/node-route-controller/predicates.ts";
import { servingFileProblems } from "../serving/serving-files.ts";

export function startupProblems(config: Config, provider: CloudProvider): string[] {
  const routesOn =
    config.controllers.includes("node-route-controller") &&
    config.configureCloudRoutes &&
    provider.routes !== undefined;
  const cidrProblem = routesOn ? validateClusterCidrs(config.clusterCidrs) : undefined;
  const s = config.serving;
  // Checked even with --secure-port=0: a wrong path should not wait for the day the port is turned on.
  const files = servingFileProblems({
    ...s,
    clientCAFile: s.clientAuth.clientCAFile,
    requestHeaderClientCAFile: s.clientAuth.requestHeaderClientCAFile,
  });
  return [...(cidrProblem ? [cidrProblem] : []), ...files];
}
