// The network section: the L2 segments the nodes share, their uplinks and policy-routing tables, nameservers and
// search domains. Rules: ./rules.ts.
import * as z from "zod";
import { InterfaceNameSchema, ipAddress, networkCidr } from "../../fields.js";
import { rfc1123Label, searchDomains } from "../../kubernetes-names.js";

const RoutingTableSchema = z
  .strictObject({
    id: z.number().int().min(0).max(4294967295).describe("Routing table number (not 0, 252-255: reserved)"),
    name: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, {
        message: "routing table names use letters, digits, '_' and '-', starting with a letter",
      })
      .describe("Routing table name, declared in /etc/iproute2/rt_tables.d/<name>.conf"),
  })
  .describe("Policy routing table");

const UplinkSchema = z
  .strictObject({
    gateway: ipAddress().describe("Gateway of the uplink, reachable on-link on this segment"),
    gateway6: ipAddress()
      .optional()
      .describe(
        "IPv6 gateway of the uplink on a dual-stack segment: IPv6 replies from its sources leave through it (rules6_<interface>, same table)",
      ),
    routingTable: RoutingTableSchema,
    sources: z
      .array(networkCidr())
      .optional()
      .describe(
        "Source networks whose replies take the uplink table (default: the segment's on-link networks, else the external VIPs inside its subnet, each as a /32 or /128)",
      ),
  })
  .describe("Replies from external addresses leave through this gateway, in a table of their own");

const SegmentSchema = z
  .strictObject({
    name: rfc1123Label("segment name").describe("Name of the L2 segment"),
    interface: InterfaceNameSchema.describe("Interface that attaches every node to this segment"),
    subnet: networkCidr().describe("Address subnet of the segment (IPv4, or IPv6 on an IPv6-only segment)"),
    subnet6: networkCidr()
      .optional()
      .describe("IPv6 subnet of a dual-stack segment, beside its IPv4 subnet: the nodes' address6 lie in it"),
    onLink: z
      .array(networkCidr())
      .default([])
      .describe("Further networks reachable on-link on this segment, without a node address in them"),
    uplink: UplinkSchema.optional(),
    reservedVrids: z
      .array(z.number().int().min(1).max(255))
      .default([])
      .describe("VRIDs used by others on this segment (other clusters): never allocated here"),
  })
  .describe("An L2 segment the nodes share");

export const NetworkSchema = z
  .strictObject({
    segments: z.array(SegmentSchema).min(1).describe("L2 segments"),
    kubernetesSegment: z
      .string()
      .optional()
      .describe("Segment Kubernetes runs on (node InternalIP); default the first segment"),
    nameservers: z.array(ipAddress()).min(1).describe("DNS servers for the nodes (at most 2)"),
    searchDomains: searchDomains("DNS search domains (at most 6)"),
  })
  .describe("Networks shared by the nodes");
