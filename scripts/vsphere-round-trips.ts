/**
 * vCenter round trips per node initialisation, measured against vcsim: a fresh simulator with `--vms`
 * VMs (guest info set, zone and region tags on the cluster and datacenter), every VM's node looked up
 * in batches of the provider's batch size, as the node controller does when they all join at once; then
 * the same nodes once more (warm session and caches, as the lifecycle controller's periodic pass).
 *
 *   bun scripts/vsphere-round-trips.ts [--vms 1000] [--clusters 4]
 */
import { parseArgs } from "node:util";
import type { InstancesBatch } from "../src/cloud/provider.ts";
import { nodeOf, vcsimProvider } from "../providers/vsphere/fixtures.test-support.ts";
import { startVcsim, type Vcsim } from "../test/harness/vcsim.ts";

const { values } = parseArgs({
  options: { vms: { type: "string", default: "1000" }, clusters: { type: "string", default: "4" } },
});
const clusters = Number(values.clusters);
const perCluster = Math.ceil(Number(values.vms) / clusters);

async function pass(sim: Vcsim, batch: InstancesBatch, what: "metadata" | "state"): Promise<string> {
  await sim.resetCalls();
  const nodes = sim.vms.map((vm) => nodeOf(vm));
  const started = performance.now();
  let failed = 0;
  for (let i = 0; i < nodes.length; i += batch.maxBatchSize) {
    const chunk = nodes.slice(i, i + batch.maxBatchSize);
    const answers =
      what === "metadata" ? await batch.instanceMetadataBatch(chunk) : await batch.instanceStateBatch(chunk);
    failed += answers.filter((a) => "error" in a).length;
  }
  const calls = await sim.calls();
  const total = Object.values(calls).reduce((a, b) => a + b, 0);
  const ms = performance.now() - started;
  const perNode = (total / nodes.length).toFixed(3);
  return `${what}: ${nodes.length} nodes, ${failed} failed, ${total} round trips (${perNode} per node), ${ms.toFixed(0)} ms\n  ${JSON.stringify(calls)}`;
}

const sim = await startVcsim({ clusters, hosts: 4, vms: perCluster });
try {
  const first = sim.vms[0];
  if (!first) throw new Error("vcsim has no VMs");
  for (const cluster of new Set(sim.vms.map((vm) => vm.cluster))) {
    await sim.tag({ type: "ClusterComputeResource", id: cluster }, "k8s-zone", `zone-${cluster}`);
  }
  await sim.tag({ type: "Datacenter", id: first.datacenter }, "k8s-region", "region-1");
  const provider = vcsimProvider(sim, "labels: { zone: k8s-zone, region: k8s-region }");
  const batch = provider.instances?.batch as InstancesBatch;
  console.log(`vcsim: ${sim.vms.length} VMs in ${clusters} cluster(s); batch size ${batch.maxBatchSize}`);
  console.log(await pass(sim, batch, "metadata"));
  console.log(await pass(sim, batch, "metadata"));
  console.log(await pass(sim, batch, "state"));
  await provider.close?.();
} finally {
  await sim.stop();
}
