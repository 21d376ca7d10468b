// keepalived.conf for every node of one plan, rendered by the one template (template.ts) but not once per instance.
//
// With 254 carriers of 254 external VIPs every node's file holds 254 instances, and one VIP's instance differs from
// node to node only in its priority (without unicast): running the template 65,000 times took some 0.3 s a tree in
// process (0.1 s now), and `changes` builds two. So each VIP's instance block is rendered once, with a placeholder
// priority, and split around that line; each node's block is the lines before, its own priority line and the lines
// after. The block comes from the template itself (the file rendered with and without that one instance), so the
// template stays the one source of the text. The file is those blocks (core's blockArtifact): its text is joined
// when written, and a change plan compares two trees block by block without joining 31 MiB of text twice.
import { type ArtifactBlock, flatten, type GenerationMemo, type LinePart, linePart } from "@clusterspec/core";
import { keepalivedToken } from "./escape.js";
import { renderKeepalivedConf } from "./template.js";
import {
  type InstanceView,
  instanceView,
  type KeepalivedNodeView,
  type KeepalivedView,
  type NodeInstance,
} from "./view.js";

/** The renderer's memo entry: its blocks and priority lines, for the next tree of the same caller. */
const RENDERER_MEMO = "keepalived.conf renderer";
interface RendererState {
  readonly splits: ReadonlyMap<string, Split>;
  readonly priorityLines: Map<string, (LinePart | undefined)[]>;
}

/** An integer no plan gives as a priority (keepalived's range is 1-254): marks where the priority goes. */
const PLACEHOLDER = 987654321;

/** The keys of the blocks around the instances: not instance names, which never hold a `#` (it starts a comment). */
const HEAD_BLOCK = "#head";
const SYNC_GROUPS_BLOCK = "#sync-groups";

interface Split {
  /**
   * The shared instance view this block was rendered from: a later instance of the name reuses the block if it has
   * this very view (the usual case: every node's instance of a VIP shares one), or one equal to it but for priority.
   */
  readonly proto: InstanceView;
  /**
   * The lines before the priority line, the priority line's text before the number, the lines after it;
   * undefined when the placeholder was not found exactly once.
   */
  readonly around: readonly [before: LinePart | "", lead: string, after: LinePart | ""] | undefined;
  /** Each priority's parts (before, priority line, after; an empty part left out), made once per tree. */
  readonly parts: (readonly LinePart[] | undefined)[];
}

/**
 * A renderer for the keepalived.conf files of one plan: blocks whose text is byte for byte `renderKeepalivedConf(view)`
 * (a test pins it): the head (global_defs, checks), one block per instance, keyed by its name, then the sync groups.
 * Each instance's lines before and after its priority line are rendered once and shared by every node's block, and
 * each priority line once per value, so 254 files of 254 instances hold some 200,000 references to a few hundred
 * strings until their text is read. An instance that differs from the first one of its name in anything but its
 * priority is rendered whole; a file with unicast instances is rendered in one run (a string, no blocks).
 */
export function keepalivedConfRenderer(
  memo?: GenerationMemo,
): (view: KeepalivedNodeView) => readonly ArtifactBlock[] | string {
  // A change plan's second tree starts from the first one's blocks (ModuleOutputs' memo): an instance equal to the
  // old one but for priority keeps its parts, the same strings and arrays, which the change plan then compares by
  // identity. An instance block is the instance's alone (the template reads nothing else there), so this holds
  // across trees as it does across nodes.
  const previous = memo?.get(RENDERER_MEMO) as RendererState | undefined;
  const splits = new Map<string, Split>();
  // by lead, then priority (an index: keepalived's priorities are 1-254)
  const priorityLines: Map<string, (LinePart | undefined)[]> = previous?.priorityLines ?? new Map();
  memo?.set(RENDERER_MEMO, { splits, priorityLines } satisfies RendererState);
  const priorityLine = (lead: string, priority: number): LinePart => {
    let lines = priorityLines.get(lead);
    if (lines === undefined) {
      lines = [];
      priorityLines.set(lead, lines);
    }
    let line = lines[priority];
    if (line === undefined) {
      line = linePart(`${lead}${keepalivedToken(priority)}\n`);
      // one flat string, read by every file's text and every comparison (see flatten in core's line-template.ts)
      flatten(line);
      lines[priority] = line;
    }
    return line;
  };
  return (nodeView) => {
    const whole = (): KeepalivedView => ({ ...nodeView, instances: nodeView.instances.map(instanceView) });
    // unicast peers and source are per node: no block is shared, so the template renders the file in one run
    if (nodeView.instances.some((i) => i.shared.unicast !== undefined)) return renderKeepalivedConf(whole());
    const view: KeepalivedView = { ...nodeView, instances: [] };
    // The template is the head (global_defs, checks), the instances, then the sync groups: with no instances the
    // file is head + sync groups, and with no sync groups either, the head alone.
    const head = renderKeepalivedConf({ ...view, syncGroups: [] });
    const withGroups = view.syncGroups.length === 0 ? head : renderKeepalivedConf(view);
    if (!withGroups.startsWith(head)) return renderKeepalivedConf(whole());
    const blocks: ArtifactBlock[] = [{ key: HEAD_BLOCK, parts: [linePart(head)] }];
    // indexed: without the optimizing compiler a for…of allocates per element (65,000 instances a 300 × 254 tree)
    for (let k = 0; k < nodeView.instances.length; k++) {
      const instance = nodeView.instances[k] as NodeInstance;
      blocks.push({
        key: instance.shared.name,
        parts: instanceParts(splits, previous?.splits, priorityLine, view, instance),
      });
    }
    const groups = withGroups.slice(head.length);
    if (groups !== "") blocks.push({ key: SYNC_GROUPS_BLOCK, parts: [linePart(groups)] });
    return blocks;
  };
}

