// A folder read back as `{ "relative/path": "<octal mode>:<content>" }`, for comparing written trees.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out[relative(dir, full)] = `${(statSync(full).mode & 0o777).toString(8)}:${readFileSync(full, "utf8")}`;
    }
  };
  walk(dir);
  return out;
}

/** One hash of a folder as readTree sees it (paths, modes, contents), for comparing trees across runs. */
export function treeHash(dir: string): string {
  const t = readTree(dir);
  return createHash("sha256")
    .update(
      JSON.stringify(
        Object.keys(t)
          .sort()
          .map((k) => [k, t[k]]),
      ),
    )
    .digest("hex");
}
