// The version contract (facts/contract.ts): each predicate at its boundary, and a source scan that keeps it the one
// place that compares version numbers.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  AUTOSCALER_SCALE_FROM_ZERO_MINOR,
  CONTAINER_RUNTIME_ENDPOINT_SINCE_MINOR,
  ciliumContract,
  fedoraContract,
  KUBELET_PATCHES_SINCE_MINOR,
  kubeadmUpgradePath,
  kubernetesContract,
  MIN_KUBERNETES_MINOR,
} from "../src/facts/contract.js";

/** [predicate, first minor where it holds, last minor where it holds] (undefined: open-ended). */
const K8S_BOUNDARIES: readonly [string, number | undefined, number | undefined][] = [
  ["isSupported", 22, undefined],
  ["usesKubeadmV1beta4", 31, undefined],
  ["hasLongerNodeMonitorGracePeriod", 32, undefined],
  ["supportsKubeletConfigPatches", 25, undefined],
  ["taintsControlPlaneAsMaster", undefined, 24],
  ["taintsControlPlaneAsControlPlane", 24, undefined],
  ["hasKubeletContainerRuntimeEndpoint", 27, undefined],
  ["acceptsPodEvictionTimeoutFlag", undefined, 26],
  ["kubeadmPreflightRequiresConntrack", undefined, 31],
  ["limitsAnonymousToHealthEndpoints", 32, undefined],
  ["autoscalerScalesFromZeroWithExtendedResources", 26, undefined],
];

describe("kubeadmUpgradePath", () => {
  const v = (text: string) => {
    const [major = 0, minor = 0, patch = 0] = text.split(".").map(Number);
    return { major, minor, patch };
  };
  it.each([
    ["1.34.2", "1.34.2", "same"],
    ["1.34.2", "1.34.3", "upgrade"],
    ["1.34.2", "1.35.0", "upgrade"],
    ["1.34.2", "1.36.0", "skips-minor"],
    ["1.34.2", "1.34.1", "downgrade"],
    ["1.34.2", "1.33.9", "downgrade"],
    ["1.34.2", "2.0.0", "other-major"],
  ])("%s → %s: %s", (from, to, path) => {
    expect(kubeadmUpgradePath(v(from), v(to))).toBe(path);
  });
});

describe("kubernetesContract", () => {
  for (const [name, from, to] of K8S_BOUNDARIES) {
    it(`${name} holds ${from === undefined ? "" : `from 1.${from}`}${to === undefined ? "" : ` up to 1.${to}`}`, () => {
      for (let minor = 15; minor <= 40; minor++) {
        const contract = kubernetesContract(minor) as unknown as Record<string, () => boolean>;
        const want = (from === undefined || minor >= from) && (to === undefined || minor <= to);
        expect(contract[name]?.(), `1.${minor}`).toBe(want);
      }
    });
  }

  it("covers every boolean predicate of the contract in the table above", () => {
    const contract = kubernetesContract(30) as unknown as Record<string, unknown>;
    const booleans = Object.keys(contract).filter(
      (k) => typeof contract[k] === "function" && typeof (contract[k] as () => unknown)() === "boolean",
    );
    expect(booleans.sort()).toEqual(K8S_BOUNDARIES.map(([name]) => name).sort());
  });

  it("derives the kubeadm API version and the default grace period from its predicates", () => {
    expect(kubernetesContract(30).kubeadmApiVersion()).toBe("kubeadm.k8s.io/v1beta3");
    expect(kubernetesContract(31).kubeadmApiVersion()).toBe("kubeadm.k8s.io/v1beta4");
    expect(kubernetesContract(31).defaultNodeMonitorGracePeriod()).toBe("40s");
    expect(kubernetesContract(32).defaultNodeMonitorGracePeriod()).toBe("50s");
  });

  it("takes a parsed version or its minor alike", () => {
    expect(kubernetesContract({ minor: 27 }).minor).toBe(27);
    expect(kubernetesContract({ minor: 26 }).acceptsPodEvictionTimeoutFlag()).toBe(true);
  });

  it("keeps the exported constants at the predicates' boundaries", () => {
    expect(kubernetesContract(MIN_KUBERNETES_MINOR - 1).isSupported()).toBe(false);
    expect(kubernetesContract(MIN_KUBERNETES_MINOR).isSupported()).toBe(true);
    expect(kubernetesContract(KUBELET_PATCHES_SINCE_MINOR - 1).supportsKubeletConfigPatches()).toBe(false);
    expect(kubernetesContract(KUBELET_PATCHES_SINCE_MINOR).supportsKubeletConfigPatches()).toBe(true);
    expect(kubernetesContract(CONTAINER_RUNTIME_ENDPOINT_SINCE_MINOR - 1).hasKubeletContainerRuntimeEndpoint()).toBe(
      false,
    );
    expect(kubernetesContract(CONTAINER_RUNTIME_ENDPOINT_SINCE_MINOR).hasKubeletContainerRuntimeEndpoint()).toBe(true);
    const scales = (m: number) => kubernetesContract(m).autoscalerScalesFromZeroWithExtendedResources();
    expect(scales(AUTOSCALER_SCALE_FROM_ZERO_MINOR - 1)).toBe(false);
    expect(scales(AUTOSCALER_SCALE_FROM_ZERO_MINOR)).toBe(true);
  });
});

