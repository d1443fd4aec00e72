import { describe, expect, test } from "bun:test";
import { cidrContains, formatCIDR, formatIP, parseCIDR, parseIP } from "./ip.ts";

describe("parseIP / formatIP", () => {
  const cases: [string, string | undefined][] = [
    ["10.0.0.1", "10.0.0.1"],
    ["0.0.0.0", "0.0.0.0"],
    ["255.255.255.255", "255.255.255.255"],
    ["256.0.0.1", undefined],
    ["01.2.3.4", undefined],
    ["1.2.3", undefined],
    ["::", "::"],
    ["::1", "::1"],
    ["2001:db8::1", "2001:db8::1"],
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["fd00:10:244::", "fd00:10:244::"],
    ["1:0:0:1:0:0:0:1", "1:0:0:1::1"],
    ["::ffff:10.0.0.1", "::ffff:a00:1"],
    ["1::2::3", undefined],
    ["12345::", undefined],
    ["fe80::1%eth0", undefined],
    ["", undefined],
  ];
  for (const [text, want] of cases) {
    test(JSON.stringify(text), () => {
      const ip = parseIP(text);
      expect(ip ? formatIP(ip) : undefined).toBe(want as string);
    });
  }
});

describe("parseCIDR / containment", () => {
  test("normalises the network address", () => expect(formatCIDR(parseCIDR("10.244.3.7/16")!)).toBe("10.244.0.0/16"));
  test("rejects bad prefixes", () => {
    for (const bad of ["10.0.0.0/33", "fd00::/129", "10.0.0.0", "10.0.0.0/x", "10.0.0.0/8/1"])
      expect(parseCIDR(bad)).toBeUndefined();
  });
  test("contains by family", () => {
    const v4 = parseCIDR("10.244.0.0/16")!;
    const v6 = parseCIDR("fd00:10:244::/56")!;
    expect(cidrContains(v4, parseIP("10.244.255.255")!)).toBe(true);
    expect(cidrContains(v4, parseIP("10.245.0.0")!)).toBe(false);
    expect(cidrContains(v6, parseIP("fd00:10:244:ff::1")!)).toBe(true);
    expect(cidrContains(v6, parseIP("10.244.0.1")!)).toBe(false);
  });
});
