import { describe, expect, test } from "bun:test";
import { splitArgs, type OwnFlag } from "./command-args.ts";

const OWN: OwnFlag[] = [
  { name: "image", type: "string", default: "", usage: "" },
  { name: "dry-run", type: "bool", default: "false", usage: "" },
];

describe("splitArgs", () => {
  const cases: {
    name: string;
    argv: string[];
    own?: Record<string, string>;
    manager?: string[];
    positionals?: string[];
    errors?: string[];
  }[] = [
    {
      name: "own flags, inline and separate",
      argv: ["--image=a", "--dry-run", "kind"],
      own: { image: "a", "dry-run": "true" },
      positionals: ["kind"],
    },
    { name: "own string flag takes the next argument", argv: ["--image", "a:b"], own: { image: "a:b" } },
    {
      name: "own bool never takes the next argument",
      argv: ["--dry-run", "systemd"],
      own: { "dry-run": "true" },
      positionals: ["systemd"],
    },
    {
      name: "manager flags keep their separate value",
      argv: ["--kubeconfig", "/k", "systemd", "--leader-elect", "--v=2"],
      manager: ["--kubeconfig", "/k", "--leader-elect", "--v=2"],
      positionals: ["systemd"],
    },
    {
      name: "unknown flags go to the manager (which rejects them)",
      argv: ["--nope", "x"],
      manager: ["--nope"],
      positionals: ["x"],
    },
    { name: "missing value", argv: ["--image"], errors: ["flag needs an argument: --image"] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const split = splitArgs(c.argv, OWN);
      expect(Object.fromEntries(split.own)).toEqual(c.own ?? {});
      expect(split.manager).toEqual(c.manager ?? []);
      expect(split.positionals).toEqual(c.positionals ?? []);
      expect(split.errors).toEqual(c.errors ?? []);
    });
  }
});
