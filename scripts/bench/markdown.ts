/** Markdown table helpers for the results and the README. */
export const f = (n: number | undefined, digits = 1): string =>
  n === undefined || Number.isNaN(n) ? "–" : n.toFixed(digits);
export const ratio = (ours: number | undefined, go: number | undefined): string =>
  ours === undefined || !go ? "–" : `**${(ours / go).toFixed(2)}**`;
const row = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
export const table = (head: readonly string[], rows: readonly (readonly string[])[]): string =>
  [row(head), row(head.map(() => "---")), ...rows.map(row)].join("\n");
export const seconds = (r: { seconds: number }): number => r.seconds;

/** "Go · ours" for one figure of a pair. */
export function both<R>(p: { go?: R; ours?: R }, figure: (r: R) => number, digits = 1): string {
  return `${f(p.go && figure(p.go), digits)} · ${f(p.ours && figure(p.ours), digits)}`;
}

/** ours / Go of one figure of a pair. */
export function ratioOf<R>(p: { go?: R; ours?: R }, figure: (r: R) => number): string {
  return ratio(p.ours && figure(p.ours), p.go && figure(p.go));
}
