/**
 * The value a spec record holds under `key`, or undefined: only the record's own keys count, so a name such as
 * `toString` or `constructor` never finds what `Object.prototype` holds (issue 16). Use it for every lookup of a
 * spec key in a record (interfaces, labels, sysctl, flags).
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
