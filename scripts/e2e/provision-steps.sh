# Shared by the provide-*.sh scripts (sourced, not run): their log lines, failing with a message,
# and steps with a time limit whose process group stops with the script. Set PROVISION_TAG first.

log() { printf '[%s] %s\n' "$PROVISION_TAG" "$*" >&2; }
fail() {
	log "FAILED: $*"
	exit 1
}

# `timeout` runs each step in a process group of its own: when the script is stopped, pass the
# signal on to it (it forwards it to the whole step), so that no install outlives the script.
STEP_PID=""
on_signal() {
	[ -n "$STEP_PID" ] && kill -TERM "$STEP_PID" 2>/dev/null
	log "stopped by a signal"
	exit 143
}
trap on_signal TERM INT HUP

# run_step <name> <seconds> <logfile> <command...>: runs a command with a time limit, output to the log.
run_step() {
	local name="$1" seconds="$2" logfile="$3"
	shift 3
	local started=$SECONDS status=0
	log "$name (limit ${seconds}s, log: $logfile)"
	# in the background + wait, so that the trap above runs while the step is under way
	timeout --kill-after=15 "$seconds" "$@" >>"$logfile" 2>&1 &
	STEP_PID=$!
	wait "$STEP_PID" || status=$?
	STEP_PID=""
	if [ "$status" -ne 0 ]; then
		[ "$status" -eq 124 ] && log "$name did not finish within ${seconds}s"
		log "last lines of $logfile:"
		tail -n 30 "$logfile" >&2 || true
		fail "$name (exit status $status)"
	fi
	log "$name done in $((SECONDS - started))s"
}
