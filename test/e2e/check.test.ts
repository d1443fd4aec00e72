/**
 * `check` from the compiled binary against the real control plane: the restricted identity bound with the
 * shipped RBAC passes; an identity bound to a copy of that RBAC missing one rule, a node registered
 * without the uninitialized taint and an unreachable cloud are each reported, with exit status 1.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyObjects } from "../../scripts/control-plane/admin.ts";
import { freePort } from "../../scripts/control-plane/ports.ts";
import { NAMESPACES, NODES } from "../../src/kube/api.ts";
import type { PolicyRule } from "../../src/kube/objects.ts";
import type { Manifest } from "../../src/kube/objects.ts";
import { rbacManifests } from "../../src/manifests/rbac.ts";
import { compiledBinary } from "../harness/binary.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { clientCertKubeconfig } from "../harness/kubeconfig.ts";
import { grantLease } from "../harness/rbac.ts";
import { expectNoNodeProblems } from "../harness/clean-nodes.ts";

interface Finding {
  check: string;
  status: string;
  detail: string;
}

async function check(args: string[]): Promise<{ status: number; stdout: string; stderr: string; findings: Finding[] }> {
  const proc = Bun.spawn([await compiledBinary(), "check", ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const status = await proc.exited;
  const findings =
    args.includes("--output=json") && status !== 2 ? (JSON.parse(stdout) as { findings: Finding[] }).findings : [];
  return { status, stdout, stderr, findings };
}

const failures = (findings: Finding[], name: string): string[] =>
  findings.filter((f) => f.check === name && f.status === "fail").map((f) => f.detail);

function cloudConfig(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "ccm-check-")), "cloud.conf");
  writeFileSync(path, text);
  return path;
}

const CIDR = "10.244.0.0/16";

/** A client-certificate user bound to a copy of the shipped RBAC, without one of its cluster rules. */
async function identityWithout(dropped: (rule: PolicyRule) => boolean, lease: string): Promise<string> {
  const cp = await controlPlane();
  const user = uniqueName("ccm-gap");
  const rename = (name: string): string => `${name}:${user}`;
  const copy = rbacManifests({ namespace: "kube-system", leaseName: lease })
    .filter((m) => m.kind !== "ServiceAccount")
    .map((m): Manifest => {
      const rules = m.rules as PolicyRule[] | undefined;
      const roleRef = m.roleRef as { name: string } | undefined;
      return {
        ...m,
        metadata: { ...m.metadata, name: rename(m.metadata.name) },
        ...(rules ? { rules: m.kind === "ClusterRole" ? rules.filter((r) => !dropped(r)) : rules } : {}),
        ...(roleRef
          ? {
              roleRef: { ...roleRef, name: rename(roleRef.name) },
              subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: user }],
            }
          : {}),
      };
    });
  await applyObjects(cp.admin, copy);
  const cert = cp.pki.issueClient(user, user);
  const kubeconfig = join(mkdtempSync(join(tmpdir(), "ccm-gap-")), "kubeconfig");
  return clientCertKubeconfig(kubeconfig, cp, { name: user, ...cert });
}

