/** The provider's view of the manager: its logger, its namespace and the provider metrics. */
import type { Config } from "../cli/config.ts";
import type { ProviderContext } from "../cloud/provider.ts";
import type { Logger } from "../log/logger.ts";
import type { Metrics } from "../metrics/metrics.ts";

export function providerContext(o: { config: Config; logger: Logger; metrics: Metrics }): ProviderContext {
  return {
    logger: o.logger.withTag(`cloud-provider:${o.config.cloudProvider}`),
    clusterName: o.config.clusterName,
    namespace: o.config.leaderElection.resourceNamespace,
    observeCall: (operation, seconds, outcome) => {
      o.metrics.cloudCalls.inc({ provider: o.config.cloudProvider, operation, outcome });
      o.metrics.cloudLatency.observe({ provider: o.config.cloudProvider, operation }, seconds);
    },
    observeConfigurationDrift: (drifting) => o.metrics.configurationDrift.set({ provider: o.config.cloudProvider }, drifting ? 1 : 0),
  };
}
