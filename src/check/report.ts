/** `check` output: an aligned table for people, or one JSON document for automation. */
import { failed, type Finding } from "./findings.ts";

export type OutputFormat = "table" | "json";

export const OUTPUT_FORMATS: readonly OutputFormat[] = ["table", "json"];

const HEADER = ["CHECK", "STATUS", "DETAIL"] as const;

export function renderTable(findings: readonly Finding[]): string {
  const rows = [HEADER, ...findings.map((f) => [f.check, f.status.toUpperCase(), f.detail] as const)];
  const width = (column: 0 | 1): number => Math.max(...rows.map((r) => r[column].length));
  const lines = rows.map((r) => `${r[0].padEnd(width(0))}  ${r[1].padEnd(width(1))}  ${r[2]}`);
  const verdict = failed(findings)
    ? `${findings.filter((f) => f.status === "fail").length} problem(s) found`
    : "no problems found";
  return `${lines.join("\n")}\n\n${verdict}\n`;
}

export function renderJson(findings: readonly Finding[]): string {
  return `${JSON.stringify({ ok: !failed(findings), findings }, null, 2)}\n`;
}

export function render(format: OutputFormat, findings: readonly Finding[]): string {
  return format === "json" ? renderJson(findings) : renderTable(findings);
}
