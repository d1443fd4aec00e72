/**
 * The subset of git-config ("gcfg") INI syntax that upstream's AWS cloud-config uses: `[Section]` and
 * `[Section "subsection"]` headers, `Key = value` lines, `;`/`#` comments, double-quoted values with
 * `\"` and `\\` escapes, and a bare `Key` meaning `true`. Section and key names are case-insensitive.
 */
export interface IniEntry {
  /** Lower-cased section name. */
  readonly section: string;
  /** Subsection as written, or undefined. */
  readonly subsection: string | undefined;
  /** Key as written (for messages); compare with `key.toLowerCase()`. */
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

export type IniResult = { ok: true; entries: IniEntry[] } | { ok: false; errors: string[] };

const HEADER = /^\[\s*([A-Za-z][A-Za-z0-9_.-]*)\s*(?:"((?:[^"\\]|\\.)*)")?\s*\]$/;
const ASSIGNMENT = /^([A-Za-z][A-Za-z0-9_-]*)\s*(?:=\s*(.*))?$/;

function stripComment(text: string): string {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === ";" || c === "#")) return text.slice(0, i);
  }
  return text;
}

/**
 * Unquotes a value; undefined when a quote is left open. As gcfg, whitespace is trimmed only where it is
 * unquoted: `" p w "` keeps its spaces.
 */
export function unquote(raw: string): string | undefined {
  let out = "";
  /** `out`'s length up to its last character that is not unquoted whitespace. */
  let end = 0;
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? "";
    if (c === '"') quoted = !quoted;
    else if (!quoted && /\s/.test(c)) out += out === "" ? "" : c;
    else {
      out += c === "\\" && i + 1 < raw.length ? raw[++i] : c;
      end = out.length;
    }
  }
  return quoted ? undefined : out.slice(0, end);
}

export function parseIni(text: string): IniResult {
  const entries: IniEntry[] = [];
  const errors: string[] = [];
  let section: { name: string; sub: string | undefined } | "broken" | undefined;
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const line = index + 1;
    const content = stripComment(rawLine).trim();
    if (content === "") return;
    const header = HEADER.exec(content);
    if (header) {
      section = {
        name: header[1]!.toLowerCase(),
        sub: header[2] === undefined ? undefined : unquote(`"${header[2]}"`),
      };
      return;
    }
    if (content.startsWith("[")) {
      // One error for a broken header; its keys would only repeat it (as keys of the section before).
      errors.push(
        `line ${line}: malformed section header ${JSON.stringify(rawLine.trim())} (expected [Name] or [Name "sub"])`,
      );
      section = "broken";
      return;
    }
    if (section === "broken") return;
    const assignment = ASSIGNMENT.exec(content);
    if (!assignment) errors.push(`line ${line}: cannot parse ${JSON.stringify(rawLine.trim())}`);
    else if (!section) errors.push(`line ${line}: ${JSON.stringify(assignment[1])} appears before any [section]`);
    else {
      const value = assignment[2] === undefined ? "true" : unquote(assignment[2]);
      if (value === undefined) errors.push(`line ${line}: unterminated quote in the value of ${assignment[1]}`);
      else entries.push({ section: section.name, subsection: section.sub, key: assignment[1]!, value, line });
    }
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, entries };
}

/** gcfg booleans: true/yes/on/1 and false/no/off/0, any case; undefined for anything else. */
export function parseIniBool(value: string): boolean | undefined {
  const v = value.toLowerCase();
  if (["true", "yes", "on", "1"].includes(v)) return true;
  if (["false", "no", "off", "0", ""].includes(v)) return false;
  return undefined;
}
