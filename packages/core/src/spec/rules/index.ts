// Cross-field rules, one small named function per invariant (changesets rules.ts), grouped by concern.
// Each reports at the spec path of the offending value; the schema has already checked every value on its own.
// The order of this list is the order issues are reported in.

import { ciliumDevicesExist, ciliumDsrDispatch, ciliumMtuFitsDevices, ciliumMtuFitsTunnel } from "./cilium.js";
import {
  cloudPoolLabelsSelfSettable,
  cloudPoolsValid,
  cloudPoolTagsFit,
  provisionerUrlIsBase,
  wireguardKeysConsistent,
} from "./cloud.js";
import {
  ciliumValuesNotOwned,
  extraArgsNotOwned,
  kubeletFieldsNotOwned,
  nodeLabelsSelfSettable,
  nodeTaintsDistinct,
  noSecretLiterals,
} from "./knobs.js";
import {
  kubeadmSecretsForJoins,
  nodeHealthConsistent,
  podSubnetFitsNodes,
  podSubnetNodeMaskDiff,
  serviceSubnetSized,
} from "./kubernetes.js";
import {
  atMostTwoNameservers,
  gatewaysOnLink,
  networksDisjoint,
  nodeAddressesMatchSegments,
  routingTablesValid,
  segmentsWellFormed,
} from "./network.js";
import {
  controlPlaneQuorum,
  hostSettingsFit,
  hostSysctlAllowed,
  netifrcVariableNamesDistinct,
  uniqueMacs,
  uniqueNodeAddresses,
  uniqueNodeNames,
  vlanMtuWithinParent,
  vlanParentsExist,
} from "./nodes.js";
import type { Rule } from "./rule.js";
import {
  healthCheckMovesVip,
  vipInterfacesOnNodes,
  vipsPlacedSafely,
  vridsAllocatable,
  vrrpFamiliesAndUnicast,
  vrrpOptionsConsistent,
  vrrpTrackingConsistent,
} from "./vrrp.js";

export { type CloudBurstRule, cloudBurstRules, slotCount } from "./cloud-burst.js";
export type { CloudRule, Rule } from "./rule.js";

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
  atMostTwoNameservers,
  routingTablesValid,
  vrrpOptionsConsistent,
  vipInterfacesOnNodes,
  vrrpFamiliesAndUnicast,
  vridsAllocatable,
  healthCheckMovesVip,
  vrrpTrackingConsistent,
  hostSysctlAllowed,
  hostSettingsFit,
  vlanMtuWithinParent,
  cloudPoolsValid,
  ciliumDevicesExist,
  kubeadmSecretsForJoins,
  podSubnetNodeMaskDiff,
  nodeHealthConsistent,
  ciliumMtuFitsTunnel,
  ciliumMtuFitsDevices,
  ciliumDsrDispatch,
  cloudPoolTagsFit,
  cloudPoolLabelsSelfSettable,
  provisionerUrlIsBase,
  wireguardKeysConsistent,
  extraArgsNotOwned,
  kubeletFieldsNotOwned,
  ciliumValuesNotOwned,
  nodeLabelsSelfSettable,
  nodeTaintsDistinct,
  noSecretLiterals,
];
