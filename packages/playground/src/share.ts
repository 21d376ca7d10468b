// The share link: the spec, deflated and base64url-encoded, in the URL's #fragment. Browsers never send a
// fragment to the server (RFC 3986 §3.5: "the fragment identifier is not used in the scheme-specific processing
// of a URI"; the Fetch standard strips it from every request), so a shared spec stays between the two people.
import { deflateSync, inflateSync, strFromU8, strToU8 } from "fflate";

/** The fragment's key: `#spec=<base64url of the raw-deflated UTF-8 text>`. */
export const SHARE_KEY = "spec";

/** `spec=…`, the fragment (without `#`) that carries `text`. */
export function shareFragment(text: string): string {
  const packed = deflateSync(strToU8(text), { level: 9 });
  // Latin-1 maps each byte to one char, which is what btoa encodes.
  const base64 = btoa(strFromU8(packed, true));
  return `${SHARE_KEY}=${base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;
}

/**
 * The spec a fragment carries (`#spec=…` or `spec=…`, among other `&`-separated keys): undefined when it carries
 * none, an Error when it carries one that does not decode (a link cut short when it was copied).
 */
export function specFromFragment(hash: string): string | Error | undefined {
  const value = new URLSearchParams(hash.replace(/^#/, "")).get(SHARE_KEY);
  if (value === null) return undefined;
  try {
    if (!/^[A-Za-z0-9_-]*$/.test(value)) throw new Error("not base64url");
    const base64 = value.replace(/-/g, "+").replace(/_/g, "/");
    const bytes = strToU8(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "=")), true);
    return new TextDecoder("utf-8", { fatal: true }).decode(inflateSync(bytes));
  } catch {
    return new Error("the share link's spec does not decode: was the link cut short when it was copied?");
  }
}
