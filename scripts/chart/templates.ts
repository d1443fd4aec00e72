/**
 * The chart's templates: the catalog's objects dumped as YAML, with the sentinels and the parts that
 * values choose turned into Go-template expressions. Kept deliberately plain: every `{{ }}` is a value,
 * a release field, or an `if` around a block the catalog rendered.
 */
import { DEFAULTS, NAME } from "../../src/manifests/options.ts";
import { CLOUD_CONFIG_SECRET, LABELS } from "../../src/manifests/pods.ts";
import type { Manifest } from "../../src/kube/objects.ts";
import { CONTROLLERS } from "../../src/names/controllers.ts";
import { catalogOptions, rbacParts, registry, SENTINEL, workloadParts, type Obj } from "./catalog.ts";

export const LABELS_TEMPLATE = `${NAME}.labels`;
const HAS_CLOUD_CONFIG = "or .Values.cloudConfig .Values.existingSecret";
const OWN_NAMESPACE = `ne .Release.Namespace "kube-system"`;

const indent = (text: string, spaces: number): string =>
  text
    .split("\n")
    .map((line) => (line === "" ? line : " ".repeat(spaces) + line))
    .join("\n");

/** YAML of `value`, indented, without the trailing newline. */
export const yaml = (value: unknown, spaces = 0): string =>
  indent(Bun.YAML.stringify(value, null, 2).trimEnd(), spaces);

/** Sentinels → template expressions; a `labels: __LABELS__` line → the chart's labels. */
function templated(text: string): string {
  return text
    .replace(/^( *)labels: __LABELS__$/gm, (_, pad: string) => {
      return `${pad}labels:\n${pad}  {{- include "${LABELS_TEMPLATE}" . | nindent ${pad.length + 2} }}`;
    })
    .replaceAll(SENTINEL.namespace, "{{ .Release.Namespace }}")
    .replaceAll(SENTINEL.lease, "{{ .Values.leaderElection.resourceName }}")
    .replaceAll(SENTINEL.binary, "{{ .Values.binary }}");
}

/** The object with its labels swapped for the sentinel the chart's labels replace. */
const withChartLabels = (m: Manifest): Obj => ({ ...m, metadata: { ...m.metadata, labels: SENTINEL.labels } });

const documents = (objects: readonly Manifest[]): string =>
  objects.map((m) => templated(yaml(withChartLabels(m)))).join("\n---\n");

export function helpersTemplate(): string {
  const own = Object.entries(LABELS).map(([k, v]) => `${k}: ${v}`);
  return [
    `{{- define "${LABELS_TEMPLATE}" -}}`,
    ...own,
    "app.kubernetes.io/instance: {{ .Release.Name }}",
    "app.kubernetes.io/managed-by: {{ .Release.Service }}",
    'helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}',
    "{{- end }}",
    "",
  ].join("\n");
}

export function rbacTemplate(): string {
  const { base, identities, providers } = rbacParts();
  const perProvider = [...providers].map(
    ([name, objects]) => `{{- if eq .Values.provider "${name}" }}\n---\n${documents(objects)}\n{{- end }}`,
  );
  return [
    documents(base),
    `{{- if ${OWN_NAMESPACE} }}\n---\n${documents(identities)}\n{{- end }}`,
    ...perProvider,
    "",
  ].join("\n");
}

export function secretTemplate(): string {
  const file = DEFAULTS.cloudConfig.slice(DEFAULTS.cloudConfig.lastIndexOf("/") + 1);
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: CLOUD_CONFIG_SECRET, namespace: SENTINEL.namespace, labels: SENTINEL.labels },
    data: { [file]: "__DATA__" },
  };
  const body = templated(yaml(secret)).replace("__DATA__", "{{ .Values.cloudConfig | b64enc }}");
  return `{{- if and .Values.cloudConfig (not .Values.existingSecret) }}\n${body}\n{{- end }}\n`;
}

/** `key:` followed by a list whose items each appear under a condition. */
function conditionalList(key: string, items: readonly [condition: string, item: Obj][], spaces: number): string {
  const pad = " ".repeat(spaces);
  const lines = items.map(
    ([condition, item]) => `${pad}{{- if ${condition} }}\n${templated(yaml([item], spaces + 2))}\n${pad}{{- end }}`,
  );
  return [`${pad}${key}:`, ...lines].join("\n");
}

