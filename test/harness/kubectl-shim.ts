/**
 * A stand-in for the two `kubectl` commands the README's in-cluster install uses, so the README's
 * commands run in tests on machines without kubectl: `apply -f FILE...` (create or update each document,
 * as the admin) and `create secret generic NAME --from-file=KEY=PATH`, both with `-n NAMESPACE`. Anything
 * else fails loudly. Uses `$KUBECONFIG`.
 */
import { readFileSync } from "node:fs";
import { applyObjects, createAdminApi, resourceFor } from "../../scripts/control-plane/admin.ts";
import type { KubeObject } from "../../src/kube/objects.ts";

interface Parsed {
  namespace: string;
  words: string[];
  files: string[];
  fromFiles: string[];
}

function parse(argv: readonly string[]): Parsed {
  const parsed: Parsed = { namespace: "default", words: [], files: [], fromFiles: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-n" || arg === "--namespace") parsed.namespace = argv[++i] ?? "";
    else if (arg === "-f") parsed.files.push(argv[++i] ?? "");
    else if (arg.startsWith("--from-file=")) parsed.fromFiles.push(arg.slice("--from-file=".length));
    else parsed.words.push(arg);
  }
  return parsed;
}

const documents = (file: string): KubeObject[] =>
  [Bun.YAML.parse(readFileSync(file, "utf8")) as KubeObject | KubeObject[]].flat().filter(Boolean);

async function main(argv: readonly string[]): Promise<number> {
  const p = parse(argv);
  const api = await createAdminApi(process.env.KUBECONFIG ?? "");
  const command = p.words.join(" ");
  if (command === "apply" && p.files.length > 0) {
    const objects = p.files.flatMap(documents);
    await applyObjects(
      api,
      objects.map((o) => ({
        ...o,
        metadata: {
          ...o.metadata,
          namespace: resourceFor(o.kind ?? "").namespaced ? (o.metadata.namespace ?? p.namespace) : undefined,
        },
      })),
    );
    for (const o of objects) console.log(`${o.kind?.toLowerCase()}/${o.metadata.name} applied`);
    return 0;
  }
  const secret = /^create secret generic (\S+)$/.exec(command);
  if (secret && p.fromFiles.length > 0) {
    const data = Object.fromEntries(
      p.fromFiles.map((spec) => {
        const [key = "", path = ""] = spec.split("=");
        return [key, readFileSync(path).toString("base64")];
      }),
    );
    await api.create(
      resourceFor("Secret"),
      { apiVersion: "v1", kind: "Secret", metadata: { name: secret[1]!, namespace: p.namespace }, data },
      { namespace: p.namespace },
    );
    console.log(`secret/${secret[1]} created`);
    return 0;
  }
  console.error(`kubectl stand-in: unsupported command: kubectl ${argv.join(" ")}`);
  return 3;
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`error: ${(error as Error).message}`);
  return 1;
});