describe("check", () => {
  test("the restricted identity with the shipped RBAC passes (table, exit 0)", async () => {
    const cp = await controlPlane();
    const lease = uniqueName("check-ok");
    await grantLease(lease);
    await expectNoNodeProblems(CIDR);
    const result = await check([
      "--cloud-provider=fake",
      `--kubeconfig=${cp.kubeconfigs.ccm}`,
      `--cloud-config=${cloudConfig("autoInstances: true\n")}`,
      `--cluster-cidr=${CIDR}`,
      `--leader-elect-resource-name=${lease}`,
      "--use-service-account-credentials",
    ]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const rows = result.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^CHECK +STATUS +DETAIL$/);
    expect(rows.at(-1)).toBe("no problems found");
    const statusOf = (row: string): string => row.split(/\s+/)[1] ?? "";
    // Other tests share the API server: nodes of theirs still waiting for a manager are a note, never a failure.
    const notes = rows.slice(1, -2).filter((r) => statusOf(r) === "NOTE");
    expect(notes.every((r) => /carry the uninitialized taint and wait for this manager/.test(r))).toBe(true);
    expect(
      rows
        .slice(1, -2)
        .filter((r) => statusOf(r) !== "NOTE")
        .map((r) => `${r.split(/\s+/)[0]} ${statusOf(r)}`),
    ).toEqual([
      "api-server OK",
      "rbac OK",
      "rbac OK",
      "rbac OK",
      "rbac OK",
      "nodes OK",
      "cluster-cidr OK",
      "lease OK",
      "cloud OK",
    ]);
    expect(result.stdout).toContain("the kubeconfig authenticates as system:cloud-controller-manager");
    expect(result.stdout).toContain("ServiceAccount kube-system/node-controller: all 8 needed permission(s) granted");
  }, 60_000);

  test("reports a seeded RBAC gap and a node registered without the taint (exit 1)", async () => {
    const cp = await controlPlane();
    const lease = uniqueName("check-gap");
    const kubeconfig = await identityWithout((r) => r.resources?.includes("services/status") === true, lease);
    const bad = uniqueName("no-taint");
    const waiting = uniqueName("waiting");
    await cp.admin.create(NODES, kubeletNode(bad, { uninitialized: false }));
    await cp.admin.create(NODES, kubeletNode(waiting));
    try {
      const result = await check([
        "--cloud-provider=fake",
        `--kubeconfig=${kubeconfig}`,
        "--configure-cloud-routes=false",
        `--leader-elect-resource-name=${lease}`,
        "--output=json",
      ]);
      expect(result.status).toBe(1);
      const user = result.findings[0]?.detail.split(" authenticates as ")[1] ?? "";
      expect(user).toMatch(/^ccm-gap-/);
      expect(failures(result.findings, "rbac")).toEqual([
        `${user} may not patch services/status (needed by service-lb-controller)`,
      ]);
      const nodes = failures(result.findings, "nodes");
      expect(nodes).toHaveLength(1);
      expect(nodes[0]).toContain("registered without --cloud-provider=external");
      expect(nodes[0]).toContain(bad);
      expect(nodes[0]).not.toContain(waiting);
      expect(
        result.findings
          .filter((f) => f.status === "fail")
          .map((f) => f.check)
          .sort(),
      ).toEqual(["nodes", "rbac"]);

      const withoutServices = await check([
        "--cloud-provider=fake",
        `--kubeconfig=${kubeconfig}`,
        "--configure-cloud-routes=false",
        `--leader-elect-resource-name=${lease}`,
        "--controllers=*,-service",
        "--output=json",
      ]);
      expect(failures(withoutServices.findings, "rbac")).toEqual([]);
    } finally {
      await cp.admin.delete(NODES, bad);
      await cp.admin.delete(NODES, waiting);
    }
  }, 60_000);

  test("per-controller ServiceAccounts outside kube-system: missing until `manifests rbac` for that namespace is applied", async () => {
    const cp = await controlPlane();
    const namespace = uniqueName("ccm-sa");
    await cp.admin.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    const flags = [
      "--cloud-provider=fake",
      `--kubeconfig=${cp.kubeconfigs.ccm}`,
      "--configure-cloud-routes=false",
      `--leader-elect-resource-namespace=${namespace}`,
      "--use-service-account-credentials",
      "--output=json",
    ];
    const before = await check(flags);
    expect(before.status).toBe(1);
    const accounts = (findings: Finding[]): string[] => [
      ...new Set(failures(findings, "rbac").map((d) => d.split(" may not ")[0]!)),
    ];
    expect(accounts(before.findings)).toEqual([
      "system:cloud-controller-manager",
      ...["node-controller", "service-controller", "route-controller"].map((n) => `ServiceAccount ${namespace}/${n}`),
    ]);

    await applyObjects(cp.admin, rbacManifests({ namespace, leaseName: "cloud-controller-manager" }));
    const after = await check(flags);
    expect(failures(after.findings, "rbac")).toEqual([]);
    expect(after.status).toBe(0);
  }, 60_000);

  test("reports a cloud it cannot reach", async () => {
    const cp = await controlPlane();
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const result = await check([
      "--cloud-provider=fake",
      `--kubeconfig=${cp.kubeconfigs.ccm}`,
      `--cloud-config=${cloudConfig(`endpoint: ${endpoint}\n`)}`,
      "--configure-cloud-routes=false",
      "--leader-elect=false",
      "--output=json",
    ]);
    expect(result.status).toBe(1);
    expect(failures(result.findings, "cloud")).toEqual([
      expect.stringMatching(
        new RegExp(`^provider fake: the fake cloud at ${endpoint} did not answer a describe of zero instances: `),
      ) as unknown as string,
    ]);
  }, 60_000);

  test("bad flags: exit 2, one line naming the flag and value", async () => {
    const cases: [string[], string][] = [
      [
        ["--cloud-provider=fake", "--output=yaml"],
        'error: invalid value "yaml" for flag --output: must be one of table, json\n',
      ],
      [
        ["--cloud-provider=fake", "--kube-api-burst=lots"],
        'error: invalid value "lots" for flag --kube-api-burst: must be an integer\n',
      ],
      [
        ["--cloud-provider=fake", "--cloud-config=/nonexistent/cloud.conf"],
        "error: invalid value \"/nonexistent/cloud.conf\" for flag --cloud-config: cannot read it: ENOENT: no such file or directory, open '/nonexistent/cloud.conf'\n",
      ],
    ];
    for (const [args, stderr] of cases) {
      const result = await check(args);
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 2, stderr });
    }
  }, 60_000);

  test("what the manager refuses at start, check refuses in the same words: serving files, --cluster-cidr, review kubeconfigs", async () => {
    const cp = await controlPlane();
    const dir = mkdtempSync(join(tmpdir(), "check-serving-"));
    const notPem = join(dir, "tls.crt");
    writeFileSync(notPem, "not a certificate\n");
    const emptyKubeconfig = join(dir, "authn.conf");
    writeFileSync(emptyKubeconfig, "");
    const args = [
      "--cloud-provider=fake",
      `--kubeconfig=${cp.kubeconfigs.ccm}`,
      `--tls-cert-file=${notPem}`,
      `--tls-private-key-file=${join(dir, "missing.key")}`,
      `--authentication-kubeconfig=${emptyKubeconfig}`,
    ];
    const result = await check(args);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringContaining(
        "for flag --cluster-cidr: the node-route-controller needs the cluster's pod CIDR range(s)",
      ),
      `error: --tls-cert-file: ${JSON.stringify(notPem)} is not a PEM certificate`,
      `error: --tls-private-key-file: cannot read ${JSON.stringify(join(dir, "missing.key"))} (ENOENT)`,
      `error: invalid --authentication-kubeconfig ${JSON.stringify(emptyKubeconfig)}: no configuration has been provided: the file is empty`,
    ] as unknown as string[]);
    const manager = Bun.spawn([await compiledBinary(), ...args], { stdout: "pipe", stderr: "pipe" });
    const [, stderr] = await Promise.all([new Response(manager.stdout).text(), new Response(manager.stderr).text()]);
    expect(await manager.exited).toBe(2);
    expect(stderr).toBe(result.stderr);
  }, 60_000);
});
