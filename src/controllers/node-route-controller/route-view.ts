/**
 * The controller's view of the cloud's routes between two `listRoutes` calls: the last listing plus the
 * creates and deletes this controller made since. Node events are answered from it, so reacting to a
 * Node costs no listing; each listing replaces it whole.
 *
 * A create or delete changes the view in constant time: a cold start creates a route per Node in one
 * pass, and copying the whole list at each (as this did) made that pass quadratic (20,000 copies of up
 * to 20,000 routes, 1.6 GB of garbage, on the route controller's one thread).
 */
import type { Route } from "../../cloud/provider.ts";

export class RouteView {
  #routes: Set<Route> | undefined;
  /** Routes created since the last listing whose cloud name we do not know: not deletable yet. */
  readonly #unnamed = new Set<Route>();

  /** Undefined until the first listing; otherwise a copy, in listing then creation order. */
  get routes(): readonly Route[] | undefined {
    return this.#routes && [...this.#routes];
  }

  replace(listed: readonly Route[]): void {
    this.#routes = new Set(listed);
    this.#unnamed.clear();
  }

  /** `reported`: what `createRoute` resolved with, if the provider tells. */
  created(requested: Route, reported: Route | void): void {
    const route = reported ?? requested;
    if (!reported) this.#unnamed.add(route);
    (this.#routes ??= new Set()).add(route);
  }

  deleted(route: Route): void {
    this.#routes?.delete(route);
    this.#unnamed.delete(route);
  }

  /** Whether `deleteRoute` can be given this route (the provider named it in a listing or on create). */
  deletable(route: Route): boolean {
    return !this.#unnamed.has(route);
  }
}
