/**
 * `--cloud-provider=baremetal`: node metadata from an inventory and load-balancer addresses from pools, for
 * clusters with no cloud API. No routes: the route controller stays off. The cloud-config file is followed;
 * a valid edit applies without a restart, a broken one is logged line by line and the last good
 * configuration stays in force. With `inventory.source: cluster` the machines are BareMetalMachine objects
 * the leader watches (cluster-inventory.ts); the source itself is fixed at start.
 */
import type { CloudProvider, ProviderContext } from "../../src/cloud/provider.ts";
import type { KubeApi } from "../../src/kube/api.ts";
import { followCloudConfig } from "../../src/cloud/follow-file.ts";
import { describeConfig, parseBaremetalConfig, type BaremetalConfig } from "./config.ts";
import { inventoryInstances } from "./instances.ts";
import { credentialKey, readCredentials } from "./bmc-credentials.ts";
import { createPowerLookup, type PowerLookupDeps } from "./power-lookup.ts";
import { createRedfishApi, type RedfishApiDeps } from "./redfish-api.ts";
import { preflightBmcs } from "./bmc-preflight.ts";
import { createSourcedLoadBalancer, type SourcedLoadBalancer } from "../shared/address-pools/pool-source.ts";
import { createClusterInventory } from "./cluster-inventory.ts";
import type { Inventory } from "./inventory.ts";

export interface BaremetalProviderInput {
  readonly config: BaremetalConfig;
  /** The cloud-config file to follow; empty: nothing to follow. */
  readonly path: string;
  /** The text `config` was parsed from, so following the file starts from it. */
  readonly text?: string;
}

export interface BaremetalProviderOptions {
  /** How often the cloud-config file is checked for edits. */
  readonly followIntervalMs?: number;
  /** How long one BMC answer is used (default 5 s). */
  readonly powerTtlMs?: PowerLookupDeps["ttlMs"];
  /** Per BMC request (default 10 s). */
  readonly bmcTimeoutMs?: RedfishApiDeps["timeoutMs"];
  /** The API client for BMC credential Secrets before initialize (tests); initialize supplies the manager's. */
  readonly kube?: KubeApi;
}

export interface BaremetalProvider extends CloudProvider {
  /** Swaps in a validated configuration (what a live edit does). */
  apply(config: BaremetalConfig): void;
}

const FOLLOW_INTERVAL_MS = 1000;

export function createBaremetalProvider(
  input: BaremetalProviderInput,
  context: ProviderContext,
  options: BaremetalProviderOptions = {},
): BaremetalProvider {
  const log = context.logger;
  let current = input.config;
  let kube = options.kube;
  const redfish = createRedfishApi({ observeCall: context.observeCall, timeoutMs: options.bmcTimeoutMs });
  const power = createPowerLookup({
    api: redfish,
    readCredentials: (credentials) => readCredentials(credentials, { kube: () => kube, namespace: context.namespace }),
    credentialKey: (credentials) => credentialKey(credentials, context.namespace),
    ttlMs: options.powerTtlMs,
  });
  /** The load-balancer capability is fixed at start: the service controller is built (or skipped) once. */
  const startSettings = input.config.loadBalancers;
  const settings = (): NonNullable<BaremetalConfig["loadBalancers"]> =>
    current.loadBalancers ?? (startSettings as NonNullable<typeof startSettings>);
  const lb: SourcedLoadBalancer | undefined = startSettings
    ? createSourcedLoadBalancer({
        settings,
        logger: log,
        observeCall: context.observeCall,
        observeDrift: context.observeConfigurationDrift,
      })
    : undefined;

  const startSource = input.config.inventory.source;
  const cluster =
    startSource === "cluster" ? createClusterInventory({ base: () => current.inventory, logger: log }) : undefined;
  const inventory = (): Inventory => cluster?.inventory() ?? current.inventory;

  function loadBalancersOf(config: BaremetalConfig): BaremetalConfig["loadBalancers"] {
    if ((config.loadBalancers === undefined) !== (startSettings === undefined)) {
      log.warn(
        `adding or removing the loadBalancers section takes a restart; until then load balancers stay ${startSettings ? "on, with the last pools" : "off"}`,
      );
      return current.loadBalancers;
    }
    const source = config.loadBalancers?.source;
    if (startSettings && source !== startSettings.source) {
      log.warn(
        `changing loadBalancers.source (${startSettings.source} → ${source ?? "none"}) takes a restart; until then pools stay as they were`,
      );
      return current.loadBalancers;
    }
    return config.loadBalancers;
  }

  function inventoryOf(config: BaremetalConfig): Inventory {
    if (config.inventory.source === startSource) return config.inventory;
    log.warn(
      `changing inventory.source (${startSource} → ${config.inventory.source}) takes a restart; until then the inventory stays as it was`,
    );
    return current.inventory;
  }

  function apply(config: BaremetalConfig): void {
    current = { inventory: inventoryOf(config), loadBalancers: loadBalancersOf(config) };
    lb?.settingsChanged();
  }

  let lastText = input.text;
  const onText = (text: string): void => {
    if (text === lastText) return;
    lastText = text;
    const parsed = parseBaremetalConfig(text);
    if (!parsed.ok) {
      for (const line of parsed.errors)
        log.warn(`ignoring the edit of ${input.path}, the last good configuration stays in force: ${line}`);
      return;
    }
    apply(parsed.config);
    log.info(`applied the edit of ${input.path}: ${describeConfig(parsed.config)}`);
  };
  const onError = (error: Error): void =>
    log.warn(`cannot read ${input.path}, the last good configuration stays in force: ${error.message}`);
  const stopFollowing =
    input.path === ""
      ? (): void => undefined
      : followCloudConfig(input.path, options.followIntervalMs ?? FOLLOW_INTERVAL_MS, onText, onError);

  log.info(`bare-metal provider: ${describeConfig(input.config)}`);
  return {
    name: "baremetal",
    instances: inventoryInstances(inventory, power),
    loadBalancer: lb?.lb.loadBalancer,
    apply,
    preflight: (signal) =>
      preflightBmcs(
        {
          inventory: current.inventory,
          api: redfish,
          readCredentials: (credentials) => readCredentials(credentials, { kube: () => undefined, namespace: "" }),
          logger: log,
        },
        signal,
      ),
    initialize(init) {
      kube ??= init.kube;
      cluster?.start(init);
      lb?.initialize(init);
      return Promise.resolve();
    },
    close() {
      stopFollowing();
      return Promise.resolve();
    },
  };
}
