#!/usr/bin/env bash
# Installs the Debian packages the tests need when they are missing: the lz4 CLI and liblz4 (reference
# LZ4 implementations), git (patch tool tests), curl, thrift-compiler (only for the check that the mock's checked-in
# Thrift code is current, scripts/regenerate-mock-thrift.sh --check; building needs only the .NET SDK).
# Needs root (or sudo) only when something is missing.
set -euo pipefail

missing=()
command -v lz4 >/dev/null 2>&1 || missing+=(lz4)
ldconfig -p 2>/dev/null | grep -q 'liblz4\.so\.1' || missing+=(liblz4-1)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v thrift >/dev/null 2>&1 || missing+=(thrift-compiler)

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

echo "prerequisites: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
