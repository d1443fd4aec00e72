import { describe, expect, test } from "bun:test";
import { Problems } from "./config-reader.ts";
import { describeSelector, readSelector, selectorMatches } from "./label-selector.ts";

const read = (raw: unknown) => {
  const p = new Problems();
  const selector = readSelector(p, raw, "s");
  return { selector, problems: p.list };
};

describe("label selectors", () => {
  const cases: { selector: unknown; labels: Record<string, string>; match: boolean }[] = [
    { selector: {}, labels: {}, match: true },
    { selector: { matchLabels: { a: "1" } }, labels: { a: "1", b: "2" }, match: true },
    { selector: { matchLabels: { a: "1" } }, labels: { a: "2" }, match: false },
    {
      selector: { matchExpressions: [{ key: "app", operator: "In", values: ["bar", "baz"] }] },
      labels: { app: "baz" },
      match: true,
    },
    { selector: { matchExpressions: [{ key: "app", operator: "In", values: ["bar"] }] }, labels: {}, match: false },
    { selector: { matchExpressions: [{ key: "app", operator: "NotIn", values: ["bar"] }] }, labels: {}, match: true },
    { selector: { matchExpressions: [{ key: "app", operator: "Exists" }] }, labels: { app: "" }, match: true },
    { selector: { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] }, labels: { app: "x" }, match: false },
    {
      selector: { matchLabels: { a: "1" }, matchExpressions: [{ key: "b", operator: "Exists" }] },
      labels: { a: "1" },
      match: false,
    },
  ];
  for (const c of cases) {
    test(`${JSON.stringify(c.selector)} on ${JSON.stringify(c.labels)}: ${c.match}`, () => {
      const { selector, problems } = read(c.selector);
      expect(problems).toEqual([]);
      expect(selectorMatches(selector!, c.labels)).toBe(c.match);
    });
  }

  test("bad selectors name the field", () => {
    expect(read({ matchExpressions: [{ key: "a", operator: "Near" }] }).problems).toEqual([
      "s.matchExpressions[0]: must be {key, operator: In|NotIn|Exists|DoesNotExist, values: [strings]}",
    ]);
    expect(read({ matchExpressions: [{ key: "a", operator: "In" }] }).problems).toEqual([
      "s.matchExpressions[0]: operator In needs values",
    ]);
    expect(read({ matchLabels: { a: 1 } }).problems).toEqual(["s.matchLabels: must map label keys to string values"]);
    expect(read("app=web").problems).toEqual(["s: must be a label selector (matchLabels, matchExpressions)"]);
  });

  test("described for messages", () => {
    const { selector } = read({
      matchLabels: { a: "1" },
      matchExpressions: [
        { key: "b", operator: "In", values: ["x", "y"] },
        { key: "c", operator: "DoesNotExist" },
      ],
    });
    expect(describeSelector(selector!)).toBe("a=1,b in (x,y),!c");
  });
});
