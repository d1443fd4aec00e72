/** The committed chart is what the generator makes from today's catalog (run `npm run chart` when not). */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { CHART_DIR, committedChartFiles, renderChart } from "./render.ts";

test("charts/cloud-controller-manager matches the manifests catalog (regenerate with `npm run chart`)", () => {
  const committed = committedChartFiles();
  const generated = renderChart();
  expect(committed.sort()).toEqual([...generated.keys()].sort());
  for (const [path, content] of generated)
    expect({ path, content }).toEqual({ path, content: readFileSync(join(CHART_DIR, path), "utf8") });
});

test("the image tag defaults to the release image's (v<version>), so image.repository alone finds it", () => {
  expect(renderChart().get("Chart.yaml")).toContain(`\nappVersion: v${pkg.version}\n`);
});
