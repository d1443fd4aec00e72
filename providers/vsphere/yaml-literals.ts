/**
 * Upstream decodes vsphere.conf with yaml.v2 into string fields, which keep a scalar's text as written:
 * `password: 0123` is "0123", `datacenters: [2023]` is ["2023"]. Bun's YAML parser gives numbers and
 * booleans instead, and loses how they were written (0123 and 123 both read 123). The text is recovered
 * from the file: a number or boolean is replaced by its spelling when exactly one spelling in the file
 * reads as that value; when none or several do, it is left as it is, and the reader asks to quote it.
 */
import { isMapping, type Raw } from "../shared/config-reader.ts";

type Scalar = number | boolean;

export const isScalar = (value: unknown): value is Scalar => typeof value === "number" || typeof value === "boolean";

/** What YAML reads a lone token as; undefined when it is not a number or boolean. */
function readToken(token: string): Scalar | undefined {
  try {
    const value: unknown = Bun.YAML.parse(token);
    return isScalar(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The spellings in `text` of each number and boolean: the tokens between YAML's separators (whitespace
 * and flow indicators) that YAML reads as one. Tokens of comments count too, which can only make a
 * value ambiguous, never give it another spelling.
 */
export function scalarSpellings(text: string): Map<Scalar, Set<string>> {
  const out = new Map<Scalar, Set<string>>();
  for (const token of new Set(text.split(/[\s[\]{},]+/))) {
    const value = token === "" ? undefined : readToken(token);
    if (value !== undefined) out.set(value, (out.get(value) ?? new Set()).add(token));
  }
  return out;
}

/** `value`'s spelling when it is the only one in the file; else `value` itself. */
function spelled(value: unknown, spellings: Map<Scalar, Set<string>>): unknown {
  if (Array.isArray(value)) return value.map((item) => spelled(item, spellings));
  if (!isScalar(value)) return value;
  const found = spellings.get(value);
  return found?.size === 1 ? [...found][0] : value;
}

const spelledMapping = (raw: Raw, spellings: Map<Scalar, Set<string>>): Raw =>
  Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, spelled(v, spellings)]));

/** Sections (and under `vcenter`, entries) whose scalars upstream reads as text. */
const TEXT_SECTIONS = ["global", "labels", "nodes"];

/**
 * `raw` with the numbers and booleans of upstream's sections spelled as `text` writes them (the
 * `loadBalancers` section, this project's, is read as typed). Fields upstream types as numbers or
 * booleans (port, insecureFlag) read their spelling alike.
 */
export function withSpellings(raw: Raw, text: string): Raw {
  const spellings = scalarSpellings(text);
  const out: Raw = { ...raw };
  for (const section of TEXT_SECTIONS) {
    const value = raw[section];
    if (isMapping(value)) out[section] = spelledMapping(value, spellings);
  }
  const vcenters = raw.vcenter;
  if (isMapping(vcenters))
    out.vcenter = Object.fromEntries(
      Object.entries(vcenters).map(([name, entry]) => [
        name,
        isMapping(entry) ? spelledMapping(entry, spellings) : entry,
      ]),
    );
  return out;
}

/** Why a number or boolean left in a text field is refused: its spelling, which upstream reads, is lost. */
export const unspelled = (value: Scalar): string =>
  `reads as the ${typeof value} ${String(value)}, and the file spells that value more than one way ` +
  `(upstream keeps the text as written): quote it`;
