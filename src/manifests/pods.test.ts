import { describe, expect, test } from "bun:test";
import { createRegistry } from "../cloud/registry.ts";
import { splitArgs } from "../cli/command-args.ts";
import { packageOptions, PACKAGE_FLAG_LIST } from "../cli/package-options.ts";
import type { HostFile, PackageOptions } from "./options.ts";
import { daemonSet, deployment, staticPod } from "./pods.ts";
import type { Manifest } from "../kube/objects.ts";

const PROVIDERS = createRegistry([
  {
    name: "fake",
    parseConfig: () => ({ ok: true as const, config: undefined as never }),
    create: () => Promise.reject(new Error("not built in these tests")),
  },
]);

type Obj = Record<string, unknown>;
interface Pod {
  readonly volumes: Obj[];
  readonly mounts: Obj[];
}

function options(argv: readonly string[], indirectFiles: readonly HostFile[] = []): PackageOptions {
  const all = [...argv, "--cloud-provider=fake", "--cluster-cidr=10.244.0.0/16"];
  const result = packageOptions(splitArgs(all, PACKAGE_FLAG_LIST), PROVIDERS);
  if (!result.ok) throw new Error(result.errors.join("\n"));
  return { ...result.options, indirectFiles };
}

function pod(objects: readonly Manifest[]): Pod {
  const workload = objects.at(-1) as unknown as { spec: Obj };
  const spec = ((workload.spec.template as Obj | undefined)?.spec ?? workload.spec) as Obj;
  const [container] = spec.containers as Obj[];
  return { volumes: spec.volumes as Obj[], mounts: container!.volumeMounts as Obj[] };
}

const render = {
  "static-pod": (o: PackageOptions) => pod([staticPod(o)]),
  daemonset: (o: PackageOptions) => pod(daemonSet(o)),
  deployment: (o: PackageOptions) => pod(deployment(o)),
} as const;

describe("--cert-dir", () => {
  const cases: { kind: keyof typeof render; volume: Obj; mount: Obj }[] = [
    {
      kind: "static-pod",
      volume: { name: "cert-dir", hostPath: { path: "/var/lib/ccm", type: "DirectoryOrCreate" } },
      mount: { name: "cert-dir", mountPath: "/var/lib/ccm", readOnly: false },
    },
    // A folder kubelet makes is root's 0755; the pod's non-root user could not write its pair there.
    {
      kind: "daemonset",
      volume: { name: "cert-dir", emptyDir: {} },
      mount: { name: "cert-dir", mountPath: "/var/lib/ccm" },
    },
    {
      kind: "deployment",
      volume: { name: "cert-dir", emptyDir: {} },
      mount: { name: "cert-dir", mountPath: "/var/lib/ccm" },
    },
  ];
  for (const c of cases) {
    test(`${c.kind}: ${Object.keys(c.volume).at(-1)}`, () => {
      const argv = [c.kind, "--cert-dir=/var/lib/ccm", ...(c.kind === "static-pod" ? ["--kubeconfig=/k"] : [])];
      const p = render[c.kind](options(argv));
      expect(p.volumes.find((v) => v.name === "cert-dir")).toEqual(c.volume);
      expect(p.mounts.find((m) => m.name === "cert-dir")).toEqual(c.mount);
    });
  }
});

describe("certificates a delegated-auth kubeconfig names", () => {
  const indirect = [{ flag: "authentication-kubeconfig", path: "/etc/kubernetes/pki/ccm.crt" }];
  const volume = { name: "authentication-kubeconfig-2", hostPath: { path: indirect[0]!.path, type: "File" } };
  for (const kind of ["static-pod", "daemonset", "deployment"] as const) {
    test(`${kind} mounts them from the host, with the kubeconfig`, () => {
      const argv = [kind, "--authentication-kubeconfig=/etc/kubernetes/auth.conf"];
      const p = render[kind](options(kind === "static-pod" ? [...argv, "--kubeconfig=/k"] : argv, indirect));
      expect(p.volumes).toContainEqual(volume);
      expect(p.mounts).toContainEqual({ name: volume.name, mountPath: indirect[0]!.path, readOnly: true });
    });
  }
});
