#!/usr/bin/env bash
# Install the cluster's engines, pinned in deploy/packages.txt (Debian 12), without
# starting their packaged services: each host starts only its own (deploy/systemd/,
# or deploy/cluster.py for the one-machine cluster).
set -euo pipefail
cd "$(dirname "$0")"
mapfile -t packages < <(grep -v '^\s*#' packages.txt | grep -v '^\s*$')
missing=()
for spec in "${packages[@]}"; do
    name=${spec%%=*}
    want=${spec#*=}
    have=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || true)
    if [ -z "$have" ] || { [ "$want" != "$spec" ] && [ "$have" != "$want" ]; }; then
        missing+=("$spec")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "deploy/install.sh: every package is installed"
    exit 0
fi
echo "deploy/install.sh: installing ${missing[*]}"
apt-get update -qq
# policy-rc.d keeps the packages' own services from starting (haproxy, redis, etcd, pgbouncer).
policy=/usr/sbin/policy-rc.d
created=false
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created=true
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
if $created; then rm -f "$policy"; fi
