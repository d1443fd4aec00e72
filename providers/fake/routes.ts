/** Routes over the fake cloud. */
import type { Route, Routes } from "../../src/cloud/provider.ts";
import type { FakeCloudApi } from "./api.ts";
import type { FakeRoute } from "./wire.ts";

export function fakeRoutes(api: FakeCloudApi): Routes {
  return {
    async listRoutes(clusterName, signal) {
      const { routes } = await api.call<{ routes: FakeRoute[] }>("ListRoutes", { clusterName }, signal);
      return routes.map((r): Route => ({ name: r.name, targetNode: r.targetNode, destinationCIDR: r.destinationCIDR, blackhole: r.blackhole }));
    },
    async createRoute(clusterName, nameHint, route, signal) {
      await api.call("CreateRoute", { clusterName, nameHint, targetNode: route.targetNode, destinationCIDR: route.destinationCIDR }, signal);
    },
    async deleteRoute(clusterName, route, signal) {
      await api.call("DeleteRoute", { clusterName, name: route.name }, signal);
    },
  };
}
