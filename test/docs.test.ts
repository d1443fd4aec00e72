/** The README's flags reference is generated from the flag table; it must not drift from it. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { README, withFlags } from "../scripts/flags-doc.ts";

test("README flags reference matches the CLI definition (run `npm run docs` to refresh)", () => {
  const readme = readFileSync(README, "utf8");
  expect(readme).toBe(withFlags(readme));
  expect(readme).toContain("| `--cloud-provider` |");
});
