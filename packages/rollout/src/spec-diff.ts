// The structural diff of two validated specs: one entry per changed leaf, with the operations that apply it alone to
// the old spec or take it back out of the new one (plan.ts measures each change's lines that way).
//
// Lists of named items (nodes, segments, pools) are matched by name, so appending or removing a node is one change
// and not a shift of every later index; a new order of the same names is one more change of the list itself. Lists
// of scalars are compared whole (`externalVips.addresses: [a, b, c] → [b, c]`), lists of unnamed objects item by
// item when their length is kept and whole otherwise.

type Path = readonly (string | number)[];

export type SpecEdit =
  | {
      readonly kind: "set";
      readonly oldPath: Path;
      readonly newPath: Path;
      readonly old: unknown;
      readonly new: unknown;
    }
  | { readonly kind: "insert"; readonly newPath: Path; readonly new: unknown }
  | { readonly kind: "remove"; readonly oldPath: Path; readonly old: unknown }
  | {
      readonly kind: "reorder";
      readonly oldPath: Path;
      readonly newPath: Path;
      readonly old: readonly string[];
      readonly new: readonly string[];
    };

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

const nameOf = (v: unknown): string | undefined => (isMap(v) && typeof v.name === "string" ? v.name : undefined);

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Every change from `a` to `b`, in the order of `b`'s keys (removed keys after the kept ones). */
export function diffSpecs(a: unknown, b: unknown): SpecEdit[] {
  const out: SpecEdit[] = [];
  walk(a, b, [], [], out);
  return out;
}

function walk(a: unknown, b: unknown, oldPath: Path, newPath: Path, out: SpecEdit[]): void {
  if (deepEqual(a, b)) return;
  if (isMap(a) && isMap(b)) {
    const keys = [...Object.keys(b), ...Object.keys(a).filter((k) => !Object.hasOwn(b, k))];
    for (const k of keys) walk(a[k], b[k], [...oldPath, k], [...newPath, k], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const named = a.length + b.length > 0 && [...a, ...b].every((x) => nameOf(x) !== undefined);
    if (named) {
      walkNamed(a, b, oldPath, newPath, out);
      return;
    }
    if (a.length === b.length && [...a, ...b].every(isMap)) {
      for (const [i, x] of a.entries()) walk(x, b[i], [...oldPath, i], [...newPath, i], out);
      return;
    }
  }
  out.push({ kind: "set", oldPath, newPath, old: a, new: b });
}

function walkNamed(a: readonly unknown[], b: readonly unknown[], oldPath: Path, newPath: Path, out: SpecEdit[]) {
  const oldIndex = new Map(a.map((x, i) => [nameOf(x) ?? "", i]));
  const newIndex = new Map(b.map((x, i) => [nameOf(x) ?? "", i]));
  const keptOld = a.map((x) => nameOf(x) ?? "").filter((n) => newIndex.has(n));
  const keptNew = b.map((x) => nameOf(x) ?? "").filter((n) => oldIndex.has(n));
  if (keptOld.some((n, i) => keptNew[i] !== n))
    out.push({ kind: "reorder", oldPath, newPath, old: keptOld, new: keptNew });
  b.forEach((item, j) => {
    const i = oldIndex.get(nameOf(item) ?? "");
    if (i === undefined) out.push({ kind: "insert", newPath: [...newPath, j], new: item });
    else walk(a[i], item, [...oldPath, i], [...newPath, j], out);
  });
  a.forEach((item, i) => {
    if (!newIndex.has(nameOf(item) ?? "")) out.push({ kind: "remove", oldPath: [...oldPath, i], old: item });
  });
}

// ---- applying one edit ----

/** A copy of `root` whose value at `path` is replaced by what `f` returns for the current one (copies on the way). */
function updateAt(root: unknown, path: Path, f: (current: unknown) => unknown): unknown {
  if (path.length === 0) return f(root);
  const [head, ...rest] = path;
  if (Array.isArray(root) && typeof head === "number") {
    const copy = [...root];
    copy[head] = updateAt(root[head], rest, f);
    return copy;
  }
  const map = isMap(root) ? root : {};
  const next = updateAt(map[head as string], rest, f);
  const copy: Record<string, unknown> = { ...map };
  if (next === undefined) delete copy[head as string];
  else copy[head as string] = next;
  return copy;
}

const parentOf = (path: Path): Path => path.slice(0, -1);
const lastIndex = (path: Path): number => {
  const i = path.at(-1);
  return typeof i === "number" ? i : 0;
};

function reorderLike(list: unknown, order: readonly string[]): unknown {
  if (!Array.isArray(list)) return list;
  const rank = new Map(order.map((n, i) => [n, i]));
  const kept = list
    .filter((x) => rank.has(nameOf(x) ?? ""))
    .sort((x, y) => {
      return (rank.get(nameOf(x) ?? "") ?? 0) - (rank.get(nameOf(y) ?? "") ?? 0);
    });
  // items not in `order` keep their places; the kept ones take the slots of the kept ones, in the new order
  let k = 0;
  return list.map((x) => (rank.has(nameOf(x) ?? "") ? kept[k++] : x));
}

/** The old spec with this one change made. */
export function applyEdit(oldSpec: unknown, edit: SpecEdit): unknown {
  switch (edit.kind) {
    case "set":
      return updateAt(oldSpec, edit.oldPath, () => edit.new);
    case "insert":
      return updateAt(oldSpec, parentOf(edit.newPath), (list) => {
        const l = Array.isArray(list) ? [...list] : [];
        l.splice(Math.min(lastIndex(edit.newPath), l.length), 0, edit.new);
        return l;
      });
    case "remove":
      return updateAt(oldSpec, parentOf(edit.oldPath), (list) =>
        Array.isArray(list) ? list.filter((_, i) => i !== lastIndex(edit.oldPath)) : list,
      );
    case "reorder":
      return updateAt(oldSpec, edit.oldPath, (list) => reorderLike(list, edit.new));
  }
}

/** The new spec with this one change taken back. */
export function revertEdit(newSpec: unknown, edit: SpecEdit): unknown {
  switch (edit.kind) {
    case "set":
      return updateAt(newSpec, edit.newPath, () => edit.old);
    case "insert":
      return updateAt(newSpec, parentOf(edit.newPath), (list) =>
        Array.isArray(list) ? list.filter((_, i) => i !== lastIndex(edit.newPath)) : list,
      );
    case "remove":
      return updateAt(newSpec, parentOf(edit.oldPath), (list) => {
        const l = Array.isArray(list) ? [...list] : [];
        l.splice(Math.min(lastIndex(edit.oldPath), l.length), 0, edit.old);
        return l;
      });
    case "reorder":
      return updateAt(newSpec, edit.newPath, (list) => reorderLike(list, edit.old));
  }
}

/** The path a change is reported at: in the new spec, or in the old one for a removal. */
export const editPath = (edit: SpecEdit): Path => (edit.kind === "remove" ? edit.oldPath : edit.newPath);
export const editOld = (edit: SpecEdit): unknown => (edit.kind === "insert" ? undefined : edit.old);
export const editNew = (edit: SpecEdit): unknown => (edit.kind === "remove" ? undefined : edit.new);

export { deepEqual };
