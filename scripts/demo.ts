/**
 * The main job, end to end on this machine: build the executable, start a real kube-apiserver + etcd on
 * loopback, register nodes the way kubelet `--cloud-provider=external` does, run the manager with the
 * built-in fake cloud as its restricted identity and show the nodes initialised; then a LoadBalancer
 * Service served and the routes the fake cloud holds. With `--kubelet`, real kubelets v1.36 register the
 * nodes (one containerd; root and Debian's containerd, runc and CNI plugins needed); where they cannot
 * run, the demo says why and registers hand-written Nodes.
 *
 * With `--binary PATH`, that executable (a release's, say) instead of one built from these sources.
 *
 *   npm run demo [-- --kubelet] [-- --binary PATH]
 */
import { join, resolve } from "node:path";
import { existsSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { build } from "./build.ts";
import { startDemoKubelets, type DemoKubelets } from "./demo-kubelets.ts";
import { freshRunDir } from "./control-plane/run-dirs.ts";
import { startControlPlane, type ControlPlane } from "./control-plane/control-plane.ts";
import { NODES, SERVICES, type KubeApi } from "../src/kube/api.ts";
import type { Node, Service } from "../src/kube/objects.ts";
import { ANNOTATION_PROVIDED_NODE_IP } from "../src/kube/well-known.ts";
import { FakeCloud, parseFakeConfig } from "../providers/fake/index.ts";
import { serveFakeCloud } from "../providers/fake/server.ts";
import { kubeletNode, loadBalancerService } from "../test/harness/fixtures.ts";

const say = (line: string): void => console.log(`\n\x1b[1m▶ ${line}\x1b[0m`);

const NAMES = ["demo-node-1", "demo-node-2", "demo-node-3"];

/** The fake cloud's instances; `ip(n)` is node n's InternalIP, the one its kubelet is given as --node-ip. */
const cloudYaml = (ip: (n: number) => string): string => `
defaults: { instanceType: fake.medium, region: demo-region-1 }
instances:
  - { name: demo-node-1, zone: demo-zone-a, addresses: [{type: InternalIP, address: ${ip(1)}}, {type: ExternalIP, address: 198.51.100.11}] }
  - { name: demo-node-2, zone: demo-zone-b, addresses: [{type: InternalIP, address: ${ip(2)}}, {type: ExternalIP, address: 198.51.100.12}] }
  - { name: demo-node-3, zone: demo-zone-c, instanceType: fake.large, addresses: [{type: InternalIP, address: ${ip(3)}}] }
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

async function registerNodes(admin: KubeApi, kubelets: DemoKubelets | undefined): Promise<void> {
  if (kubelets) {
    say(`Starting a real kubelet per node: --cloud-provider=external --node-ip=${kubelets.nodeIP}, one containerd`);
    const nodes = await kubelets.register(NAMES);
    say("kubelet registered them: uninitialized taint, no providerID, the provided-node-ip annotation");
    console.log(nodeRows(nodes));
    for (const n of nodes)
      console.log(
        `${n.metadata.name}: ${ANNOTATION_PROVIDED_NODE_IP}=${n.metadata.annotations?.[ANNOTATION_PROVIDED_NODE_IP]}`,
      );
    console.log("Pod CIDRs 10.244.<n>.0/24 set by the demo, as kube-controller-manager's node-ipam controller would");
    return;
  }
  say("Registering three nodes as kubelet --cloud-provider=external does (uninitialized taint, no providerID)");
  for (const [i, name] of NAMES.entries()) {
    const node = kubeletNode(name, { nodeIP: `10.0.0.${11 + i}`, podCIDRs: [`10.244.${i}.0/24`] });
    await admin.create(NODES, node).catch(() => undefined);
  }
  console.log(nodeRows((await admin.list<Node>(NODES)).items.filter((n) => NAMES.includes(n.metadata.name))));
}

/** Real kubelets when `--kubelet` is given and this machine can run them; otherwise hand-written Nodes. */
async function kubeletsOrFallback(cp: ControlPlane, kubelet: boolean): Promise<DemoKubelets | undefined> {
  if (!kubelet) return undefined;
  say("Checking that this machine can run containerd and kubelet (the first run builds kubelet)");
  const kubelets = await startDemoKubelets(cp);
  if ("reason" in kubelets) {
    say(`Real kubelets cannot run here: ${kubelets.reason}. Registering hand-written Nodes instead`);
    return undefined;
  }
  return kubelets;
}

function startCloud(
  dir: string,
  nodeIP: string | undefined,
): { cloud: FakeCloud; configFile: string; stop(): Promise<void> } {
  const parsed = parseFakeConfig(cloudYaml((n) => nodeIP ?? `10.0.0.${10 + n}`));
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  const cloud = new FakeCloud(parsed.config);
  const server = serveFakeCloud(cloud);
  const configFile = join(dir, "fake-cloud.yaml");
  writeFileSync(configFile, `endpoint: http://127.0.0.1:${server.port}\n`);
  return { cloud, configFile, stop: () => server.stop(true) };
}

