// wg-quick configs are INI: each section is serialised with the `ini` package. Two things WireGuard reads
// differently from `ini`: sections repeat ([Peer] once per peer), so each section is stringified on its
// own; and values are never quoted, while `ini` quotes any value holding '=' (every base64 key ends in
// '='). Values are therefore limited to characters WireGuard and `ini` read the same way, and the quotes
// `ini` added around such a value are taken off again; anything else is refused.
import { InternalError } from "@clusterspec/core";
import ini from "ini";

export interface IniSection {
  readonly name: "Interface" | "Peer";
  /** Comment lines written above the section. */
  readonly comments?: readonly string[];
  readonly values: Readonly<Record<string, string | number>>;
}

// Keys, addresses, CIDR lists, host:port and numbers: nothing that starts a comment, quotes or escapes.
const SAFE_VALUE = /^[A-Za-z0-9+/=.:,[\] -]*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const COMMENT_UNSAFE = /[\u0000-\u001f\u007f\u2028\u2029]/;

function stringifySection(section: IniSection): string {
  const values: Record<string, string> = {};
  for (const [key, raw] of Object.entries(section.values)) {
    const value = String(raw);
    if (!SAFE_VALUE.test(value) || value !== value.trim() || value === "")
      throw new InternalError(`WireGuard value ${JSON.stringify(value)} of ${key} cannot be written unquoted`);
    values[key] = value;
  }
  const text = ini.stringify({ [section.name]: values }, { whitespace: true });
  // ini quotes values that hold '=' as JSON strings; WireGuard reads the value up to the line end, unquoted.
  const unquoted = text.replace(/^([A-Za-z]+) = "([A-Za-z0-9+/=.:,[\] -]*)"$/gm, "$1 = $2");
  const back = ini.parse(text) as Record<string, Record<string, string>>;
  if (JSON.stringify(back[section.name]) !== JSON.stringify(values))
    throw new InternalError(`section [${section.name}] does not read back as written`);
  return (section.comments ?? []).map(comment).join("") + unquoted;
}

function comment(c: string): string {
  if (COMMENT_UNSAFE.test(c)) throw new InternalError("a comment must be one line");
  return `# ${c}\n`;
}

/**
 * A wg-quick config: a header comment, the sections separated by blank lines, then closing comment lines;
 * LF, one trailing newline.
 */
export function renderWireguardConfig(
  header: string,
  sections: readonly IniSection[],
  closing: readonly string[] = [],
): string {
  const blocks = sections.map((s) => stringifySection(s).trimEnd());
  if (closing.length > 0) blocks.push(closing.map(comment).join("").trimEnd());
  return `${comment(header)}${blocks.join("\n\n")}\n`;
}
