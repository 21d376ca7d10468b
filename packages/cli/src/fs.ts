// The file-system calls the CLI makes, behind one small interface so tests can inject failures.
import * as nodeFs from "node:fs";
import { dirname, join, relative, sep } from "node:path";

/**
 * A spec larger than this is refused before it is parsed: a valid spec of 1,000 nodes is about 300 KB, and parsing
 * YAML costs seconds per MB, so a 10,000-node spec (3 MB) is refused at once instead of after its parse.
 */
export const SPEC_MAX_BYTES = 2 * 1024 * 1024;
/** A secret file larger than this is refused unread: a key list for 1,400 WireGuard burst slots fits. */
export const SECRET_FILE_MAX_BYTES = 64 * 1024;

/**
 * The one reader of secret files, for a full run (commands/generate.ts) and the unchanged-tree shortcut
 * (input-digest.ts) alike: a regular file of at most SECRET_FILE_MAX_BYTES, opened without blocking (a FIFO never
 * hangs, a link to /dev/zero is a device, refused unread).
 */
export const readSecretFile = (fs: FileSystem, path: string): string => fs.readRegular(path, SECRET_FILE_MAX_BYTES);

export interface FileSystem {
  readText(path: string): string;
  exists(path: string): boolean;
  isDirectory(path: string): boolean;
  /** Regular files below `dir`, as posix paths relative to it, sorted. */
  listFiles(dir: string): string[];
  mode(path: string): number;
  isSymlink(path: string): boolean;
  mkdirp(dir: string): void;
  /** One folder whose parent exists; an error if anything is already there. */
  mkdir(dir: string): void;
  writeFile(path: string, content: string, mode: number): void;
  copyFile(from: string, to: string): void;
  rename(from: string, to: string): void;
  removeTree(path: string): void;
  /**
   * Makes `to` a second name (hard link) of the file `from`, only if nothing is at `to`; false when something is.
   * Atomic: `to` appears with all of `from`'s content or not at all (what a lock needs; an O_EXCL create and a
   * write leave an empty file to whoever looks, or finds it after a kill, in between).
   */
  linkExclusive(from: string, to: string): boolean;
  /** Removes a file or link; nothing when it is gone. Never a folder. */
  removeFile(path: string): void;
  /** Removes a folder only if it is empty; false when it is not (or is gone). */
  removeEmptyDir(path: string): boolean;
  /** What is at `path`, without following a link; undefined when nothing is. */
  kind(path: string): EntryKind | undefined;
  /** Owner and permission bits of what is at `path`, without following a link; undefined when nothing is. */
  owner(path: string): { readonly uid: number; readonly gid: number; readonly mode: number } | undefined;
  /** Names in a folder, every kind of entry. */
  listDir(dir: string): string[];
  /** Milliseconds since `path` was last modified; undefined when it is gone. */
  ageMs(path: string): number | undefined;
  /** The path with every link resolved (the path must exist). */
  realPath(path: string): string;
  /**
   * A regular file's text, at most `maxBytes`: opened without blocking (a FIFO never hangs) and checked after the
   * open, so a FIFO, device or folder is refused (UnreadableFileError) rather than read. With `noFollow` a symbolic
   * link at `path` is refused too (O_NOFOLLOW), never followed. `prove` is called with what fstat of the open
   * descriptor says (kind, owner, mode) before anything is read: it throws to refuse the file, which is then
   * exactly the file read, not one checked by a separate lstat.
   */
  readRegular(
    path: string,
    maxBytes: number,
    options?: {
      readonly noFollow?: boolean;
      readonly prove?: (found: {
        readonly kind: EntryKind;
        readonly uid: number;
        readonly gid: number;
        readonly mode: number;
      }) => void;
    },
  ): string;
}

export type EntryKind = "file" | "dir" | "symlink" | "fifo" | "socket" | "device";

/** A path that is not a regular file of a sane size: the message says what it is. */
export class UnreadableFileError extends Error {
  override readonly name = "UnreadableFileError";
}

const kindOf = (s: nodeFs.Stats): EntryKind =>
  s.isFile()
    ? "file"
    : s.isDirectory()
      ? "dir"
      : s.isSymbolicLink()
        ? "symlink"
        : s.isFIFO()
          ? "fifo"
          : s.isSocket()
            ? "socket"
            : "device";

