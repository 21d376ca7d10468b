import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { summarizeCore } from "../src/index.js";
import { type BootstrapAction, bootstrapPlan, summarizeBootstrap } from "../src/plan/bootstrap.js";
import { arbPlan, mustResolve } from "../src/testing.js";
import { referenceSpec } from "./helpers.js";

describe("bootstrap order (PLAN.md ## Bootstrap)", () => {
  it("for every spec: keepalived runs before kubeadm init on the init node, which checks the VIP; every other node joins after init", () => {
    fc.assert(
      fc.property(arbPlan({ maxPool: 12 }), (plan) => {
        const boot = bootstrapPlan(plan);
        expect(boot.map((b) => b.node).sort()).toEqual(plan.nodes.map((n) => n.name).sort());
        expect(boot[0]?.node).toBe(plan.initNode.name);
        const holdsVip = new Set(plan.vips.flatMap((v) => v.order));
        const at = (node: string, action: BootstrapAction): number =>
          (boot.find((b) => b.node === node)?.steps.findIndex((s) => s.action === action) ?? -2) + 1;
        const init = plan.initNode.name;
        // The init node: install, files, keepalived, the VIP verified, then kubeadm init, then Cilium.
        expect(holdsVip.has(init)).toBe(true);
        expect(at(init, "install")).toBeLessThan(at(init, "start-keepalived"));
        expect(at(init, "copy-files")).toBeLessThan(at(init, "start-keepalived"));
        expect(at(init, "start-keepalived")).toBeLessThan(at(init, "verify-vip"));
        expect(at(init, "verify-vip")).toBeLessThan(at(init, "kubeadm-init"));
        expect(at(init, "kubeadm-init")).toBeLessThan(at(init, "install-cilium"));
        for (const b of boot.slice(1)) {
          expect(at(b.node, "kubeadm-init")).toBe(0);
          const join = b.steps.find((s) => s.action === "kubeadm-join");
          // joins wait for the init node's kubeadm init, and come last on their node
          expect(join?.after).toEqual({ node: init, step: at(init, "kubeadm-init") });
          expect(at(b.node, "kubeadm-join")).toBe(b.steps.length);
          if (holdsVip.has(b.node)) expect(at(b.node, "start-keepalived")).toBeLessThan(at(b.node, "kubeadm-join"));
          else expect(at(b.node, "start-keepalived")).toBe(0);
        }
        // Control-plane nodes join before workers.
        const kinds = boot.slice(1).map((b) => plan.nodes.find((n) => n.name === b.node)?.controlPlane);
        expect(kinds).toEqual([...kinds].sort((a, b) => Number(b) - Number(a)));
        // keepalived and curl are installed wherever keepalived runs its checks.
        for (const b of boot) {
          const install = b.steps[0]?.text ?? "";
          expect(install.includes("net-misc/keepalived")).toBe(holdsVip.has(b.node));
          if (plan.nodes.find((n) => n.name === b.node)?.controlPlane) expect(install).toContain("net-misc/curl");
        }
        // PLAN.md shows exactly these steps, numbered per node.
        const md = summarizeBootstrap(plan);
        for (const b of boot)
          b.steps.forEach((s, i) => {
            expect(md).toContain(`${i + 1}. ${s.text}`);
          });
      }),
      { numRuns: 80 },
    );
  });

  it("reads as a numbered list per node in PLAN.md", () => {
    const plan = mustResolve(referenceSpec());
    expect(summarizeCore(plan)).toContain("## Bootstrap");
    expect(summarizeBootstrap(plan)).toMatchInlineSnapshot(`
      "## Bootstrap

      Bring the cluster up in this order: the control-plane endpoint is the VIP, so keepalived must hold it on k8s-1 before \`kubeadm init\` (kubeadm's high-availability guide), and every other node joins after that. Within a node, do the steps in their order.

      **k8s-1**

      1. Install \`net-misc/keepalived net-misc/curl\` (keepalived's checks call curl) and the Kubernetes packages (see Host files).
      2. Copy \`nodes/k8s-1/\` onto the node and do the manual steps of Host files and Network interfaces.
      3. \`rc-update add keepalived default && rc-service keepalived start\`: alone, it takes the control-plane VIP although no apiserver answers yet (a negative check weight keeps it eligible).
      4. \`ip -o addr show dev wan1 | grep -F ' 10.118.12.100/24 '\` shows the VIP on this node; else read \`/var/log/messages\` for keepalived.
      5. \`kubeadm init --config kubeadm.yaml --upload-certs\`
      6. Install Cilium with the \`helm install\` line of the Cilium section.

      **k8s-2**

      1. Install \`net-misc/keepalived net-misc/curl\` (keepalived's checks call curl) and the Kubernetes packages (see Host files).
      2. Copy \`nodes/k8s-2/\` onto the node and do the manual steps of Host files and Network interfaces.
      3. \`rc-update add keepalived default && rc-service keepalived start\`: its apiserver check fails until it has joined, so it takes the control-plane VIP from nobody.
      4. \`kubeadm join --config kubeadm.yaml\` (after k8s-1 step 5)

      **k8s-3**

      1. Install \`net-misc/keepalived net-misc/curl\` (keepalived's checks call curl) and the Kubernetes packages (see Host files).
      2. Copy \`nodes/k8s-3/\` onto the node and do the manual steps of Host files and Network interfaces.
      3. \`rc-update add keepalived default && rc-service keepalived start\`: its apiserver check fails until it has joined, so it takes the control-plane VIP from nobody.
      4. \`kubeadm join --config kubeadm.yaml\` (after k8s-1 step 5)"
    `);
  });
});
