/**
 * The main job, end to end on this machine: build the executable, start a real kube-apiserver + etcd on
 * loopback, run the manager with the built-in fake cloud as its restricted identity, register nodes the
 * way kubelet `--cloud-provider=external` does, and show them initialised; then a LoadBalancer Service
 * served and the routes the fake cloud holds.
 *
 *   npm run demo
 */
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { build } from "./build.ts";
import { freshRunDir } from "./control-plane/run-dirs.ts";
import { startControlPlane } from "./control-plane/control-plane.ts";
import { NODES, SERVICES, type KubeApi } from "../src/kube/api.ts";
import type { Node, Service } from "../src/kube/objects.ts";
import { FakeCloud, parseFakeConfig } from "../providers/fake/index.ts";
import { serveFakeCloud } from "../providers/fake/server.ts";
import { kubeletNode, loadBalancerService } from "../test/harness/fixtures.ts";

const say = (line: string): void => console.log(`\n\x1b[1m▶ ${line}\x1b[0m`);

const CLOUD = `
defaults: { instanceType: fake.medium, region: demo-region-1 }
instances:
  - { name: demo-node-1, zone: demo-zone-a, addresses: [{type: InternalIP, address: 10.0.0.11}, {type: ExternalIP, address: 198.51.100.11}] }
  - { name: demo-node-2, zone: demo-zone-b, addresses: [{type: InternalIP, address: 10.0.0.12}, {type: ExternalIP, address: 198.51.100.12}] }
  - { name: demo-node-3, zone: demo-zone-c, instanceType: fake.large, addresses: [{type: InternalIP, address: 10.0.0.13}] }
loadBalancers: { ipPool: [203.0.113.0/28] }
`;

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join("   ")).join("\n");
}

const or = (text: string | undefined): string => (text === undefined || text === "" ? "<none>" : text);

function nodeRow(n: Node): string[] {
  const labels = n.metadata.labels ?? {};
  return [
    n.metadata.name,
    or(n.spec?.providerID),
    or(labels["topology.kubernetes.io/zone"]),
    or(labels["node.kubernetes.io/instance-type"]),
    (n.status?.addresses ?? []).map((a) => `${a.type}=${a.address}`).join(","),
    or((n.spec?.taints ?? []).map((t) => t.key).join(",")),
  ];
}

function nodeRows(nodes: Node[]): string {
  const rows = nodes.map(nodeRow);
  return table([["NAME", "PROVIDER-ID", "ZONE", "INSTANCE-TYPE", "ADDRESSES", "TAINTS"], ...rows]);
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(250);
  }
}

async function registerNodes(api: KubeApi): Promise<Node[]> {
  const names = ["demo-node-1", "demo-node-2", "demo-node-3"];
  for (const [i, name] of names.entries()) {
    await api
      .create(NODES, kubeletNode(name, { nodeIP: `10.0.0.${11 + i}`, podCIDRs: [`10.244.${i}.0/24`] }))
      .catch(() => undefined);
  }
  return (await api.list<Node>(NODES)).items.filter((n) => names.includes(n.metadata.name));
}

async function main(): Promise<void> {
  say("Building the single executable");
  const binary = await build();
  say("Starting kube-apiserver and etcd on loopback (the first run builds them from the Go module proxy)");
  const dir = freshRunDir("demo");
  const cp = await startControlPlane({ dir, log: (l) => console.log(l) });
  console.log(`API server ${cp.server}; kubeconfigs and logs in ${dir}`);
  const parsed = parseFakeConfig(CLOUD);
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  const cloud = new FakeCloud(parsed.config);
  const server = serveFakeCloud(cloud);
  const cloudConfig = join(dir, "fake-cloud.yaml");
  writeFileSync(cloudConfig, `endpoint: http://127.0.0.1:${server.port}\n`);
  const args = [
    "--cloud-provider=fake",
    `--cloud-config=${cloudConfig}`,
    `--kubeconfig=${cp.kubeconfigs.ccm}`,
    "--cluster-cidr=10.244.0.0/16",
    "--secure-port=0",
    "--route-reconciliation-period=2s",
  ];
  say(`Running: cloud-controller-manager ${args.join(" ")}`);
  const ccm = Bun.spawn([binary, ...args], { stdout: "inherit", stderr: Bun.file(join(dir, "ccm.log")) });
  try {
    await demonstrate(cp.admin, cloud);
  } finally {
    ccm.kill("SIGTERM");
    console.log(`\ncloud-controller-manager exited with status ${await ccm.exited} (its log: ${join(dir, "ccm.log")})`);
    await server.stop(true);
    await cp.stop();
  }
}

async function demonstrate(admin: KubeApi, cloud: FakeCloud): Promise<void> {
  say("Registering three nodes as kubelet --cloud-provider=external does (uninitialized taint, no providerID)");
  console.log(nodeRows(await registerNodes(admin)));
  const initialised = await until("nodes to be initialised", async () => {
    const nodes = (await admin.list<Node>(NODES)).items.filter((n) => n.metadata.name.startsWith("demo-node-"));
    return nodes.length === 3 && nodes.every((n) => n.spec?.providerID && !(n.spec.taints ?? []).length)
      ? nodes
      : undefined;
  });
  say(
    "The cloud-node-controller initialised them: providerID, zone / instance-type labels, cloud addresses, taint removed",
  );
  console.log(nodeRows(initialised));
  say("Creating a LoadBalancer Service");
  await admin.create(SERVICES, loadBalancerService("demo-web", "default")).catch(() => undefined);
  const svc = await until("an external IP", async () => {
    const s = await admin.get<Service>(SERVICES, "demo-web", { namespace: "default" });
    return s.status?.loadBalancer?.ingress?.length ? s : undefined;
  });
  const ingress = (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname).join(",");
  console.log(
    table([
      ["SERVICE", "TYPE", "EXTERNAL-IP", "PORTS", "FINALIZERS"],
      ["default/demo-web", "LoadBalancer", ingress, "80/TCP", (svc.metadata.finalizers ?? []).join(",")],
    ]),
  );
  const routes = await until("a route per node", async () => (cloud.routes().length >= 3 ? cloud.routes() : undefined));
  say("Routes the node-route-controller created in the fake cloud for the nodes' pod CIDRs");
  console.log(
    table([
      ["ROUTE", "DESTINATION", "TARGET-NODE", "BLACKHOLE"],
      ...routes.map((r) => [r.name, r.destinationCIDR, r.targetNode, String(r.blackhole)]),
    ]),
  );
}

if (import.meta.main) await main();
