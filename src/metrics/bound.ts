/**
 * Counters and histograms for the per-request hot path: a series is bound once to its label values and
 * then counts with plain arithmetic (prom-client hashes the label object on every observation, a few
 * percent of a busy client's CPU). They register in a prom-client Registry like its own metrics and
 * render, merge across threads and read back (`get()`) in the same shape.
 */
import type { MetricObjectWithValues, MetricValue, MetricValueWithName, Registry } from "prom-client";

type Labels<L extends string> = Readonly<Record<L, string>>;

interface Definition<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly registers: readonly Registry[];
}

/** One series' cell, reached without hashing: the caller keeps it. */
export interface BoundCounter {
  inc(value?: number): void;
}

export interface BoundHistogram {
  observe(value: number): void;
}

abstract class BoundMetric<L extends string, C> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = "sum";
  readonly #labelNames: readonly L[];
  readonly #series = new Map<string, { labels: Labels<L>; cell: C }>();

  constructor(d: Definition<L>) {
    this.name = d.name;
    this.help = d.help;
    this.#labelNames = d.labelNames;
    for (const registry of d.registers) registry.registerMetric(this as never);
  }

  protected series(labels: Labels<L>, create: () => C): C {
    const key = this.#labelNames.map((n) => labels[n]).join("\u0000");
    let entry = this.#series.get(key);
    if (!entry) this.#series.set(key, (entry = { labels: { ...labels }, cell: create() }));
    return entry.cell;
  }

  protected entries(): IterableIterator<{ labels: Labels<L>; cell: C }> {
    return this.#series.values();
  }

  protected snapshot<V extends MetricValue<string>>(
    type: "counter" | "histogram",
    values: V[],
  ): Promise<MetricObjectWithValues<V>> {
    // Plain data only, as prom-client's own get(): controller threads post it to the main thread.
    const snapshot = { name: this.name, help: this.help, type, aggregator: this.aggregator, values };
    return Promise.resolve(snapshot as unknown as MetricObjectWithValues<V>);
  }

  reset(): void {
    this.#series.clear();
  }
}

export class LabelledCounter<L extends string> extends BoundMetric<L, { value: number }> {
  readonly type = "counter";

  /** The series for `labels`; keep it and count through it. */
  bind(labels: Labels<L>): BoundCounter {
    const cell = this.series(labels, () => ({ value: 0 }));
    return { inc: (value = 1): void => void (cell.value += value) };
  }

  get(): Promise<MetricObjectWithValues<MetricValue<L>>> {
    return this.snapshot(
      this.type,
      [...this.entries()].map(({ labels, cell }) => ({ labels, value: cell.value })),
    );
  }
}

interface HistogramCell {
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class LabelledHistogram<L extends string> extends BoundMetric<L, HistogramCell> {
  readonly type = "histogram";
  readonly #buckets: readonly number[];

  constructor(d: Definition<L> & { readonly buckets: readonly number[] }) {
    super(d);
    this.#buckets = [...d.buckets].sort((a, b) => a - b);
  }

  bind(labels: Labels<L>): BoundHistogram {
    const buckets = this.#buckets;
    const cell = this.series(labels, () => ({ counts: new Float64Array(buckets.length), sum: 0, count: 0 }));
    return {
      observe(value: number): void {
        cell.sum += value;
        cell.count += 1;
        for (let i = 0; i < buckets.length; i++) {
          if (value <= (buckets[i] as number)) {
            cell.counts[i] = (cell.counts[i] as number) + 1;
            return;
          }
        }
      },
    };
  }

  get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const values: MetricValueWithName<string>[] = [];
    for (const { labels, cell } of this.entries()) {
      let cumulative = 0;
      this.#buckets.forEach((le, i) => {
        cumulative += cell.counts[i] as number;
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: "+Inf", ...labels }, value: cell.count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: cell.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: cell.count, metricName: `${this.name}_count` });
    }
    return this.snapshot(this.type, values);
  }
}
