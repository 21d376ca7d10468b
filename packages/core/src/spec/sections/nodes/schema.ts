// The nodes section: the bare-metal servers, their interfaces, roles, labels and taints. Rules: ./rules.ts.
import * as z from "zod";
import { cidr, InterfaceNameSchema, ipAddress } from "../../fields.js";
import type { Equal, NodeTaint } from "../../knob-types.js";
import { LabelKeySchema, LabelValueSchema, rfc1123Label, taintFields } from "../../kubernetes-names.js";

/**
 * Bounds that keep generation within memory and time: the output grows with nodes² (a host file per node lists
 * every node); 1,000 nodes generate in seconds in about 300 MB, 5,000 ran out of a 4 GB heap.
 */
export const MAX_NODES = 1000;

const NodeTaintSchema = z
  .strictObject(taintFields({ key: "Taint key (label-key syntax)", value: "Taint value (label-value syntax)" }))
  .describe("A taint registered with the node");

const NodeKnobs = {
  labels: z
    .record(LabelKeySchema, LabelValueSchema)
    .default({})
    .describe("Node labels, set by the kubelet when it registers (kubeadm nodeRegistration)"),
  taints: z.array(NodeTaintSchema).default([]).describe("Node taints (kubeadm nodeRegistration.taints)"),
};

const InterfaceSchema = z
  .strictObject({
    mac: z
      .string()
      .regex(/^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/, {
        message: "expected a MAC address such as 52:54:00:12:34:56",
        abort: true,
      })
      // The group bit (lowest bit of the first octet) marks multicast: no NIC has such an address, so udev would never match.
      .refine((m) => (Number.parseInt(m.slice(0, 2), 16) & 1) === 0, {
        message: "a multicast MAC (odd first octet) never belongs to a NIC: use the interface's own unicast MAC",
      })
      .optional()
      .describe("MAC address the interface is named by (udev); absent on VLAN interfaces"),
    vlan: z
      .strictObject({
        parent: InterfaceNameSchema.describe("Parent interface"),
        id: z.number().int().min(1).max(4094).describe("VLAN id"),
      })
      .optional()
      .describe("Makes this a VLAN sub-interface"),
    address: cidr()
      .optional()
      .describe("Address with prefix, e.g. 10.118.12.20/24 (IPv4, or IPv6 on an IPv6-only interface)"),
    gateway: ipAddress().optional().describe("Default gateway (main table) through this interface"),
    address6: cidr()
      .optional()
      .describe("IPv6 address with prefix beside the IPv4 address (dual stack), e.g. fd00:118:12::20/64"),
    gateway6: ipAddress()
      .optional()
      .describe("IPv6 default gateway (main table) through this interface, beside the IPv4 one (dual stack)"),
    mtu: z
      .number()
      .int()
      .min(1280)
      .max(9216)
      .optional()
      .describe(
        "Link MTU, written as netifrc's mtu_<interface> (default: the kernel's, 1500 on Ethernet); a VLAN's is at most its parent's",
      ),
  })
  .superRefine((v, ctx) => {
    if (v.vlan && v.mac)
      ctx.addIssue({ code: "custom", path: ["mac"], message: "a VLAN interface has no MAC of its own" });
    if (!v.vlan && !v.mac)
      ctx.addIssue({
        code: "custom",
        path: ["mac"],
        message: "a physical interface needs its MAC (interfaces are named by MAC)",
      });
    if (v.gateway && !v.address)
      ctx.addIssue({ code: "custom", path: ["gateway"], message: "a gateway needs an address on the same interface" });
    if (v.gateway6 && !v.address6)
      ctx.addIssue({
        code: "custom",
        path: ["gateway6"],
        message: "an IPv6 gateway (gateway6) needs an IPv6 address (address6) on the same interface",
      });
  })
  .describe("A network interface of the node");

const NodeSchema = z
  .strictObject({
    name: rfc1123Label("node name").describe("Host name and Kubernetes node name"),
    roles: z
      .array(z.enum(["control-plane", "worker"]))
      .min(1)
      .refine((r) => new Set(r).size === r.length, { message: "roles are listed once each" })
      .describe("control-plane, worker or both"),
    carriesExternalVips: z.boolean().default(false).describe("Whether this node takes part in the external VIP pool"),
    rootFilesystem: z.enum(["ext4", "xfs", "btrfs", "zfs"]).default("ext4").describe("Root filesystem"),
    disk: z
      .string()
      .regex(/^\/dev\/[A-Za-z0-9/_-]+$/)
      .optional()
      .describe("System disk, for the record in PLAN.md"),
    interfaces: z
      .record(InterfaceNameSchema, InterfaceSchema)
      .superRefine((interfaces, ctx) => {
        // netifrc reads NAME.ID as VLAN ID on NAME: a physical NIC renamed so would be configured as a VLAN.
        for (const [name, i] of Object.entries(interfaces))
          if (i.mac && !i.vlan && name.includes("."))
            ctx.addIssue({
              code: "custom",
              path: [name],
              message: `physical interface ${JSON.stringify(name)} (named by MAC, no vlan) must not contain "." - netifrc reads a dotted name as a VLAN; rename it, or declare vlan: { parent, id } for a VLAN`,
            });
      })
      .describe("Interfaces by name"),
    ...NodeKnobs,
  })
  .describe("A bare-metal server");

export const NodesSchema = z
  .array(NodeSchema)
  .min(1)
  .max(MAX_NODES, {
    error: (iss) =>
      `at most ${MAX_NODES.toLocaleString("en-US")} nodes, got ${(iss.input as unknown[]).length.toLocaleString("en-US")}: every node's host file lists every node, so the output grows with the square of the node count (1,000 nodes: about 100 MB); split a larger fleet into several clusters`,
  })
  .describe(`Bare-metal servers (at most ${MAX_NODES})`);

// The public type is a plain interface (knob-types.ts); this line fails to compile if the two drift apart.
export const nodeTaintTypeMatches: Equal<z.output<typeof NodeTaintSchema>, NodeTaint> = true;
