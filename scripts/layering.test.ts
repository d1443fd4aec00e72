import { describe, expect, test } from "bun:test";
import { dirname, join, resolve } from "node:path";
import { EXTRA_ENTRIES } from "./build.ts";
import { cycles, folderGraph, folderOf, packagesLoaded } from "./layering.ts";

const graph = (edges: Record<string, string[]>): Map<string, Set<string>> =>
  new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));

describe("layering", () => {
  const cases: { name: string; edges: Record<string, string[]>; want: string[][] }[] = [
    { name: "a chain has no cycle", edges: { a: ["b"], b: ["c"], c: [] }, want: [] },
    { name: "two nodes importing each other", edges: { a: ["b"], b: ["a"] }, want: [["a", "b"]] },
    {
      name: "a ring of three, and a node outside it",
      edges: { a: ["b"], b: ["c"], c: ["a"], d: ["a"] },
      want: [["a", "b", "c"]],
    },
    {
      name: "two separate rings",
      edges: { a: ["b"], b: ["a"], c: ["d"], d: ["c"] },
      want: [
        ["a", "b"],
        ["c", "d"],
      ],
    },
    { name: "a self-import is not a cycle", edges: { a: ["a"] }, want: [] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(cycles(graph(c.edges))).toEqual(c.want);
    });
  }

  test("files are grouped by their first folder; a file right under the root is its own node", () => {
    expect(folderOf("src", "src/app/threads/host.ts")).toBe("app/");
    expect(folderOf("src", "src/main.ts")).toBe("src/main.ts");
    const files = graph({
      "src/app/a.ts": ["src/cli/b.ts", "src/app/c.ts"],
      "src/cli/b.ts": ["src/app/threads/d.ts"],
      "src/app/c.ts": [],
    });
    expect(cycles(folderGraph("src", files))).toEqual([["app/", "cli/"]]);
  });

  test("a controller thread loads neither the kubeconfig library nor the AWS SDK (each costs a thread tens of MiB)", () => {
    const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
    const worker = [...packagesLoaded(root, "src/worker.ts")];
    const main = [...packagesLoaded(root, "src/main.ts")];
    expect(main).toContain("@kubernetes/client-node");
    expect(worker.some((p) => p.startsWith("prom-client/lib/"))).toBe(true);
    expect(worker.filter((p) => p === "@kubernetes/client-node" || p.startsWith("@aws-sdk/"))).toEqual([]);
  });

  const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
  /** The files of `entry`'s bundle whose paths contain `part`: what a thread or manager parses. */
  const bundled = async (entry: string, part: string): Promise<string[]> => {
    const built = await Bun.build({ entrypoints: [join(root, entry)], target: "bun", metafile: true });
    return Object.keys(built.metafile?.inputs ?? {}).filter((input) => input.includes(part));
  };

  test("the AWS SDK is compiled into the aws provider's own entry point only: no other manager parses it", async () => {
    const sdk = "node_modules/@aws-sdk/";
    expect(EXTRA_ENTRIES).toContain("providers/aws/provider.ts");
    expect(await bundled("src/main.ts", sdk)).toEqual([]);
    expect(await bundled("src/worker.ts", sdk)).toEqual([]);
    expect((await bundled("providers/aws/provider.ts", sdk)).length).toBeGreaterThan(0);
  });

  test("a controller thread parses neither prom-client's index nor consola's full build", async () => {
    const indexes = (await bundled("src/worker.ts", "node_modules/")).filter(
      (input) => input.endsWith("prom-client/index.js") || input.endsWith("consola/dist/index.mjs"),
    );
    expect(indexes).toEqual([]);
    expect(await bundled("src/main.ts", "prom-client/index.js")).toHaveLength(1);
  });
});
