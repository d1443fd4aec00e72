/** A typed view over the parsed flag text: every failed conversion appends one error line naming the flag. */
import { FLAGS, type FlagSpec } from "./flags.ts";
import { parseBool, parseByteQuantity, parseDuration, parseInteger, parseNumber, splitList } from "./values.ts";

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);
const NOT_A_DURATION = "must be a duration such as 300ms, 10s or 5m0s";

export class FlagReader {
  readonly errors: string[] = [];
  readonly #values: ReadonlyMap<string, string>;

  constructor(values: ReadonlyMap<string, string>) {
    this.#values = values;
  }

  text(name: string): string {
    return this.#values.get(name) ?? spec(name).default;
  }

  defaultOf(name: string): string {
    return spec(name).default;
  }

  isSet(name: string): boolean {
    return this.#values.has(name);
  }

  fail(name: string, reason: string): void {
    this.errors.push(`invalid value ${JSON.stringify(this.text(name))} for flag --${name}: ${reason}`);
  }

  bool(name: string): boolean {
    const value = parseBool(this.text(name));
    if (value === undefined) this.fail(name, "must be true or false");
    return value ?? false;
  }

  /** An integer flag; upstream's are int32, so that is the widest range. */
  int(name: string, min = INT32_MIN, max = INT32_MAX): number {
    const value = parseInteger(this.text(name));
    if (value === undefined) this.fail(name, "must be an integer");
    else if (value < min) this.fail(name, `must be at least ${min}`);
    else if (value > max) this.fail(name, `must be at most ${max}`);
    return value ?? 0;
  }

  number(name: string, min = 0): number {
    const value = parseNumber(this.text(name));
    if (value === undefined) this.fail(name, "must be a number");
    else if (value < min) this.fail(name, `must be at least ${min}`);
    return value ?? 0;
  }

  /** `rule`: "any" takes what pflag takes (a negative value too), for a value nothing will use. */
  duration(name: string, rule: "positive" | "non-negative" | "any" = "non-negative"): number {
    const value = parseDuration(this.text(name));
    if (value === undefined) this.fail(name, NOT_A_DURATION);
    else if (rule === "positive" && value <= 0) this.fail(name, "must be positive");
    else if (rule === "non-negative" && value < 0) this.fail(name, "must not be negative");
    return value ?? 0;
  }

  /**
   * What pflag's `Set` refuses before any command runs: a value that does not read as its flag's type
   * (a number, a boolean, a duration). Ranges and meanings are for the other readers.
   */
  syntax(name: string): void {
    const type = spec(name).type;
    if (type === "bool") this.bool(name);
    if (type === "int") this.int(name);
    if (type === "float") this.number(name, Number.NEGATIVE_INFINITY);
    // Not `duration`, which also refuses a negative one.
    if (type === "duration" && parseDuration(this.text(name)) === undefined) this.fail(name, NOT_A_DURATION);
  }

  list(name: string): string[] {
    return splitList(this.text(name));
  }

  /** Each occurrence of a `repeated` flag. */
  occurrences(name: string): string[] {
    return this.text(name)
      .split("\n")
      .filter((v) => v !== "");
  }

  /** A byte quantity such as 512, 1K, 2Ki or 5Mi. */
  bytes(name: string): number {
    const value = parseByteQuantity(this.text(name));
    if (value === undefined) this.fail(name, "must be a byte quantity such as 512, 1K, 2Ki or 5Mi");
    return value ?? 0;
  }

  choice<T extends string>(name: string): T {
    const value = this.text(name);
    const options = spec(name).options ?? [];
    if (!options.includes(value)) this.fail(name, `must be one of ${options.filter(Boolean).join(", ")}`);
    return value as T;
  }
}

function spec(name: string): FlagSpec {
  const found = FLAGS.find((s) => s.name === name);
  if (!found) throw new Error(`flag --${name} is not defined`);
  return found;
}
