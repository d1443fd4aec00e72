/**
 * `--cloud-provider=vsphere`: node metadata and lifecycle from vCenter with the upstream CPI's semantics,
 * and load-balancer addresses from the address pools shared with the bare-metal provider, so a vSphere
 * cluster needs neither NSX-T nor a second component. No routes (upstream's are NSX-T's, not implemented):
 * pod routes belong to the CNI.
 */
import type { CloudProvider, ProviderContext } from "../../src/cloud/provider.ts";
import type { KubeApi } from "../../src/kube/api.ts";
import { createSourcedLoadBalancer } from "../shared/address-pools/pool-source.ts";
import { createVSphereApi, type VSphereApiDeps } from "./api.ts";
import { describeConfig, type VSphereConfig } from "./config.ts";
import { credentialSource } from "./credentials.ts";
import { vsphereInstances } from "./instances.ts";
import { createVmLookup, type LookupDeps } from "./lookup.ts";

/** Knobs for tests; production uses the defaults. */
export interface VSphereProviderOptions {
  readonly timeoutMs?: VSphereApiDeps["timeoutMs"];
  readonly pageSize?: VSphereApiDeps["pageSize"];
  readonly scanTtlMs?: LookupDeps["scanTtlMs"];
  /** The API client to use before initialize (tests, `check`); initialize supplies the manager's. */
  readonly kube?: KubeApi;
  /**
   * The manager's environment, for upstream's SKIP_NODE_DELETION (set, whatever its value: Nodes are never
   * deleted). The factory passes the process's; nothing here reads it otherwise.
   */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

export function createVSphereProvider(
  config: VSphereConfig,
  context: ProviderContext,
  options: VSphereProviderOptions = {},
): CloudProvider {
  const log = context.logger;
  let kube = options.kube;
  const vc = config.vcenter;
  const api = createVSphereApi({
    vcenter: vc,
    login: credentialSource(vc.credentials, vc.server, () => kube),
    observeCall: context.observeCall,
    timeoutMs: options.timeoutMs,
    pageSize: options.pageSize,
  });
  const lookup = createVmLookup({ api, datacenters: vc.datacenters, scanTtlMs: options.scanTtlMs });
  const settings = config.loadBalancers;
  const lb = settings
    ? createSourcedLoadBalancer({
        settings: () => settings,
        logger: log,
        observeCall: context.observeCall,
        observeDrift: context.observeConfigurationDrift,
      })
    : undefined;
  const skipNodeDeletion = options.environment?.SKIP_NODE_DELETION !== undefined;
  log.info(`vSphere provider: ${describeConfig(config)}`);
  for (const line of config.ignored) log.warn(`vsphere.conf: ${line}`);
  if (skipNodeDeletion)
    log.info(
      "SKIP_NODE_DELETION is set: node deletion is off, a VM gone from vCenter is an error and its Node is kept",
    );
  return {
    name: "vsphere",
    instances: vsphereInstances(config, lookup, { skipNodeDeletion }),
    loadBalancer: lb?.lb.loadBalancer,
    initialize(init) {
      kube ??= init.kube;
      lb?.initialize(init);
      return Promise.resolve();
    },
    close: () => api.close(),
    async preflight(signal) {
      if (vc.credentials.kind === "secret" && !kube) {
        log.info(
          `preflight: the vCenter credentials come from Secret ${vc.credentials.namespace}/${vc.credentials.name}, ` +
            "which only the running manager reads; login not checked",
        );
        return [];
      }
      try {
        const content = await api.serviceContent(signal);
        await lookup.resolve([], signal);
        const { missing, known } = await lookup.datacenters(signal);
        if (missing.length > 0)
          return [
            `vCenter ${vc.server} has no datacenter ${missing.join(", ")} (it has: ${known.join(", ") || "none"}); ` +
              "nodes are searched in the others, and a node not found there is an error, never deleted",
          ];
        log.debug(`preflight: ${content.about} answers, the datacenters are found`);
        return [];
      } catch (error) {
        return [
          `cannot use vCenter ${vc.server}:${vc.port}: ${(error as Error).message}; ` +
            "check the vcenter section (server, port, credentials, caFile or insecureFlag)",
        ];
      }
    },
  };
}
