// Deterministic gzip (no timestamp, no file name) and base64, in pure JS so generators stay IO-free.
// fflate's browser build: the same gzipSync; its Node build probes for worker_threads when it is imported, which
// loads Node's worker and stream modules into every run, also the many that never gzip (some 20 ms of start-up).
import { gzipSync } from "fflate/browser";

export function gzipText(text: string): Uint8Array {
  return gzipSync(new TextEncoder().encode(text), { level: 9, mtime: 0 });
}

export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export const byteLength = (text: string): number => new TextEncoder().encode(text).length;
