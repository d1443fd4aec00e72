/**
 * The vSphere provider against vcsim, driven directly: zones from tags (nearest wins), power state, a
 * destroyed VM, an unreachable vCenter, an expired session, a refused login, and the round trips a batch
 * of node initialisations costs (counted by the simulator's front, per SOAP method and REST path).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import type { CloudProvider, InstanceMetadata, InstancesBatch, InstancesV2 } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import { issueCertificate } from "../../src/pki/x509.ts";
import { testProviderContext, type RecordedCall } from "../../test/harness/provider-context.ts";
import type { Vcsim, VcsimVm } from "../../test/harness/vcsim.ts";
import { vsphereProviderFactory } from "./index.ts";
import { nodeOf, providerOfConfig, vcsimConfigText, vcsimProvider, vcsimSession } from "./fixtures.test-support.ts";

const LABELS = "labels:\n  zone: k8s-zone\n  region: k8s-region";
const sum = (calls: Record<string, number>): number => Object.values(calls).reduce((a, b) => a + b, 0);

describe("vsphere provider against vcsim", () => {
  let sim: Vcsim;
  let provider: CloudProvider;
  let instances: InstancesV2;
  let batch: InstancesBatch;
  const calls: RecordedCall[] = [];

  // With both categories configured a node without a tag of each is an error (upstream's), so every VM
  // gets a zone from its cluster and a region from its datacenter.
  const session = vcsimSession({
    inventory: { hosts: 3, vms: 60 },
    extra: LABELS,
    calls,
    options: { timeoutMs: 3000 },
    async prepare(sim) {
      const vm = sim.vms[0] as VcsimVm;
      await sim.tag({ type: "ClusterComputeResource", id: vm.cluster }, "k8s-zone", "zone-cluster");
      await sim.tag({ type: "Datacenter", id: vm.datacenter }, "k8s-region", "region-1");
    },
  });
  beforeAll(() => {
    ({ sim, provider, instances } = session);
    batch = instances.batch as InstancesBatch;
  });

  test("50 nodes initialised in one batch: a few round trips, upstream's providerID, type and addresses", async () => {
    const vms = sim.vms.slice(0, 50);
    await sim.resetCalls();
    const answers = await batch.instanceMetadataBatch(vms.map((vm) => nodeOf(vm)));
    const served = await sim.calls();
    expect(answers.every((a) => "value" in a)).toBe(true);
    const first = answers[0] as { value: InstanceMetadata };
    expect(first.value.providerID).toBe(`vsphere://${vms[0]?.uuid}`);
    expect(first.value.instanceType).toBe(
      `vsphere-vm.cpu-${vms[0]?.numCpu}.mem-${(vms[0]?.memoryMB ?? 0) / 1024}gb.os-ubuntu`,
    );
    expect(first.value.nodeAddresses).toContainEqual({ type: "InternalIP", address: vms[0]?.ip ?? "" });
    // Login (2), datacenters, the VM scan, details, ancestry, REST login and the tag call, plus the names of
    // the two tags and their two categories (cached from then on): none per node.
    console.log(`[figures] 50 nodes initialised with ${sum(served)} vCenter round trips: ${JSON.stringify(served)}`);
    expect(sum(served)).toBeLessThanOrEqual(12);

    await sim.resetCalls();
    await batch.instanceMetadataBatch(sim.vms.slice(50, 60).map((vm) => nodeOf(vm)));
    const warm = await sim.calls();
    console.log(`[figures] next 10 nodes, warm session and caches: ${sum(warm)} round trips: ${JSON.stringify(warm)}`);
    expect(sum(warm)).toBeLessThanOrEqual(3);
  });

  test("CAPV's guestinfo.metadata: its static address comes before the one Tools lists first; unreadable, ignored", async () => {
    const [capv, broken] = [sim.vms[58] as VcsimVm, sim.vms[59] as VcsimVm];
    const metadata = `instance-id: "${capv.name}"\nnetwork:\n  version: 2\n  ethernets:\n    id0:\n      addresses: [${capv.externalIp}/24]\n`;
    await sim.setExtraConfig(capv.uuid, "guestinfo.metadata", Buffer.from(metadata).toString("base64"));
    await sim.setExtraConfig(capv.uuid, "guestinfo.metadata.encoding", "base64");
    await sim.setExtraConfig(broken.uuid, "guestinfo.metadata", "not*base64");
    await sim.setExtraConfig(broken.uuid, "guestinfo.metadata.encoding", "gzip+base64");
    const answers = await batch.instanceMetadataBatch([nodeOf(capv), nodeOf(broken)]);
    const addresses = answers.map((a) => ("value" in a ? a.value?.nodeAddresses : a.error.message));
    expect(addresses).toEqual([
      [
        { type: "Hostname", address: capv.hostName },
        { type: "InternalIP", address: capv.externalIp },
        { type: "ExternalIP", address: capv.externalIp },
      ],
      [
        { type: "Hostname", address: broken.hostName },
        { type: "InternalIP", address: broken.ip },
        { type: "ExternalIP", address: broken.ip },
      ],
    ]);
  });

  test("zone and region from tags: the nearest tag wins (host over cluster), region from the datacenter", async () => {
    const [a, b] = [sim.vms[0], sim.vms.find((vm) => vm.host !== sim.vms[0]?.host)];
    if (!a || !b) throw new Error("vcsim placed every VM on one host");
    await sim.tag({ type: "HostSystem", id: a.host }, "k8s-zone", "zone-host");
    const [ma, mb] = await Promise.all([instances.instanceMetadata(nodeOf(a)), instances.instanceMetadata(nodeOf(b))]);
    expect([ma?.zone, ma?.region]).toEqual(["zone-host", "region-1"]);
    expect([mb?.zone, mb?.region]).toEqual(["zone-cluster", "region-1"]);
  });

  test("a node without system UUID is found by its name (the guest host name), then by its address", async () => {
    const vm = sim.vms[1];
    if (!vm) throw new Error("no VM");
    const byName: Node = { apiVersion: "v1", kind: "Node", metadata: { name: vm.hostName }, spec: {} };
    expect((await instances.instanceMetadata(byName))?.providerID).toBe(`vsphere://${vm.uuid}`);
    const byIp: Node = {
      ...byName,
      metadata: { name: "renamed" },
      status: { addresses: [{ type: "InternalIP", address: vm.ip }] },
    };
    expect((await instances.instanceMetadata(byIp))?.providerID).toBe(`vsphere://${vm.uuid}`);
  });

  test("power off: exists and shut down; destroyed: does not exist by providerID, an error without one", async () => {
    const [off, gone] = [sim.vms[2], sim.vms[3]];
    if (!off || !gone) throw new Error("no VM");
    await sim.powerOff(off.uuid);
    await sim.destroy(gone.uuid);
    const withId: Node = { ...nodeOf(gone), spec: { providerID: `vsphere://${gone.uuid}` } };
    expect(await batch.instanceStateBatch([nodeOf(off), withId])).toEqual([
      { value: { exists: true, shutdown: true } },
      { value: { exists: false } },
    ]);
    expect(await instances.instanceExists(withId)).toBe(false);
    await expect(instances.instanceMetadata(withId)).rejects.toBeInstanceOf(InstanceNotFoundError);
    // Without a providerID no VM answers to the node's UUID, name or address: upstream's error, so the
    // lifecycle controller keeps the Node (a VM renamed or readdressed is not a VM gone).
    await expect(instances.instanceExists(nodeOf(gone))).rejects.toThrow("without a providerID");
    await expect(instances.instanceMetadata(nodeOf(gone))).rejects.not.toBeInstanceOf(InstanceNotFoundError);
  });

  test("a configured datacenter vCenter lacks: nodes of the others initialise; a VM not found is an error, not gone", async () => {
    const [vm, gone] = [sim.vms[7], sim.vms[8]];
    if (!vm || !gone) throw new Error("no VM");
    await sim.destroy(gone.uuid);
    const partial = providerOfConfig(
      vcsimConfigText(sim).replace("datacenters: [DC0]", "datacenters: [dc-gone, /DC0]"),
    );
    try {
      const metadata = await partial.instances?.instanceMetadata(nodeOf(vm));
      expect(metadata?.providerID).toBe(`vsphere://${vm.uuid}`);
      const withId: Node = { ...nodeOf(gone), spec: { providerID: `vsphere://${gone.uuid}` } };
      await expect(partial.instances?.instanceExists(withId)).rejects.toThrow("datacenter(s) dc-gone not found");
      await expect(partial.instances?.instanceMetadata(withId)).rejects.not.toBeInstanceOf(InstanceNotFoundError);
      expect((await partial.preflight?.(AbortSignal.timeout(5000)))?.join("\n")).toContain("no datacenter dc-gone");
    } finally {
      await partial.close?.();
    }
  });

  test("SKIP_NODE_DELETION set (even empty): a VM gone is an error, never 'does not exist'; said at start", async () => {
    const gone = sim.vms[9];
    if (!gone) throw new Error("no VM");
    await sim.destroy(gone.uuid);
    const lines: string[] = [];
    const keeping = providerOfConfig(vcsimConfigText(sim), [], { environment: { SKIP_NODE_DELETION: "" } }, lines);
    try {
      expect(lines.join("\n")).toContain("node deletion is off");
      const withId: Node = { ...nodeOf(gone), spec: { providerID: `vsphere://${gone.uuid}` } };
      await expect(keeping.instances?.instanceExists(withId)).rejects.toThrow("SKIP_NODE_DELETION is set");
      const [state] = (await keeping.instances?.batch?.instanceStateBatch([withId])) ?? [];
      expect(state && "error" in state).toBe(true);
      expect(await instances.instanceExists(withId)).toBe(false);
    } finally {
      await keeping.close?.();
    }
  });

  test("the registered factory hands the manager's environment (the provider context's) to the provider", async () => {
    const parsed = vsphereProviderFactory.parseConfig(vcsimConfigText(sim), "vsphere.conf");
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const lines: string[] = [];
    const context = testProviderContext([], lines, { SKIP_NODE_DELETION: "1" });
    const made = await vsphereProviderFactory.create(parsed.config, context);
    await made.close?.();
    expect(lines.join("\n")).toContain("node deletion is off");
  });

  test("thumbprint pins the vCenter's certificate without a CA file, any case; another thumbprint is refused", async () => {
    const vm = sim.vms[5];
    if (!vm) throw new Error("no VM");
    const sha1 = new X509Certificate(readFileSync(sim.caFile)).fingerprint;
    const pinnedTo = (thumbprint: string): CloudProvider =>
      providerOfConfig(vcsimConfigText(sim).replace(`caFile: ${sim.caFile}`, `thumbprint: "${thumbprint}"`));
    const [right, wrong] = [
      pinnedTo(sha1.toLowerCase()),
      pinnedTo(sha1.replace(/^../, sha1.startsWith("00") ? "11" : "00")),
    ];
    try {
      expect((await right.instances?.instanceMetadata(nodeOf(vm)))?.providerID).toBe(`vsphere://${vm.uuid}`);
      await expect(wrong.instances?.instanceMetadata(nodeOf(vm))).rejects.toThrow(`thumbprint ${sha1}, not`);
    } finally {
      await Promise.all([right.close?.(), wrong.close?.()]);
    }
  });

  test("thumbprint with a caFile: that CA must have signed the certificate too; SHA-256 pins as SHA-1 does", async () => {
    const vm = sim.vms[5];
    if (!vm) throw new Error("no VM");
    const { fingerprint, fingerprint256 } = new X509Certificate(readFileSync(sim.caFile));
    const dir = mkdtempSync(join(tmpdir(), "vsphere-ca-"));
    const otherCa = join(dir, "other-ca.pem");
    writeFileSync(otherCa, issueCertificate({ subject: { commonName: "other" }, isCA: true }).certPem);
    const other = fingerprint.replace(/^../, fingerprint.startsWith("00") ? "11" : "00");
    const tls = (caFile: string | undefined, pin: string): string =>
      vcsimConfigText(sim).replace(
        `caFile: ${sim.caFile}`,
        `${caFile ? `caFile: ${caFile}\n  ` : ""}thumbprint: "${pin}"`,
      );
    const made = [
      tls(sim.caFile, fingerprint256),
      tls(undefined, fingerprint256.toLowerCase()),
      tls(sim.caFile, other),
      tls(otherCa, fingerprint),
    ].map((text) => providerOfConfig(text));
    const metadata = (p: CloudProvider | undefined): Promise<InstanceMetadata | undefined> =>
      p?.instances?.instanceMetadata(nodeOf(vm)) ?? Promise.reject(new Error("no instances"));
    try {
      const [withCa, pinOnly, wrongPin, otherSigner] = made;
      for (const right of [withCa, pinOnly]) expect((await metadata(right))?.providerID).toBe(`vsphere://${vm.uuid}`);
      await expect(metadata(wrongPin)).rejects.toThrow(`SHA-1 thumbprint ${fingerprint}, not`);
      await expect(metadata(otherSigner)).rejects.toThrow();
    } finally {
      await Promise.all(made.map((p) => p.close?.()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("vCenter unreachable: every answer is an error, never 'does not exist'", async () => {
    const vm = sim.vms[4];
    if (!vm) throw new Error("no VM");
    await sim.setDown(true);
    try {
      await expect(instances.instanceExists(nodeOf(vm))).rejects.toThrow();
      await expect(batch.instanceStateBatch([nodeOf(vm)])).rejects.toThrow();
      await expect(instances.instanceMetadata(nodeOf(vm))).rejects.not.toBeInstanceOf(InstanceNotFoundError);
    } finally {
      await sim.setDown(false);
    }
    expect(await instances.instanceExists(nodeOf(vm))).toBe(true);
  });

  test("sessions expired mid-run (SOAP and REST) are logged in again once each, and the calls succeed", async () => {
    const vm = sim.vms[5];
    if (!vm) throw new Error("no VM");
    await sim.resetCalls();
    await sim.expireSessions();
    expect(await instances.instanceShutdown(nodeOf(vm))).toBe(false);
    expect((await sim.calls())["soap Login"]).toBe(1);
    expect((await instances.instanceMetadata(nodeOf(vm)))?.providerID).toBe(`vsphere://${vm.uuid}`);
    const served = await sim.calls();
    expect([served["soap Login"], served["POST /rest/com/vmware/cis/session"]]).toEqual([1, 1]);
    expect(served["POST /rest/com/vmware/cis/tagging/tag-association"]).toBe(2);
  });

  test("a long answer comes in pages (maxObjects), continued with the token until the last", async () => {
    const paged = vcsimProvider(sim, "", [], { pageSize: 7 });
    try {
      await sim.resetCalls();
      const vms = sim.vms.slice(10, 30);
      const answers = await paged.instances!.batch!.instanceMetadataBatch(vms.map((vm) => nodeOf(vm)));
      expect(answers.map((a) => ("value" in a ? a.value?.providerID : a.error.message))).toEqual(
        vms.map((vm) => `vsphere://${vm.uuid}`),
      );
      expect((await sim.calls())["soap ContinueRetrievePropertiesEx"]).toBeGreaterThanOrEqual(8);
    } finally {
      await paged.close?.();
    }
  });

  test("a refused login is an error (the provider's check reports it), never an answer", async () => {
    const wrong = vcsimProvider({ ...sim, password: "wrong" }, "");
    try {
      await expect(wrong.instances!.instanceExists(nodeOf(sim.vms[6]!))).rejects.toThrow(/InvalidLogin/);
      expect((await wrong.preflight!(AbortSignal.timeout(5000))).join("\n")).toContain("InvalidLogin");
      expect(await provider.preflight!(AbortSignal.timeout(5000))).toEqual([]);
    } finally {
      await wrong.close?.();
    }
  });
});