/** "a FIFO", "a folder", … for messages. */
export const describeKind = (k: EntryKind): string =>
  ({
    file: "a file",
    dir: "a folder",
    symlink: "a symbolic link",
    fifo: "a FIFO (named pipe)",
    socket: "a socket",
    device: "a device",
  })[k];

/** 1234567 → "1,234,567". */
export const count = (n: number): string => n.toLocaleString("en-US");

let processUmask: number | undefined;
/** The process's umask, read once (setting it back at once: process.umask() without an argument is deprecated). */
function umask(): number {
  if (processUmask === undefined) {
    processUmask = process.umask(0o022);
    process.umask(processUmask);
  }
  return processUmask;
}

/**
 * `join(dir, rel)` for a resolved `dir` and a clean relative posix `rel`, as every artifact path is (generate.ts's
 * assertWellFormed checks them): all join would do is concatenate, after a per-character scan that costs more than
 * writing the file at thousands of files.
 */
export const under = (dir: string, rel: string): string =>
  sep !== "/" ? join(dir, rel) : dir.endsWith("/") ? dir + rel : `${dir}/${rel}`; // Windows: join turns / into \

export const nodeFileSystem: FileSystem = {
  readText: (path) => nodeFs.readFileSync(path, "utf8"),
  exists: (path) => nodeFs.existsSync(path),
  isDirectory: (path) => nodeFs.statSync(path, { throwIfNoEntry: false })?.isDirectory() === true,
  listFiles(dir) {
    const out: string[] = [];
    const walk = (d: string) => {
      for (const entry of nodeFs.readdirSync(d, { withFileTypes: true })) {
        const full = join(d, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile() || entry.isSymbolicLink()) out.push(relative(dir, full).split(sep).join("/"));
      }
    };
    if (nodeFs.existsSync(dir)) walk(dir);
    return out.sort();
  },
  mode: (path) => nodeFs.statSync(path).mode & 0o7777,
  isSymlink: (path) => nodeFs.lstatSync(path).isSymbolicLink(),
  mkdirp: (dir) => {
    // One folder at a time, parents first, never mkdirSync's recursive mode: Node's (MKDirpSync) retries a folder
    // whose mkdir answers ENOENT after making its parent, and where the parent exists but refuses children with
    // ENOENT (/proc, a cache folder under it) it loops forever. Here each missing folder is made once, and the
    // error that escapes is the kernel's own for the folder it could not make (not ENOENT for EROFS one level up).
    const missing: string[] = [];
    for (let d = dir; nodeFs.lstatSync(d, { throwIfNoEntry: false }) === undefined && dirname(d) !== d; d = dirname(d))
      missing.unshift(d);
    for (const d of missing) nodeFs.mkdirSync(d, { mode: 0o755 });
    if (missing.length === 0 && !nodeFs.statSync(dir).isDirectory()) nodeFs.mkdirSync(dir); // EEXIST, as mkdir -p says for a file in the way
  },
  mkdir: (dir) => {
    nodeFs.mkdirSync(dir, { mode: 0o755 });
  },
  writeFile(path, content, mode) {
    // A new file (wx) is created with mode minus the umask, never wider: only a umask that narrows it needs a chmod.
    nodeFs.writeFileSync(path, content, { mode, flag: "wx" });
    if ((mode & ~umask()) !== mode) nodeFs.chmodSync(path, mode);
  },
  copyFile: (from, to) => {
    // A symlink stays a symlink (to whatever it pointed at), so a foreign file is carried over as it is.
    if (nodeFs.lstatSync(from).isSymbolicLink()) {
      nodeFs.symlinkSync(nodeFs.readlinkSync(from), to);
      return;
    }
    nodeFs.copyFileSync(from, to, nodeFs.constants.COPYFILE_EXCL);
    nodeFs.chmodSync(to, nodeFs.statSync(from).mode & 0o7777);
  },
  rename: (from, to) => {
    nodeFs.renameSync(from, to);
  },
  removeTree: (path) => {
    nodeFs.rmSync(path, { recursive: true, force: true });
  },
  linkExclusive(from, to) {
    try {
      nodeFs.linkSync(from, to);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
  },
  removeFile(path) {
    try {
      nodeFs.unlinkSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  },
  removeEmptyDir(path) {
    try {
      nodeFs.rmdirSync(path);
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR") return false;
      throw e;
    }
  },
  kind(path) {
    const s = nodeFs.lstatSync(path, { throwIfNoEntry: false });
    return s ? kindOf(s) : undefined;
  },
  owner(path) {
    const s = nodeFs.lstatSync(path, { throwIfNoEntry: false });
    return s ? { uid: s.uid, gid: s.gid, mode: s.mode & 0o7777 } : undefined;
  },
  listDir: (dir) => nodeFs.readdirSync(dir),
  ageMs(path) {
    const s = nodeFs.lstatSync(path, { throwIfNoEntry: false });
    return s ? Date.now() - s.mtimeMs : undefined;
  },
  realPath: (path) => nodeFs.realpathSync(path),
  readRegular(path, maxBytes, options) {
    const { O_RDONLY, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW } = nodeFs.constants;
    let fd: number;
    try {
      fd = nodeFs.openSync(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | (options?.noFollow ? O_NOFOLLOW : 0));
    } catch (e) {
      if (options?.noFollow && (e as NodeJS.ErrnoException).code === "ELOOP")
        throw new UnreadableFileError(`${path} is a symbolic link, which is not followed`);
      throw e;
    }
    try {
      const s = nodeFs.fstatSync(fd);
      options?.prove?.({ kind: kindOf(s), uid: s.uid, gid: s.gid, mode: s.mode & 0o7777 });
      if (!s.isFile())
        throw new UnreadableFileError(`${path} is ${describeKind(kindOf(s))}, where a file was expected`);
      if (s.size > maxBytes)
        throw new UnreadableFileError(`${path} is ${count(s.size)} bytes, over the limit of ${count(maxBytes)}`);
      // Room for one byte more than the size: a file that grows while it is read is refused, not cut short.
      const buf = Buffer.alloc(s.size + 1);
      let n = 0;
      for (let r = 1; r > 0 && n < buf.length; n += r) r = nodeFs.readSync(fd, buf, n, buf.length - n, null);
      if (n > s.size) throw new UnreadableFileError(`${path} grew while it was read`);
      return buf.subarray(0, n).toString("utf8"); // as readFileSync(path, "utf8"): a BOM is kept
    } finally {
      nodeFs.closeSync(fd);
    }
  },
};

/** A file-system error in words, with the path: what was expected where, not an errno. */
export function describeFsError(e: unknown, fs: FileSystem, target: string): string {
  const err = e as NodeJS.ErrnoException;
  const at = err.path ?? target;
  switch (err.code) {
    case "ENOENT":
      return `${at} does not exist`;
    case "EISDIR":
      return `${at} is a folder, where a file was expected`;
    case "ENOTDIR": {
      // Some folder on the way is a file: name it.
      for (let p = at; p !== dirname(p); p = dirname(p))
        if (fs.exists(p) && !fs.isDirectory(p)) return `${p} is a file, where a folder was expected`;
      return `part of ${at} is a file, where a folder was expected`;
    }
    case "EACCES":
    case "EPERM":
      return `permission denied for ${at}`;
    case "EROFS":
      return `${at} is on a read-only file system`;
    case "ENOSPC":
      return `no space left on the device holding ${at}`;
    case "EDQUOT":
      return `disk quota exceeded on the device holding ${at}`;
    case "EEXIST":
      return `${at} already exists`;
    case "ENOTEMPTY":
      return `${at} is a folder that is not empty`;
    case "ELOOP":
      return `${at} has too many levels of symbolic links (a link loop?)`;
    case "ENAMETOOLONG":
      return `the name ${at} is too long for the file system`;
    case "EMFILE":
    case "ENFILE":
      return `too many open files while reading ${at}`;
    case "EBUSY":
      return `${at} is busy (a mount point or in use)`;
    case "EXDEV":
      return `${at} is on another file system than the folder beside it (a mount point?)`;
    case "EIO":
      return `input/output error on ${at} (the disk or network file system failed)`;
    case "ETXTBSY":
      return `${at} is a program that is running`;
    default:
      return `${at}: ${err.code ?? err.message}`;
  }
}

/** Whether `e` is an error from the operating system (as opposed to a bug). */
export const isFsError = (e: unknown): boolean =>
  typeof (e as NodeJS.ErrnoException).code === "string" && (e as NodeJS.ErrnoException).syscall !== undefined;
