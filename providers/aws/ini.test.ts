import { describe, expect, test } from "bun:test";
import { parseIni, unquote } from "./ini.ts";

describe("gcfg values", () => {
  test.each([
    ["unquoted: trimmed", "  a b  ", "a b"],
    ["quoted: whitespace inside the quotes kept", '" p w "', " p w "],
    ["quoted part beside unquoted parts: only the unquoted ends trimmed", ' x" y "z ', "x y z"],
    ["escapes", '"a\\"b\\\\c"', 'a"b\\c'],
    ["an escaped trailing character is kept", "a\\ ", "a "],
  ])("%s", (_title, raw, expected) => {
    expect(unquote(raw)).toBe(expected);
  });

  test("an open quote is an error", () => {
    expect(unquote('"abc')).toBeUndefined();
  });

  test("a quoted password keeps its spaces, whatever follows it on the line", () => {
    const parsed = parseIni('[Global]\npassword = " p w "  ; comment\n');
    expect(parsed.ok && parsed.entries[0]?.value).toBe(" p w ");
  });
});
