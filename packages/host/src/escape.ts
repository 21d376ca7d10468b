// Escapes for the host's line formats. Each returns text its reader turns back into the input, or throws.
import { InternalError, shellDoubleQuoted, withoutControlCharacters } from "@clusterspec/core";

function noControl(value: unknown, where: string): string {
  if (typeof value !== "string" && typeof value !== "number")
    throw new InternalError(`${where} value must be a string or number, got ${typeof value}`);
  return withoutControlCharacters(String(value), `${where} value`);
}

/** Inside shell double quotes (OpenRC conf.d files are sourced by the shell). */
export const shellValue = (value: unknown): string => shellDoubleQuoted(noControl(value, "shell"));

/** A `#` comment or a whole line: anything but a line break is harmless there. */
export const lineText = (value: unknown): string => noControl(value, "line");

/** One whitespace-separated field (hosts, resolv.conf, sysctl key): no blanks, no `#`. */
export function field(value: unknown): string {
  const text = noControl(value, "field");
  if (text === "" || /[\s#"'\\]/.test(text)) throw new InternalError(`${JSON.stringify(text)} cannot be one field`);
  return text;
}

/** A sysctl.d value: the rest of the line, trimmed by sysctl; leading/trailing blanks would be lost. */
export function sysctlValue(value: unknown): string {
  const text = noControl(value, "sysctl");
  if (text !== text.trim()) throw new InternalError(`sysctl value ${JSON.stringify(text)} has surrounding blanks`);
  return text;
}

/** Inside udev's `"…"`: udev has no escape for `"`, so quotes and backslashes throw. */
export function udevValue(value: unknown): string {
  const text = noControl(value, "udev");
  if (/["\\]/.test(text)) throw new InternalError(`udev value ${JSON.stringify(text)} contains a quote or backslash`);
  return text;
}

/** One nftables word (an interface name inside `"…"`, an address, a network): letters, digits and `_.:/-` only. */
export function nftToken(value: unknown): string {
  const text = noControl(value, "nftables");
  if (!/^[A-Za-z0-9_.:/-]+$/.test(text)) throw new InternalError(`${JSON.stringify(text)} cannot be an nftables word`);
  return text;
}