function instanceParts(
  splits: Map<string, Split>,
  previousSplits: ReadonlyMap<string, Split> | undefined,
  priorityLine: (lead: string, priority: number) => LinePart,
  view: KeepalivedView,
  { shared, priority }: NodeInstance,
): readonly LinePart[] {
  let split = splits.get(shared.name);
  const earlier = split === undefined ? previousSplits?.get(shared.name) : undefined;
  if (earlier !== undefined && equalButPriority(earlier.proto, shared)) {
    split = { proto: shared, around: earlier.around, parts: earlier.parts };
    splits.set(shared.name, split);
  }
  if (split === undefined) {
    const block = alone(view, { ...shared, priority: PLACEHOLDER });
    const mark = `priority ${PLACEHOLDER}\n`;
    const at = block.indexOf(mark);
    const lineStart = block.lastIndexOf("\n", at) + 1;
    // A part whose text the earlier tree's instance had too is that tree's string: the change plan then finds it
    // equal by identity (an instance whose comment changed keeps its lines after the priority).
    const same = <T extends string>(k: 0 | 1 | 2, text: T): T =>
      earlier?.around?.[k] === text ? (earlier.around[k] as T) : text;
    split = {
      proto: shared,
      around:
        at >= 0 && block.indexOf(mark, at + 1) < 0
          ? [
              same(0, wholeLinesOrNone(block.slice(0, lineStart))),
              same(1, block.slice(lineStart, at + "priority ".length)),
              same(2, wholeLinesOrNone(block.slice(at + mark.length))),
            ]
          : undefined,
      parts: [],
    };
    splits.set(shared.name, split);
  }
  if (split.around === undefined || (split.proto !== shared && !equalButPriority(split.proto, shared)))
    return [linePart(alone(view, instanceView({ shared, priority })))];
  let parts = split.parts[priority];
  if (parts === undefined) {
    const around = split.around; // by index: a destructuring allocates an iterator
    const before = around[0];
    const after = around[2];
    // every part is whole lines: an instance that starts or ends at its priority line has no part there
    const line = priorityLine(around[1], priority);
    parts =
      before === "" ? (after === "" ? [line] : [line, after]) : after === "" ? [before, line] : [before, line, after];
    split.parts[priority] = parts;
  }
  return parts;
}

/** The lines before or after an instance's priority line: none, or a block part. */
const wholeLinesOrNone = (text: string): LinePart | "" => (text === "" ? "" : linePart(text));

/** The instance's block alone: the file with it and nothing else, less the file with nothing. */
function alone(view: KeepalivedView, instance: InstanceView): string {
  const bare = { ...view, checks: [], syncGroups: [] };
  const empty = renderKeepalivedConf({ ...bare, instances: [] });
  const one = renderKeepalivedConf({ ...bare, instances: [instance] });
  if (!one.startsWith(empty)) throw new Error(`keepalived.conf template: instance ${instance.name} not after the head`);
  return one.slice(empty.length);
}

const sameList = <T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean =>
  a === b || (a.length === b.length && a.every((x, i) => same(x, b[i] as T)));

const is = <T>(x: T, y: T): boolean => x === y;

/**
 * Whether each field the template reads is the same in two instances of one name, the priority aside (it is where
 * the block is split). A mapped type over InstanceView: a field added there does not compile until it is compared
 * here. Written out rather than a table of comparers: 65,000 instances a tree made the table's calls through one
 * site (megamorphic) 90 ms of a 300 × 254 `changes`.
 */
type SameButPriority = { readonly [K in Exclude<keyof InstanceView, "priority">]: boolean };

function equalButPriority(a: InstanceView, b: InstanceView): boolean {
  const same: SameButPriority = {
    comment: a.comment === b.comment,
    name: a.name === b.name,
    state: a.state === b.state,
    iface: a.iface === b.iface,
    vrid: a.vrid === b.vrid,
    version: a.version === b.version,
    advertInt: a.advertInt === b.advertInt,
    nopreempt: a.nopreempt === b.nopreempt,
    preemptDelay: a.preemptDelay === b.preemptDelay,
    auth:
      a.auth === b.auth ||
      (a.auth !== undefined &&
        b.auth !== undefined &&
        a.auth.type === b.auth.type &&
        a.auth.include === b.auth.include),
    // unicast peers and source are per node: such an instance is never reused
    unicast: a.unicast === undefined && b.unicast === undefined,
    vip: a.vip === b.vip,
    trackScripts: sameList(a.trackScripts, b.trackScripts, is),
    notify: sameList(a.notify, b.notify, (x, y) => x.keyword === y.keyword && x.path === y.path),
  };
  for (const k in same) if (!same[k as keyof SameButPriority]) return false;
  return true;
}
