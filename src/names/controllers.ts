/**
 * Every name a controller goes by, in one table (upstream k8s.io/cloud-provider names/controller_names.go
 * and the names scattered through its controllers). Controller IDs are kebab-case and never renamed; the
 * short upstream aliases stay accepted forever.
 */
export const CONTROLLER_NAMES = [
  "cloud-node-controller",
  "cloud-node-lifecycle-controller",
  "node-route-controller",
  "service-lb-controller",
] as const;

export type ControllerName = (typeof CONTROLLER_NAMES)[number];

/** The client identities upstream uses per controller (`--use-service-account-credentials`). */
export type ControllerIdentity = "node-controller" | "service-controller" | "route-controller";

export interface ControllerNames {
  /** The upstream alias `--controllers` also accepts. */
  readonly alias: string;
  /** The `name` label of upstream's `running_managed_controllers` metric. */
  readonly metric: string;
  /** `source.component` of the controller's Events. */
  readonly component: string;
  /** The ServiceAccount it writes as with `--use-service-account-credentials`. */
  readonly identity: ControllerIdentity;
  /** Its work queues by role, named as upstream's so the `workqueue_*` series match. */
  readonly queues: Readonly<Record<string, string>>;
}

export const CONTROLLERS = {
  "cloud-node-controller": {
    alias: "cloud-node",
    metric: "cloud-node",
    component: "cloud-node-controller",
    identity: "node-controller",
    queues: { nodes: "Nodes" },
  },
  "cloud-node-lifecycle-controller": {
    alias: "cloud-node-lifecycle",
    metric: "cloud-node-lifecycle",
    component: "cloud-node-lifecycle-controller",
    identity: "node-controller",
    queues: {},
  },
  "node-route-controller": {
    alias: "route",
    metric: "route",
    component: "route_controller",
    identity: "route-controller",
    queues: { routes: "Routes" },
  },
  "service-lb-controller": {
    alias: "service",
    metric: "service",
    component: "service-controller",
    identity: "service-controller",
    queues: { services: "service", nodes: "node" },
  },
} as const satisfies Record<ControllerName, ControllerNames>;

/** Every client identity, in the order the manager creates their ServiceAccounts. */
export const CLIENT_IDENTITIES: readonly ControllerIdentity[] = [
  "node-controller",
  "service-controller",
  "route-controller",
];

function canonical(name: string): ControllerName | undefined {
  return CONTROLLER_NAMES.find((id) => id === name || CONTROLLERS[id].alias === name);
}

export interface ControllerSelection {
  /** In `CONTROLLER_NAMES` order. */
  readonly enabled: readonly ControllerName[];
  readonly unknown: readonly string[];
  /** Controllers other cloud-controller-managers run, asked for by name: why this one has none. */
  readonly elsewhere: readonly string[];
}

/**
 * Controllers of other managers that upstream manifests name in `--controllers`: turning one off
 * (`-tagging`) is accepted, as it changes nothing here; asking for one is refused with the reason.
 */
const ELSEWHERE: ReadonlyMap<string, string> = new Map([
  ["tagging", "is cloud-provider-aws's tagging controller (EC2 tags from --tags), which this manager does not run"],
  ["nodeipam", "is kube-controller-manager's node-ipam controller (pod CIDRs are allocated there, not here)"],
]);

/**
 * Upstream `IsControllerEnabled`: the first entry naming a controller (`foo` or `-foo`) decides; otherwise
 * `*` turns on every default-on controller (all four are); without `*` nothing else runs.
 */
export function selectControllers(entries: readonly string[]): ControllerSelection {
  const unknown: string[] = [];
  const elsewhere: string[] = [];
  const normalised = entries.map((entry) => {
    if (entry === "*") return entry;
    const negated = entry.startsWith("-");
    const bare = negated ? entry.slice(1) : entry;
    const name = canonical(bare);
    const reason = ELSEWHERE.get(bare);
    if (reason !== undefined) {
      if (!negated) elsewhere.push(`${JSON.stringify(bare)} ${reason}`);
    } else if (!name) unknown.push(entry);
    return name ? `${negated ? "-" : ""}${name}` : entry;
  });
  const hasStar = normalised.includes("*");
  const enabled = CONTROLLER_NAMES.filter((name) => {
    const decision = normalised.find((e) => e === name || e === `-${name}`);
    return decision === name || (decision === undefined && hasStar);
  });
  return { enabled, unknown, elsewhere };
}
