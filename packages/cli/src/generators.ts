// The one list of output formats. The CLI and the golden tests know nothing format-specific beyond it.
import { ciliumModule } from "@clusterspec/cilium";
import { cloudInitModule } from "@clusterspec/cloud-init";
import type { BurstGeneratorModule, GeneratorModule } from "@clusterspec/core/types";
import { hostModule, hubHostModule } from "@clusterspec/host";
import { keepalivedModule } from "@clusterspec/keepalived";
import { kubeadmModule } from "@clusterspec/kubeadm";
import { netifrcModule } from "@clusterspec/netifrc";
import { autoscalerModule, terraformModule } from "@clusterspec/terraform-json";
import { wireguardModule } from "@clusterspec/wireguard";

/** Every module; those marked `burst` also run for the cloud burst of an existing cluster. */
export const generatorModules: readonly (GeneratorModule | BurstGeneratorModule)[] = [
  kubeadmModule,
  ciliumModule,
  netifrcModule,
  hostModule,
  keepalivedModule,
  cloudInitModule,
  terraformModule,
  autoscalerModule,
  wireguardModule,
  hubHostModule,
];
