export {
  AUTOSCALER_CREDENTIALS_SECRET,
  AUTOSCALER_SCALE_FROM_ZERO_MINOR,
  AUTOSCALER_VALUES_PATH,
  autoscalerImageTag,
  autoscalerValues,
  renderAutoscalerValues,
} from "./autoscaler.js";
export { tfExpr, tfLiteral } from "./escape.js";
export { autoscalerModule, generateAutoscalerValues, generateTerraform, terraformModule } from "./generate.js";
export {
  AUTOSCALER_DESCRIBE_ACTIONS,
  AUTOSCALER_WRITE_ACTIONS,
  autoscalerName,
  autoscalerPolicy,
  iamResources,
} from "./iam.js";
export {
  DLQ_RETENTION_SECONDS,
  poolResourceName,
  SNS_HEALTHY_RETRY_POLICY,
  SNS_MAX_RETRY_SECONDS,
  snsRetryBoundSeconds,
  snsRetryFloorSeconds,
} from "./resources.js";
export { summarizeAutoscaler, summarizeTerraform } from "./summary.js";
