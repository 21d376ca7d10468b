// The boot script of a burst node. It is the same for every cluster: the values it needs come from
// join.env (shell-quoted by renderJoinEnv), and per-instance secrets come from the provisioner at boot.
// Kept as a constant rather than a template, so no spec value is ever spliced into shell code.
import { AUTOSCALER_TIMINGS } from "@clusterspec/core";

export const JOIN_SCRIPT_PATH = "/usr/local/sbin/clusterspec-join";
export const JOIN_ENV_PATH = "/etc/clusterspec/join.env";
export const JOIN_TEMPLATE_PATH = "/etc/clusterspec/kubeadm-join.yaml.in";
export const DISCOVERY_KUBECONFIG_PATH = "/etc/clusterspec/discovery.kubeconfig";
export const NODE_IP_PLACEHOLDER = "__NODE_IP__";
export const PROVIDER_ID_PLACEHOLDER = "__PROVIDER_ID__";
/** The node's name: its EC2 instance id, never the recyclable ip-a-b-c-d host name (the provisioner deletes the Node by it). */
export const NODE_NAME_PLACEHOLDER = "__NODE_NAME__";
/** The labels Cluster Autoscaler's scale-from-zero template carries, set at join from IMDS (aws_manager.go buildNodeFromTemplate). */
export const ZONE_PLACEHOLDER = "__ZONE__";
export const REGION_PLACEHOLDER = "__REGION__";
export const INSTANCE_TYPE_PLACEHOLDER = "__INSTANCE_TYPE__";
/** Well-known labels (kubernetes.io/docs/reference/labels-annotations-taints) the kubelet may set under NodeRestriction. */
export const TEMPLATE_LABELS = {
  "topology.kubernetes.io/zone": ZONE_PLACEHOLDER,
  "topology.kubernetes.io/region": REGION_PLACEHOLDER,
  "node.kubernetes.io/instance-type": INSTANCE_TYPE_PLACEHOLDER,
} as const;
/** cri-o's default bridge network under the names Fedora and upstream used; it would shadow the cluster CNI. */
export const CRIO_DEFAULT_CNI_CONFIGS = [
  "/etc/cni/net.d/100-crio-bridge.conflist",
  "/etc/cni/net.d/100-crio-bridge.conf",
  "/etc/cni/net.d/11-crio-ipv4-bridge.conflist",
] as const;

/** Request headers that carry the instance's identity (IMDSv2) to the provisioner; the contract documents them. */
export const IDENTITY_HEADERS = {
  document: "X-Clusterspec-Identity-Document",
  signature: "X-Clusterspec-Identity-Signature",
} as const;

/** How the join script retries a provisioner request: attempts, seconds between them, and the statuses it retries. */
export const PROVISIONER_RETRY = { attempts: 30, delaySeconds: 10, timeoutSeconds: 30 } as const;

/**
 * The join script's own bounds. Every retry loop stops at `deadlineSeconds` of uptime (cloud-init's package install
 * before the script counts too), so a boot that fails ends well before Cluster Autoscaler's max-node-provision-time
 * (`marginSeconds` earlier: its scan interval and the kubelet's registration after kubeadm join returns). A failed
 * join leaves the instance running, unjoined: Cluster Autoscaler deletes it at max-node-provision-time, decrementing
 * the group, and backs the group off (never a replacement by the group, which would restart its clock).
 */
export const JOIN_BOUNDS = {
  deadlineSeconds: AUTOSCALER_TIMINGS.maxNodeProvisionSeconds - 180,
  marginSeconds: 180,
} as const;

/**
 * The shortest TTL a burst node's bootstrap token may have: its last use (kubeadm join and the kubelet's TLS
 * bootstrap) comes before JOIN_BOUNDS.deadlineSeconds of uptime, and the token is minted after boot; the margin
 * covers the clock skew between the provisioner and the API server. A longer one buys nothing: Cluster Autoscaler
 * deletes an instance that has not registered by max-node-provision-time, which this equals.
 */
