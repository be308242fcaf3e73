# shellcheck shell=bash
# Logging, errors and running a step: log/warn/die with the step's name and
# elapsed time (die always says what to do next), run_logged for a long
# command with its output in a log file, with_lock for a build directory
# two runs must not share, and select_names for a comma-separated option.
# Sourced by scripts/lib.sh before everything else: every other part dies
# through die.

FQP_T0=${FQP_T0:-$(date +%s)}
export FQP_T0
FQP_STEP=${FQP_STEP:-$(basename "${0%.sh}")}

_elapsed() {
	local s=$(($(date +%s) - FQP_T0))
	printf '%02d:%02d' $((s / 60)) $((s % 60))
}

log() { printf '[%s %s] %s\n' "$(_elapsed)" "$FQP_STEP" "$*" >&2; }
warn() { printf '[%s %s] WARNING: %s\n' "$(_elapsed)" "$FQP_STEP" "$*" >&2; }

# die WHAT [NEXT]: say what failed and what to do about it, then exit 1.
die() {
	printf '[%s %s] ERROR: %s\n' "$(_elapsed)" "$FQP_STEP" "$1" >&2
	[ $# -lt 2 ] || printf '[%s %s]   next: %s\n' "$(_elapsed)" "$FQP_STEP" "$2" >&2
	exit 1
}

# usage_error [MESSAGE]: bad usage: MESSAGE and the first line of the
# calling script's usage (its usage function prints it all) on stderr,
# exit 2. -h and --help print the whole text on stdout and exit 0
# (usage; exit 0).
usage_error() {
	[ $# = 0 ] || printf '%s\n' "$*" >&2
	{ usage | head -n 1 || true; echo "(all options: $0 --help)"; } >&2
	exit 2
}

# no_options ARG...: the option parsing of a script that takes none.
no_options() {
	case ${1:-} in
	'') ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
}

# run_logged LOGFILE DESCRIPTION CMD...: run CMD with output in LOGFILE,
# print a heartbeat while it runs, and on failure show the tail and the path.
run_logged() {
	local logf=$1 what=$2 pid rc=0 n=0
	shift 2
	mkdir -p "$(dirname "$logf")"
	log "$what (log: $logf)"
	"$@" >"$logf" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		n=$((n + 5))
		if [ $((n % 60)) -eq 0 ]; then
			log "  ... $what: ${n}s, $(tail -n 1 "$logf" | cut -c1-100)"
		fi
	done
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		# With make -j the first error is often far above the tail.
		if grep -qE ': (fatal )?error:' "$logf"; then
			echo "first errors:" >&2
			grep -E -m 5 -A 2 ': (fatal )?error:' "$logf" >&2 || true
			echo "last lines:" >&2
		fi
		tail -n 40 "$logf" >&2 || true
		die "$what failed (exit $rc); full log: $logf" \
			"read the log above, fix the cause and re-run $0"
	fi
	log "$what: done in ${n}s"
}

# with_lock FILE: hold an exclusive lock on FILE until the script exits, so
# two runs never build into the same directory at once.
with_lock() {
	local fd
	mkdir -p "$(dirname "$1")"
	exec {fd}>"$1"
	if ! flock -n "$fd"; then
		log "waiting for another run holding $1"
		flock "$fd"
	fi
}

# select_names WHAT LIST NAME...: the names in the comma-separated LIST,
# one per line, each checked against the known NAMEs (all of them when LIST
# is empty). An unknown one is reported and the status is 2 (usage).
select_names() {
	local what=$1 list=$2 n
	local -a names
	shift 2
	if [ -z "$list" ]; then
		printf '%s\n' "$@"
		return 0
	fi
	IFS=, read -ra names <<<"$list"
	for n in "${names[@]}"; do
		[[ " $* " == *" $n "* ]] || { echo "unknown $what: '$n' (known: $*)" >&2; return 2; }
		printf '%s\n' "$n"
	done
}
