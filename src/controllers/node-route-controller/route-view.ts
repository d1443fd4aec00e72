/**
 * The controller's view of the cloud's routes between two `listRoutes` calls: the last listing plus the
 * creates and deletes this controller made since. Node events are answered from it, so reacting to a
 * Node costs no listing; each listing replaces it whole.
 */
import type { Route } from "../../cloud/provider.ts";

export class RouteView {
  #routes: Route[] | undefined;
  /** Routes created since the last listing whose cloud name we do not know: not deletable yet. */
  readonly #unnamed = new Set<Route>();

  /** Undefined until the first listing. */
  get routes(): readonly Route[] | undefined {
    return this.#routes;
  }

  replace(listed: readonly Route[]): void {
    this.#routes = [...listed];
    this.#unnamed.clear();
  }

  /** `reported`: what `createRoute` resolved with, if the provider tells. */
  created(requested: Route, reported: Route | void): void {
    const route = reported ?? requested;
    if (!reported) this.#unnamed.add(route);
    this.#routes = [...(this.#routes ?? []), route];
  }

  deleted(route: Route): void {
    this.#routes = (this.#routes ?? []).filter((r) => r !== route);
  }

  /** Whether `deleteRoute` can be given this route (the provider named it in a listing or on create). */
  deletable(route: Route): boolean {
    return !this.#unnamed.has(route);
  }
}