export const BOOTSTRAP_TOKEN_MIN_TTL_SECONDS = JOIN_BOUNDS.deadlineSeconds + JOIN_BOUNDS.marginSeconds;

/**
 * The keys a served wg-quick config may set, per section (compared case-insensitively, as `wg setconf` reads
 * them). wg-quick runs PreUp/PostUp/PreDown/PostDown as root and Table/SaveConfig change the host: any key not
 * listed refuses the config. DNS and MTU are accepted and then replaced (join.env's nameservers and tunnel MTU).
 */
export const WG_ALLOWED_KEYS = {
  Interface: ["PrivateKey", "Address", "DNS", "MTU"],
  Peer: ["PublicKey", "PresharedKey", "AllowedIPs", "Endpoint", "PersistentKeepalive"],
} as const;
export const RETRIED_STATUSES = ["404", "408", "425", "429", "500", "502", "503", "504"] as const;

/** The variables join.env sets, in file order. */
export const JOIN_ENV_KEYS = [
  "CLUSTER_NAME",
  "POOL_NAME",
  "PROVISIONER_URL",
  "WG_INTERFACE",
  "TUNNEL_FAMILY",
  "TUNNEL_MTU",
  "NAMESERVERS",
  "PACKAGES",
  "KUBERNETES_VERSION",
  "CA_CERT_HASH",
] as const;
/** The binaries the join script needs; it checks them after the package install and stops without one. */
export const REQUIRED_BINARIES = ["kubeadm", "kubelet", "crictl", "wg", "openssl"] as const;
/** How often the join script tries the package install (cloud-init goes on to the scripts even when it failed). */
export const PACKAGE_RETRY = { attempts: 5, delaySeconds: 30 } as const;

export type JoinEnv = Record<(typeof JOIN_ENV_KEYS)[number], string>;

/**
 * The script as it ships in user data: without its comment lines (the shebang and the marker stay), since EC2 takes
 * 16 KiB of user data and a plain (not gzipped) file is what overlays can patch. The comments are in joinScript.
 */
/** The allowed keys of a section, lowercase (and so never spelling out a key name such as the private key's in user data). */
export const wgKeys = (section: keyof typeof WG_ALLOWED_KEYS): string =>
  WG_ALLOWED_KEYS[section].map((k) => k.toLowerCase()).join(", ");

