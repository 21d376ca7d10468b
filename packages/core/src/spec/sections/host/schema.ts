// The host section: Gentoo/OpenRC settings of the bare-metal servers (sysctls, cgroup mode, the host firewall).
// Rules: ./rules.ts.
import * as z from "zod";
import { InterfaceNameSchema, networkCidr } from "../../fields.js";

export const SYSCTL_KEY_MAX = 255;
export const SYSCTL_VALUE_MAX = 1024;
const SYSCTL_VALUE = /^[A-Za-z0-9._:-]+( [A-Za-z0-9._:-]+)*$/;

const HostFirewallSchema = z
  .strictObject({
    publicInterfaces: z
      .array(InterfaceNameSchema)
      .min(1)
      .optional()
      .describe(
        "Interfaces filtered (nftables, input hook); default each node's interfaces that attach no network segment",
      ),
    sshFrom: z
      .array(networkCidr())
      .default([])
      .describe("Networks allowed to reach SSH (TCP 22) on the public interfaces; empty: SSH closed there"),
  })
  .describe(
    "Host firewall on the public interfaces: nftables table inet clusterspec_host drops every new inbound connection there except SSH from sshFrom, VRRP between the nodes and the VIPs' traffic where a VIP lives on such an interface; other interfaces are left alone",
  );

export const HostSchema = z
  .strictObject({
    gentooPackages: z
      .boolean()
      .default(false)
      .describe("Write etc/portage/package.accept_keywords for sys-cluster/kubeadm, kubelet and kubectl"),
    sysctl: z
      .record(
        z
          .string()
          .max(SYSCTL_KEY_MAX, { message: `sysctl keys are at most ${SYSCTL_KEY_MAX} characters` })
          .regex(/^[a-z0-9_]+(\.[a-z0-9_-]+)+$/, { message: "expected a sysctl key such as vm.swappiness" }),
        z.union([
          z
            .string()
            .max(SYSCTL_VALUE_MAX, {
              message: `sysctl values are at most ${SYSCTL_VALUE_MAX} characters (the kernel takes one page per write; sysctl.conf lines stay below procps' 4,096)`,
            })
            .regex(SYSCTL_VALUE, {
              message:
                "sysctl values are written as given: words of letters, digits, '.', '_', ':', '-' separated by single spaces, not empty, no leading or trailing space (sysctl would trim it silently)",
            }),
          z.number(),
        ]),
      )
      .default({})
      .describe("Extra sysctl settings"),
    cgroupMode: z
      .enum(["unified", "hybrid", "legacy"])
      .default("unified")
      .describe(
        "OpenRC rc_cgroup_mode: unified (cgroup v2, OpenRC's default: nothing is written) or hybrid/legacy (cgroup v1: rc.conf gets the mode and memory hierarchy)",
      ),
    firewall: HostFirewallSchema.optional(),
  })
  .describe("Bare-metal host settings (Gentoo/OpenRC)");
