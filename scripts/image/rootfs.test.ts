import { describe, expect, test } from "bun:test";
import { parseLdd } from "./rootfs.ts";

describe("parseLdd", () => {
  const cases: { name: string; out: string; want: string[] | RegExp }[] = [
    {
      name: "resolved libraries and the loader, not the vDSO",
      out: [
        "\tlinux-vdso.so.1 (0x00007ffd)",
        "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007fa2)",
        "\t/lib64/ld-linux-x86-64.so.2 (0x00007fa3)",
        "\tlibm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007fa4)",
      ].join("\n"),
      want: ["/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libm.so.6", "/lib64/ld-linux-x86-64.so.2"],
    },
    { name: "a missing library is an error", out: "\tlibfoo.so.1 => not found\n", want: /libfoo\.so\.1 => not found/ },
  ];
  for (const c of cases)
    test(c.name, () => {
      if (c.want instanceof RegExp) expect(() => parseLdd(c.out)).toThrow(c.want);
      else expect(parseLdd(c.out)).toEqual(c.want);
    });
});
