/**
 * `--use-service-account-credentials`: the manager creates the per-controller ServiceAccounts and each
 * controller writes with its own token (node-controller, service-controller, route-controller), while
 * the root identity keeps the caches and the Lease. The API server's audit log says who wrote what.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { NAMESPACES, NODES, SERVICE_ACCOUNTS, SERVICES } from "../../src/kube/api.ts";
import type { Node, Service } from "../../src/kube/objects.ts";
import { startCcm } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { startFakeCloud } from "../harness/fake-cloud.ts";
import { kubeletNode, loadBalancerService, uniqueName } from "../harness/fixtures.ts";
import { grantLease } from "../harness/rbac.ts";
import { eventually } from "../harness/wait.ts";

interface AuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; name?: string; namespace?: string };
}

function writers(auditLog: string, match: (e: AuditEvent) => boolean): Set<string> {
  const events = readFileSync(auditLog, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEvent);
  return new Set(events.filter((e) => e.stage === "ResponseComplete" && match(e)).map((e) => e.user?.username ?? ""));
}

const sa = (name: string): string => `system:serviceaccount:kube-system:${name}`;

describe("per-controller ServiceAccount credentials", () => {
  // Threads too: each thread's controllers get their ServiceAccount's token, the caches stay the manager's.
  test.each([0, 2])(
    "ServiceAccounts are created and each controller writes with its own token (--controller-threads=%d)",
    async (threads) => {
      const cp = await controlPlane();
      const nodeName = uniqueName(`sa-node-t${threads}`);
      const cloud = startFakeCloud(
        `instances: [{ name: ${nodeName}, addresses: [{ type: InternalIP, address: 10.9.9.9 }] }]\n`,
      );
      const lease = uniqueName(`sa-creds-t${threads}`);
      await grantLease(lease);
      const namespace = uniqueName("sa-creds");
      await cp.admin.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
      const ccm = startCcm({
        args: [
          "--cloud-provider=fake",
          `--cloud-config=${cloud.configFile}`,
          `--kubeconfig=${cp.kubeconfigs.ccm}`,
          "--secure-port=0",
          "--cluster-cidr=10.244.0.0/16",
          `--leader-elect-resource-name=${lease}`,
          "--use-service-account-credentials",
          `--controller-threads=${threads}`,
        ],
      });
      await ccm.waitForLine(
        /using ServiceAccount credentials: kube-system\/node-controller, kube-system\/service-controller, kube-system\/route-controller/,
      );
      for (const name of ["node-controller", "service-controller", "route-controller"]) {
        expect((await cp.admin.get(SERVICE_ACCOUNTS, name, { namespace: "kube-system" })).metadata.name).toBe(name);
      }
      await cp.admin.create(NODES, kubeletNode(nodeName, { podCIDRs: ["10.244.200.0/24"] }));
      await cp.admin.create(SERVICES, loadBalancerService("web", namespace));
      await eventually(
        "the node initialised and its route condition set",
        async () => {
          const node = await cp.admin.get<Node>(NODES, nodeName);
          const routed = node.status?.conditions?.some(
            (c) => c.type === "NetworkUnavailable" && c.reason === "RouteCreated",
          );
          return node.spec?.providerID && routed ? node : undefined;
        },
        60_000,
      );
      await eventually(
        "the service's ingress",
        async () => (await cp.admin.get<Service>(SERVICES, "web", { namespace })).status?.loadBalancer?.ingress?.length,
      );
      expect(await ccm.stop()).toBe(0);

      const onNode = (e: AuditEvent): boolean => e.objectRef?.name === nodeName && e.verb === "patch";
      expect(
        writers(cp.auditLog, (e) => onNode(e) && e.objectRef?.resource === "nodes" && !e.objectRef.subresource),
      ).toEqual(new Set([sa("node-controller")]));
      const statusWriters = writers(cp.auditLog, (e) => onNode(e) && e.objectRef?.subresource === "status");
      expect(statusWriters).toEqual(new Set([sa("node-controller"), sa("route-controller")]));
      expect(
        writers(
          cp.auditLog,
          (e) =>
            e.objectRef?.namespace === namespace &&
            e.objectRef.resource === "services" &&
            e.objectRef.subresource === "status",
        ),
      ).toEqual(new Set([sa("service-controller")]));
      expect(writers(cp.auditLog, (e) => e.objectRef?.resource === "leases" && e.objectRef.name === lease)).toEqual(
        new Set(["system:cloud-controller-manager"]),
      );
      await cloud.stop();
    },
    120_000,
  );
});
