/**
 * The manager with `--cloud-provider=aws` against the real kube-apiserver and moto, as the restricted
 * identity: nodes initialised from EC2, shutdown taint, deletion of terminated nodes, classic ELBs for
 * LoadBalancer Services, and pod-CIDR routes. Needs all four controllers in the build: skipped (with this
 * reason) until they are.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ec2 from "@aws-sdk/client-ec2";
import * as elb from "@aws-sdk/client-elastic-load-balancing";
import { controllerFactories } from "../../src/app/controllers.ts";
import { CONTROLLER_NAMES } from "../../src/names/controllers.ts";
import { EVENTS, NAMESPACES, NODES, SERVICES } from "../../src/kube/api.ts";
import type { Node, Service } from "../../src/kube/objects.ts";
import { isNotFound } from "../../src/kube/transport.ts";
import {
  FINALIZER_LB_CLEANUP,
  LABEL_EXCLUDE_FROM_EXTERNAL_LB,
  TAINT_SHUTDOWN,
  TAINT_UNINITIALIZED,
} from "../../src/kube/well-known.ts";
import { acmCertificate } from "../harness/aws-acm.ts";
import { awsTestCloud, type AwsTestCloud, type TestInstance } from "../harness/aws-cloud.ts";
import { startCcm, type CcmProcess, managerFlags } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, loadBalancerService, readyCondition, uniqueName } from "../harness/fixtures.ts";
import { eventually } from "../harness/wait.ts";
import type { KubeEvent } from "./nodes.ts";

// The first test of a run may install moto into the cache and start it; hooks default to 5 s.
setDefaultTimeout(180_000);

const factories = controllerFactories();
const missing = CONTROLLER_NAMES.filter((name) => factories[name] === undefined);
const controllersAvailable = missing.length === 0;
const title = "aws provider with the controllers (real kube-apiserver, moto)";

const lbName = (svc: Service): string => `a${(svc.metadata.uid ?? "").replaceAll("-", "")}`.slice(0, 32);

describe.skipIf(!controllersAvailable)(
  controllersAvailable ? title : `${title} (skipped: this build lacks ${missing.join(", ")})`,
  () => {
    let cloud: AwsTestCloud;
    let ccm: CcmProcess;
    const admin = async () => (await controlPlane()).admin;

    beforeAll(async () => {
      cloud = await awsTestCloud(uniqueName("it"));
      const cp = await controlPlane();
      const configFile = join(mkdtempSync(join(tmpdir(), "ccm-aws-")), "cloud.ini");
      writeFileSync(configFile, cloud.configText());
      ccm = startCcm({
        env: cloud.env(),
        args: [
          ...managerFlags(cp.kubeconfigs.ccm, "aws", configFile),
          "--cluster-cidr=10.244.0.0/16",
          "--node-monitor-period=1s",
          "--route-reconciliation-period=2s",
        ],
      });
      await ccm.waitForLine(/aws: region us-west-2, cluster tag/, 60_000);
    }, 300_000);

    afterAll(async () => {
      await ccm?.stop();
    });

    /** Registers the Node a kubelet on `instance` would (named by its private DNS name). */
    async function register(instance: TestInstance, o: { podCIDRs?: string[]; ready?: boolean } = {}): Promise<Node> {
      const api = await admin();
      const node = await api.create(
        NODES,
        kubeletNode(instance.privateDnsName, { nodeIP: instance.privateIp, podCIDRs: o.podCIDRs }),
      );
      await setReady(instance.privateDnsName, o.ready ?? true);
      return node;
    }

    async function setReady(name: string, ready: boolean): Promise<void> {
      const api = await admin();
      await api.patch(
        NODES,
        name,
        { status: { conditions: [readyCondition(ready)] } },
        { type: "strategic", subresource: "status" },
      );
    }

    async function initialised(name: string): Promise<Node> {
      const api = await admin();
      return eventually(
        `node ${name} initialised`,
        async () => {
          const node = await api.get<Node>(NODES, name);
          return node.spec?.providerID && !(node.spec.taints ?? []).some((t) => t.key === TAINT_UNINITIALIZED)
            ? node
            : undefined;
        },
        60_000,
      );
    }

    test("a node registered under its private DNS name is initialised from EC2", async () => {
      const instance = await cloud.launch({ zone: "us-west-2b", instanceType: "c5.large" });
      await register(instance);
      const node = await initialised(instance.privateDnsName);
      expect(node.spec?.providerID).toBe(`aws:///us-west-2b/${instance.id}`);
      expect(node.metadata.labels).toMatchObject({
        "node.kubernetes.io/instance-type": "c5.large",
        "topology.kubernetes.io/zone": "us-west-2b",
        "topology.kubernetes.io/region": "us-west-2",
        "topology.k8s.aws/zone-id": "usw2-az1",
      });
      const addresses = await eventually("addresses from EC2", async () => {
        const current = await (await admin()).get<Node>(NODES, instance.privateDnsName);
        const list = current.status?.addresses ?? [];
        return list.some((a) => a.type === "InternalDNS") ? list : undefined;
      });
      expect(addresses).toContainEqual({ type: "InternalIP", address: instance.privateIp });
      expect(addresses).toContainEqual({ type: "InternalDNS", address: instance.privateDnsName });
      expect(addresses).toContainEqual({ type: "Hostname", address: instance.privateDnsName });
    }, 120_000);

    test("a stopped instance's NotReady node gets the shutdown taint; a terminated one's node is deleted", async () => {
      const [stopped, terminated] = [await cloud.launch(), await cloud.launch()];
      await register(stopped);
      await register(terminated);
      await initialised(stopped.privateDnsName);
      await initialised(terminated.privateDnsName);
      await cloud.stop(stopped.id);
      await cloud.terminate(terminated.id);
      await setReady(stopped.privateDnsName, false);
      await setReady(terminated.privateDnsName, false);
      const api = await admin();
      await eventually(
        "shutdown taint",
        async () =>
          ((await api.get<Node>(NODES, stopped.privateDnsName)).spec?.taints ?? []).some(
            (t) => t.key === TAINT_SHUTDOWN,
          ),
        60_000,
      );
      await eventually(
        "terminated node deleted",
        () =>
          api.get(NODES, terminated.privateDnsName).then(
            () => false,
            (e: unknown) => isNotFound(e),
          ),
        60_000,
      );
      expect((await api.get<Node>(NODES, stopped.privateDnsName)).metadata.name).toBe(stopped.privateDnsName);
    }, 180_000);

    test("a LoadBalancer Service gets a classic ELB; excluded nodes leave it; deleting the Service removes ELB and security group", async () => {
      const api = await admin();
      const instances = [await cloud.launch(), await cloud.launch({ zone: "us-west-2b" })];
      for (const i of instances) await register(i);
      for (const i of instances) await initialised(i.privateDnsName);
      const namespace = uniqueName("aws-lb");
      await api.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
      const created = await api.create<Service>(
        SERVICES,
        loadBalancerService("web", namespace, {
          ports: [{ name: "http", protocol: "TCP", port: 80, targetPort: 8080 }],
        }),
        { namespace },
      );
      const name = lbName(created);
      const svc = await eventually(
        "ingress hostname",
        async () => {
          const current = await api.get<Service>(SERVICES, "web", { namespace });
          return current.status?.loadBalancer?.ingress?.[0]?.hostname ? current : undefined;
        },
        60_000,
      );
      expect(svc.metadata.finalizers).toContain(FINALIZER_LB_CLEANUP);
      const d = (await cloud.elb.send(new elb.DescribeLoadBalancersCommand({ LoadBalancerNames: [name] })))
        .LoadBalancerDescriptions![0]!;
      expect(svc.status?.loadBalancer?.ingress).toEqual([{ hostname: d.DNSName! }]);
      expect(
        d.ListenerDescriptions!.map((l) => `${l.Listener!.LoadBalancerPort}->${l.Listener!.InstancePort}`),
      ).toEqual([`80->${svc.spec!.ports![0]!.nodePort}`]);
      const registered = (d.Instances ?? []).map((i) => i.InstanceId);
      for (const i of instances) expect(registered).toContain(i.id);
      const groups = await cloud.ec2.send(
        new ec2.DescribeSecurityGroupsCommand({ Filters: [{ Name: "group-name", Values: [`k8s-elb-${name}`] }] }),
      );
      expect(d.SecurityGroups).toEqual([groups.SecurityGroups![0]!.GroupId!]);

      await api.patch(
        NODES,
        instances[0]!.privateDnsName,
        { metadata: { labels: { [LABEL_EXCLUDE_FROM_EXTERNAL_LB]: "true" } } },
        { type: "strategic" },
      );
      await eventually(
        "excluded instance deregistered",
        async () => {
          const now = (await cloud.elb.send(new elb.DescribeLoadBalancersCommand({ LoadBalancerNames: [name] })))
            .LoadBalancerDescriptions![0]!;
          return !(now.Instances ?? []).some((i) => i.InstanceId === instances[0]!.id);
        },
        60_000,
      );

      await api.delete(SERVICES, "web", { namespace });
      await eventually(
        "Service gone after its finalizer",
        () =>
          api.get(SERVICES, "web", { namespace }).then(
            () => false,
            (e: unknown) => isNotFound(e),
          ),
        60_000,
      );
      expect(
        (await cloud.elb
          .send(new elb.DescribeLoadBalancersCommand({ LoadBalancerNames: [name] }))
          .catch((e: Error) => e)) as Error,
      ).toHaveProperty("name", "AccessPointNotFoundException");
      const left = await cloud.ec2.send(
        new ec2.DescribeSecurityGroupsCommand({ Filters: [{ Name: "group-name", Values: [`k8s-elb-${name}`] }] }),
      );
      expect(left.SecurityGroups).toEqual([]);
    }, 240_000);

    test("an HTTPS ELB from an ACM certificate; a bad annotation value later is a Warning event and leaves the ELB as it was", async () => {
      const api = await admin();
      const instance = await cloud.launch();
      await register(instance);
      await initialised(instance.privateDnsName);
      const namespace = uniqueName("aws-tls");
      await api.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
      const cert = await acmCertificate(cloud.endpoint, "shop.example.com");
      const P = "service.beta.kubernetes.io/aws-load-balancer-";
      const service = loadBalancerService("shop", namespace, {
        ports: [{ name: "https", protocol: "TCP", port: 443, targetPort: 8443 }],
      });
      service.metadata.annotations = { [`${P}ssl-cert`]: cert, [`${P}backend-protocol`]: "http" };
      const created = await api.create<Service>(SERVICES, service, { namespace });
      const name = lbName(created);
      await eventually(
        "ingress hostname",
        async () =>
          (await api.get<Service>(SERVICES, "shop", { namespace })).status?.loadBalancer?.ingress?.[0]?.hostname,
        60_000,
      );
      const describe = async (): Promise<string[]> => {
        const d = (await cloud.elb.send(new elb.DescribeLoadBalancersCommand({ LoadBalancerNames: [name] })))
          .LoadBalancerDescriptions![0]!;
        return d.ListenerDescriptions!.map(
          ({ Listener: l }) => `${l!.Protocol}:${l!.LoadBalancerPort} ${l!.SSLCertificateId}`,
        );
      };
      expect(await describe()).toEqual([`HTTPS:443 ${cert}`]);
      await api.patch(
        SERVICES,
        "shop",
        { metadata: { annotations: { [`${P}proxy-protocol`]: "true" } } },
        { namespace, type: "strategic" },
      );
      const warning = await eventually(
        "Warning event naming the annotation",
        async () => {
          const events = (await api.list<KubeEvent>(EVENTS, { namespace, fieldSelector: "involvedObject.name=shop" }))
            .items;
          return events.find(
            (e) =>
              e.type === "Warning" && (e.message ?? "").includes(`annotation ${P}proxy-protocol: invalid value "true"`),
          );
        },
        60_000,
      );
      expect(warning.message).toContain(`the only supported value is "*"`);
      expect(await describe()).toEqual([`HTTPS:443 ${cert}`]);
      await api.delete(SERVICES, "shop", { namespace });
      await eventually(
        "Service gone after its finalizer",
        () =>
          api.get(SERVICES, "shop", { namespace }).then(
            () => false,
            (e: unknown) => isNotFound(e),
          ),
        60_000,
      );
    }, 240_000);

    test("pod CIDRs become routes to the nodes' instances in the cluster's route table", async () => {
      const instance = await cloud.launch();
      await register(instance, { podCIDRs: ["10.244.77.0/24"] });
      await initialised(instance.privateDnsName);
      const routes = await eventually(
        "route in the tagged table",
        async () => {
          const table = (
            await cloud.ec2.send(new ec2.DescribeRouteTablesCommand({ RouteTableIds: [cloud.routeTableId] }))
          ).RouteTables![0]!;
          const mine = (table.Routes ?? []).filter((r) => r.DestinationCidrBlock === "10.244.77.0/24");
          return mine.length > 0 ? mine : undefined;
        },
        60_000,
      );
      expect(routes.map((r) => r.InstanceId)).toEqual([instance.id]);
    }, 120_000);
  },
);
