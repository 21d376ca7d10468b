// The one redaction every byte the command prints goes through (run.ts wraps stdout and stderr with it; main.ts's
// last-resort handler too). It knows every secret value the run resolved, as the secret resolver read it, and the
// forms a message could carry it in: the value, each of its lines (a peer-key list holds one key per burst slot),
// and their base64 (cloud-init and Terraform carry files base64-encoded), also where the encoded value starts at
// any offset of a longer encoded text. A message, a warning (an overlay's "was …"), a diff, a --json document, an
// internal error's message and stack: whatever quotes a secret shows REDACTED in its place.

/** What stands in place of a secret in printed text. */
export const REDACTED = "[redacted]";

/** A value shorter than this is replaced only where it stands alone (not inside a longer word), see `apply`. */
const SHORT = 6;
/** Characters that continue a word for a short value: those of a VRRP password (secrets.ts) and base64. */
const WORD = "A-Za-z0-9_.:/+=,%-";

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/**
 * The base64 text that encodes `bytes` wherever they sit in a longer encoded text: for each of the three offsets
 * the bytes can start at, the encoding of the whole 3-byte groups that lie inside them (the edges depend on the
 * neighbouring bytes). Only parts long enough to say something: a short one would match unrelated text.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const forms = [bytes.toString("base64"), Buffer.from(`${value}\n`, "utf8").toString("base64")];
  for (let start = 0; start < 3; start++) {
    const whole = Math.floor((bytes.length - start) / 3) * 3;
    if (whole < 12) continue;
    forms.push(bytes.subarray(start, start + whole).toString("base64"));
  }
  return forms;
}

export class Redaction {
  readonly #values = new Set<string>();
  /** The forms of at least SHORT characters by their first two UTF-16 units (as one number), longest first. */
  #byPrefix: Map<number, string[]> | undefined;
  #short: RegExp | null | undefined;

  /** A resolved secret value: it, its lines and their base64 forms are never printed from now on. */
  add(value: string): void {
    const parts = [value, value.trim(), ...value.split(/\r?\n/).map((l) => l.trim())].filter((p) => p !== "");
    for (const p of parts) for (const form of [p, ...base64Forms(p)]) this.#values.add(form);
    this.#byPrefix = undefined;
    this.#short = undefined;
  }

  /** Whether any secret is known (nothing to do otherwise: a run without --with-secrets prints as it is). */
  get empty(): boolean {
    return this.#values.size === 0;
  }

  /**
   * `text` with every known secret form replaced by REDACTED, the longest form first where several start at one
   * place. A value shorter than 6 characters (a VRRP password may have one) is replaced where it stands alone, so
   * that a password `ab` does not take every `ab` out of the messages; `auth_pass ab` and `"ab"` show it redacted.
   * One pass over the text with a lookup of the next two characters (not one regular expression of every form: a
   * key list of 1,400 burst slots makes thousands of forms, more than V8 compiles into one expression).
   */
  apply(text: string): string {
    if (this.#values.size === 0) return text;
    const byPrefix = this.#index();
    let out = "";
    let last = 0;
    for (let i = 0; i + SHORT <= text.length; ) {
      const candidates = byPrefix.get(text.charCodeAt(i) * 65536 + text.charCodeAt(i + 1));
      const hit = candidates?.find((form) => text.startsWith(form, i));
      if (hit === undefined) {
        i++;
        continue;
      }
      out += `${text.slice(last, i)}${REDACTED}`;
      i += hit.length;
      last = i;
    }
    out += text.slice(last);
    return this.#short ? out.replace(this.#short, REDACTED) : out;
  }

  #index(): Map<number, string[]> {
    if (this.#byPrefix === undefined) {
      const byPrefix = new Map<number, string[]>();
      const short: string[] = [];
      for (const form of [...this.#values].sort((a, b) => b.length - a.length)) {
        if (form.length < SHORT) {
          short.push(literal(form));
          continue;
        }
        const prefix = form.charCodeAt(0) * 65536 + form.charCodeAt(1);
        const list = byPrefix.get(prefix);
        if (list) list.push(form);
        else byPrefix.set(prefix, [form]);
      }
      this.#byPrefix = byPrefix;
      this.#short = short.length > 0 ? new RegExp(`(?<![${WORD}])(?:${short.join("|")})(?![${WORD}])`, "g") : null;
    }
    return this.#byPrefix;
  }
}
