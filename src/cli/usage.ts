/**
 * Help text and the README's flags reference, both rendered from the flag table so they cannot drift.
 */
import { FLAGS, type FlagGroup, type FlagSpec, type FlagType } from "../config/flags.ts";

const GROUP_ORDER: readonly FlagGroup[] = [
  "Cloud provider",
  "Generic",
  "Controllers",
  "Leader election",
  "Secure serving",
  "Authentication",
  "Authorization",
  "Webhook serving",
  "Logging",
  "Beyond upstream",
];

function byGroup(): Map<FlagGroup, FlagSpec[]> {
  const groups = new Map<FlagGroup, FlagSpec[]>(GROUP_ORDER.map((g) => [g, []]));
  for (const spec of FLAGS) groups.get(spec.group)?.push(spec);
  return groups;
}

/** pflag's value names where ours differ from the flag type. */
const VALUE_NAMES: Partial<Record<FlagType, string>> = { enum: "string", repeated: "namedCertKey" };

function signature(spec: FlagSpec): string {
  const short = spec.short ? `-${spec.short}, ` : "    ";
  const value = spec.type === "bool" ? "" : ` ${VALUE_NAMES[spec.type] ?? spec.type}`;
  return `${short}--${spec.name}${value}`;
}

/** pflag's style: strings quoted, other values bare, false booleans and empty values omitted. */
function defaultText(spec: FlagSpec): string {
  if (spec.default === "" || (spec.type === "bool" && spec.default === "false")) return "";
  const quoted =
    spec.type === "string" || spec.type === "enum"
      ? JSON.stringify(spec.default)
      : spec.type === "list"
        ? `[${spec.default}]`
        : spec.default;
  return ` (default ${quoted})`;
}

function describe(spec: FlagSpec): string {
  const def = defaultText(spec);
  const options = spec.options ? ` One of: ${spec.options.filter(Boolean).join(", ")}.` : "";
  return `${spec.usage}${options}${def}`;
}

export function renderManagerHelp(name = "cloud-controller-manager"): string {
  const lines = [
    `The Cloud controller manager is a daemon that embeds the cloud specific control loops shipped with Kubernetes.`,
    ``,
    `Usage:`,
    `  ${name} --cloud-provider=NAME [flags]`,
    `  ${name} <command> [flags]      (run "${name} <command> --help")`,
    ``,
    `Commands: run (default), fake-cloud, manifests, check, install, import-pools, export-inventory`,
  ];
  for (const [group, specs] of byGroup()) {
    if (specs.length === 0) continue;
    lines.push("", `${group} flags:`, "");
    for (const spec of specs) {
      const head = signature(spec);
      const text = describe(spec);
      lines.push(head.length < 44 ? `  ${head.padEnd(44)}${text}` : `  ${head}\n  ${"".padEnd(44)}${text}`);
    }
  }
  lines.push(
    "",
    "Global flags:",
    "",
    `  -h, --help${"".padEnd(34)}help for ${name}`,
    `      --version${"".padEnd(31)}Print version information and quit`,
  );
  return `${lines.join("\n")}\n`;
}

export function renderFlagsMarkdown(): string {
  const out: string[] = [];
  for (const [group, specs] of byGroup()) {
    if (specs.length === 0) continue;
    out.push(`**${group}**`, "", "| Flag | Default | Description |", "|---|---|---|");
    for (const spec of specs) {
      const def = spec.default === "" ? "" : `\`${spec.default}\``;
      const usage = `${spec.status === "compat" ? "*(compatibility only)* " : ""}${spec.usage}`.replaceAll("|", "\\|");
      out.push(`| \`--${spec.name}\` | ${def} | ${usage} |`);
    }
    out.push("");
  }
  return out.join("\n");
}
