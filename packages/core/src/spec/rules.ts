// Cross-field rules, one small named function per invariant (changesets rules.ts), each beside its section's schema
// in sections/<section>/rules.ts.
// Each reports at the spec path of the offending value; the schema has already checked every value on its own.
// The order of this list is the order issues are reported in.

import type { Rule } from "./rule.js";
import {
  ciliumDevicesExist,
  ciliumDsrDispatch,
  ciliumMtuFitsDevices,
  ciliumMtuFitsTunnel,
  ciliumValuesNotOwned,
  dsrWithWireguard,
  externalVipsOnCiliumDevice,
} from "./sections/cilium/rules.js";
import {
  cloudHubEndpointResolvable,
  cloudNodeHealthOverWan,
  cloudPoolAmiReleases,
  cloudPoolLabelsSelfSettable,
  cloudPoolNoJoinPlaceholders,
  cloudPoolsValid,
  cloudPoolTagsFit,
  provisionerUrlIsBase,
  wireguardKeysConsistent,
} from "./sections/cloud/rules.js";
import {
  healthCheckMovesVip,
  initNodeIsControlPlane,
  vipInterfacesOnNodes,
  vipsPlacedSafely,
  vridsAllocatable,
  vrrpFamiliesAndUnicast,
  vrrpOptionsConsistent,
  vrrpTrackingConsistent,
} from "./sections/control-plane/rules.js";
import { hostSettingsFit, hostSysctlAllowed } from "./sections/host/rules.js";
import {
  apiserverHealthStaysAnonymous,
  extraArgsNotOwned,
  kubeadmSecretsForJoins,
  kubeletFieldsNotOwned,
  nodeHealthConsistent,
  podSubnetFitsNodes,
  podSubnetNodeMaskDiff,
  serviceSubnetSized,
  subnetFamiliesConsistent,
} from "./sections/kubernetes/rules.js";
import {
  atMostTwoNameservers,
  dualStackFieldsConsistent,
  gatewaysOnLink,
  networksDisjoint,
  nodeAddressesMatchSegments,
  nodesHaveClusterFamilies,
  routingTablesValid,
  segmentsWellFormed,
  uplinkRoutesSomething,
  vswitchVlanMtu,
} from "./sections/network/rules.js";
import {
  controlPlaneQuorum,
  netifrcVariableNamesDistinct,
  nodeLabelsSelfSettable,
  nodeTaintsDistinct,
  uniqueMacs,
  uniqueNodeAddresses,
  uniqueNodeNames,
  vlanMtuWithinParent,
  vlanParentsExist,
} from "./sections/nodes/rules.js";
import { noSecretLiterals } from "./sections/overlays/rules.js";

export type { CloudRule, Rule } from "./rule.js";
export { type CloudBurstRule, cloudBurstRules, slotCount } from "./sections/cloud-burst/rules.js";

export const rules: readonly Rule[] = [
  uniqueNodeNames,
  uniqueNodeAddresses,
  uniqueMacs,
  netifrcVariableNamesDistinct,
  vlanParentsExist,
  segmentsWellFormed,
  nodeAddressesMatchSegments,
  gatewaysOnLink,
  vipsPlacedSafely,
  networksDisjoint,
  serviceSubnetSized,
  podSubnetFitsNodes,
  controlPlaneQuorum,
  initNodeIsControlPlane,
  atMostTwoNameservers,
  routingTablesValid,
  uplinkRoutesSomething,
  vrrpOptionsConsistent,
  vipInterfacesOnNodes,
  vrrpFamiliesAndUnicast,
  vridsAllocatable,
  healthCheckMovesVip,
  vrrpTrackingConsistent,
  hostSysctlAllowed,
  hostSettingsFit,
  vlanMtuWithinParent,
  vswitchVlanMtu,
  cloudPoolsValid,
  ciliumDevicesExist,
  externalVipsOnCiliumDevice,
  kubeadmSecretsForJoins,
  podSubnetNodeMaskDiff,
  nodeHealthConsistent,
  ciliumMtuFitsTunnel,
  ciliumMtuFitsDevices,
  ciliumDsrDispatch,
  dsrWithWireguard,
  cloudPoolTagsFit,
  cloudPoolLabelsSelfSettable,
  cloudPoolNoJoinPlaceholders,
  cloudPoolAmiReleases,
  cloudHubEndpointResolvable,
  cloudNodeHealthOverWan,
  provisionerUrlIsBase,
  wireguardKeysConsistent,
  extraArgsNotOwned,
  apiserverHealthStaysAnonymous,
  kubeletFieldsNotOwned,
  ciliumValuesNotOwned,
  nodeLabelsSelfSettable,
  nodeTaintsDistinct,
  noSecretLiterals,
  subnetFamiliesConsistent,
  dualStackFieldsConsistent,
  nodesHaveClusterFamilies,
];
