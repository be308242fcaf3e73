#!/bin/bash
# In-guest test runner. Runs every case function (t_*) of every file in
# cases/ in its own process with a timeout, and reports KTAP version 1
# (Documentation/dev-tools/ktap.rst) on ttyS1 (the host's ktap.log) and in
# results/ktap.txt: one subtest per case file, its cases named FILE:CASE as
# boot-and-test.sh --filter takes them, each case's output in
# results/logs/FILE:CASE.log, and kselftest's "# Totals:" line. A case
# fails if it exits non-zero or if the kernel logged a splat while it ran;
# exit 4 is a skip.
set -uo pipefail
T=$(cd "$(dirname "$0")" && pwd)
R=${FQP_RESULTS_DIR:-$(dirname "$T")/results}
mkdir -p "$R/logs" "$R/data"
export T R PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# shellcheck source=tests/lib.sh
. "$T/lib.sh"

ktap_out=/dev/ttyS1
[ -w "$ktap_out" ] || ktap_out=/dev/null
emit() { printf '%s\n' "$*" | tee -a "$R/ktap.txt" >"$ktap_out"; }
# diag INDENT TEXT...: TEXT as KTAP diagnostic lines at INDENT.
diag() { local pre=$1; shift; printf '%s\n' "$@" | sed "s/^/$pre# /" | while IFS= read -r l; do emit "$l"; done; }
# The case that is about to run, for the host only (ktap.log): a panic or
# a timeout then names it (scripts/ktap.py).
running() { printf '  # running: %s\n' "$1" >"$ktap_out"; }
# result INDENT N NAME pass|skip|fail [TEXT]: one result line, counted for
# the totals (tests without subtests only).
pass=0 failn=0 skipn=0
result() {
	case $4 in
	pass) pass=$((pass + 1)); emit "$1ok $2 $3${5:+ # $5}" ;;
	skip) skipn=$((skipn + 1)); emit "$1ok $2 $3 # SKIP ${5:-}" ;;
	*) failn=$((failn + 1)); emit "$1not ok $2 $3${5:+ # $5}" ;;
	esac
}

filter='' exclude='' shard='' FQP_KERNEL=unknown FQP_CONFIG=unknown FQP_CLOCK=wall FQP_DEADLINE=0
FQP_BASE=6.1 FQP_BASE_VERSION=''
# shellcheck source=/dev/null
[ ! -f "$T/../run.conf" ] || . "$T/../run.conf"
export FQP_KERNEL FQP_CONFIG FQP_CLOCK FQP_BASE FQP_BASE_VERSION
# KASAN, lockdep and kmemleak make a TCG guest several times slower: the
# same work gets proportionally more time (as kselftest's timeout setting).
timeout_scale=1
[ "$FQP_CONFIG" != debug ] || timeout_scale=4
# The exact clock (icount, sleep=off) skips idle time: while the guest
# waits for the host's disk its clock jumps from timer to timer, so a case
# may spend many guest seconds on little work when the host is busy
# (55-fq-pacing:fq_rate_gaps took 8-10 s in three boots, 22 s and over its
# 90 s limit in two whose disk waited on the host).
[ "$FQP_CLOCK" != exact ] || timeout_scale=4
# For the same reason a task waiting on that disk looks hung to the exact
# clock: jbd2 "blocked for more than 120 s" of guest time in a demo boot on
# a loaded host, with nothing hung. 600 s still catches a real hang. (Set
# here, not on the kernel command line, where the name would read as a
# splat.)
if [ "$FQP_CLOCK" = exact ] && [ -w /proc/sys/kernel/hung_task_timeout_secs ]; then
	echo 600 >/proc/sys/kernel/hung_task_timeout_secs
fi
export FQP_TIMEOUT_SCALE=$timeout_scale
# FQP_DEADLINE (guest uptime, s; 0 = none): the host kills the guest at
# its --timeout. A case is not started when less than min_start is left
# before this point, and a running one is cut there, so that the verdict,
# the dmesg check and kmemleak's scan still reach the host instead of a
# TIMEOUT that loses them all. Either is a SKIP that says so: the budget
# ran out, the case gave no verdict (a case cut short of its own limit
# is not a hang; its own limit still makes one a failure).
deadline=$FQP_DEADLINE
min_start=$((60 * timeout_scale))

