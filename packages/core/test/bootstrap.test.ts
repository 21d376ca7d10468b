import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { summarizeCore } from "../src/index.js";
import { type BootstrapAction, bootstrapPlan, summarizeBootstrap } from "../src/plan/bootstrap.js";
import { arbPlan, mustInitNode, mustResolve } from "../src/testing.js";
import { referenceSpec } from "./helpers.js";

describe("bootstrap order (PLAN.md ## Bootstrap)", () => {
  it("for every spec: keepalived runs before kubeadm init on the init node, which checks the VIP; every other node joins after init", () => {
    fc.assert(
      fc.property(arbPlan({ maxPool: 12, bootstrap: true }), (plan) => {
        const boot = bootstrapPlan(plan);
        expect(boot.map((b) => b.node).sort()).toEqual(plan.nodes.map((n) => n.name).sort());
        const holdsVip = new Set(plan.vips.flatMap((v) => v.order));
        const at = (node: string, action: BootstrapAction): number =>
          (boot.find((b) => b.node === node)?.steps.findIndex((s) => s.action === action) ?? -2) + 1;
        const md = summarizeBootstrap(plan);
        if (plan.bootstrap.bootstrapped) {
          // Bootstrapped: no node inits, every node joins with nothing to wait for, and PLAN.md never says to init.
          expect(plan.initNode).toBeUndefined();
          expect(plan.nodes.some((n) => n.init)).toBe(false);
          for (const b of boot) {
            expect(at(b.node, "kubeadm-init")).toBe(0);
            expect(at(b.node, "kubeadm-join")).toBe(b.steps.length);
            expect(b.steps.find((s) => s.action === "kubeadm-join")?.after).toBeUndefined();
          }
          expect(md).not.toMatch(/kubeadm init/);
        } else {
          const init = mustInitNode(plan).name;
          expect(init).toBe(plan.bootstrap.initNodeName);
          expect(boot[0]?.node).toBe(init);
          // The init node: install, files, keepalived, the VIP verified, then kubeadm init, marking the spec, then Cilium.
          expect(holdsVip.has(init)).toBe(true);
          expect(at(init, "install")).toBeLessThan(at(init, "start-keepalived"));
          expect(at(init, "copy-files")).toBeLessThan(at(init, "start-keepalived"));
          expect(at(init, "start-keepalived")).toBeLessThan(at(init, "verify-vip"));
          expect(at(init, "verify-vip")).toBeLessThan(at(init, "kubeadm-init"));
          expect(at(init, "mark-bootstrapped")).toBe(at(init, "kubeadm-init") + 1);
          expect(at(init, "mark-bootstrapped")).toBeLessThan(at(init, "install-cilium"));
          for (const b of boot.slice(1)) {
            expect(at(b.node, "kubeadm-init")).toBe(0);
            const join = b.steps.find((s) => s.action === "kubeadm-join");
            // joins wait for the init node's kubeadm init, and come last on their node
            expect(join?.after).toEqual({ node: init, step: at(init, "kubeadm-init") });
            expect(at(b.node, "kubeadm-join")).toBe(b.steps.length);
          }
          expect(md).toContain(`${init} initialises the cluster`);
        }
        for (const b of boot.slice(plan.bootstrap.bootstrapped ? 0 : 1)) {
          if (holdsVip.has(b.node)) expect(at(b.node, "start-keepalived")).toBeLessThan(at(b.node, "kubeadm-join"));
          else expect(at(b.node, "start-keepalived")).toBe(0);
        }
        // Control-plane nodes join before workers.
        const joining = boot.filter((b) => b.node !== plan.initNode?.name);
        const kinds = joining.map((b) => plan.nodes.find((n) => n.name === b.node)?.controlPlane);
        expect(kinds).toEqual([...kinds].sort((a, b) => Number(b) - Number(a)));
        // keepalived and curl are installed wherever keepalived runs its checks.
        for (const b of boot) {
          const install = b.steps[0]?.text ?? "";
          expect(install.includes("sys-cluster/keepalived")).toBe(holdsVip.has(b.node));
          if (plan.nodes.find((n) => n.name === b.node)?.controlPlane) expect(install).toContain("net-misc/curl");
        }
        // PLAN.md shows exactly these steps, numbered per node.
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

      k8s-1 initialises the cluster (\`controlPlane.initNode\`, by default the first control-plane node in \`nodes\`): \`kubeadm init\` creates the cluster's certificate authorities, its etcd and its first control plane, once, and every other node joins it. The control-plane endpoint is the VIP, so keepalived must hold it on k8s-1 before \`kubeadm init\` (kubeadm's high-availability guide). **As soon as \`kubeadm init\` has succeeded, set \`controlPlane.bootstrapped: true\`** (step 6 on k8s-1): until then the tree tells k8s-1 to initialise, so a rebuilt k8s-1, or another node once k8s-1 leaves \`nodes\`, would start a second cluster. Within a node, do the steps in their order.

      **k8s-1**

      1. Install \`sys-cluster/keepalived net-misc/curl\` (keepalived's checks call curl) and the Kubernetes packages (see Host files; copy its package.accept_keywords file first: a stable-only system needs it).
      2. Copy \`nodes/k8s-1/\` onto the node and do the manual steps of Host files and Network interfaces.
      3. \`rc-update add keepalived default && rc-service keepalived start\`: alone, it takes the control-plane VIP although no apiserver answers yet (a negative check weight keeps it eligible).
      4. \`ip -o addr show dev wan1 | grep -F ' 10.118.12.100/24 '\` shows the VIP on this node; else read \`/var/log/messages\` for keepalived.
      5. \`kubeadm init --config kubeadm.yaml --upload-certs\`
      6. Set \`controlPlane.bootstrapped: true\` in the spec, regenerate and commit the tree: k8s-1's kubeadm.yaml becomes a JoinConfiguration (no other node's file changes), so \`kubeadm init\` never runs again, on this node or another.
      7. Install Cilium with the \`helm install\` line of the Cilium section.

      **k8s-2**

      1. Install \`sys-cluster/keepalived net-misc/curl\` (keepalived's checks call curl) and the Kubernetes packages (see Host files; copy its package.accept_keywords file first: a stable-only system needs it).
      2. Copy \`nodes/k8s-2/\` onto the node and do the manual steps of Host files and Network interfaces.
      3. \`rc-update add keepalived default && rc-service keepalived start\`: its apiserver check fails until it has joined, so it takes the control-plane VIP from nobody.
      4. \`kubeadm join --config kubeadm.yaml\` (after k8s-1 step 5)

      **k8s-3**

      1. Install \`sys-cluster/keepalived net-misc/curl\` (keepalived's checks call curl) and the Kubernetes packages (see Host files; copy its package.accept_keywords file first: a stable-only system needs it).
      2. Copy \`nodes/k8s-3/\` onto the node and do the manual steps of Host files and Network interfaces.
      3. \`rc-update add keepalived default && rc-service keepalived start\`: its apiserver check fails until it has joined, so it takes the control-plane VIP from nobody.
      4. \`kubeadm join --config kubeadm.yaml\` (after k8s-1 step 5)"
    `);
  });

  it("bootstrapped: every node joins the running cluster, the init node included, and nothing says kubeadm init", () => {
    const spec = referenceSpec();
    spec.controlPlane = { ...spec.controlPlane, bootstrapped: true };
    const plan = mustResolve(spec);
    expect(plan.initNode).toBeUndefined();
    const md = summarizeCore(plan);
    expect(md).not.toMatch(/kubeadm init(?! phase)/);
    expect(summarizeBootstrap(plan)).toMatchInlineSnapshot(`
      "## Bootstrap

      The cluster is bootstrapped (\`controlPlane.bootstrapped: true\`): it was initialised once and runs, so no node initialises it again. Every node's kubeadm.yaml is a JoinConfiguration, k8s-1 (\`controlPlane.initNode\`, by default the first control-plane node in \`nodes\`) included: a node that is added, rebuilt or re-added joins the running cluster with these steps (control planes first), and Removing a node and Replacing a node below say what comes before. Within a node, do the steps in their order.

      **k8s-1**

      1. Install \`sys-cluster/keepalived net-misc/curl\` (keepalived's checks call curl) and the Kubernetes packages (see Host files; copy its package.accept_keywords file first: a stable-only system needs it).
      2. Copy \`nodes/k8s-1/\` onto the node and do the manual steps of Host files and Network interfaces.
      3. \`rc-update add keepalived default && rc-service keepalived start\`: its apiserver check fails until it has joined, so it takes the control-plane VIP from nobody.
      4. \`kubeadm join --config kubeadm.yaml\`

      **k8s-2**

      1. Install \`sys-cluster/keepalived net-misc/curl\` (keepalived's checks call curl) and the Kubernetes packages (see Host files; copy its package.accept_keywords file first: a stable-only system needs it).
      2. Copy \`nodes/k8s-2/\` onto the node and do the manual steps of Host files and Network interfaces.
      3. \`rc-update add keepalived default && rc-service keepalived start\`: its apiserver check fails until it has joined, so it takes the control-plane VIP from nobody.
      4. \`kubeadm join --config kubeadm.yaml\`

      **k8s-3**

      1. Install \`sys-cluster/keepalived net-misc/curl\` (keepalived's checks call curl) and the Kubernetes packages (see Host files; copy its package.accept_keywords file first: a stable-only system needs it).
      2. Copy \`nodes/k8s-3/\` onto the node and do the manual steps of Host files and Network interfaces.
      3. \`rc-update add keepalived default && rc-service keepalived start\`: its apiserver check fails until it has joined, so it takes the control-plane VIP from nobody.
      4. \`kubeadm join --config kubeadm.yaml\`"
    `);
  });

  it("names controlPlane.initNode when it is set, and its node goes first", () => {
    const spec = referenceSpec();
    spec.controlPlane = { ...spec.controlPlane, initNode: "k8s-3" };
    const plan = mustResolve(spec);
    expect(bootstrapPlan(plan).map((b) => b.node)).toEqual(["k8s-3", "k8s-1", "k8s-2"]);
    expect(summarizeBootstrap(plan).split("\n")[2]).toMatchInlineSnapshot(
      `"k8s-3 initialises the cluster (\`controlPlane.initNode\`): \`kubeadm init\` creates the cluster's certificate authorities, its etcd and its first control plane, once, and every other node joins it. The control-plane endpoint is the VIP, so keepalived must hold it on k8s-3 before \`kubeadm init\` (kubeadm's high-availability guide). **As soon as \`kubeadm init\` has succeeded, set \`controlPlane.bootstrapped: true\`** (step 6 on k8s-3): until then the tree tells k8s-3 to initialise, so a rebuilt k8s-3, or another node once k8s-3 leaves \`nodes\`, would start a second cluster. Within a node, do the steps in their order."`,
    );
  });
});