describe("ciliumContract", () => {
  it("supports 1.14 and newer, including any later major", () => {
    const supported = (major: number, minor: number) => ciliumContract({ major, minor }).isSupported();
    expect(supported(1, 13)).toBe(false);
    expect(supported(1, 14)).toBe(true);
    expect(supported(1, 20)).toBe(true);
    expect(supported(0, 99)).toBe(false);
    expect(supported(2, 0)).toBe(true);
  });
});

describe("fedoraContract", () => {
  it("is past its end of life on the table's date, not the day before; older releases always are", () => {
    expect(fedoraContract(42).pastEndOfLife("2026-05-27")).toBeUndefined();
    expect(fedoraContract(42).pastEndOfLife("2026-05-28")).toEqual({ release: 42, eol: "2026-05-28" });
    expect(fedoraContract(36).pastEndOfLife("2000-01-01")?.eol).toBe("before 2023-12-05");
    expect(fedoraContract(37).pastEndOfLife("2023-12-04")).toBeUndefined();
    expect(fedoraContract(43).pastEndOfLife("2099-01-01")).toBeUndefined();
  });
});

// ---- the source scan ----

const packagesDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The one module allowed to compare versions, relative to packages/. */
const CONTRACT_MODULE = "core/src/facts/contract.ts";

/** A name that holds a version number: `.minor`, `major`, `kubernetesMinor`, `SINCE_MINOR`, a Fedora `release`. */
const VERSION_NAME = String.raw`(?:[A-Za-z_$][\w$]*(?:Minor|Major|_MINOR|_MAJOR)|minor|major|release)`;
const OPERAND = String.raw`(?:[A-Za-z_$][\w$]*\??\.)*${VERSION_NAME}(?![\w$])`;
const ORDERING = "(?:<=|>=|<(?![<=])|>(?![>=]))";
const COMPARISON = new RegExp(
  String.raw`(?<![\w$.])${OPERAND}\s*(?<![=\-<>])${ORDERING}|(?<![=\-<>])${ORDERING}\s*${OPERAND}`,
  "g",
);

/** The text with comments and the literal parts of strings blanked (template `${…}` code is kept); newlines stay. */
function codeOnly(text: string): string {
  let out = "";
  let inTemplate = false;
  const braces: number[] = []; // open braces inside each enclosing template's `${…}`
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  for (let i = 0; i < text.length; ) {
    const c = text[i] as string;
    const two = text.slice(i, i + 2);
    if (inTemplate) {
      if (c === "\\") {
        out += blank(two);
        i += 2;
      } else if (c === "`") {
        out += " ";
        inTemplate = false;
        i++;
      } else if (two === "${") {
        out += "  ";
        braces.push(0);
        inTemplate = false;
        i += 2;
      } else {
        out += blank(c);
        i++;
      }
      continue;
    }
    const skip = (end: number) => {
      out += blank(text.slice(i, end));
      i = end;
    };
    if (two === "//") skip(text.indexOf("\n", i) === -1 ? text.length : text.indexOf("\n", i));
    else if (two === "/*") skip(text.indexOf("*/", i) === -1 ? text.length : text.indexOf("*/", i) + 2);
    else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      skip(Math.min(j + 1, text.length));
    } else if (c === "`") {
      out += " ";
      inTemplate = true;
      i++;
    } else if (c === "}" && braces.length > 0 && braces.at(-1) === 0) {
      braces.pop();
      out += " ";
      inTemplate = true;
      i++;
    } else {
      const depth = braces.pop();
      if (depth !== undefined) braces.push(c === "{" ? depth + 1 : c === "}" ? depth - 1 : depth);
      out += c;
      i++;
    }
  }
  return out;
}

