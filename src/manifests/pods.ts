/**
 * Pod-based installs: a static pod for `/etc/kubernetes/manifests` (credentials from host files, like
 * kube-controller-manager's), and a DaemonSet or Deployment with a ServiceAccount for in-cluster installs
 * (cloud-config from a Secret). All run on the host network and tolerate the uninitialized and
 * control-plane taints, so they start before any CNI and before the nodes are initialised — the
 * chicken-and-egg problem every CCM install meets.
 */
import { posix } from "node:path";
import type { Manifest } from "../kube/objects.ts";
import { CCM_SERVICE_ACCOUNT } from "./rbac.ts";
import { TAINT_UNINITIALIZED } from "../kube/well-known.ts";
import { hostFiles, NAME, probeHost, type HostFile, type PackageOptions } from "./options.ts";

export const LABELS: Readonly<Record<string, string>> = { "app.kubernetes.io/name": NAME };
export const CLOUD_CONFIG_SECRET = `${NAME}-cloud-config`;
const CONTROL_PLANE = "node-role.kubernetes.io/control-plane";
const MASTER = "node-role.kubernetes.io/master";
/** An unprivileged UID for in-cluster pods (the conventional "nonroot" of distroless images). */
const NON_ROOT = 65532;

type Obj = Record<string, unknown>;

interface Volume {
  readonly volume: Obj;
  readonly mount: Obj;
}

const hostFile = (name: string, path: string, readOnly = true): Volume => ({
  volume: { name, hostPath: { path, type: readOnly ? "File" : "DirectoryOrCreate" } },
  mount: { name, mountPath: path, readOnly },
});

function binaryVolume(o: PackageOptions): Volume[] {
  return o.image === "" ? [hostFile("binary", o.binary)] : [];
}

/**
 * `--cert-dir`, where the manager writes its self-signed pair: a host folder for the static pod (root,
 * like kube-controller-manager's), an emptyDir in-cluster. A hostPath folder kubelet creates is root's,
 * 0755, which the non-root pod cannot write; each pod makes its own pair, as upstream's pods do.
 */
function certDirVolume(o: PackageOptions, inCluster: boolean): Volume[] {
  const path = o.config.serving.certDir;
  if (path === "") return [];
  if (!inCluster) return [hostFile("cert-dir", path, false)];
  return [{ volume: { name: "cert-dir", emptyDir: {} }, mount: { name: "cert-dir", mountPath: path } }];
}

/**
 * One volume per distinct path (two flags may name the same file), named after its flag: the first as
 * the flag, the next ones with a count (a kubeconfig's certificates, an SNI pair), as volume names must
 * differ.
 */
function fileVolumes(files: readonly HostFile[]): Volume[] {
  const seen = new Set<string>();
  const perFlag = new Map<string, number>();
  return files
    .filter((f) => !seen.has(f.path) && seen.add(f.path))
    .map((f) => {
      const n = (perFlag.get(f.flag) ?? 0) + 1;
      perFlag.set(f.flag, n);
      return hostFile(n === 1 ? f.flag : `${f.flag}-${n}`, f.path);
    });
}

/** The folder the cloud-config Secret is mounted over: the `--cloud-config` file's. */
export const secretMountPath = (cloudConfig: string): string => posix.dirname(cloudConfig);

function secretVolume(path: string): Volume {
  const dir = secretMountPath(path);
  const file = posix.basename(path);
  return {
    volume: {
      name: "cloud-config",
      secret: { secretName: CLOUD_CONFIG_SECRET, defaultMode: 0o440, items: [{ key: file, path: file }] },
    },
    mount: { name: "cloud-config", mountPath: dir, readOnly: true },
  };
}

function probe(o: PackageOptions, failureThreshold: number): Obj {
  const httpGet = { scheme: "HTTPS", host: probeHost(o.config), port: o.config.serving.securePort, path: "/healthz" };
  return { httpGet, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold };
}

function container(o: PackageOptions, volumes: readonly Volume[]): Obj {
  const port = o.config.serving.securePort;
  const lowPort = port < 1024;
  return {
    name: NAME,
    image: o.image === "" ? o.baseImage : o.image,
    imagePullPolicy: "IfNotPresent",
    command: [o.binary, ...o.args],
    ports: [{ name: "https", containerPort: port, protocol: "TCP" }],
    startupProbe: probe(o, 24),
    livenessProbe: probe(o, 8),
    resources: { requests: { cpu: "100m", memory: "128Mi" } },
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"], ...(lowPort ? { add: ["NET_BIND_SERVICE"] } : {}) },
    },
    volumeMounts: volumes.map((v) => v.mount),
  };
}

