/**
 * `/configz`: the manager's effective configuration in upstream's shape (the
 * `cloudcontrollermanager.config.k8s.io/v1alpha1` CloudControllerManagerConfiguration, field names as
 * upstream serialises them), so tools reading upstream's `/configz` find the same keys.
 */
import type { Config } from "../config/config.ts";
import { formatDuration } from "../config/values.ts";
import { formatCIDR } from "../net/ip.ts";

const d = (ms: number): string => formatDuration(ms);

function generic(c: Config): Record<string, unknown> {
  const le = c.leaderElection;
  return {
    Port: 0,
    Address: c.serving.bindAddress,
    ClientConnection: {
      Kubeconfig: c.kubeconfig,
      ContentType: "application/json",
      QPS: c.kubeApiQps,
      Burst: c.kubeApiBurst,
    },
    ControllerStartInterval: d(c.controllerStartIntervalMs),
    LeaderElection: {
      LeaderElect: le.enabled,
      LeaseDuration: d(le.leaseDurationMs),
      RenewDeadline: d(le.renewDeadlineMs),
      RetryPeriod: d(le.retryPeriodMs),
      ResourceLock: "leases",
      ResourceName: le.resourceName,
      ResourceNamespace: le.resourceNamespace,
    },
    Controllers: [...c.controllers],
    LeaderMigrationEnabled: false,
  };
}

export function configz(c: Config): { contentType: string; body: string } {
  const configuration = {
    kind: "CloudControllerManagerConfiguration",
    apiVersion: "cloudcontrollermanager.config.k8s.io/v1alpha1",
    Generic: generic(c),
    KubeCloudShared: {
      CloudProvider: { Name: c.cloudProvider, CloudConfigFile: c.cloudConfig },
      UseServiceAccountCredentials: c.useServiceAccountCredentials,
      RouteReconciliationPeriod: d(c.routeReconciliationPeriodMs),
      NodeMonitorPeriod: d(c.nodeMonitorPeriodMs),
      ClusterName: c.clusterName,
      ClusterCIDR: c.clusterCidrs.map(formatCIDR).join(","),
      AllocateNodeCIDRs: false,
      ConfigureCloudRoutes: c.configureCloudRoutes,
    },
    ServiceController: { ConcurrentServiceSyncs: c.concurrentServiceSyncs },
    NodeController: {
      ConcurrentNodeSyncs: c.concurrentNodeSyncs,
      ConcurrentNodeStatusUpdates: c.concurrentNodeStatusUpdates,
    },
    NodeStatusUpdateFrequency: d(c.nodeStatusUpdateFrequencyMs),
  };
  return {
    contentType: "application/json",
    body: JSON.stringify({ "cloudcontrollermanager.config.k8s.io": configuration }),
  };
}