export function shippedJoinScript(
  marker: string,
  families: readonly (4 | 6)[] = [4],
  imds: ImdsFamily = "ipv4",
): string {
  return joinScript(marker, families, imds)
    .split("\n")
    .filter((line, i) => i < 2 || !/^\s*#/.test(line))
    .join("\n");
}

/** A dual-stack burst node's tunnel_address: one address per family of TUNNEL_FAMILY, comma-separated (node-ip). */
const DUAL_TUNNEL_ADDRESS = `# The tunnel address of each family in TUNNEL_FAMILY (the cluster's primary first), comma-separated: the kubelet's
# node-ip of a dual-stack node, which registers one InternalIP per family.
tunnel_address() {
  local family address addresses=
  for family in $TUNNEL_FAMILY; do
    address=$(ip -o "-$family" addr show dev "$WG_INTERFACE" scope global |
      awk '{ split($4, a, "/"); print a[1]; exit }' | grep .) || return 1
    addresses=\${addresses:+$addresses,}$address
  done
  echo "$addresses"
}
`;

/** How the instance reaches IMDS: IPv4 (169.254.169.254), or IPv6 ([fd00:ec2::254]) on an IPv6-only pool's instances. */
export type ImdsFamily = "ipv4" | "ipv6";

/** The base URLs of IMDS; the IPv6 one answers on Nitro instances with `http_protocol_ipv6` enabled. */
export const IMDS_URLS: Readonly<Record<ImdsFamily, string>> = {
  ipv4: "http://169.254.169.254/latest",
  ipv6: "http://[fd00:ec2::254]/latest",
};

/**
 * An IPv6-only instance has no IPv4 address and so no route to 169.254.169.254: its script reads IMDS at its IPv6
 * address (curl takes a bracketed IPv6 literal without --globoff).
 */
function withImds(script: string, imds: ImdsFamily): string {
  if (imds === "ipv4") return script;
  const line = `readonly IMDS=${IMDS_URLS.ipv4}\n`;
  if (!script.includes(line)) throw new Error("join script: IMDS line not found");
  return script.replace(line, `readonly IMDS=${IMDS_URLS.ipv6}\n`);
}

/**
 * The join script. A dual-stack cluster's (`families` of two) differs in two places only: tunnel_address collects the
 * address of each family (TUNNEL_FAMILY lists them, primary first) and the node IP check accepts the comma.
 */
export function joinScript(marker: string, families: readonly (4 | 6)[] = [4], imds: ImdsFamily = "ipv4"): string {
  const script = withImds(singleStackJoinScript(marker), imds);
  if (families.length < 2) return script;
  const single = /^tunnel_address\(\) \{\n[\s\S]*?\n\}\n/m;
  const check = '[[ $NODE_IP =~ ^[0-9a-f.:]+$ ]] || die "unexpected tunnel address $NODE_IP"';
  if (!single.test(script) || !script.includes(check)) throw new Error("join script: tunnel_address not found");
  return script
    .replace(single, DUAL_TUNNEL_ADDRESS)
    .replace(check, '[[ $NODE_IP =~ ^[0-9a-f.:]+,[0-9a-f.:]+$ ]] || die "unexpected tunnel addresses $NODE_IP"')
    .replace(
      'die "no IPv$TUNNEL_FAMILY address on $WG_INTERFACE"',
      'die "no address of each family ($TUNNEL_FAMILY) on $WG_INTERFACE"',
    );
}

function singleStackJoinScript(marker: string): string {
  return `#!/bin/bash
# ${marker}
# Joins this EC2 instance to the cluster through WireGuard. Settings come from ${JOIN_ENV_PATH};
# the WireGuard config and the kubeadm discovery kubeconfig (per-instance secrets) come from the
# provisioner at boot and never from user data. Logs go to the console and the journal.
set -euo pipefail
umask 077

readonly IMDS=${IMDS_URLS.ipv4}
readonly JOIN_TEMPLATE=${JOIN_TEMPLATE_PATH}
readonly JOIN_CONFIG=/etc/clusterspec/kubeadm-join.yaml
readonly DISCOVERY_KUBECONFIG=${DISCOVERY_KUBECONFIG_PATH}

log() {
  echo "clusterspec-join: $*" >&2
  logger -t clusterspec-join -- "$*" 2>/dev/null || true
}

die() {
  log "FAILED: $*"
  exit 1
}

# Any failure (die, or a command under set -e) ends the join, and the instance stays up, unjoined. It must not power
# off: the group would replace it at once and Cluster Autoscaler, which times each instance, would never see a node
# fail to register, so a failure that repeats on every instance would launch instances forever. Left running, the
# instance is deleted by Cluster Autoscaler at max-node-provision-time (${AUTOSCALER_TIMINGS.maxNodeProvisionSeconds}s), with the group's desired
# capacity decremented, and the group is backed off.
stay_unjoined_on_failure() {
  local rc=$?
  [ "$rc" -eq 0 ] && return 0
  log "exit status $rc: the join failed; this instance stays up, unjoined, until Cluster Autoscaler deletes it (max-node-provision-time ${AUTOSCALER_TIMINGS.maxNodeProvisionSeconds}s) and backs the group off"
  systemctl disable --now kubelet.service >/dev/null 2>&1 || true
  exit "$rc"
}
trap stay_unjoined_on_failure EXIT

# Seconds since boot: the deadline counts cloud-init's own package install too, as Cluster Autoscaler's clock does.
uptime_seconds() {
  local up _
  read -r up _ </proc/uptime
  echo "\${up%%.*}"
}

# past_deadline: true once the join has no time left before max-node-provision-time.
past_deadline() {
  [ "$(uptime_seconds)" -ge ${JOIN_BOUNDS.deadlineSeconds} ]
}

# retry ATTEMPTS DELAY COMMAND...: runs COMMAND until it succeeds, at most ATTEMPTS times.
retry() {
  local attempts=$1 delay=$2 n=1
  shift 2
  until "$@"; do
    if [ "$n" -ge "$attempts" ]; then
      log "$1 failed $n times, giving up"
      return 1
    fi
    if past_deadline; then
      log "$1 failed $n times and the join's deadline (${JOIN_BOUNDS.deadlineSeconds}s of uptime) has passed, giving up"
      return 1
    fi
    log "$1 failed (attempt $n of $attempts), retrying in \${delay}s"
    sleep "$delay"
    n=$((n + 1))
  done
}

imds_token() {
  curl --fail --silent --show-error --max-time 5 -X PUT \\
    -H 'X-aws-ec2-metadata-token-ttl-seconds: 600' "$IMDS/api/token"
}

imds_get() {
  curl --fail --silent --show-error --max-time 5 \\
    -H "X-aws-ec2-metadata-token: $IMDS_TOKEN" "$IMDS/meta-data/$1"
}

imds_dynamic() {
  curl --fail --silent --show-error --max-time 5 \\
    -H "X-aws-ec2-metadata-token: $IMDS_TOKEN" "$IMDS/dynamic/$1"
}

# fetch PATH FILE: GET $PROVISIONER_URL/PATH over HTTPS with this instance's signed identity, into FILE
# (0600 by umask), replacing it only on success. 0: done; 1: worth retrying (no answer, ${RETRIED_STATUSES.join(", ")});
# 2: refused for good (any other status, e.g. 403 when the identity does not verify). 404 (not yet seen, or
# terminated) is retried within the bounds: the contract answers it before the \`running\` event is handled.
fetch() {
  local tmp status
  tmp=$(mktemp "$2.XXXXXX") || return 1
  status=$(curl --silent --show-error --max-time ${PROVISIONER_RETRY.timeoutSeconds} --proto '=https' --tlsv1.2 \\
    -H "${IDENTITY_HEADERS.document}: $IDENTITY_DOCUMENT" \\
    -H "${IDENTITY_HEADERS.signature}: $IDENTITY_SIGNATURE" \\
    --output "$tmp" --write-out '%{http_code}' "$PROVISIONER_URL/$1") || status=000
  case $status in
    200)
      mv -f "$tmp" "$2"
      return 0
      ;;
    ${RETRIED_STATUSES.join("|")}|000)
      log "GET /$1: HTTP $status"
      rm -f "$tmp"
      return 1
      ;;
    *)
      log "GET /$1: HTTP $status, not retried"
      rm -f "$tmp"
      return 2
      ;;
  esac
}

# fetch_retry PATH FILE: fetch, at most ${PROVISIONER_RETRY.attempts} times ${PROVISIONER_RETRY.delaySeconds}s apart; a refusal stops at once.
fetch_retry() {
  local n=1 rc
  while :; do
    rc=0
    fetch "$@" || rc=$?
    [ "$rc" -eq 0 ] && return 0
    [ "$rc" -eq 2 ] && return 1
    if [ "$n" -ge ${PROVISIONER_RETRY.attempts} ]; then
      log "GET /$1 failed $n times, giving up"
      return 1
    fi
    if past_deadline; then
      log "GET /$1 failed $n times and the join's deadline (${JOIN_BOUNDS.deadlineSeconds}s of uptime) has passed, giving up"
      return 1
    fi
    log "GET /$1 failed (attempt $n of ${PROVISIONER_RETRY.attempts}), retrying in ${PROVISIONER_RETRY.delaySeconds}s"
    sleep ${PROVISIONER_RETRY.delaySeconds}
    n=$((n + 1))
  done
}

# check_wg_config FILE: the served wg-quick config may set only the keys a burst node needs (WG_ALLOWED_KEYS);
# wg-quick runs PreUp/PostUp/PreDown/PostDown as root, and Table/SaveConfig change the host. Keys are compared
# without case, as wg setconf reads them; comments (#) are ignored, as wg-quick does.
check_wg_config() {
  local line key section= n=0
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=\${line%%#*}
    if [[ $line =~ ^[[:space:]]*$ ]]; then
      continue
    elif [[ $line =~ ^[[:space:]]*\\[([A-Za-z]+)\\][[:space:]]*$ ]]; then
      section=\${BASH_REMATCH[1]}
      case $section in
        Interface | Peer) ;;
        *) log "the served WireGuard config has a section [$section] (line $n)"; return 1 ;;
      esac
    elif [[ $line =~ ^[[:space:]]*([A-Za-z]+)[[:space:]]*= ]]; then
      key=\${BASH_REMATCH[1],,}
      case "$section:$key" in
        ${WG_ALLOWED_KEYS.Interface.map((k) => `Interface:${k.toLowerCase()}`).join(" | ")}) ;;
        ${WG_ALLOWED_KEYS.Peer.map((k) => `Peer:${k.toLowerCase()}`).join(" | ")}) ;;
        *)
          log "the served WireGuard config sets \${BASH_REMATCH[1]} (line $n\${section:+, [$section]}), which a burst node does not accept (keys as wg reads them: [Interface] ${wgKeys("Interface")}; [Peer] ${wgKeys("Peer")})"
          return 1
          ;;
      esac
    else
      log "line $n of the served WireGuard config is not a section or a key = value"
      return 1
    fi
  done <"$1"
}

# check_ca KUBECONFIG: the cluster CA the served kubeconfig carries must be the one whose public key hashes to
# CA_CERT_HASH (kubeadm's sha256 of the DER SubjectPublicKeyInfo): kubeadm join --discovery-file trusts the file.
check_ca() {
  local data hash
  [[ $CA_CERT_HASH =~ ^sha256:[0-9a-f]{64}$ ]] || { log "CA_CERT_HASH in ${JOIN_ENV_PATH} is not sha256:<64 hex digits>"; return 1; }
  [ "$(grep -c 'certificate-authority-data:' "$1")" -eq 1 ] ||
    { log "the served kubeconfig must carry exactly one certificate-authority-data"; return 1; }
  data=$(awk '/certificate-authority-data:/ { print $2 }' "$1" | tr -d "\\"'")
  hash=$(printf '%s' "$data" | base64 -d | openssl x509 -noout -pubkey |
    openssl pkey -pubin -outform DER | openssl dgst -sha256 -hex | awk '{ print $NF }') || return 1
  if [ "sha256:$hash" != "$CA_CERT_HASH" ]; then
    log "the served kubeconfig's CA hashes to sha256:$hash, not the cluster's $CA_CERT_HASH"
    return 1
  fi
}

tunnel_address() {
  ip -o "-$TUNNEL_FAMILY" addr show dev "$WG_INTERFACE" scope global |
    awk '{ split($4, a, "/"); print a[1]; exit }' | grep .
}

join_once() {
  local left=$((${JOIN_BOUNDS.deadlineSeconds} - $(uptime_seconds)))
  [ "$left" -gt 0 ] || return 1
  timeout --kill-after=10 "$left" kubeadm join --config "$JOIN_CONFIG" && return 0
  log "kubeadm join failed; resetting before the next attempt"
  kubeadm reset --force || true
  return 1
}

main() {
  # shellcheck source=/dev/null
  . ${JOIN_ENV_PATH}
  log "joining cluster $CLUSTER_NAME as a node of pool $POOL_NAME"

  # cloud-init runs this script even when its package install failed: install again (a no-op when done), then check.
  local -a packages
  read -r -a packages <<<"$PACKAGES"
  log "installing \${packages[*]}"
  retry ${PACKAGE_RETRY.attempts} ${PACKAGE_RETRY.delaySeconds} dnf install -y "\${packages[@]}" || die "the package install failed"
  local bin
  for bin in ${REQUIRED_BINARIES.join(" ")}; do
    command -v "$bin" >/dev/null || die "$bin is not installed"
  done
  # Fedora's kubernetesX.Y packages pin the minor; its updates repository holds only the newest patch of the stream,
  # so the exact patch is not on offer. kubeadm accepts a newer patch (its preflight compares minors); another minor
  # would be refused by kubeadm, or break the version skew policy: stop here instead.
  local kubelet_version
  kubelet_version=$(kubelet --version | awk '{ print $2 }')
  [[ $kubelet_version == "\${KUBERNETES_VERSION%.*}".* ]] ||
    die "kubelet $kubelet_version is not of the cluster's minor \${KUBERNETES_VERSION%.*}"
  [ "$kubelet_version" = "$KUBERNETES_VERSION" ] ||
    log "kubelet $kubelet_version; the cluster runs $KUBERNETES_VERSION (Fedora offers only the newest patch of the minor)"

  log "loading kernel modules and sysctl settings; turning swap off"
  systemctl restart systemd-modules-load.service
  sysctl --system >/dev/null
  swapoff -a

  IMDS_TOKEN=$(retry 10 3 imds_token) || die "no IMDSv2 token"
  INSTANCE_ID=$(retry 10 3 imds_get instance-id) || die "no instance id from IMDS"
  AZ=$(retry 10 3 imds_get placement/availability-zone) || die "no availability zone from IMDS"
  REGION=$(retry 10 3 imds_get placement/region) || die "no region from IMDS"
  INSTANCE_TYPE=$(retry 10 3 imds_get instance-type) || die "no instance type from IMDS"
  [[ $INSTANCE_ID =~ ^i-[0-9a-f]{8,17}$ ]] || die "unexpected instance id $INSTANCE_ID"
  [[ $AZ =~ ^[a-z0-9-]{1,64}$ ]] || die "unexpected availability zone $AZ"
  [[ $REGION =~ ^[a-z0-9-]{1,32}$ ]] || die "unexpected region $REGION"
  [[ $INSTANCE_TYPE =~ ^[a-z0-9-]{1,32}\\.[a-z0-9]{1,32}$ ]] || die "unexpected instance type $INSTANCE_TYPE"
  log "instance $INSTANCE_ID ($INSTANCE_TYPE) in $AZ"
  # The signed identity document proves to the provisioner that a request comes from this instance.
  IDENTITY_DOCUMENT=$(retry 10 3 imds_dynamic instance-identity/document | base64 -w0) || die "no identity document from IMDS"
  IDENTITY_SIGNATURE=$(retry 10 3 imds_dynamic instance-identity/pkcs7 | tr -d '\\n') || die "no identity signature from IMDS"
  [[ $IDENTITY_DOCUMENT =~ ^[A-Za-z0-9+/=]+$ ]] || die "unexpected identity document"
  [[ $IDENTITY_SIGNATURE =~ ^[A-Za-z0-9+/=]+$ ]] || die "unexpected identity signature"

  # Both downloads happen while the AWS DNS server still resolves the provisioner's name.
  log "fetching the WireGuard config for $INSTANCE_ID from $PROVISIONER_URL"
  install -d -m 0700 /etc/wireguard
  readonly WG_CONF=/etc/wireguard/$WG_INTERFACE.conf
  fetch_retry "wireguard/config/$INSTANCE_ID" "$WG_CONF" || die "no WireGuard config from the provisioner"
  check_wg_config "$WG_CONF" || { rm -f "$WG_CONF"; die "refusing the served WireGuard config"; }
  # A burst node keeps only the on-prem nameservers (at most 2): resolvers the served config sets are dropped.
  if grep -qiE '^[[:space:]]*DNS[[:space:]]*=' "$WG_CONF"; then
    log "dropping DNS= from the served WireGuard config: the on-prem nameservers ($NAMESERVERS) are the only ones"
    sed -i -E '/^[[:space:]]*[Dd][Nn][Ss][[:space:]]*=/d' "$WG_CONF"
  fi
  log "fetching the kubeadm discovery kubeconfig for $INSTANCE_ID"
  fetch_retry "kubeadm/kubeconfig/$INSTANCE_ID" "$DISCOVERY_KUBECONFIG" || die "no discovery kubeconfig from the provisioner"
  check_ca "$DISCOVERY_KUBECONFIG" || { rm -f "$DISCOVERY_KUBECONFIG"; die "refusing the served discovery kubeconfig"; }

  # wg-quick would size the tunnel from the EC2 interface (MTU 9001); outside the VPC only 1500 gets through,
  # and Cilium is told the tunnel MTU the plan computed. Written into the config (whatever the provisioner's
  # says), so that wg-quick sets it again after every reboot.
  [[ $TUNNEL_MTU =~ ^[0-9]{3,5}$ ]] || die "unexpected tunnel MTU $TUNNEL_MTU"
  sed -i -E '/^[[:space:]]*[Mm][Tt][Uu][[:space:]]*=/d' "$WG_CONF"
  sed -i -E "0,/^\\[Interface\\][[:space:]]*$/s//&\\nMTU = $TUNNEL_MTU/" "$WG_CONF"
  grep -qx "MTU = $TUNNEL_MTU" "$WG_CONF" || die "no [Interface] section in the served WireGuard config"

  log "bringing up WireGuard interface $WG_INTERFACE (MTU $TUNNEL_MTU)"
  systemctl enable --now "wg-quick@$WG_INTERFACE.service"
  NODE_IP=$(retry 10 3 tunnel_address) || die "no IPv$TUNNEL_FAMILY address on $WG_INTERFACE"
  [[ $NODE_IP =~ ^[0-9a-f.:]+$ ]] || die "unexpected tunnel address $NODE_IP"
  log "tunnel address $NODE_IP"

  log "dropping the AWS DNS server: only the on-prem nameservers remain"
  systemctl try-reload-or-restart NetworkManager.service
  # resolved keeps per-link servers across restarts: revert every link but the tunnel explicitly
  for dev in /sys/class/net/*; do
    dev=\${dev##*/}
    if [ "$dev" != lo ] && [ "$dev" != "$WG_INTERFACE" ]; then resolvectl revert "$dev" || true; fi
  done
  systemctl restart systemd-resolved.service
  local count=0
  for ns in $(awk '/^nameserver/ { print $2 }' /run/systemd/resolve/resolv.conf); do
    count=$((count + 1))
    case " $NAMESERVERS " in
      *" $ns "*) log "nameserver $ns" ;;
      *) die "nameserver $ns is not one of the on-prem nameservers ($NAMESERVERS): the AWS resolver must be gone" ;;
    esac
  done
  # glibc reads 3 nameservers and the kubelet adds the cluster DNS to pods
  [ "$count" -le 2 ] || die "$count nameservers after tunnel-up; at most 2"

  log "removing cri-o's default CNI config before the kubelet starts"
  rm -f ${CRIO_DEFAULT_CNI_CONFIGS.join(" ")}
  systemctl enable --now crio.service
  systemctl enable kubelet.service

  # Only these validated runtime values are substituted; all match [0-9a-z.:/-]. Zone, region and instance type
  # label the Node as Cluster Autoscaler's scale-from-zero template does (no cloud controller sets them here). The node is named by its instance
  # id: a host name (ip-a-b-c-d) comes back with the next instance on that address, which would register into the old
  # Node with its providerID and taints; an instance id never does.
  sed -e "s|${NODE_IP_PLACEHOLDER}|$NODE_IP|" -e "s|${PROVIDER_ID_PLACEHOLDER}|aws:///$AZ/$INSTANCE_ID|" \\
    -e "s|${NODE_NAME_PLACEHOLDER}|$INSTANCE_ID|" -e "s|${ZONE_PLACEHOLDER}|$AZ|" -e "s|${REGION_PLACEHOLDER}|$REGION|" \\
    -e "s|${INSTANCE_TYPE_PLACEHOLDER}|$INSTANCE_TYPE|" "$JOIN_TEMPLATE" >"$JOIN_CONFIG"
  if grep -q '__[A-Z_]*__' "$JOIN_CONFIG"; then die "placeholders left in $JOIN_CONFIG"; fi

  log "kubeadm join"
  retry 3 30 join_once || die "kubeadm join did not succeed"
  log "joined the cluster as node $INSTANCE_ID at $NODE_IP (aws:///$AZ/$INSTANCE_ID)"
}

main "$@"
`;
}
