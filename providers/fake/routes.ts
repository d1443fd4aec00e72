/** Routes over the fake cloud. */
import type { Route, Routes } from "../../src/cloud/provider.ts";
import type { FakeCloudApi } from "./api.ts";
import type { FakeRoute } from "./wire.ts";

const routeOf = (r: FakeRoute): Route => ({
  name: r.name,
  targetNode: r.targetNode,
  destinationCIDR: r.destinationCIDR,
  blackhole: r.blackhole,
});

export function fakeRoutes(api: FakeCloudApi): Routes {
  return {
    async listRoutes(clusterName, signal) {
      const { routes } = await api.call<{ routes: FakeRoute[] }>("ListRoutes", { clusterName }, signal);
      return routes.map(routeOf);
    },
    async createRoute(clusterName, nameHint, route, signal) {
      const created = await api.call<{ route: FakeRoute }>(
        "CreateRoute",
        { clusterName, nameHint, targetNode: route.targetNode, destinationCIDR: route.destinationCIDR },
        signal,
      );
      return routeOf(created.route);
    },
    async deleteRoute(clusterName, route, signal) {
      await api.call("DeleteRoute", { clusterName, name: route.name }, signal);
    },
  };
}