/**
 * The taints a fresh cluster's control-plane nodes carry: uninitialized (this manager removes it), the
 * control-plane role (and its pre-1.24 `master` name), k3s / RKE2's `CriticalAddonsOnly`, and, with no CNI
 * yet, not-ready: to schedule on it, and to stay (a Deployment's pod gets no NoExecute toleration from
 * the DaemonSet controller, so without one it would be evicted after five minutes).
 */
const tolerations = (inCluster: boolean): Obj[] => [
  { key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" },
  { key: CONTROL_PLANE, operator: "Exists", effect: "NoSchedule" },
  { key: MASTER, operator: "Exists", effect: "NoSchedule" },
  ...(inCluster
    ? [
        { key: "CriticalAddonsOnly", operator: "Exists" },
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoSchedule" },
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
      ]
    : []),
];

/**
 * Control-plane nodes by either label and any value: kubeadm's `""`, k3s / RKE2's `"true"`, and the
 * `master` role of clusters older than 1.24.
 */
const controlPlaneAffinity: Obj = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [CONTROL_PLANE, MASTER].map((key) => ({ matchExpressions: [{ key, operator: "Exists" }] })),
    },
  },
};

function namespace(o: PackageOptions): string {
  return o.config.leaderElection.resourceNamespace;
}

/**
 * For `/etc/kubernetes/manifests`: runs as root inside the container (with every capability dropped) to
 * read the host's root-only kubeconfig and cloud-config, as kube-controller-manager's static pod does.
 */
export function staticPod(o: PackageOptions): Manifest {
  const files = [...hostFiles(o.config), ...(o.indirectFiles ?? [])];
  const volumes = [...binaryVolume(o), ...fileVolumes(files), ...certDirVolume(o, false)];
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: NAME, namespace: namespace(o), labels: { ...LABELS, component: NAME, tier: "control-plane" } },
    spec: {
      hostNetwork: true,
      priorityClassName: "system-node-critical",
      tolerations: tolerations(false),
      securityContext: { seccompProfile: { type: "RuntimeDefault" } },
      containers: [container(o, volumes)],
      volumes: volumes.map((v) => v.volume),
    },
  };
}

function inClusterPodSpec(o: PackageOptions): Obj {
  const { cloudConfig } = o.config;
  // The delegated-auth kubeconfigs come from the host, and so do the certificates they name.
  const others = [...hostFiles(o.config), ...(o.indirectFiles ?? [])].filter((f) => f.flag !== "cloud-config");
  const volumes = [
    ...binaryVolume(o),
    ...(cloudConfig !== "" ? [secretVolume(cloudConfig)] : []),
    ...fileVolumes(others),
    ...certDirVolume(o, true),
  ];
  return {
    serviceAccountName: CCM_SERVICE_ACCOUNT,
    hostNetwork: true,
    // The host's resolver: cluster DNS may not run yet, and the cloud API is outside the cluster.
    dnsPolicy: "Default",
    priorityClassName: "system-node-critical",
    affinity: controlPlaneAffinity,
    tolerations: tolerations(true),
    securityContext: {
      runAsNonRoot: true,
      runAsUser: NON_ROOT,
      runAsGroup: NON_ROOT,
      fsGroup: NON_ROOT,
      seccompProfile: { type: "RuntimeDefault" },
    },
    containers: [container(o, volumes)],
    volumes: volumes.map((v) => v.volume),
  };
}

export function serviceAccount(o: PackageOptions): Manifest {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: CCM_SERVICE_ACCOUNT, namespace: namespace(o), labels: { ...LABELS } },
  };
}

/** One replica per control-plane node; leader election picks the active one. */
export function daemonSet(o: PackageOptions): Manifest[] {
  const spec = {
    selector: { matchLabels: { ...LABELS } },
    template: { metadata: { labels: { ...LABELS } }, spec: inClusterPodSpec(o) },
  };
  return [
    serviceAccount(o),
    {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: NAME, namespace: namespace(o), labels: { ...LABELS } },
      spec,
    },
  ];
}

/**
 * One replica on a control-plane node. Updates replace it in place (no surge): a second pod on the same
 * host network would collide on the secure port.
 */
export function deployment(o: PackageOptions): Manifest[] {
  const spec = {
    replicas: 1,
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
    selector: { matchLabels: { ...LABELS } },
    template: { metadata: { labels: { ...LABELS } }, spec: inClusterPodSpec(o) },
  };
  return [
    serviceAccount(o),
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: NAME, namespace: namespace(o), labels: { ...LABELS } },
      spec,
    },
  ];
}
