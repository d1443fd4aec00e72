/**
 * Writes the Helm chart `charts/cloud-controller-manager/` from the catalog the `manifests` command
 * prints, so the two cannot drift (a test fails when the committed chart is stale). Files the generator
 * no longer makes are removed.
 *
 *   npm run chart
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { CHART_DIR, committedChartFiles, renderChart } from "./chart/render.ts";

if (import.meta.main) {
  const files = renderChart();
  mkdirSync(CHART_DIR, { recursive: true });
  for (const stale of committedChartFiles().filter((path) => !files.has(path))) rmSync(join(CHART_DIR, stale));
  for (const [path, content] of files) {
    mkdirSync(dirname(join(CHART_DIR, path)), { recursive: true });
    writeFileSync(join(CHART_DIR, path), content);
  }
  console.log(`${relative(process.cwd(), CHART_DIR)}: ${files.size} files`);
}
