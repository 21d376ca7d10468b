// Constants only this generator uses (moved out of @clusterspec/core, which does not need them).

/** The provisioner's default SNS endpoint path (`cloud.provisioner.notifyPath`): Terraform subscribes it, the contract describes it. */
export const PROVISIONER_SNS_PATH = "/sns";