function commandBlock(spaces: number): string {
  const pad = " ".repeat(spaces);
  const arg = (format: string, value: string): string => `${pad}- {{ printf "${format}" ${value} | quote }}`;
  return [
    `${pad.slice(2)}command:`,
    `${pad}- {{ .Values.binary | quote }}`,
    arg("--cloud-provider=%s", `(required "set provider" .Values.provider)`),
    `${pad}{{- if ${HAS_CLOUD_CONFIG} }}`,
    arg("--cloud-config=%s", JSON.stringify(DEFAULTS.cloudConfig)),
    `${pad}{{- end }}`,
    arg("--controllers=%s", `(join "," .Values.controllers)`),
    arg("--leader-elect=%t", ".Values.leaderElection.enabled"),
    `${pad}{{- if ${OWN_NAMESPACE} }}`,
    arg("--leader-elect-resource-namespace=%s", ".Release.Namespace"),
    `${pad}{{- end }}`,
    arg("--leader-elect-resource-name=%s", ".Values.leaderElection.resourceName"),
    `${pad}{{- if .Values.clusterCIDR }}`,
    arg("--cluster-cidr=%s", ".Values.clusterCIDR"),
    `${pad}{{- end }}`,
    `${pad}{{- range .Values.extraArgs }}`,
    `${pad}- {{ . | quote }}`,
    `${pad}{{- end }}`,
    // Last, so it wins over a --secure-port in extraArgs (the last occurrence counts) and the probes match.
    arg("--secure-port=%v", ".Values.securePort"),
  ].join("\n");
}

const IMAGE =
  '{{ if .Values.image.repository }}{{ printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}{{ else }}{{ .Values.baseImage }}{{ end }}';

/** The catalog's default secure port in `text` (a container port, a probe's port) as the chart's value. */
function withSecurePort(text: string): string {
  const port = catalogOptions("daemonset").config.serving.securePort;
  return text.replace(new RegExp(`(containerPort|port): ${port}$`, "gm"), "$1: {{ .Values.securePort }}");
}

/** The container: the catalog's keys in the catalog's order, values where the chart has one. */
function containerBlock(spaces: number): string {
  const { container, binary, cloudConfig } = workloadParts();
  const pad = " ".repeat(spaces);
  const keys = Object.entries(container).map(([key, value]) => {
    switch (key) {
      case "image":
        return `${pad}image: ${IMAGE}`;
      case "imagePullPolicy":
        return `${pad}imagePullPolicy: {{ .Values.image.pullPolicy }}`;
      case "command":
        return commandBlock(spaces + 2);
      case "resources":
        return `${pad}resources:\n${pad}  {{- toYaml .Values.resources | nindent ${spaces + 2} }}`;
      case "ports":
      case "startupProbe":
      case "livenessProbe":
        return withSecurePort(yaml({ [key]: value }, spaces));
      case "volumeMounts":
        return conditionalList(
          key,
          [
            ["not .Values.image.repository", binary.mount],
            [HAS_CLOUD_CONFIG, cloudConfig.mount],
          ],
          spaces,
        );
      default:
        return yaml({ [key]: value }, spaces);
    }
  });
  return keys.join("\n").replace(/^( *) {2}/, "$1- ");
}

function podSpecBlock(spaces: number): string {
  const { podSpec, binary, cloudConfig } = workloadParts();
  const pad = " ".repeat(spaces);
  const secretVolume = structuredClone(cloudConfig.volume) as { secret: Obj };
  secretVolume.secret.secretName = "__SECRET__";
  return Object.entries(podSpec)
    .map(([key, value]) => {
      switch (key) {
        case "affinity":
          return [
            `${pad}{{- with .Values.nodeSelector }}`,
            `${pad}nodeSelector:`,
            `${pad}  {{- toYaml . | nindent ${spaces + 2} }}`,
            `${pad}{{- end }}`,
            `${pad}affinity:\n${pad}  {{- toYaml .Values.affinity | nindent ${spaces + 2} }}`,
          ].join("\n");
        case "tolerations":
          return `${pad}${key}:\n${pad}  {{- toYaml .Values.${key} | nindent ${spaces + 2} }}`;
        case "containers":
          return `${pad}containers:\n${containerBlock(spaces + 4)}`;
        case "volumes":
          return conditionalList(
            key,
            [
              ["not .Values.image.repository", binary.volume],
              [HAS_CLOUD_CONFIG, secretVolume],
            ],
            spaces,
          ).replace("__SECRET__", `{{ .Values.existingSecret | default "${CLOUD_CONFIG_SECRET}" }}`);
        default:
          return yaml({ [key]: value }, spaces);
      }
    })
    .join("\n");
}

