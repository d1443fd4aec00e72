/**
 * Every Kubernetes object `manifests` generates passes a server-side dry run (validation and admission,
 * nothing stored) against the real kube-apiserver, for the defaults and for the options that change
 * their shape; and the RBAC the test control plane bound is exactly what `manifests rbac` prints.
 */
import { createRegistry } from "../../src/cloud/registry.ts";
import { providerFactories } from "../../src/builtins.ts";
import { describe, expect, test } from "bun:test";
import { applyObjects, resourceFor } from "../../scripts/control-plane/admin.ts";
import { NAMESPACES } from "../../src/kube/api.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import { KubeApiError } from "../../src/kube/transport.ts";
import { splitArgs } from "../../src/cli/command-args.ts";
import { packageOptions, PACKAGE_FLAG_LIST } from "../../src/cli/package-options.ts";
import { render } from "../../src/manifests/catalog.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { uniqueName } from "../harness/fixtures.ts";

function generate(argv: string[]): KubeObject[] {
  const result = packageOptions(splitArgs(argv, PACKAGE_FLAG_LIST), createRegistry(providerFactories()));
  if (!result.ok) throw new Error(result.errors.join("\n"));
  return [Bun.YAML.parse(render(result.kind, result.options)) as KubeObject | KubeObject[]].flat();
}

const BASE = ["--cloud-provider=fake", "--cloud-config=/etc/kubernetes/cloud.conf", "--cluster-cidr=10.244.0.0/16"];

async function dryRun(objects: KubeObject[]): Promise<void> {
  const cp = await controlPlane();
  await applyObjects(cp.admin, objects, { dryRun: true });
}

describe("server-side dry run of generated manifests", () => {
  const variants: { name: string; argv: string[] }[] = [
    { name: "defaults", argv: [] },
    {
      name: "image, own binary path, certificate files, two SNI pairs, cert dir, another port",
      argv: [
        "--image=registry.local/ccm:v0.1.0",
        "--binary=/ccm",
        "--tls-cert-file=/etc/ccm/tls.crt",
        "--tls-private-key-file=/etc/ccm/tls.key",
        "--cert-dir=/var/lib/ccm",
        "--secure-port=10300",
        "--tls-sni-cert-key=/etc/ccm/a.crt,/etc/ccm/a.key",
        "--tls-sni-cert-key=/etc/ccm/b.crt,/etc/ccm/b.key:b.example.com",
      ],
    },
    {
      name: "per-controller credentials, one file for three kubeconfig flags, a bind address",
      argv: [
        "--use-service-account-credentials",
        "--bind-address=127.0.0.1",
        "--authentication-kubeconfig=/etc/kubernetes/ccm.conf",
        "--authorization-kubeconfig=/etc/kubernetes/ccm.conf",
      ],
    },
  ];
  for (const kind of ["static-pod", "daemonset", "deployment", "rbac"]) {
    for (const v of variants) {
      test(`${kind}: ${v.name}`, async () => {
        const hostOnly = v.argv.filter((a) => !(kind !== "static-pod" && /kubeconfig/.test(a)));
        const objects = generate([kind, ...BASE, ...hostOnly]);
        expect(objects.length).toBeGreaterThan(0);
        await dryRun(objects);
      }, 30_000);
    }
  }

  test("static-pod: a port below 1024 (root with NET_BIND_SERVICE; in-cluster kinds refuse it)", async () => {
    await dryRun(generate(["static-pod", ...BASE, "--secure-port=443"]));
  }, 30_000);

  test("another Lease namespace: its ServiceAccount, Role, workloads and the per-controller bindings", async () => {
    const cp = await controlPlane();
    const namespace = uniqueName("ccm-ns");
    const flags = [
      ...BASE,
      `--leader-elect-resource-namespace=${namespace}`,
      "--leader-elect-resource-name=my-lease",
      "--use-service-account-credentials",
    ];
    // Each file that puts objects there makes the namespace first (made for real: a dry run keeps nothing).
    const [created, ...rbac] = generate(["rbac", ...flags]);
    for (const kind of ["daemonset", "deployment"]) expect(generate([kind, ...flags])[0]).toEqual(created);
    expect(created!.kind).toBe("Namespace");
    await cp.admin.create(NAMESPACES, created!);
    expect(rbac.filter((o) => o.kind === "ClusterRoleBinding").map((o) => o.metadata.name)).toEqual([
      "system:cloud-controller-manager",
      ...["node-controller", "service-controller", "route-controller"].map(
        (n) => `system:cloud-controller-manager:${namespace}:${n}`,
      ),
    ]);
    await dryRun([
      ...rbac,
      ...generate(["static-pod", ...flags]),
      ...generate(["daemonset", ...flags]).slice(1),
      ...generate(["deployment", ...flags]).slice(1),
    ]);
  }, 30_000);

  test("the dry run does reject what the API server would (a broken selector)", async () => {
    const [sa, daemonSet] = generate(["daemonset", ...BASE]) as [
      KubeObject,
      KubeObject & { spec: { selector: { matchLabels: Record<string, string> } } },
    ];
    daemonSet.spec.selector.matchLabels = { app: "something-else" };
    const error = await dryRun([sa, daemonSet]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).reason).toBe("Invalid");
  }, 30_000);
});

describe("shipped RBAC is tested RBAC", () => {
  test("the objects the test control plane bound equal `manifests rbac`", async () => {
    const cp = await controlPlane();
    for (const object of generate(["rbac"])) {
      const stored = await cp.admin.get<KubeObject & Record<string, unknown>>(
        resourceFor(object.kind ?? ""),
        object.metadata.name,
        { namespace: object.metadata.namespace },
      );
      const shape = (o: Record<string, unknown>) => ({
        rules: o.rules,
        roleRef: o.roleRef,
        subjects: o.subjects,
        labels: (o.metadata as { labels?: unknown }).labels,
      });
      expect(shape(stored)).toEqual(shape(object as unknown as Record<string, unknown>));
    }
  }, 30_000);
});
