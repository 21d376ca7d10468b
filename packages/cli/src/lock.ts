// One writer per output folder. A run that writes a folder first creates `.<name>.clusterspec-lock` beside it,
// holding its pid, host and process start time: written whole into a scratch file named after the run, then linked
// to the lock's name (a hard link fails if the lock exists, and the lock never exists without its content, even
// after a kill -9 or on a full disk); a second run that finds the lock held by a live process exits
// 2 with a message naming that process (it does not wait: a run takes seconds and a script can retry). A lock whose
// process is gone (same host, pid dead or reused by a later process) is stale and is taken over: under a short-lived
// `.lock.break` file, so two runs that both find it stale cannot both remove a fresh lock. A lock from another host is
// never judged stale: the message says which file to remove by hand.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { CliError } from "./errors.js";
import { type FileSystem, UnreadableFileError } from "./fs.js";
import { proveOwn } from "./prove-own.js";

/** Who holds a lock: written into the lock file as JSON. */
export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** The process's start time (Linux: clock ticks since boot, /proc/<pid>/stat field 22); null where unknown. */
  readonly start: string | null;
  /** When the lock was taken (ISO 8601), for the message only. */
  readonly since: string;
  /** Unique per run: a run releases only its own lock. */
  readonly token: string;
}

/** What the lock needs from the process (tests inject other pids and hosts). */
export interface LockProcess {
  readonly pid: number;
  readonly host: string;
  readonly now: () => Date;
  readonly token: () => string;
  /** The start time of a running process, undefined when no process has that pid, null when it cannot be told. */
  readonly startOf: (pid: number) => string | null | undefined;
}

export const lockPath = (outDir: string): string => join(dirname(outDir), `.${basename(outDir)}.clusterspec-lock`);

/** A lock file this long without readable content was left by a run killed while creating it. */
const UNREADABLE_STALE_MS = 10_000;
/**
 * How long to wait for a lock that exists but is not written yet: its run is between the create and the write
 * (microseconds, unless the machine has descheduled it), and once written it names that run in our message.
 */
const UNWRITTEN_WAIT_MS = 100;
const UNWRITTEN_POLL_MS = 5;

function parseOwner(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (
      typeof o.pid === "number" &&
      typeof o.host === "string" &&
      (typeof o.start === "string" || o.start === null) &&
      typeof o.since === "string" &&
      typeof o.token === "string"
    )
      return o as LockOwner;
  } catch {
    // unreadable: handled by the caller
  }
  return undefined;
}

type Holder =
  | { readonly state: "gone" }
  | { readonly state: "live"; readonly owner: LockOwner | undefined; readonly text: string }
  | { readonly state: "stale"; readonly text: string };

