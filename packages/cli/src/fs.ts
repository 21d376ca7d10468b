// The file-system calls the CLI makes, behind one small interface so tests can inject failures.
import * as nodeFs from "node:fs";
import { dirname, join, relative, sep } from "node:path";

export interface FileSystem {
  readText(path: string): string;
  exists(path: string): boolean;
  isDirectory(path: string): boolean;
  /** Regular files below `dir`, as posix paths relative to it, sorted. */
  listFiles(dir: string): string[];
  mode(path: string): number;
  isSymlink(path: string): boolean;
  mkdirp(dir: string): void;
  writeFile(path: string, content: string, mode: number): void;
  copyFile(from: string, to: string): void;
  rename(from: string, to: string): void;
  removeTree(path: string): void;
}

let processUmask: number | undefined;
/** The process's umask, read once (setting it back at once: process.umask() without an argument is deprecated). */
function umask(): number {
  if (processUmask === undefined) {
    processUmask = process.umask(0o022);
    process.umask(processUmask);
  }
  return processUmask;
}

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
    nodeFs.mkdirSync(dir, { recursive: true, mode: 0o755 });
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
};

/** A file-system error in words: what was expected where, not an errno. */
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
    case "EEXIST":
      return `${at} already exists`;
    default:
      return `${at}: ${err.code ?? err.message}`;
  }
}

/** Whether `e` is an error from the operating system (as opposed to a bug). */
export const isFsError = (e: unknown): boolean =>
  typeof (e as NodeJS.ErrnoException).code === "string" && (e as NodeJS.ErrnoException).syscall !== undefined;
