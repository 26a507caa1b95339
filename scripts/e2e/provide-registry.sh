#!/usr/bin/env bash
# Provides the npm registry the browser test publishes the package to and n8n installs it from:
# Verdaccio, with exactly the versions scripts/e2e/registry/package-lock.json pins, installed
# with `npm ci` (install scripts off) into the e2e cache beside n8n:
#   ${N8N_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-partner-leads/e2e}/registry-<lock hash>/
# It runs on the e2e Node 24 that provide-n8n.sh provides (Verdaccio 6.10 needs Node 22 or
# later). A folder counts as provided only once its `.provisioned` marker exists; the folders of
# other lockfiles are removed. To move to another Verdaccio: change the version in
# scripts/e2e/registry/package.json, run `npm install --package-lock-only` there, commit both.
#
# Usage: scripts/e2e/provide-registry.sh
# On success it prints one line for the runner to parse: N8N_E2E_REGISTRY <verdaccio bin script>
set -euo pipefail

readonly CACHE_ROOT="${N8N_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-partner-leads/e2e}"
readonly INSTALL_TIMEOUT="${N8N_E2E_REGISTRY_INSTALL_TIMEOUT:-600}"
readonly LOCK_TIMEOUT="${N8N_E2E_LOCK_TIMEOUT:-1800}"
readonly SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/registry" && pwd)"

PROVISION_TAG=provide-registry
# shellcheck source=scripts/e2e/provision-steps.sh
source "$(dirname "${BASH_SOURCE[0]}")/provision-steps.sh"

main() {
	command -v npm >/dev/null || fail "npm is not on PATH"
	local hash dir bin started
	hash="$(sha256sum "$SOURCE_DIR/package-lock.json" | cut -c1-12)"
	dir="$CACHE_ROOT/registry-$hash"
	bin="$dir/node_modules/verdaccio/bin/verdaccio"
	mkdir -p "$CACHE_ROOT"
	# The cache's one lock, shared with provide-n8n.sh: a second caller waits, then finds the marker.
	exec 9>"$CACHE_ROOT/.lock"
	flock -w "$LOCK_TIMEOUT" 9 || fail "another provisioning holds $CACHE_ROOT/.lock for more than ${LOCK_TIMEOUT}s"
	started=$SECONDS
	if [ -f "$dir/.provisioned" ] && [ -f "$bin" ]; then
		log "Verdaccio cached at $dir"
	else
		rm -rf "$dir"
		mkdir -p "$dir"
		cp "$SOURCE_DIR/package.json" "$SOURCE_DIR/package-lock.json" "$dir/"
		run_step "npm ci (Verdaccio, scripts off)" "$INSTALL_TIMEOUT" "$dir/install.log" \
			env -C "$dir" npm ci --ignore-scripts --no-audit --no-fund --loglevel=warn
		[ -f "$bin" ] || fail "the install has no $bin"
		date -u +%FT%TZ >"$dir/.provisioned"
		log "Verdaccio $(node -p "require('$dir/node_modules/verdaccio/package.json').version") provided in $((SECONDS - started))s at $dir ($(du -sh "$dir" | cut -f1))"
	fi
	local other
	for other in "$CACHE_ROOT"/registry-*; do
		[ "$other" = "$dir" ] || rm -rf "$other"
	done
	printf 'N8N_E2E_REGISTRY %s\n' "$bin"
}

main "$@"