function inspect(fs: FileSystem, path: string, proc: LockProcess, outDir: string): Holder {
  proveOwn(fs, path, "file", "a lock file of another run", outDir);
  let text: string;
  try {
    text = fs.readRegular(path, 4096, { noFollow: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { state: "gone" };
    if (!(e instanceof UnreadableFileError)) throw e;
    text = ""; // not a lock this tool wrote: judged by its age below
  }
  const owner = parseOwner(text);
  if (!owner) {
    // Created but not yet written, or written by a run killed half way: stale once it is old.
    const age = fs.ageMs(path);
    if (age === undefined) return { state: "gone" };
    return age > UNREADABLE_STALE_MS ? { state: "stale", text } : { state: "live", owner: undefined, text };
  }
  if (owner.host !== proc.host) return { state: "live", owner, text };
  const start = proc.startOf(owner.pid);
  if (start === undefined) return { state: "stale", text }; // no such process
  if (owner.start !== null && start !== null && start !== owner.start) return { state: "stale", text }; // pid reused
  return { state: "live", owner, text };
}

function heldMessage(outDir: string, path: string, holder: LockOwner | undefined, proc: LockProcess): string {
  const who = holder
    ? `another clusterspec run (pid ${holder.pid}${holder.host === proc.host ? "" : ` on ${holder.host}`}, since ${holder.since})`
    : "another clusterspec run";
  const remote = holder !== undefined && holder.host !== proc.host;
  return (
    `${who} is writing ${outDir}: run again when it has finished` +
    (remote
      ? ` (a lock from another host is never taken over: if that run is gone, remove ${path})`
      : ` (its lock is ${path})`)
  );
}

/**
 * Takes the folder's lock or throws a CliError (exit 2, kind `locked`) naming the run that holds it. Returns the
 * release function, which removes the lock only while it is still this run's.
 */
export function acquireOutputLock(fs: FileSystem, outDir: string, proc: LockProcess): () => void {
  const path = lockPath(outDir);
  const breaker = `${path}.break`;
  const owner: LockOwner = {
    pid: proc.pid,
    host: proc.host,
    start: proc.startOf(proc.pid) ?? null,
    since: proc.now().toISOString(),
    token: proc.token(),
  };
  const text = `${JSON.stringify(owner)}\n`;
  const create = (target: string) => createWhole(fs, target, text, owner);
  let last: LockOwner | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (create(path)) {
      return () => {
        removeDeadScratch(fs, path, proc, outDir);
        try {
          if (parseOwner(fs.readRegular(path, 4096, { noFollow: true }))?.token === owner.token) fs.removeFile(path);
        } catch {
          // already gone
        }
      };
    }
    let holder = inspect(fs, path, proc, outDir);
    for (let waited = 0; unwritten(holder) && waited < UNWRITTEN_WAIT_MS; waited += UNWRITTEN_POLL_MS) {
      sleep(UNWRITTEN_POLL_MS);
      holder = inspect(fs, path, proc, outDir);
    }
    if (holder.state === "gone") continue;
    if (holder.state === "live") {
      last = holder.owner;
      throw new CliError(heldMessage(outDir, path, holder.owner, proc), "locked");
    }
    // Stale: remove it only while holding the breaker, and only if it is still the same stale lock.
    if (create(breaker)) {
      try {
        const again = inspect(fs, path, proc, outDir);
        if (again.state === "stale" && again.text === holder.text) fs.removeFile(path);
      } finally {
        fs.removeFile(breaker);
      }
    } else if (inspect(fs, breaker, proc, outDir).state === "stale") fs.removeFile(breaker);
    else sleep(20); // another run is breaking it: microseconds
  }
  throw new CliError(heldMessage(outDir, path, last, proc), "locked");
}

/**
 * The scratch file a run writes its lock text into before linking it: `<lock>.<pid>-<start>` (or `<lock>.break.…`).
 * The name says whose it is, so one left by a run killed before it removed it is told dead by its name alone.
 */
const scratchPath = (target: string, owner: Pick<LockOwner, "pid" | "start">) =>
  `${target}.${owner.pid}-${owner.start ?? "x"}`;
const SCRATCH = /^(?:\.break)?\.(\d+)-([A-Za-z0-9]+)$/;

/** Creates `target` holding `text` whole, only if nothing is there; false when something is. */
function createWhole(fs: FileSystem, target: string, text: string, owner: LockOwner): boolean {
  const scratch = scratchPath(target, owner);
  fs.removeFile(scratch); // only this process makes this name: what is there is its own earlier, interrupted try
  try {
    fs.writeFile(scratch, text, 0o644);
    return fs.linkExclusive(scratch, target);
  } finally {
    fs.removeFile(scratch);
  }
}

/**
 * Called holding the lock, as it is released (so the run's own listing of the folder comes first): removes the
 * scratch files of runs that were killed between writing and removing them (their process is gone, or the pid now
 * belongs to a later process). A live run's scratch is left alone, and so is one that is not this user's own (it
 * is not clusterspec's: skipped, never followed).
 */
function removeDeadScratch(fs: FileSystem, path: string, proc: LockProcess, outDir: string): void {
  const prefix = basename(path);
  for (const name of fs.listDir(dirname(path))) {
    if (!name.startsWith(prefix)) continue;
    const m = SCRATCH.exec(name.slice(prefix.length));
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === proc.pid) continue;
    const start = proc.startOf(pid);
    const dead = start === undefined || (m[2] !== "x" && start !== null && start !== m[2]);
    if (!dead) continue;
    const scratch = join(dirname(path), name);
    try {
      proveOwn(fs, scratch, "file", "a lock file of another run", outDir);
    } catch {
      continue;
    }
    fs.removeFile(scratch);
  }
}

/** Held, but by a run that has not written who it is yet. */
const unwritten = (holder: Holder): boolean => holder.state === "live" && holder.owner === undefined;

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Linux: field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function startOf(pid: number): string | null | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || fields[0] === "X") return undefined; // killed, not yet reaped
    return fields[19] ?? null;
  } catch {
    // no /proc (or no such pid): ask the kernel whether the pid exists
  }
  try {
    process.kill(pid, 0);
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM" ? null : undefined;
  }
}

export const nodeLockProcess: LockProcess = {
  pid: process.pid,
  host: hostname(),
  now: () => new Date(),
  token: () => randomBytes(8).toString("hex"),
  startOf,
};