/**
 * `manifests`' route check (catalog.ts) in template form: routes on (the route controller among the
 * controllers, not turned off in extraArgs, the provider not one that never offers routes) without a
 * --cluster-cidr would make every pod exit at start, so the install fails instead, naming the value to set.
 */
export function routesGuard(): string {
  const route = "node-route-controller";
  const names = [route, CONTROLLERS[route].alias];
  const listed = (prefix: string): string => names.map((n) => `(has "${prefix}${n}" .Values.controllers)`).join(" ");
  const message =
    "clusterCIDR: the node-route-controller needs the cluster's pod CIDR range(s) (--cluster-cidr); " +
    `set clusterCIDR, or turn routes off (extraArgs --configure-cloud-routes=false, or controllers without ${route})`;
  const withoutRoutes = registry.withoutRoutes.map((n) => JSON.stringify(n)).join(" ");
  return [
    `{{- $extraArgs := join " " .Values.extraArgs }}`,
    `{{- $routesNamed := or (has "*" .Values.controllers) ${listed("")} }}`,
    `{{- $routesOff := or ${listed("-")} (contains "--configure-cloud-routes=false" $extraArgs) }}`,
    `{{- $routesOff = or $routesOff (has .Values.provider (list ${withoutRoutes})) }}`,
    `{{- $cidr := or .Values.clusterCIDR (contains "--cluster-cidr=" $extraArgs) }}`,
    `{{- if and $routesNamed (not $routesOff) (not $cidr) }}`,
    `{{- fail ${JSON.stringify(message)} }}`,
    "{{- end }}",
  ].join("\n");
}

export function workloadTemplate(): string {
  const { daemonSetSpec, deploymentOnly } = workloadParts();
  const head = templated(
    yaml({
      apiVersion: "apps/v1",
      kind: "__KIND__",
      metadata: { name: NAME, namespace: SENTINEL.namespace, labels: SENTINEL.labels },
    }),
  ).replace("__KIND__", "{{ .Values.kind }}");
  const template = daemonSetSpec.template as Obj;
  return [
    routesGuard(),
    head,
    "spec:",
    `{{- if eq .Values.kind "Deployment" }}\n${yaml(deploymentOnly, 2)}\n{{- end }}`,
    yaml({ selector: daemonSetSpec.selector }, 2),
    "  template:",
    yaml({ metadata: template.metadata }, 4),
    "    spec:",
    podSpecBlock(6),
    "",
  ].join("\n");
}

export function serviceMonitorTemplate(securePort: number): string {
  const meta = { name: NAME, namespace: SENTINEL.namespace, labels: SENTINEL.labels };
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta,
    spec: { clusterIP: "None", selector: LABELS, ports: [{ name: "https", port: securePort, targetPort: "https" }] },
  };
  const monitor = {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "ServiceMonitor",
    metadata: meta,
    spec: {
      selector: { matchLabels: LABELS },
      endpoints: [
        {
          port: "https",
          scheme: "https",
          path: "/metrics",
          interval: "__INTERVAL__",
          bearerTokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
          tlsConfig: { insecureSkipVerify: true },
        },
      ],
    },
  };
  const include = `{{- include "${LABELS_TEMPLATE}" . | nindent 4 }}`;
  const serviceYaml = withSecurePort(templated(yaml(service)));
  const monitorYaml = templated(yaml(monitor)).replace(
    include,
    `${include}\n    {{- with .Values.serviceMonitor.labels }}\n    {{- toYaml . | nindent 4 }}\n    {{- end }}`,
  );
  return [
    "{{- if .Values.serviceMonitor.enabled }}",
    serviceYaml,
    "---",
    monitorYaml.replace("__INTERVAL__", "{{ .Values.serviceMonitor.interval }}"),
    "{{- end }}",
    "",
  ].join("\n");
}
