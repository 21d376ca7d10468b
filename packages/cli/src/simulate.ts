// `clusterspec simulate <spec> --down a,b [--unhealthy c] [--json]`: who holds each VIP, and each carrier's load,
// when those nodes are down or fail their apiserver check, starting from the cluster at rest. The plan alone
// decides (core's simulateFailover, the model the VRRP lab checks against real keepalived); nothing runs.
import { basename } from "node:path";
import {
  AT_REST,
  holderMap,
  isCloudBurstPlan,
  mdTable,
  resolvePlan,
  simulateFailover,
  vipLabel,
} from "@clusterspec/core";
import type { ClusterPlan, FailureState, Simulation } from "@clusterspec/core/types";
import { CliError, EXIT_INVALID, EXIT_OK } from "./errors.js";
import { describeFsError, type FileSystem, isFsError, SPEC_MAX_BYTES, UnreadableFileError } from "./fs.js";
import { formatIssues, loadSpec } from "./spec.js";

export interface SimulateOptions {
  readonly down?: string | undefined;
  readonly unhealthy?: string | undefined;
  readonly json?: boolean | undefined;
}

/** The command: reads and validates the spec, then prints the simulation (exit 0) or the problem (exit 2). */
export function runSimulate(
  specPath: string,
  options: SimulateOptions,
  io: { readonly stdout: (text: string) => void; readonly stderr: (text: string) => void },
  fs: FileSystem,
): number {
  const display = basename(specPath);
  try {
    let text: string;
    try {
      text = fs.readRegular(specPath, SPEC_MAX_BYTES);
    } catch (e) {
      if (e instanceof UnreadableFileError) throw new CliError(`cannot read the spec: ${e.message}`, "filesystem");
      if (!isFsError(e)) throw e;
      throw new CliError(`cannot read the spec: ${describeFsError(e, fs, specPath)}`, "filesystem");
    }
    const loaded = loadSpec(text);
    if (!loaded.ok) {
      io.stderr(`${formatIssues([...loaded.errors, ...loaded.warnings], display, { source: text })}\n`);
      return EXIT_INVALID;
    }
    const plan = resolvePlan(loaded.value, { sourceName: display });
    if (isCloudBurstPlan(plan))
      throw new CliError(
        `${display} describes burst nodes for an existing cluster: it has no VIPs, so there is nothing to simulate`,
      );
    const state = failureStateOf(plan, options);
    io.stdout(
      options.json ? `${JSON.stringify(simulationJson(plan, state), null, 2)}\n` : renderSimulation(plan, state),
    );
    return EXIT_OK;
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    io.stderr(`✖ ${e.message}\n`);
    return e.code;
  }
}

/** `k8s-1,k8s-3` → names; empty items are a usage mistake. */
function nodeList(flag: string, text: string | undefined): string[] {
  if (text === undefined) return [];
  const names = text.split(",").map((s) => s.trim());
  if (names.some((n) => n === "")) throw new CliError(`--${flag} takes node names separated by commas`);
  return [...new Set(names)];
}

/** The state the flags describe, checked against the plan's nodes (exit 2 naming any unknown one). */
export function failureStateOf(plan: ClusterPlan, options: SimulateOptions): FailureState {
  const names = plan.nodes.map((n) => n.name);
  const down = nodeList("down", options.down);
  const unhealthy = nodeList("unhealthy", options.unhealthy);
  for (const [flag, list] of [
    ["down", down],
    ["unhealthy", unhealthy],
  ] as const) {
    const unknown = list.filter((n) => !names.includes(n));
    if (unknown.length > 0)
      throw new CliError(
        `--${flag} names ${unknown.length === 1 ? "an unknown node" : "unknown nodes"}: ${unknown.join(", ")} (nodes: ${names.join(", ")})`,
      );
  }
  const notCp = unhealthy.filter((n) => !plan.nodes.find((x) => x.name === n)?.controlPlane);
  if (notCp.length > 0)
    throw new CliError(`--unhealthy ${notCp.join(", ")}: only control-plane nodes run the apiserver check`);
  return { down, unhealthy };
}

/** From the cluster at rest into `state`, so nopreempt keeps the VIPs that need not move. */
export function simulateFromRest(plan: ClusterPlan, state: FailureState): { rest: Simulation; now: Simulation } {
  const rest = simulateFailover(plan, AT_REST);
  return { rest, now: simulateFailover(plan, state, holderMap(rest)) };
}

export function simulationJson(plan: ClusterPlan, state: FailureState): unknown {
  const { rest, now } = simulateFromRest(plan, state);
  return {
    cluster: plan.name,
    down: state.down,
    unhealthy: state.unhealthy,
    vips: now.holdings.map((h, i) => ({
      key: h.vip.key,
      kind: h.vip.kind,
      address: `${h.vip.address}/${h.vip.prefixLength}`,
      // A dual-stack pair's IPv6 instance: same VRID, same holder (the pair moves as one).
      ...(h.vip.pair6 ? { address6: `${h.vip.pair6.address}/${h.vip.pair6.prefixLength}` } : {}),
      interface: h.vip.interface,
      vrid: h.vip.vrid,
      holder: h.holder ?? null,
      priority: h.priority ?? null,
      atRest: rest.holdings[i]?.holder ?? null,
    })),
    nodes: now.loads.map((l) => ({
      name: l.node,
      up: l.up,
      healthy: l.healthy,
      controlPlaneVip: l.controlPlaneVip,
      externalVips: l.externalVips,
    })),
  };
}

export function renderSimulation(plan: ClusterPlan, state: FailureState): string {
  const { rest, now } = simulateFromRest(plan, state);
  const parts = [
    state.down.length > 0 ? `down: ${state.down.join(", ")}` : "",
    state.unhealthy.length > 0 ? `apiserver check failing: ${state.unhealthy.join(", ")}` : "",
  ].filter(Boolean);
  const vips = mdTable(
    ["VIP", "kind", "holder (priority)", "at rest"],
    now.holdings.map((h, i) => {
      const before = rest.holdings[i]?.holder;
      return [
        vipLabel(h.vip, true),
        h.vip.kind,
        h.holder === undefined ? "nobody" : `${h.holder} (${h.priority})`,
        before === h.holder ? "same" : `moved from ${before ?? "nobody"}`,
      ];
    }),
  );
  const loads = mdTable(
    ["node", "state", "control-plane VIP", "external VIPs"],
    now.loads.map((l) => [
      l.node,
      !l.up ? "down" : l.healthy ? "up" : "up, apiserver check failing",
      l.controlPlaneVip ? "yes" : "-",
      l.up ? l.externalVips : "-",
    ]),
  );
  const note = plan.vrrp.nopreempt
    ? "nopreempt: a VIP stays with its holder while that node is up and not in FAULT, so a failing check moves nothing unless the check's weight is 0."
    : "";
  return `${[
    `Cluster ${plan.name}, from rest with ${parts.join("; ") || "every node up and healthy"}:`,
    "",
    vips,
    "",
    loads,
    ...(note ? ["", note] : []),
  ].join("\n")}\n`;
}
