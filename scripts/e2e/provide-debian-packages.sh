#!/usr/bin/env bash
# Installs Debian packages the end-to-end suites need (redis-server, nginx, chromium, ...)
# when they are missing. A new machine has none of them, so every suite that needs one calls
# this first instead of assuming it is there.
#
# Usage: scripts/e2e/provide-debian-packages.sh <package> [<package>...]
#
# Installed packages are left alone; `apt-get update` runs at most once per call, and only when
# something is missing. Runs are serialised with a lock, so suites started in parallel do not
# fight over dpkg. Every step has a time limit; a failure names the step and shows its log.
set -euo pipefail

readonly LOCK_FILE="${TMPDIR:-/tmp}/n8n-nodes-partner-leads-apt.lock"
readonly STEP_TIMEOUT="${PROVIDE_DEBIAN_TIMEOUT:-600}"

log() { printf '[provide-debian-packages] %s\n' "$*" >&2; }

[ "$#" -gt 0 ] || {
	log "usage: $0 <package> [<package>...]"
	exit 2
}

missing_packages() {
	local package
	for package in "$@"; do
		dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || printf '%s\n' "$package"
	done
}

exec 9>"$LOCK_FILE"
flock -w "$STEP_TIMEOUT" 9 || {
	log "FAILED: another install held the apt lock for more than ${STEP_TIMEOUT}s"
	exit 1
}

mapfile -t missing < <(missing_packages "$@")
if [ "${#missing[@]}" -eq 0 ]; then
	log "already installed: $*"
	exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
log_file="$(mktemp -t provide-debian-packages.XXXXXX.log)"

run_step() {
	local name="$1"
	shift
	log "$name (limit ${STEP_TIMEOUT}s)"
	if ! timeout --kill-after=15 "$STEP_TIMEOUT" "$@" >>"$log_file" 2>&1; then
		log "FAILED: $name; last lines of $log_file:"
		tail -n 30 "$log_file" >&2 || true
		exit 1
	fi
}

run_step "apt-get update" $SUDO apt-get update -q
run_step "apt-get install ${missing[*]}" $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

mapfile -t still_missing < <(missing_packages "$@")
if [ "${#still_missing[@]}" -gt 0 ]; then
	log "FAILED: still not installed after apt-get install: ${still_missing[*]}"
	exit 1
fi
log "installed: ${missing[*]}"