# emit_tail LOG: a failed or cut case's last lines, as KTAP diagnostics.
emit_tail() { diag '  ' "$(tail -n 15 "$1" | sed 's/^/  /')"; }

# A case file defines each case as t_NAME() at the start of a line and may
# set CASE_TIMEOUT=N on a line of its own (default 300); scripts/lint.sh
# checks that sourcing the file agrees. One awk reads them all: a bash
# sourcing each file cost ~3 s a file in a KASAN guest, ~90 s a boot.
# Cases run file by file, each file's in name order (as declare -F lists).
cases=()
declare -A case_to=()
while read -r f fn to; do
	name=${f##*/}
	name=${name%.sh}:${fn#t_}
	if [ -n "$filter" ] && ! [[ $name =~ $filter ]]; then continue; fi
	if [ -n "$exclude" ] && [[ $name =~ $exclude ]]; then continue; fi
	cases+=("$f:$fn")
	case_to[$f]=$to
done < <(case_list "$T"/cases/*.sh)
# shard=I/N (boot-and-test --shard): this guest runs cases I, I+N, I+2N...
# of the list, and N guests side by side run it all.
if [ -n "$shard" ]; then
	keep=()
	for i in "${!cases[@]}"; do
		[ $((i % ${shard#*/})) != "${shard%/*}" ] || keep+=("${cases[i]}")
	done
	cases=(${keep[@]+"${keep[@]}"})
fi

# Each case file is one test whose subtests are its cases.
declare -A file_cases=()
for c in ${cases[@]+"${cases[@]}"}; do
	file_cases[${c%:*}]=$((${file_cases[${c%:*}]:-0} + 1))
done
# A modular sch_fq (a kernel built with CONFIG_NET_SCH_FQ=m, as
# distributions build it) comes with its modules on the run disk: loaded
# before the cases and unloaded after them (fq_flow_cache must be empty by
# then).
modroot=$T/../modroot/lib/modules
fq_module=0
[ -z "$(find "$modroot/$(uname -r)" -name 'sch_fq.ko*' 2>/dev/null)" ] || fq_module=1
emit "KTAP version 1"
emit "1..$((${#file_cases[@]} + 1 + 2 * fq_module))"
emit "# fq-pacing suite on $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB"
[ -z "$exclude" ] || emit "# excluded by request: cases matching /$exclude/"
[ -z "$shard" ] || emit "# shard $shard: this guest runs the list's cases $((${shard%/*} + 1)), $((${shard%/*} + 1 + ${shard#*/})), ...; other guests run the rest"
dmesg >"$R/dmesg-boot.txt"
n=0
if [ "$fq_module" = 1 ]; then
	n=$((n + 1))
	mkdir -p /lib/modules
	if mount --bind "$modroot" /lib/modules && out=$(modprobe -v sch_fq 2>&1) &&
		grep -qw '^sch_fq' /proc/modules; then
		result '' "$n" module_load_sch_fq pass "$(tr '\n' ' ' <<<"$out")"
	else
		diag '' "modprobe sch_fq: $out"
		result '' "$n" module_load_sch_fq fail
	fi
