import { describe, expect, test } from "bun:test";
import { writtenVersion } from "./api.ts";

const node = (metadata: object, rest: object = {}): string =>
  JSON.stringify({ kind: "Node", apiVersion: "v1", metadata, ...rest });

describe("writtenVersion: the answer's resourceVersion without decoding it", () => {
  test.each([
    { name: "the API server's layout", answer: node({ name: "a", uid: "u", resourceVersion: "42" }), want: "42" },
    {
      name: "later fields that mention resourceVersion do not count",
      answer: node(
        {
          name: "a",
          resourceVersion: "7",
          annotations: { note: '"resourceVersion":"9"' },
          managedFields: [{ manager: "m", fieldsV1: { "f:metadata": {} } }],
        },
        { spec: { configSource: { configMap: { resourceVersion: "3" } } } },
      ),
      want: "7",
    },
    {
      name: "pretty-printed: decoded in full",
      answer: JSON.stringify({ kind: "Node", metadata: { name: "a", resourceVersion: "11" } }, null, 2),
      want: "11",
    },
    {
      name: "metadata without a version, a nested one after it: decoded in full",
      answer: node({ name: "a" }, { spec: { configSource: { configMap: { resourceVersion: "3" } } } }),
      want: "",
    },
  ])("$name", ({ answer, want }) => {
    expect(writtenVersion(answer)).toBe(want);
  });
});
