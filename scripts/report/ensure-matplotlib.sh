#!/usr/bin/env bash
# The report's chart is drawn with matplotlib from Debian's python3-matplotlib (the system python).
set -euo pipefail
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    exit 0
fi
echo "report: installing python3-matplotlib" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends python3-matplotlib >/dev/null
