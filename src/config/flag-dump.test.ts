import { describe, expect, test } from "bun:test";
import { flagLines } from "./flag-dump.ts";
import { FLAGS } from "./flags.ts";

describe("flagLines", () => {
  test("every flag once, sorted, with the value given or the default, as upstream's FLAG: lines", () => {
    const lines = flagLines(["--cloud-provider=fake", "--v", "2", "--controllers=*,-route"]);
    expect(lines).toHaveLength(FLAGS.length);
    const names = lines.map((l) => /^FLAG: --([^=]+)=/.exec(l)![1]!);
    expect(names).toEqual(FLAGS.map((f) => f.name).sort());
    expect(lines).toContain('FLAG: --cloud-provider="fake"');
    expect(lines).toContain('FLAG: --v="2"');
    expect(lines).toContain('FLAG: --controllers="*,-route"');
    expect(lines).toContain('FLAG: --secure-port="10258"');
  });
});
