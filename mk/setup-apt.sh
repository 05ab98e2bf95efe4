#!/bin/bash
# Install the Debian packages of mk/apt-packages.txt that are missing.
# Idempotent and quick when nothing is missing: dpkg is asked before apt.
set -euo pipefail
list="$(dirname "$0")/apt-packages.txt"
mapfile -t wanted < <(grep -v '^\s*\(#\|$\)' "$list")
missing=()
for pkg in "${wanted[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
if ((${#missing[@]} == 0)); then
    echo "setup: Debian packages present (${#wanted[@]})"
    exit 0
fi
echo "setup: installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" 2>&1 | grep -v "^debconf:" || true
dpkg-query -W "${missing[@]}" >/dev/null
