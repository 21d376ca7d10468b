import { specJsonSchema } from "@clusterspec/core";
import { exampleText } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { hoverAt, type JsonSchema, keyCompletions, yamlPathAt } from "../src/schema-help.js";

const schema = specJsonSchema() as JsonSchema;
const text = exampleText("bare-metal-ha");
const offsetOf = (needle: string, from = 0) => text.indexOf(needle, from);

describe("yamlPathAt", () => {
  it("finds the key under the cursor and the list item around it", () => {
    expect(yamlPathAt(text, offsetOf("vrid: 5") + 1)).toEqual({ path: ["controlPlane", "vrid"], onKey: true });
    const roles = offsetOf("roles", offsetOf("name: k8s-2"));
    expect(yamlPathAt(text, roles).path).toEqual(["nodes", 1, "roles"]);
  });
});

describe("hoverAt", () => {
  it("shows the schema's type, description and default", () => {
    expect(hoverAt(schema, text, offsetOf("vrid: 5") + 2)).toEqual({
      title: "controlPlane.vrid",
      type: "integer",
      description: "VRRP router id; default the last 8 bits of the VIP's address (10.118.12.100/24: 100)",
      default: undefined,
    });
    expect(hoverAt(schema, text, offsetOf("advertInterval"))?.default).toBe("1");
  });
});

describe("keyCompletions", () => {
  const keysAt = (t: string, line: number) => keyCompletions(schema, t, line).map((k) => k.key);
  it("offers the keys a mapping may still take", () => {
    const lines = text.split("\n");
    const at = lines.findIndex((l) => l.startsWith("controlPlane:")) + 2;
    const withNew = [...lines.slice(0, at), "  ", ...lines.slice(at)].join("\n");
    // vip, port and vrid are there; vip6 (the IPv6 half of a dual-stack VIP pair: issue 30), interface, dnsName (an
    // optional name for the VIP, added with the knobs), initNode and bootstrapped (who runs kubeadm init, and whether
    // it has: issue 27) are left
    expect(keysAt(withNew, at + 1)).toEqual(["vip6", "interface", "dnsName", "initNode", "bootstrapped"]);
  });
  it("offers a list item's keys inside a node and top-level keys at column 0", () => {
    const lines = text.split("\n");
    const at = lines.findIndex((l) => l.includes("name: k8s-2")) + 1;
    const withNew = [...lines.slice(0, at), "    ", ...lines.slice(at)].join("\n");
    expect(keysAt(withNew, at + 1)).toContain("disk");
    expect(keysAt(withNew, at + 1)).not.toContain("roles");
    expect(keysAt(`${text}\n`, text.split("\n").length + 1)).toEqual(expect.arrayContaining(["cloud"]));
  });
});
