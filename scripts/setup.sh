#!/usr/bin/env bash
# Installs every dependency of the project with apt. Idempotent and fast when
# everything is already there: apt runs only if a package is missing.
set -euo pipefail
PKGS=(cmake ninja-build g++ python3 llvm-22-dev libmlir-22-dev mlir-22-tools
      llvm-22-tools libz3-dev libsqlite3-dev libgtest-dev ccache
      libclang-rt-22-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
echo "setup: dependencies present"
