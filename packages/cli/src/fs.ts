// The file-system calls the CLI makes, behind one small interface so tests can inject failures.
import * as nodeFs from "node:fs";
import { join, relative, sep } from "node:path";

export interface FileSystem {
  readText(path: string): string;
  exists(path: string): boolean;
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

export const nodeFileSystem: FileSystem = {
  readText: (path) => nodeFs.readFileSync(path, "utf8"),
  exists: (path) => nodeFs.existsSync(path),
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
    nodeFs.writeFileSync(path, content, { mode, flag: "wx" });
    nodeFs.chmodSync(path, mode); // umask may have narrowed it; secrets must not be wider than asked either
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
