// Constants only this generator uses (moved out of @clusterspec/core, which does not need them).

/** Terraform's own files live here, beside the per-pool folders it reads user data from. */
export const TERRAFORM_DIR = "cloud/terraform";
