#!/usr/bin/env bash
# Sets up a Docker-compatible container engine for the mock server's container path, from Debian's
# packages, on a machine where no engine runs (CI, the dev VMs), and leaves an engine that is already
# there alone.
#
#   eval "$(scripts/container-engine.sh start)"   # install if needed, start, export DOCKER_HOST & co.
#   scripts/container-engine.sh env               # print the export lines of a running engine
#   scripts/container-engine.sh status            # exit 0 when the engine answers _ping
#   scripts/container-engine.sh stop              # stop the podman service this script started
#
# `start` and `env` print only `export ...` lines on stdout; progress goes to stderr. In scripts with
# `set -e`, prefer `engine_env=$(scripts/container-engine.sh start) && eval "$engine_env"`: a failed
# start inside `eval "$(...)"` goes unnoticed, since eval of nothing succeeds.
#
# Why podman and not dockerd: podman's Docker-compatible API serves our Docker client, docker-compose
# and Testcontainers alike, runs without a daemon of its own, and needs no /etc edits. What these hosts
# need (see scripts/README-containers.md, "Traps"): runc, not crun (cgroup v1 hybrid); cgroupfs (no
# systemd); events in a file (no journald); explicit ulimits, because the bounding set lacks
# CAP_SYS_RESOURCE and podman's default nofile/nproc are above the hard limits. All of that goes into a
# containers.conf in the state directory, selected by CONTAINERS_CONF, never into /etc.
#
# State directory (socket, pid, log, containers.conf, engine.env): private to the caller, because it holds
# the socket of a root-owned engine and a config the engine trusts. It is $ADBC_DBX_ENGINE_DIR when set
# (`start` prints that export, so `env`, `status` and `stop` in the same shell find it), else
# $XDG_RUNTIME_DIR/adbc-dbx-engine when that runtime folder is the caller's, else the repository's
# artifacts/container-engine; if that path is too long for a unix socket, a fresh `mktemp -d` folder. The
# script creates it with mode 0700 and refuses an existing one that is a symlink or not owned by the caller:
# never a fixed name in a world-writable folder, where anyone could plant it first. Image storage is podman's
# default (/var/lib/containers for root), so images built once survive an engine restart.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { echo "container-engine: $*" >&2; }
die() { log "error: $*"; exit 1; }

# True when $1 is a real directory (not a symlink) owned by the caller.
owned_private_dir() {
    [ -d "$1" ] && [ ! -L "$1" ] && [ "$(stat -c %u "$1")" = "$(id -u)" ]
}

# Creates $1 with mode 0700, or accepts it if it already exists as the caller's own directory (then makes it
# 0700). mkdir without -p for the last component fails when anything is there already, so nobody can slip a
# folder or symlink in between the check and the use.
make_private_dir() {
    local dir="$1"
    mkdir -p "$(dirname "$dir")"
    if (umask 077 && mkdir "$dir") 2>/dev/null; then
        return 0
    fi
    owned_private_dir "$dir" || die "refusing state directory $dir: it is a symlink, not a directory, or not owned by uid $(id -u)"
    chmod 700 "$dir"
}

# The state directory for this run (see the header). A unix socket path must stay under ~108 bytes.
choose_state_dir() {
    if [ -n "${ADBC_DBX_ENGINE_DIR:-}" ]; then
        echo "$ADBC_DBX_ENGINE_DIR"
    elif [ -n "${XDG_RUNTIME_DIR:-}" ] && owned_private_dir "$XDG_RUNTIME_DIR"; then
        echo "$XDG_RUNTIME_DIR/adbc-dbx-engine"
    elif [ "${#repo_root}" -lt 60 ]; then
        echo "$repo_root/artifacts/container-engine"
    else
        echo ""  # start makes a mktemp folder and prints it; env/status/stop then need ADBC_DBX_ENGINE_DIR
    fi
}

state_dir="$(choose_state_dir)"
set_state_paths() {
    socket_path="$state_dir/podman.sock"
    pid_file="$state_dir/podman-service.pid"
    log_file="$state_dir/podman-service.log"
    conf_file="$state_dir/containers.conf"
    engine_env_file="$state_dir/engine.env"
}

