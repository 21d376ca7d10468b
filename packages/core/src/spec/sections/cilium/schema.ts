// The cilium section: the CNI's chart version, routing, devices, MTU and free-form Helm values. Rules: ./rules.ts.
import * as z from "zod";
import { ciliumContract } from "../../../facts/contract.js";
import { InterfaceNameSchema, networkCidr } from "../../fields.js";
import { parseSemver } from "../../version.js";

const CiliumValuesSchema = z
  .record(z.string(), z.unknown())
  .default({})
  .describe(
    "Helm values deep-merged over the generated ones; checked against the chart's values.schema.json; keys in none of the schema, values.yaml and the chart's templates are refused",
  );

export const CiliumSchema = z
  .strictObject({
    version: z
      .string()
      .superRefine((v, ctx) => {
        const s = parseSemver(v);
        if (!s) ctx.addIssue({ code: "custom", message: `Cilium version ${v} is not of the form 1.MINOR.PATCH` });
        else if (!ciliumContract(s).isSupported())
          ctx.addIssue({
            code: "custom",
            message: `Cilium ${v} is not supported: clusterspec supports 1.14 and newer`,
          });
      })
      .describe("Cilium chart version, e.g. 1.20.0 (1.14 and newer)"),
    routingMode: z.enum(["native", "tunnel"]).default("native").describe("Cilium routingMode"),
    tunnelProtocol: z.enum(["vxlan", "geneve"]).default("vxlan").describe("Overlay protocol in tunnel mode"),
    autoDirectNodeRoutes: z
      .boolean()
      .default(true)
      .describe("Install routes to other nodes' pod CIDRs (native routing, nodes on one L2 segment)"),
    ipamMode: z.enum(["kubernetes", "cluster-pool"]).default("kubernetes").describe("Cilium ipam.mode"),
    devices: z
      .array(InterfaceNameSchema)
      .optional()
      .describe("Devices Cilium attaches to (default the Kubernetes interface)"),
    bpfMasquerade: z.boolean().default(true).describe("eBPF masquerading"),
    loadBalancerMode: z.enum(["snat", "dsr", "hybrid"]).default("snat").describe("Service load balancer mode"),
    encryption: z.enum(["none", "wireguard"]).default("none").describe("Transparent pod traffic encryption"),
    mtu: z.number().int().min(1280).max(9216).optional().describe("Device MTU Cilium assumes (default: derived)"),
    nodePortAddresses: z
      .array(networkCidr())
      .optional()
      .describe(
        "Networks whose node addresses serve NodePorts (Helm nodePort.addresses); default the Kubernetes segment's subnet (and the burst nodes' WireGuard tunnel subnet), so no other interface (a public one) serves them; [] restores Cilium's default (every device's primary address)",
      ),
    values: CiliumValuesSchema,
  })
  .describe("Cilium CNI, replacing kube-proxy");
