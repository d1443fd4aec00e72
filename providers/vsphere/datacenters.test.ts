import { describe, expect, test } from "bun:test";
import { incompleteSearch, selectDatacenters } from "./datacenters.ts";
import { readDatacenters } from "./queries.ts";
import type { ObjectContent } from "./soap-xml.ts";

/** A property-collector object: `parent` a Folder's id (the root folder is never in the answer). */
const object = (type: string, id: string, name: string, parent: string): ObjectContent => ({
  obj: { type, value: id },
  props: new Map<string, unknown>([
    ["name", name],
    ["parent", { "@type": "Folder", "#text": parent }],
  ]),
  missing: [],
});

const INVENTORY = readDatacenters([
  object("Datacenter", "dc-1", "dc1", "root"),
  object("Folder", "f-east", "east", "root"),
  object("Folder", "f-lab", "lab", "f-east"),
  object("Datacenter", "dc-2", "dc2", "f-lab"),
  object("Datacenter", "dc-3", "dc1", "f-east"),
]);

describe("the datacenters searched", () => {
  test("each datacenter's inventory path, as govmomi's finder takes it", () => {
    expect(INVENTORY.map((dc) => dc.path)).toEqual(["dc1", "east/lab/dc2", "east/dc1"]);
  });

  test.each<[string, string[], string[], string[]]>([
    ["none configured: every datacenter", [], ["dc-1", "dc-2", "dc-3"], []],
    ["by name, wherever it is (both named dc1)", ["dc1"], ["dc-1", "dc-3"], []],
    ["by inventory path", ["east/lab/dc2"], ["dc-2"], []],
    ["by absolute inventory path", ["/east/dc1"], ["dc-3"], []],
    ["a missing one: the others are still searched", ["dc2", "gone", "east/nope"], ["dc-2"], ["gone", "east/nope"]],
    ["all missing: none searched", ["gone"], [], ["gone"]],
  ])("%s", (_title, configured, searched, missing) => {
    const selection = selectDatacenters(INVENTORY, configured);
    expect([selection.refs.map((r) => r.value), selection.missing]).toEqual([searched, missing]);
  });

  test("a missing datacenter makes the search incomplete, and says what vCenter has", () => {
    expect(incompleteSearch(selectDatacenters(INVENTORY, ["dc2"]))).toBeUndefined();
    expect(incompleteSearch(selectDatacenters(INVENTORY, ["gone"]))).toBe(
      "configured datacenter(s) gone not found in vCenter (it has: dc1, east/lab/dc2, east/dc1), " +
        "so a VM not found in the others is not taken for gone",
    );
  });
});
