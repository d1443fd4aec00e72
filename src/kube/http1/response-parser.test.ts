import { describe, expect, test } from "bun:test";
import { MalformedResponseError, ResponseParser, type ResponseHead } from "./response-parser.ts";

interface Heard {
  head?: ResponseHead;
  pieces: Buffer[];
  readonly body: string;
  ended: boolean;
  parser: ResponseParser;
}

/** Feeds `wire` split at every point in `cuts` (byte offsets), as a socket might deliver it. */
function parse(wire: string, cuts: readonly number[] = []): Heard {
  const heard: Heard = {
    pieces: [],
    get body() {
      return Buffer.concat(this.pieces).toString("utf8");
    },
    ended: false,
    parser: undefined as unknown as ResponseParser,
  };
  heard.parser = new ResponseParser({
    head: (head) => (heard.head = head),
    body: (bytes) => heard.pieces.push(Buffer.from(bytes)),
    end: () => (heard.ended = true),
  });
  const bytes = Buffer.from(wire);
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    if (at > from) heard.parser.feed(bytes.subarray(from, at));
    from = Math.max(from, at);
  }
  return heard;
}

const everyCut = (wire: string): number[][] => Array.from({ length: Buffer.byteLength(wire) }, (_, i) => [i]);

describe("ResponseParser", () => {
  const cases: { name: string; wire: string; status: number; body: string; reusable: boolean }[] = [
    {
      name: "Content-Length",
      wire: 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a":"é"}',
      status: 200,
      body: '{"a":"é"}',
      reusable: true,
    },
    {
      name: "chunked, with an extension and a trailer",
      wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-T: 1\r\n\r\n",
      status: 200,
      body: "hello world",
      reusable: true,
    },
    {
      name: "no body for 204",
      wire: "HTTP/1.1 204 No Content\r\n\r\n",
      status: 204,
      body: "",
      reusable: true,
    },
    {
      name: "an interim 100 before the answer",
      wire: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}",
      status: 201,
      body: "{}",
      reusable: true,
    },
    {
      name: "Connection: close ends the connection's use",
      wire: "HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 3\r\n\r\nnot",
      status: 404,
      body: "not",
      reusable: false,
    },
    {
      name: "framing headers in any case among others, a repeated Connection joined",
      wire:
        "HTTP/1.1 200 OK\r\nAudit-Id: 1\r\nconnection: keep-alive\r\nCONTENT-length : 2\r\n" +
        "X-Kubernetes-Pf-Flowschema-Uid: 2\r\nConnection: close\r\n\r\nok",
      status: 200,
      body: "ok",
      reusable: false,
    },
    {
      name: "HTTP/1.0 without keep-alive",
      wire: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
      status: 200,
      body: "ok",
      reusable: false,
    },
  ];

  for (const c of cases) {
    test(`${c.name}: the same however the bytes are split`, () => {
      for (const cuts of [[], ...everyCut(c.wire)]) {
        const heard = parse(c.wire, cuts);
        expect({ status: heard.head?.status, body: heard.body, ended: heard.ended }).toEqual({
          status: c.status,
          body: c.body,
          ended: true,
        });
        expect(heard.parser.reusable).toBe(c.reusable);
      }
    });
  }

  test("headers are read by lower-case name, repeated ones joined", () => {
    const heard = parse("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nWarning: a\r\nwarning: b\r\n\r\n", []);
    expect(heard.head?.statusText).toBe("Too Many Requests");
    expect(heard.head?.headers.get("retry-after")).toBe("3");
    expect(heard.head?.headers.get("warning")).toBe("a, b");
    expect(heard.head?.headers.get("content-length")).toBeUndefined();
  });

  test("a body framed by the connection ends when it closes, and the connection is not reused", () => {
    const heard = parse("HTTP/1.1 200 OK\r\n\r\npart one, ", []);
    heard.parser.feed(Buffer.from("part two"));
    expect(heard.ended).toBe(false);
    heard.parser.finish();
    expect(heard.body).toBe("part one, part two");
    expect(heard.ended).toBe(true);
    expect(heard.parser.reusable).toBe(false);
  });

  test("a watch's chunks are heard as they come, before the end", () => {
    const heard = parse('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n{"a":1}\n\r\n', []);
    expect(heard.body).toBe('{"a":1}\n');
    expect(heard.ended).toBe(false);
  });

  const broken: { name: string; wire: string }[] = [
    { name: "not HTTP", wire: "SSH-2.0-OpenSSH\r\n\r\n" },
    { name: "a header without a colon", wire: "HTTP/1.1 200 OK\r\nbroken\r\n\r\n" },
    { name: "a header without a name", wire: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n: x\r\n\r\n" },
    { name: "a bad Content-Length", wire: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n" },
    { name: "a bad chunk size", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" },
    { name: "a chunk longer than its size", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n" },
    { name: "bytes after the end", wire: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab" },
  ];
  for (const c of broken) {
    test(`refuses ${c.name}`, () => {
      expect(() => parse(c.wire)).toThrow(MalformedResponseError);
    });
  }

  test("a connection that closes inside a Content-Length body is an error, not a short answer", () => {
    const heard = parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
    expect(() => heard.parser.finish()).toThrow(MalformedResponseError);
    expect(heard.ended).toBe(false);
  });
});