function startManager(binary: string, dir: string, cloudConfig: string, kubeconfig: string): () => Promise<void> {
  const args = [
    "--cloud-provider=fake",
    `--cloud-config=${cloudConfig}`,
    `--kubeconfig=${kubeconfig}`,
    "--cluster-cidr=10.244.0.0/16",
    "--secure-port=0",
    "--route-reconciliation-period=2s",
  ];
  say(`Running: cloud-controller-manager ${args.join(" ")}`);
  const ccm = Bun.spawn([binary, ...args], { stdout: "inherit", stderr: Bun.file(join(dir, "ccm.log")) });
  return async () => {
    ccm.kill("SIGTERM");
    console.log(`\ncloud-controller-manager exited with status ${await ccm.exited} (its log: ${join(dir, "ccm.log")})`);
  };
}

/** `--kubelet` and `--binary PATH`, read once (other arguments are ignored). */
function demoOptions(argv: string[]): { kubelet: boolean; binary?: string } {
  const { values } = parseArgs({
    args: argv,
    options: { kubelet: { type: "boolean" }, binary: { type: "string" } },
    strict: false,
  });
  const { kubelet, binary } = values;
  if (binary !== undefined && (typeof binary !== "string" || !existsSync(binary))) {
    const why =
      typeof binary === "string" && binary !== "" ? `no executable at ${binary}` : "needs the path of an executable";
    console.error(`error: --binary: ${why}`);
    process.exit(2);
  }
  return { kubelet: kubelet === true, binary };
}

/** The executable given, or one built from these sources. */
async function executable(given: string | undefined): Promise<string> {
  if (given) {
    say(`Using the executable ${given}`);
    return resolve(given);
  }
  say("Building the single executable");
  return await build();
}

async function main(): Promise<void> {
  const options = demoOptions(process.argv.slice(2));
  const binary = await executable(options.binary);
  say("Starting kube-apiserver and etcd on loopback (the first run builds them from the Go module proxy)");
  const dir = freshRunDir("demo");
  const cp = await startControlPlane({ dir, log: (l) => console.log(l) });
  console.log(`API server ${cp.server}; kubeconfigs and logs in ${dir}`);
  const stops: (() => Promise<void>)[] = [() => cp.stop()];
  try {
    const kubelets = await kubeletsOrFallback(cp, options.kubelet);
    if (kubelets) stops.unshift(() => kubelets.stop());
    const cloud = startCloud(dir, kubelets?.nodeIP);
    stops.unshift(cloud.stop);
    await registerNodes(cp.admin, kubelets);
    stops.unshift(startManager(binary, dir, cloud.configFile, cp.kubeconfigs.ccm));
    await demonstrate(cp.admin, cloud.cloud);
  } finally {
    for (const stop of stops) await stop();
  }
}

async function demonstrate(admin: KubeApi, cloud: FakeCloud): Promise<void> {
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
