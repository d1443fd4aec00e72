import { expect, test } from "bun:test";
import type { Route } from "../../cloud/provider.ts";
import { RouteView } from "./route-view.ts";

const route = (name: string, cidr: string): Route => ({
  name,
  targetNode: `node-${name}`,
  destinationCIDR: cidr,
  blackhole: false,
});

test("the view is the listing plus our creates, less our deletes, in that order", () => {
  const view = new RouteView();
  expect(view.routes).toBeUndefined();
  const [a, b, c] = [route("a", "10.0.0.0/24"), route("b", "10.0.1.0/24"), route("c", "10.0.2.0/24")];
  view.replace([a, b]);
  view.created(c, c);
  view.deleted(a);
  expect(view.routes).toEqual([b, c]);
  view.replace([a]);
  expect(view.routes).toEqual([a]);
});

test("a route the provider did not name is not deletable until a listing replaces the view", () => {
  const view = new RouteView();
  view.replace([]);
  const requested = route("", "10.0.3.0/24");
  view.created(requested);
  expect(view.routes).toEqual([requested]);
  expect(view.deletable(requested)).toBe(false);
  const named = route("r-1", "10.0.4.0/24");
  view.created(named, named);
  expect(view.deletable(named)).toBe(true);
  view.replace([]);
  expect(view.deletable(requested)).toBe(true);
});

test("what routes returns is a copy: later creates do not change a pass's snapshot", () => {
  const view = new RouteView();
  view.replace([route("a", "10.0.0.0/24")]);
  const snapshot = view.routes;
  view.created(route("b", "10.0.1.0/24"), route("b", "10.0.1.0/24"));
  expect(snapshot).toHaveLength(1);
  expect(view.routes).toHaveLength(2);
});