/** `line: text` of every ordering comparison (<, <=, >, >=) of a version number in a source text. */
export function versionComparisons(text: string): string[] {
  const code = codeOnly(text);
  const lines = text.split("\n");
  const out: string[] = [];
  for (const m of code.matchAll(COMPARISON)) {
    const line = code.slice(0, m.index).split("\n").length;
    out.push(`${line}: ${lines[line - 1]?.trim()}`);
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === "generated"
        ? []
        : sourceFiles(join(dir, e.name))
      : /\.(ts|tsx|js|cjs|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts")
        ? [join(dir, e.name)]
        : [],
  );
}

describe("version comparisons live only in the contract", () => {
  it("no file under packages/*/src but facts/contract.ts compares a version with <, <=, > or >=", () => {
    const found: string[] = [];
    for (const pkg of readdirSync(packagesDir)) {
      let files: string[] = [];
      try {
        files = sourceFiles(join(packagesDir, pkg, "src"));
      } catch {
        continue;
      }
      for (const path of files) {
        const rel = relative(packagesDir, path).split("\\").join("/");
        if (rel === CONTRACT_MODULE) continue;
        for (const hit of versionComparisons(readFileSync(path, "utf8"))) found.push(`${rel}:${hit}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("the contract module itself is where the scanner finds comparisons", () => {
    expect(versionComparisons(readFileSync(join(packagesDir, CONTRACT_MODULE), "utf8")).length).toBeGreaterThan(0);
  });

  it("catches planted comparisons in each shape the code base used", () => {
    const planted = [
      "const x = minor >= 31 ? a : b;",
      "if (k.version.minor < 27) y();",
      "return minor <= 23;",
      "...(kubernetes.version.minor < 32 ? [] : [])",
      "k.version.minor >= CONTAINER_RUNTIME_ENDPOINT_SINCE_MINOR",
      "minor < AUTOSCALER_SCALE_FROM_ZERO_MINOR",
      "parsed?.minor > 30",
      "if (30 < plan.kubernetes.version.minor) z();",
      "const ok = kubernetesMinor >= 25;",
      "if (release < (FEDORA_EOL[0]?.release ?? 0)) w();",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal's source text, on purpose
      "`1.${v.minor > 30 ? 'x' : 'y'}`",
    ];
    for (const sample of planted) expect(versionComparisons(sample), sample).toHaveLength(1);
    expect(versionComparisons(planted.join("\n"))).toHaveLength(planted.length);
    const cilium = "s.major < MIN_CILIUM.major || (s.major === MIN_CILIUM.major && s.minor < MIN_CILIUM.minor)";
    expect(versionComparisons(`const a = 1;\n${cilium}`)).toEqual([`2: ${cilium}`, `2: ${cilium}`]);
  });

  it("ignores what is not an ordering comparison of a version", () => {
    const clean = [
      "const f = (minor) => minor;",
      "if (minor === 24) t();",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal's source text, on purpose
      "const v = `${version.major}.${version.minor}`;",
      "// minor >= 31 in a comment",
      "/* a.minor < 2 */",
      'const s = "minor < 32";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal's source text, on purpose
      "const t = `> **Warning:** Kubernetes 1.${minor} pairs with ${AUTOSCALER_SCALE_FROM_ZERO_MINOR}`;",
      "const d = Math.abs(s.minor - want.minor) * 1000;",
      "const m: Map<string, number> = new Map();",
      "if (count < limit) x();",
      "kubernetesContract(minor).supportsKubeletConfigPatches()",
    ];
    for (const sample of clean) expect(versionComparisons(sample), sample).toEqual([]);
  });
});
