import { expect, test } from "bun:test";
import { normalizeMaster } from "./connection.ts";

test.each([
  ["", ""],
  ["https://10.0.0.1:6443", "https://10.0.0.1:6443"],
  ["http://127.0.0.1:8080/", "http://127.0.0.1:8080"],
  ["10.0.0.1:6443", "https://10.0.0.1:6443"],
  ["https://api.example.com/prefix", "https://api.example.com/prefix"],
  ["https//10.0.0.1", undefined],
  ["ftp://10.0.0.1", undefined],
  ["https://", undefined],
  ["https://[::1", undefined],
  ["https://user:pw@10.0.0.1", undefined],
])("--master=%p → %p", (master, want) => {
  expect(normalizeMaster(master)).toBe(want as string);
});
