import { describe, expect, test } from "bun:test";
import { lines } from "./api.ts";

function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function collect(chunks: readonly Uint8Array[]): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines(streamOf(chunks))) out.push(line.toString("utf8"));
  return out;
}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("watch stream lines", () => {
  test("an event spread over chunks, several events in one chunk, blank lines skipped", async () => {
    const chunks = ['{"a":', '1}\n{"b":2}\n\n', '  \n{"c":', "3}\n"].map(bytes);
    expect(await collect(chunks)).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  test("a multi-byte character cut between chunks stays whole", async () => {
    const all = bytes('{"name":"nœud"}\n');
    const cut = all.indexOf(0xc5) + 1;
    expect(await collect([all.slice(0, cut), all.slice(cut)])).toEqual(['{"name":"nœud"}']);
  });

  test("a trailing line without its newline is not an event", async () => {
    expect(await collect([bytes('{"a":1}\n{"b":')])).toEqual(['{"a":1}']);
  });
});
