// The playground as a user gets it: a fresh `vite build` into a temporary folder, served as static files.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve, sep } from "node:path";
import { promisify } from "node:util";

const playgroundDir = resolve(import.meta.dirname, "..");

/**
 * Runs `vite build` (what `pnpm --filter playground build` runs) into a temporary folder, in its own process:
 * under vitest NODE_ENV is `test`, which would make Vite build something else than what users get.
 */
export async function buildPlayground(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), "clusterspec-playground-"));
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== "NODE_ENV" && !k.startsWith("VITEST")),
  );
  const vite = join(playgroundDir, "node_modules", "vite", "bin", "vite.js");
  await promisify(execFile)(
    process.execPath,
    [vite, "build", "--outDir", outDir, "--emptyOutDir", "--logLevel", "error"],
    {
      cwd: playgroundDir,
      env,
      timeout: 300_000,
    },
  );
  return outDir;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
};

export interface StaticServer {
  readonly origin: string;
  /** Every request as the server received it: method and request target (path and query, as sent). */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/** Serves `dir` on 127.0.0.1 (a free port), GET only, nothing outside the folder. */
export function serveStatic(dir: string): Promise<StaticServer> {
  const root = resolve(dir);
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    const file = normalize(join(root, path.endsWith("/") ? `${path}index.html` : path));
    if (req.method !== "GET" || !file.startsWith(root + sep) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((done) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      done({
        origin: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise((closed) => server.close(() => closed())),
      });
    });
  });
}