fi
# open_file FILE / close_file: a case file's subtest block: its version,
# name and plan lines, then its result, failed when any case failed and
# skipped when every case was.
open_file() {
	file=$(basename "$1" .sh) k=0 fpass=0 ffail=0
	emit "  KTAP version 1"
	emit "  # Subtest: $file"
	emit "  1..${file_cases[$1]}"
}
close_file() {
	n=$((n + 1))
	if [ "$ffail" -gt 0 ]; then
		emit "not ok $n $file"
	elif [ "$fpass" = 0 ]; then
		emit "ok $n $file # SKIP every case skipped"
	else
		emit "ok $n $file"
	fi
}
cur=''
for c in ${cases[@]+"${cases[@]}"}; do
	f=${c%:*} fn=${c##*:}
	if [ "$f" != "$cur" ]; then
		[ -z "$cur" ] || close_file
		open_file "$f"
		cur=$f
	fi
	k=$((k + 1))
	name=$file:${fn#t_}
	log=$R/logs/$name.log
	to=$((case_to[$f] * timeout_scale))
	full_to=$to cut=0
	if [ "$deadline" -gt 0 ]; then
		up=$(cut -d. -f1 /proc/uptime)
		if [ $((deadline - up)) -lt "$min_start" ]; then
			result '  ' "$k" "$name" skip "not started: the boot's time limit (boot-and-test --timeout) leaves $((deadline > up ? deadline - up : 0))s at ${up}s uptime, under the ${min_start}s a case is given at least"
			continue
		fi
		[ "$to" -le $((deadline - up)) ] || { to=$((deadline - up)) cut=1; }
	fi
	before=$(dmesg | wc -l)
	running "$name"
	t0=$(date +%s)
	timeout -k 10 "$to" bash -c ". '$T/lib.sh'; . '$f'; set -e; $fn" >"$log" 2>&1
	rc=$?
	dt=$(($(date +%s) - t0))
	# A skip's reason is the case's own last line, read before the
	# checks below append to its log.
	reason=$(tail -n 1 "$log")
	# Whatever the case did, the fq qdiscs it leaves must add up.
	cleanup_procs >>"$log" 2>&1
	if ! fq_drain_check >>"$log" 2>&1; then
		diag '  ' "$name: fq counters do not add up after the case:" "$(grep '^counters:' "$log" | sed 's/^/  /')"
		[ "$rc" != 0 ] && [ "$rc" != 4 ] || rc=1
	fi
	cleanup_all >>"$log" 2>&1
	splat=$(dmesg | tail -n +"$((before + 1))" | grep -E "$SPLAT_RE" | head -n 5 || true)
	if [ -n "$splat" ]; then
		diag '  ' "$name: kernel splat while the case ran:" "$(sed 's/^/  /' <<<"$splat")"
		rc=1
	fi
	case $rc in
	0) result '  ' "$k" "$name" pass "${dt}s"; fpass=$((fpass + 1)) ;;
	4) result '  ' "$k" "$name" skip "$reason" ;;
	124 | 137) emit_tail "$log"
		if [ "$cut" = 1 ]; then
			result '  ' "$k" "$name" skip "cut after ${to}s, short of its own ${full_to}s limit, at the boot's time limit (boot-and-test --timeout): no verdict"
		else
			result '  ' "$k" "$name" fail "TIMEOUT after ${to}s"
			ffail=$((ffail + 1))
		fi ;;
	*) emit_tail "$log"
		result '  ' "$k" "$name" fail "exit $rc, ${dt}s"
		ffail=$((ffail + 1)) ;;
	esac
done
[ -z "$cur" ] || close_file

# Every fq is gone with the cases' namespaces: the module must unload, and
# with it fq_flow_cache (a flow left behind would be reported there).
if [ "$fq_module" = 1 ]; then
	n=$((n + 1))
	if out=$(rmmod sch_fq 2>&1) && ! grep -qw '^sch_fq' /proc/modules; then
		result '' "$n" module_unload_sch_fq pass
	else
		diag '' "rmmod sch_fq: $out"
		result '' "$n" module_unload_sch_fq fail
	fi
fi

# Whole-run health: no splat anywhere since boot, kmemleak clean of our code.
n=$((n + 1))
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak; sleep 6; echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$R/kmemleak.txt"
fi
dmesg >"$R/dmesg.txt"
# The modules loaded by now (scripts/check-distro.sh derives its
# localmodconfig list from a distribution kernel's).
cat /proc/modules >"$R/modules.txt" 2>/dev/null || true
bad=$(grep -E "$SPLAT_RE" "$R/dmesg.txt" | head -n 10 || true)
if [ -f "$R/kmemleak.txt" ] && grep -qE 'fq_|sch_|tcp_' "$R/kmemleak.txt"; then
	bad="$bad
kmemleak: unreferenced objects from our code (results/kmemleak.txt)"
fi
if [ -z "$bad" ]; then
	result '' "$n" dmesg_clean pass
else
	diag '' "$(sed 's/^/  /' <<<"$bad")"
	result '' "$n" dmesg_clean fail
fi
emit "# Totals: pass:$pass fail:$failn xfail:0 xpass:0 skip:$skipn error:0"
emit "# fqp-run-complete"
