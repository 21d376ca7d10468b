// Colour on a terminal, plain when piped; NO_COLOR (https://no-color.org) turns it off, FORCE_COLOR on.

/** `isTTY` is asked last: finding out loads Node's terminal modules, which a run with NO_COLOR never needs. */
export function useColor(env: Readonly<Record<string, string | undefined>>, isTTY: () => boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return env.TERM !== "dumb" && isTTY();
}

export interface Paint {
  readonly red: (t: string) => string;
  readonly green: (t: string) => string;
  readonly yellow: (t: string) => string;
  readonly cyan: (t: string) => string;
  readonly dim: (t: string) => string;
}

export function paint(on: boolean): Paint {
  const c = (code: string) => (t: string) => (on ? `\x1b[${code}m${t}\x1b[0m` : t);
  return { red: c("31"), green: c("32"), yellow: c("33"), cyan: c("36"), dim: c("2") };
}

/** A unified diff with removed lines red and added lines green. */
export function paintPatch(patch: string, p: Paint): string {
  return patch
    .split("\n")
    .map((l) =>
      l.startsWith("+++") || l.startsWith("---")
        ? p.dim(l)
        : l.startsWith("+")
          ? p.green(l)
          : l.startsWith("-")
            ? p.red(l)
            : l.startsWith("@@")
              ? p.cyan(l)
              : l,
    )
    .join("\n");
}
