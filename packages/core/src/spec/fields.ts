// Value validators shared by several sections: addresses and networks, interface names, Go durations, host:port
// endpoints and secret references. Kubernetes and DNS names are in kubernetes-names.ts.
import * as z from "zod";
import { isCidr, isIp, isNetworkCidr } from "../ip.js";
import { isDnsName } from "./kubernetes-names.js";

// Safe as a bare token in keepalived.conf, a shell variable suffix (after shell_var), a udev rule and YAML.
const INTERFACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
// From a string, not a literal: the bundler escapes µ in strings but not in regular expression literals, and the
// command's bundle must be ASCII (packages/cli/tsup.config.ts); the JSON Schema keeps the readable µ.
// biome-ignore lint/complexity/useRegexLiterals: see above
const GO_DURATION = new RegExp("^(\\d+(\\.\\d+)?(ns|us|µs|ms|s|m|h))+$");
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A file reference: an absolute or relative path without control characters.
const FILE_PATH = /^[^\0\n\r]+$/;

export const ipAddress = () =>
  z.string().refine(isIp, { message: "expected an IP address such as 10.0.0.1 or fd00::1" });
export const cidr = () =>
  z.string().refine(isCidr, { message: "expected an address with prefix length such as 10.0.0.20/24" });
export const networkCidr = () =>
  z
    .string()
    .refine(isCidr, { message: "expected a network such as 10.0.0.0/24", abort: true })
    .refine(isNetworkCidr, { message: "expected the network address, without host bits (e.g. 10.0.0.0/24)" });
export const duration = () =>
  z.string().regex(GO_DURATION, { message: "expected a Go duration such as 4s, 500ms or 1m30s" });

export const InterfaceNameSchema = z
  .string()
  .refine((s) => new TextEncoder().encode(s).length <= 15, {
    message: "interface names are at most 15 bytes (Linux IFNAMSIZ)",
  })
  .regex(INTERFACE_NAME, {
    message: "interface names use letters, digits, '_', '.', '-' only (no whitespace, '/', ':' or quotes)",
  })
  .describe("Linux interface name, at most 15 bytes");

// host:port, the host an IPv4 address, a bracketed IPv6 address or a DNS name; nothing a shell, YAML or INI reader would interpret.
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?):([1-9][0-9]{0,4})$/;
const endpointHost = (v: string): string =>
  v.startsWith("[") ? v.slice(1, v.lastIndexOf("]")) : v.slice(0, v.lastIndexOf(":"));
export const hostPort = () =>
  z
    .string()
    .regex(HOST_PORT, {
      message: "expected host:port, the host an IP address ([fd00::1] for IPv6) or a DNS name",
      abort: true,
    })
    .refine((v) => Number(v.slice(v.lastIndexOf(":") + 1)) <= 65535, { message: "port must be 1-65535" })
    .refine(
      (v) =>
        v.startsWith("[")
          ? isIp(endpointHost(v))
          : /^[0-9.]+$/.test(endpointHost(v))
            ? isIp(endpointHost(v))
            : isDnsName(endpointHost(v)),
      {
        message: "expected a valid IP address or DNS name before the port",
      },
    );

// ---- secrets ----

const EnvRef = z
  .strictObject({
    env: z
      .string()
      .regex(ENV_NAME, { message: "expected an environment variable name" })
      .describe("Environment variable that holds the secret"),
  })
  .describe("Secret read from an environment variable when the CLI runs");
const FileRef = z
  .strictObject({
    file: z
      .string()
      .regex(FILE_PATH, { message: "expected a file path" })
      .describe("File that holds the secret (trailing newline ignored); relative to the spec file"),
  })
  .describe("Secret read from a file when the CLI runs");

/** The start of every message that refuses a secret written in the spec (its value is then masked in code frames). */
export const SECRET_LITERAL = "secrets are never written in the spec";

export const SecretRefSchema = z
  .union([EnvRef, FileRef], {
    error: (issue) =>
      typeof issue.input === "string" || typeof issue.input === "number"
        ? `${SECRET_LITERAL}: reference one with { env: NAME } or { file: path }`
        : "expected a secret reference { env: NAME } or { file: path }",
  })
  .describe("A secret is referenced, never written inline: { env: NAME } or { file: path }");
