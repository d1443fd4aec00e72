import { describe, expect, test } from "bun:test";
import { createLogSink } from "./sink.ts";

function streams(): { out: string[]; err: string[]; stdout: (t: string) => void; stderr: (t: string) => void } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t) };
}

describe("log sink", () => {
  test("one stream: everything to stderr", () => {
    const s = streams();
    const sink = createLogSink({ splitStream: false, infoBufferBytes: 0, flushFrequencyMs: 5000, ...s });
    sink.write("I1\n", false);
    sink.write("E1\n", true);
    expect(s.err).toEqual(["I1\n", "E1\n"]);
    expect(s.out).toEqual([]);
  });

  test("split: info to stdout, errors to stderr", () => {
    const s = streams();
    const sink = createLogSink({ splitStream: true, infoBufferBytes: 0, flushFrequencyMs: 5000, ...s });
    sink.write("I1\n", false);
    sink.write("E1\n", true);
    expect(s).toMatchObject({ out: ["I1\n"], err: ["E1\n"] });
  });

  test("buffered info lines leave when the buffer fills, before an error, and on flush", () => {
    const s = streams();
    const sink = createLogSink({ splitStream: true, infoBufferBytes: 8, flushFrequencyMs: 60_000, ...s });
    sink.write("I1\n", false);
    sink.write("I2\n", false);
    expect(s.out).toEqual([]);
    sink.write("I3\n", false);
    expect(s.out).toEqual(["I1\nI2\nI3\n"]);
    sink.write("I4\n", false);
    sink.write("E1\n", true);
    expect(s).toMatchObject({ out: ["I1\nI2\nI3\n", "I4\n"], err: ["E1\n"] });
    sink.write("I5\n", false);
    sink.flush();
    expect(s.out.at(-1)).toBe("I5\n");
  });
});
