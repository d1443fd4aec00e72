/** A dependency-free SVG line chart: objects done over time, one polyline per series. */
import type { Timeline } from "./timeline.ts";

export interface Series {
  readonly label: string;
  readonly color: string;
  readonly points: Timeline;
}

const W = 760;
const H = 420;
const M = { left: 70, right: 20, top: 40, bottom: 50 };

/** 1, 2 or 5 times a power of ten, so that about `count` ticks cover `max`. */
function niceStep(max: number, count: number): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  return ([1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw) || 1;
}

const esc = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function lineChart(title: string, xLabel: string, yLabel: string, series: readonly Series[]): string {
  const maxX = Math.max(1, ...series.flatMap((s) => s.points.map(([x]) => x)));
  const maxY = Math.max(1, ...series.flatMap((s) => s.points.map(([, y]) => y)));
  const px = (x: number): number => Math.round((M.left + (x / maxX) * (W - M.left - M.right)) * 10) / 10;
  const py = (y: number): number => Math.round((H - M.bottom - (y / maxY) * (H - M.top - M.bottom)) * 10) / 10;
  const xStep = niceStep(maxX, 8);
  const yStep = niceStep(maxY, 5);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${esc(title)}</text>`,
  ];
  for (let x = 0; x <= maxX + 1e-9; x += xStep) {
    parts.push(
      `<line x1="${px(x)}" y1="${M.top}" x2="${px(x)}" y2="${H - M.bottom}" stroke="#eee"/>`,
      `<text x="${px(x)}" y="${H - M.bottom + 16}" text-anchor="middle">${+x.toFixed(3)}</text>`,
    );
  }
  for (let y = 0; y <= maxY + 1e-9; y += yStep) {
    parts.push(
      `<line x1="${M.left}" y1="${py(y)}" x2="${W - M.right}" y2="${py(y)}" stroke="#eee"/>`,
      `<text x="${M.left - 6}" y="${py(y) + 4}" text-anchor="end">${y}</text>`,
    );
  }
  parts.push(
    `<line x1="${M.left}" y1="${H - M.bottom}" x2="${W - M.right}" y2="${H - M.bottom}" stroke="black"/>`,
    `<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${H - M.bottom}" stroke="black"/>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 12}" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text x="16" y="${(M.top + H - M.bottom) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(M.top + H - M.bottom) / 2})">${esc(yLabel)}</text>`,
  );
  for (const [i, s] of series.entries()) {
    const points = [[0, 0] as const, ...s.points].map(([x, y]) => `${px(x)},${py(y)}`).join(" ");
    parts.push(
      `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${points}"/>`,
      `<rect x="${M.left + 12}" y="${M.top + 8 + i * 18}" width="14" height="3" fill="${s.color}"/>`,
      `<text x="${M.left + 32}" y="${M.top + 13 + i * 18}">${esc(s.label)}</text>`,
    );
  }
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

export interface Panel {
  readonly yLabel: string;
  readonly series: readonly Series[];
}

const PANEL_W = 460;

/** Ticks for a log-10 axis: 1, 2, 5 times the powers of ten between `min` and `max`. */
function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let p = Math.floor(Math.log10(min)); p <= Math.ceil(Math.log10(max)); p++) {
    for (const m of [1, 2, 5]) if (m * 10 ** p >= min && m * 10 ** p <= max) ticks.push(m * 10 ** p);
  }
  return ticks;
}

/** One panel: points joined by lines, x on a log scale (cluster sizes span decades), y from 0. */
function panel(p: Panel, x0: number, xLabel: string, xs: readonly number[]): string[] {
  const minX = Math.min(...xs) / 1.25;
  const maxX = Math.max(...xs) * 1.25;
  const maxY = Math.max(1e-9, ...p.series.flatMap((s) => s.points.map(([, y]) => y))) * 1.1;
  const left = x0 + M.left;
  const right = x0 + PANEL_W - M.right;
  const bottom = H - M.bottom;
  const px = (x: number): number =>
    Math.round(left + ((Math.log10(x) - Math.log10(minX)) / Math.log10(maxX / minX)) * (right - left));
  const py = (y: number): number => Math.round(bottom - (y / maxY) * (bottom - M.top));
  const yStep = niceStep(maxY, 5);
  const parts = [
    `<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="black"/>`,
    `<line x1="${left}" y1="${M.top}" x2="${left}" y2="${bottom}" stroke="black"/>`,
    `<text x="${(left + right) / 2}" y="${H - 12}" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text x="${x0 + 16}" y="${(M.top + bottom) / 2}" text-anchor="middle" ` +
      `transform="rotate(-90 ${x0 + 16} ${(M.top + bottom) / 2})">${esc(p.yLabel)}</text>`,
  ];
  for (const x of logTicks(minX, maxX)) {
    parts.push(`<text x="${px(x)}" y="${bottom + 16}" text-anchor="middle">${x.toLocaleString("en")}</text>`);
  }
  for (let y = 0; y <= maxY + 1e-9; y += yStep) {
    parts.push(`<line x1="${left}" y1="${py(y)}" x2="${right}" y2="${py(y)}" stroke="#eee"/>`);
    parts.push(`<text x="${left - 6}" y="${py(y) + 4}" text-anchor="end">${+y.toFixed(3)}</text>`);
  }
  for (const s of p.series) {
    const points = s.points.map(([x, y]) => `${px(x)},${py(y)}`);
    parts.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${points.join(" ")}"/>`);
    for (const [x, y] of s.points) parts.push(`<circle cx="${px(x)}" cy="${py(y)}" r="3.5" fill="${s.color}"/>`);
  }
  return parts;
}

/** Side-by-side panels sharing the x axis and the legend (for figures against cluster size). */
export function panelsChart(title: string, xLabel: string, panels: readonly Panel[]): string {
  const width = PANEL_W * panels.length;
  const xs = panels.flatMap((p) => p.series.flatMap((s) => s.points.map(([x]) => x))).filter((x) => x > 0);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" viewBox="0 0 ${width} ${H}" ` +
      `font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${H}" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15">${esc(title)}</text>`,
  ];
  if (xs.length > 0) for (const [i, p] of panels.entries()) parts.push(...panel(p, i * PANEL_W, xLabel, xs));
  for (const [i, s] of (panels[0]?.series ?? []).entries()) {
    parts.push(`<rect x="${M.left + 12}" y="${M.top + 8 + i * 18}" width="14" height="3" fill="${s.color}"/>`);
    parts.push(`<text x="${M.left + 32}" y="${M.top + 13 + i * 18}">${esc(s.label)}</text>`);
  }
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
