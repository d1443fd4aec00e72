/**
 * Controller names are IDs: kebab-case, never renamed; the short upstream aliases stay accepted forever
 * (k8s.io/cloud-provider names/controller_names.go).
 */
export const CONTROLLER_NAMES = [
  "cloud-node-controller",
  "cloud-node-lifecycle-controller",
  "node-route-controller",
  "service-lb-controller",
] as const;

export type ControllerName = (typeof CONTROLLER_NAMES)[number];

export const CONTROLLER_ALIASES: Readonly<Record<string, ControllerName>> = {
  "cloud-node": "cloud-node-controller",
  "cloud-node-lifecycle": "cloud-node-lifecycle-controller",
  route: "node-route-controller",
  service: "service-lb-controller",
};

/** The `name` label of upstream's `running_managed_controllers` metric. */
export const METRIC_NAMES: Readonly<Record<ControllerName, string>> = {
  "cloud-node-controller": "cloud-node",
  "cloud-node-lifecycle-controller": "cloud-node-lifecycle",
  "node-route-controller": "route",
  "service-lb-controller": "service",
};

function canonical(name: string): ControllerName | undefined {
  return (CONTROLLER_NAMES as readonly string[]).includes(name)
    ? (name as ControllerName)
    : CONTROLLER_ALIASES[name];
}

export interface ControllerSelection {
  readonly enabled: ReadonlySet<ControllerName>;
  readonly unknown: readonly string[];
}

/**
 * Upstream `IsControllerEnabled`: the first entry naming a controller (`foo` or `-foo`) decides; otherwise
 * `*` turns on every default-on controller (all four are); without `*` nothing else runs.
 */
export function selectControllers(entries: readonly string[]): ControllerSelection {
  const unknown: string[] = [];
  const normalised = entries.map((entry) => {
    if (entry === "*") return entry;
    const negated = entry.startsWith("-");
    const name = canonical(negated ? entry.slice(1) : entry);
    if (!name) unknown.push(entry);
    return name ? `${negated ? "-" : ""}${name}` : entry;
  });
  const hasStar = normalised.includes("*");
  const enabled = new Set<ControllerName>();
  for (const name of CONTROLLER_NAMES) {
    const decision = normalised.find((e) => e === name || e === `-${name}`);
    if (decision === name || (decision === undefined && hasStar)) enabled.add(name);
  }
  return { enabled, unknown };
}