# start: the state directory exists, is private, and its paths are set.
prepare_state_dir() {
    if [ -z "$state_dir" ]; then
        state_dir="$(mktemp -d "${TMPDIR:-/tmp}/adbc-dbx-engine.XXXXXXXX")"
    fi
    make_private_dir "$state_dir"
    set_state_paths
}

# env/status/stop: an existing state directory is used only if it is the caller's own.
existing_state_dir() {
    [ -n "$state_dir" ] && [ -e "$state_dir" ] || return 1
    owned_private_dir "$state_dir" || die "refusing state directory $state_dir: it is a symlink, not a directory, or not owned by uid $(id -u)"
    set_state_paths
}

# Answers 0 when the Docker API at $1 (unix://PATH, tcp://HOST:PORT or a bare socket path) replies OK to _ping.
ping_engine() {
    local host="$1"
    case "$host" in
        unix://*) [ -S "${host#unix://}" ] && curl -fsS --max-time 3 --unix-socket "${host#unix://}" http://d/_ping >/dev/null 2>&1 ;;
        tcp://*) curl -fsS --max-time 3 "http://${host#tcp://}/_ping" >/dev/null 2>&1 ;;
        /*) [ -S "$host" ] && curl -fsS --max-time 3 --unix-socket "$host" http://d/_ping >/dev/null 2>&1 ;;
        *) return 1 ;;
    esac
}

# The engine's product name from /version ("Podman Engine", "Engine", ...), for build-images.sh to pick its CLI.
engine_name() {
    local host="$1" out
    case "$host" in
        unix://*) out=$(curl -fsS --max-time 3 --unix-socket "${host#unix://}" http://d/version 2>/dev/null || true) ;;
        tcp://*) out=$(curl -fsS --max-time 3 "http://${host#tcp://}/version" 2>/dev/null || true) ;;
    esac
    if grep -q '"Podman Engine"' <<<"$out"; then echo podman; else echo docker; fi
}

need_root() { [ "$(id -u)" -eq 0 ] || die "installing and starting the engine needs root (this script runs it as root in CI)"; }

apt_install() {
    need_root
    log "installing with apt: $*"
    # `apt-get update` first: on a fresh machine the lists may be empty or stale.
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

install_packages() {
    local missing=() pkg
    # --no-install-recommends everywhere: docker-compose would otherwise bring docker.io, containerd and
    # apparmor. netavark/aardvark-dns give published ports and service names on compose networks;
    # iptables is what netavark programs for port forwarding.
    for pkg in podman runc conmon netavark aardvark-dns iptables curl docker-compose; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
}

write_containers_conf() {
    local nofile
    nofile=$(ulimit -Hn)
    # nproc: conmon ends up with a hard nproc of 32768 here, so anything above that is refused by runc.
    cat >"$conf_file.tmp" <<EOF
# Written by scripts/container-engine.sh; selected with CONTAINERS_CONF. Regenerated on every start.
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"

[network]
# Pinned: podman 4.3 would pick CNI (whose plugins are not installed) on a machine that already has containers.
network_backend = "netavark"
EOF
    mv "$conf_file.tmp" "$conf_file"
}

# $3 = "own" when this script started the engine: only then does its containers.conf apply, and only then
# may build-images.sh use the local podman CLI (an engine someone else runs may keep its images elsewhere).
print_env() {
    local host="$1" kind="$2" owner="${3:-external}"
    echo "export DOCKER_HOST=$host"
    echo "export ADBC_DBX_ENGINE_DIR=$state_dir"
    if [ "$owner" = own ]; then echo "export CONTAINERS_CONF=$conf_file"; fi
    echo "export ADBC_DBX_ENGINE_KIND=$kind"
    echo "export ADBC_DBX_ENGINE_OWNER=$owner"
    # For anyone pointing Testcontainers at this engine: there is no registry to pull Ryuk from.
    echo "export TESTCONTAINERS_RYUK_DISABLED=true"
}

save_env() {
    print_env "$@" >"$engine_env_file"
}

# True when the pid file names a live `podman system service` (a stale pid reused by another process is not ours to kill).
service_running() {
    local pid
    [ -f "$pid_file" ] || return 1
    pid=$(cat "$pid_file")
    [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'podman system service'
}

start_podman_service() {
    need_root
    write_containers_conf
    if service_running && ping_engine "unix://$socket_path"; then
        log "podman service already running (pid $(cat "$pid_file")) on $socket_path"
        return 0
    fi
    if service_running; then
        log "podman service pid $(cat "$pid_file") does not answer; restarting it"
        kill "$(cat "$pid_file")" 2>/dev/null || true
        sleep 1
    fi
    rm -f "$socket_path"
    # podman's own state is rootful-default; validate the config once so a bad host fails here, clearly.
    CONTAINERS_CONF="$conf_file" podman info --format '{{.Host.OCIRuntime.Name}} {{.Host.CgroupManager}}' >&2 \
        || die "podman info failed with $conf_file"
    log "starting podman system service on unix://$socket_path (log: $log_file)"
    # setsid + nohup: the service must outlive this script and the shell that eval'ed its output.
    CONTAINERS_CONF="$conf_file" setsid nohup podman system service --time=0 "unix://$socket_path" \
        >"$log_file" 2>&1 </dev/null &
    echo $! >"$pid_file"
    local i
    for i in $(seq 1 50); do
        if ping_engine "unix://$socket_path"; then
            log "podman service up after ~$((i * 2))00 ms"
            return 0
        fi
        # kill -0, not service_running: between fork and exec the child still has this script's command line,
        # and on a loaded machine the first check can land there and report a healthy start as an exit.
        kill -0 "$(cat "$pid_file")" 2>/dev/null || { cat "$log_file" >&2; die "podman service exited"; }
        sleep 0.2
    done
    cat "$log_file" >&2
    die "podman service did not answer _ping within 10 s"
}

cmd_start() {
    prepare_state_dir
    # An engine the user already has wins: DOCKER_HOST first, then the standard Docker socket.
    if [ -n "${DOCKER_HOST:-}" ] && [ "${DOCKER_HOST}" != "unix://$socket_path" ]; then
        if ping_engine "$DOCKER_HOST"; then
            local kind
            kind=$(engine_name "$DOCKER_HOST")
            log "using the engine at DOCKER_HOST=$DOCKER_HOST ($kind)"
            save_env "$DOCKER_HOST" "$kind"
            print_env "$DOCKER_HOST" "$kind"
            return 0
        fi
        log "DOCKER_HOST=$DOCKER_HOST does not answer _ping; setting up podman instead"
    fi
    if ping_engine /var/run/docker.sock; then
        local kind
        kind=$(engine_name unix:///var/run/docker.sock)
        log "using the engine at /var/run/docker.sock ($kind)"
        save_env unix:///var/run/docker.sock "$kind"
        print_env unix:///var/run/docker.sock "$kind"
        return 0
    fi
    install_packages
    start_podman_service
    save_env "unix://$socket_path" podman own
    print_env "unix://$socket_path" podman own
}

cmd_env() {
    existing_state_dir && [ -f "$engine_env_file" ] || die "no engine set up yet: run '$0 start'"
    cat "$engine_env_file"
}

cmd_status() {
    local host
    if existing_state_dir && [ -f "$engine_env_file" ]; then
        host=$(sed -n 's/^export DOCKER_HOST=//p' "$engine_env_file")
    else
        host="${DOCKER_HOST:-unix:///var/run/docker.sock}"
    fi
    if ping_engine "$host"; then log "engine at $host answers _ping"; return 0; fi
    log "no engine answers at $host"
    return 1
}

cmd_stop() {
    if ! existing_state_dir; then
        log "no state directory${state_dir:+ at $state_dir}: nothing started by this script to stop (set ADBC_DBX_ENGINE_DIR as start printed it)"
        return 0
    fi
    if service_running; then
        local pid
        pid=$(cat "$pid_file")
        log "stopping podman service (pid $pid)"
        kill "$pid"
        local i
        for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
    else
        log "no podman service started by this script is running"
    fi
    rm -f "$pid_file" "$socket_path" "$engine_env_file"
}

case "${1:-start}" in
    start) cmd_start ;;
    env) cmd_env ;;
    status) cmd_status ;;
    stop) cmd_stop ;;
    *) die "usage: $0 [start|env|status|stop]" ;;
esac
