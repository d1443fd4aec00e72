import { describe, expect, test } from "bun:test";
import { isJsonObject, sameJson } from "./json.ts";

describe("JSON values", () => {
  test.each([
    {
      name: "equal objects, any key order",
      a: { x: 1, y: [1, { z: "a" }] },
      b: { y: [1, { z: "a" }], x: 1 },
      want: true,
    },
    { name: "a key set to undefined is absent", a: { x: 1, y: undefined }, b: { x: 1 }, want: true },
    { name: "a longer list differs", a: { l: [1] }, b: { l: [1, 2] }, want: false },
    { name: "a list is not an object", a: { l: [] }, b: { l: {} }, want: false },
    { name: "a nested value differs", a: { x: { y: 1 } }, b: { x: { y: 2 } }, want: false },
    { name: "null is not an empty object", a: null, b: {}, want: false },
  ])("sameJson: $name", ({ a, b, want }) => {
    expect(sameJson(a, b)).toBe(want);
    expect(sameJson(b, a)).toBe(want);
  });

  test("isJsonObject: objects only", () => {
    expect([{}, { a: 1 }, [], null, "x", 1].map(isJsonObject)).toEqual([true, true, false, false, false, false]);
  });
});
