/**
 * What a flag is (name, type, default, group, usage) and the helper the flag tables are written with.
 * `status: "compat"` marks flags that parse for drop-in compatibility but change nothing.
 */
/** `repeated`: each occurrence is one value (upstream's `namedCertKey`, whose values contain commas). */
export type FlagType = "string" | "bool" | "int" | "float" | "duration" | "list" | "enum" | "repeated";

export type FlagGroup =
  | "Cloud provider"
  | "Generic"
  | "Controllers"
  | "Leader election"
  | "Secure serving"
  | "Authentication"
  | "Authorization"
  | "Webhook serving"
  | "Logging"
  | "Beyond upstream";

export interface FlagSpec {
  readonly name: string;
  readonly type: FlagType;
  readonly default: string;
  readonly group: FlagGroup;
  readonly usage: string;
  readonly status?: "compat";
  readonly options?: readonly string[];
  readonly short?: string;
}

export type Row = readonly [name: string, type: FlagType, def: string, usage: string, extra?: Partial<FlagSpec>];

/** A group's rows become specs; rows keep the table readable. */
export const group = (name: FlagGroup, rows: readonly Row[]): FlagSpec[] =>
  rows.map(([flag, type, def, usage, extra]) => ({ name: flag, type, default: def, group: name, usage, ...extra }));

export const compat = { status: "compat" } as const;
