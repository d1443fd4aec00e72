/**
 * prom-client's registry and metric classes, each from its own file. The package's index also loads its
 * default process metrics, cluster aggregation and Pushgateway (HTTP clients, zlib, OpenTelemetry): a
 * controller thread uses none of them, and parsing and running them cost each thread about 4 MiB
 * (measured in an idle worker: 7.75 MiB with the index, 4 with these files). Only the main thread, which
 * serves the process metrics and merges the threads' snapshots, loads the index (default-metrics.ts,
 * hub.ts); the files are the same modules there, so a class is one class across both.
 */
import type * as PromClient from "prom-client";
import CounterClass from "prom-client/lib/counter";
import GaugeClass from "prom-client/lib/gauge";
import HistogramClass from "prom-client/lib/histogram";
import RegistryClass from "prom-client/lib/registry";

// The package declares types for its index only; each file exports the class the index re-exports.
export const Counter = CounterClass as typeof PromClient.Counter;
export const Gauge = GaugeClass as typeof PromClient.Gauge;
export const Histogram = HistogramClass as typeof PromClient.Histogram;
export const Registry = RegistryClass as typeof PromClient.Registry;

export type Counter<T extends string = string> = PromClient.Counter<T>;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export type Histogram<T extends string = string> = PromClient.Histogram<T>;
export type Registry = PromClient.Registry;
