// The one list of output formats. The CLI and the golden tests know nothing format-specific beyond it.
import { ciliumModule } from "@clusterspec/cilium";
import { cloudInitModule } from "@clusterspec/cloud-init";
import type { GeneratorModule } from "@clusterspec/core/types";
import { hostModule } from "@clusterspec/host";
import { keepalivedModule } from "@clusterspec/keepalived";
import { kubeadmModule } from "@clusterspec/kubeadm";
import { netifrcModule } from "@clusterspec/netifrc";
import { terraformModule } from "@clusterspec/terraform-json";

export const generatorModules: readonly GeneratorModule[] = [
  kubeadmModule,
  ciliumModule,
  netifrcModule,
  hostModule,
  keepalivedModule,
  cloudInitModule,
  terraformModule,
];
