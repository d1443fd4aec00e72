/**
 * The whole suite, as `npm test` runs it: the typecheck, the lint, the import layering and the formatting
 * first (they fail the run, with one line each naming the check), then every test. Arguments go to
 * `bun test` and narrow the run to those paths or names; a narrowed run skips the static checks
 * (`npm run typecheck`, `lint`, `layering` and `format:check` run them).
 *
 *   npm test                      typecheck, lint, layering, formatting, every test
 *   npm test -- src/kube          only the tests under src/kube
 *   npm run test:unit             tests under src/ and providers/, no kube-apiserver built up front
 */
import { argv, execPath, exit } from "node:process";

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

async function run(command: string[]): Promise<number> {
  const proc = Bun.spawn(command, { stdio: ["inherit", "inherit", "inherit"] });
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
const testStatus = await run([execPath, "test", "--timeout", TIMEOUT_MS, ...args]);
// .ci/run counts each of these lines as one failure next to bun's own summary.
for (const name of failedChecks) console.log(`static check failed: ${name} (run \`npm run ${name}\`)`);
exit(testStatus !== 0 || failedChecks.length > 0 ? 1 : 0);
