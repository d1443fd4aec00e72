/** Cloud-configs in YAML (or JSON, which YAML includes): empty text is an empty mapping. */
export function parseConfigText(text: string | undefined): { raw: unknown } | { error: string } {
  if (text === undefined || text.trim() === "") return { raw: {} };
  try {
    return { raw: Bun.YAML.parse(text) };
  } catch (error) {
    return { error: `not valid YAML or JSON: ${(error as Error).message}` };
  }
}
