/**
 * The whole suite, as `npm test` runs it: the typecheck, the lint, the import layering and the formatting
 * first (they fail the run, with one line each naming the check), then every test. Arguments go to
 * `bun test` and narrow the run to those paths or names; a narrowed run skips the static checks
 * (`npm run typecheck`, `lint`, `layering` and `format:check` run them).
 *
 *   npm test                      typecheck, lint, layering, formatting, every test
 *   npm test -- src/kube          only the tests under src/kube
 *   npm run test:unit             tests under src/ and providers/, no kube-apiserver built up front
 *
 * The tests write their files (control plane data, manager logs, test homes, executable copies) under
 * one folder of this run, given to them as TMPDIR: removed when every test passed, kept and named when
 * one failed, so repeated runs do not fill the temporary directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { argv, env, execPath, exit } from "node:process";

const TIMEOUT_MS = "120000";

interface Check {
  name: string;
  command: string[];
}

const STATIC_CHECKS: readonly Check[] = [
  { name: "typecheck", command: ["npx", "tsc", "--noEmit", "-p", "."] },
  { name: "lint", command: ["npx", "eslint", "."] },
  { name: "layering", command: [execPath, "scripts/layering.ts"] },
  { name: "format:check", command: ["npx", "prettier", "--check", "--log-level", "warn", "."] },
];

async function run(command: string[], extraEnv: Record<string, string> = {}): Promise<number> {
  const proc = Bun.spawn(command, { stdio: ["inherit", "inherit", "inherit"], env: { ...env, ...extraEnv } });
  return await proc.exited;
}

async function staticChecks(): Promise<string[]> {
  const failed: string[] = [];
  for (const check of STATIC_CHECKS) {
    console.log(`\n${check.name}: ${check.command.join(" ")}`);
    if ((await run(check.command)) !== 0) failed.push(check.name);
  }
  return failed;
}

const args = argv.slice(2);
const failedChecks = args.length === 0 ? await staticChecks() : [];
const scratch = mkdtempSync(join(tmpdir(), "ccm-test-run-"));
const testEnv = { TMPDIR: scratch, CCM_TEST_RUN_DIR: scratch };
const testStatus = await run([execPath, "test", "--timeout", TIMEOUT_MS, ...args], testEnv);
if (testStatus !== 0) console.log(`files of this run (manager logs, control plane, test homes): ${scratch}`);
else {
  try {
    rmSync(scratch, { recursive: true, force: true });
  } catch (err) {
    console.log(`could not remove ${scratch}: ${String(err)}`);
  }
}
// .ci/run counts each of these lines as one failure next to bun's own summary.
for (const name of failedChecks) console.log(`static check failed: ${name} (run \`npm run ${name}\`)`);
exit(testStatus !== 0 || failedChecks.length > 0 ? 1 : 0);
