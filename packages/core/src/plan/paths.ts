// Artifact paths that one generator writes and another refers to: one home, so they cannot drift apart.

/** The user data of a pool: the reviewed YAML, and the gzip+base64 form written only when the YAML is too large for EC2. */
export function userDataPaths(pool: string): { readonly yaml: string; readonly gzipBase64: string } {
  return { yaml: `cloud/${pool}/user-data.yaml`, gzipBase64: `cloud/${pool}/user-data.gz.b64` };
}
