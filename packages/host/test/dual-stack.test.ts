// Dual stack (issue 30): /etc/hosts carries every family's address, and the IPv6 keys are set only where the
// cluster runs IPv6.
import { mustResolve } from "@clusterspec/core/testing";
import { exampleInput } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateHost } from "../src/generate.js";
import { SYSCTL_FILE } from "../src/view.js";

const fileOf = (example: string, path: string): string => {
  const a = generateHost(mustResolve(exampleInput(example))).find((x) => x.path === path);
  if (!a) throw new Error(`no ${path}`);
  return a.content;
};

describe("dual-stack host files", () => {
  it("maps every node name to its address of each family in /etc/hosts, the primary first", () => {
    const hosts = fileOf("dual-stack", "nodes/k8s-1/etc/hosts").split("\n");
    expect(hosts).toEqual(
      expect.arrayContaining([
        "10.118.12.21\tk8s-2",
        "fd00:118:12::21\tk8s-2",
        "10.118.12.22\tk8s-3",
        "fd00:118:12::22\tk8s-3",
      ]),
    );
    expect(hosts.indexOf("10.118.12.21\tk8s-2")).toBeLessThan(hosts.indexOf("fd00:118:12::21\tk8s-2"));
  });

  it("turns IPv6 forwarding on and refuses router advertisements where the cluster runs IPv6, not otherwise", () => {
    const dual = fileOf("dual-stack", `nodes/k8s-1/${SYSCTL_FILE}`);
    for (const line of [
      "net.ipv6.conf.all.forwarding = 1",
      "net.ipv6.conf.all.accept_ra = 0",
      "net.ipv6.conf.default.accept_ra = 0",
    ])
      expect(dual).toContain(line);
    expect(fileOf("bare-metal-ha", `nodes/k8s-1/${SYSCTL_FILE}`)).not.toContain("net.ipv6.conf.all.forwarding");
  });
});
