/**
 * `/metrics/slis`: upstream's health-check SLIs, on a registry of their own as upstream serves them.
 * Every check a health endpoint runs is recorded: `kubernetes_healthcheck` holds its last result (1 ok,
 * 0 failed), `kubernetes_healthchecks_total` counts results; `type` is the endpoint (healthz, livez, readyz).
 */
import { Counter, Gauge, Registry } from "./prom.ts";

export interface HealthSlis {
  record(type: string, name: string, healthy: boolean): void;
  render(): Promise<{ contentType: string; body: string }>;
}

export function createHealthSlis(): HealthSlis {
  const registry = new Registry();
  const registers = [registry];
  const last = new Gauge({
    name: "kubernetes_healthcheck",
    help: "This metric records the result of a single healthcheck.",
    labelNames: ["name", "type"],
    registers,
  });
  const total = new Counter({
    name: "kubernetes_healthchecks_total",
    help: "This metric records the results of all healthcheck.",
    labelNames: ["name", "status", "type"],
    registers,
  });
  return {
    record(type, name, healthy) {
      last.set({ name, type }, healthy ? 1 : 0);
      total.inc({ name, type, status: healthy ? "success" : "error" });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
