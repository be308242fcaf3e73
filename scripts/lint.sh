#!/usr/bin/env bash
# Lint every script of the repository, reported as TAP: shellcheck (with
# the repository's .shellcheckrc) on each shell file, a compile check of
# each Python script, the case listing and index, the generated results
# tables, the figures and lists the documents quote, the documents' links and the
# words the repository does not use. Part of scripts/test.sh.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: $0
Lints every script of the repository (shellcheck, Python parse), the case
listing and index, the generated results tables, the quoted figures and copied lists,
the documents' links and words; TAP.
USAGE
}
no_options "$@"
ensure_packages shellcheck python3
cd "$FQP_ROOT"
mapfile -t shells < <(git ls-files -co --exclude-standard -- '*.sh' '*.bash' .ci/run rootfs/init rootfs/tc-trixie | sort -u)
mapfile -t pys < <(git ls-files -co --exclude-standard -- '*.py' | sort -u)
# The plan: one line per file, and one per named check below (each a
# "result NAME" line of its own at the start of a line of this file).
tap_header "$((${#shells[@]} + ${#pys[@]} + $(grep -c '^result [a-z_]' "$0")))"
# result NAME RC OUTPUT: one result line for a check; a failed check's
# output (its first 60 lines) goes before it as diagnostics.
result() {
	[ "$2" = 0 ] || tap_diag "$3"
	tap_result "$2" "lint:$1"
}
for f in "${shells[@]}" "${pys[@]}"; do
	if [[ $f == *.py ]]; then
		out=$(python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" 2>&1) && rc=0 || rc=1
	else
		out=$(shellcheck -x "$f" 2>&1) && rc=0 || rc=1
	fi
	result "$f" "$rc" "$out"
done
# tests/run.sh lists the cases without sourcing their files (case_list):
# what sourcing each file defines must be what it lists.
out=''
for f in tests/cases/*.sh; do
	want=$(T=$FQP_ROOT/tests bash -c ". tests/lib.sh; . '$f'; declare -F | awk -v to=\"\${CASE_TIMEOUT:-300}\" '\$3 ~ /^t_/ {print \$3, to}'" 2>&1) ||
		out+="$f: sourcing it failed: $want"$'\n'
	got=$(T=$FQP_ROOT/tests bash -c ". tests/lib.sh; case_list '$f'" | cut -d' ' -f2-)
	[ "$want" = "$got" ] || out+="$f: sourcing defines [$(tr '\n' ' ' <<<"$want")], case_list reads [$(tr '\n' ' ' <<<"$got")]: define cases as t_NAME() at a line's start and CASE_TIMEOUT=N alone on its line"$'\n'
done
result case_list "${#out}" "$out"
# The results tables of README.md and docs/benchmark.md are generated from
# docs/results.csv (scripts/bench-table.py): they must equal what it writes.
out=$(python3 scripts/bench-table.py --check README.md docs/benchmark.md 2>&1) && rc=0 || rc=1
result results_table "$rc" "$out"
# Every figure the documents and cover letters quote from docs/results.csv
# or docs/test-runs.csv is the CSV's, and every copied block is its
# source's (scripts/facts.py: the quotes carry the row they come from).
out=$(python3 scripts/facts.py --check 2>&1) && rc=0 || rc=1
result facts "$rc" "$out"
# The committed cover letters are their sources as exported: a change to
# cover-letter.in or to what it quotes needs scripts/refresh-patches.sh.
out=$(python3 scripts/facts.py --check-export patches/0000-cover-letter.patch patches/cover-letter.in 2>&1) && rc=0 ||
	{ rc=1 out+=" (re-export: scripts/refresh-patches.sh)"; }
result cover_letters_exported "$rc" "$out"
# The committed mails carry the project's placeholder identity, never a
# person's or a machine's: From and Signed-off-by are the sender's at send
# time (scripts/send-series.sh). Another author stays as the patch's own
# (an in-body From:), which this does not look at.
out=$(git ls-files -- 'patches/*.patch' | while read -r f; do
	git mailinfo /dev/null /dev/null <"$f" | sed -n 's/^Author: \(.*\)/\1/p;s/^Email: \(.*\)/<\1>/p' | paste -sd' ' |
		grep -qxF "$FQP_PLACEHOLDER" || echo "$f: From is not '$FQP_PLACEHOLDER'"
	grep -E '^Signed-off-by: ' "$f" | grep -vxF "Signed-off-by: $FQP_PLACEHOLDER" | sed "s|^|$f: |" || true
done)
[ -z "$out" ] || out+=$'\n'"re-export (scripts/refresh-patches.sh [--base B], scripts/refresh-patches.sh --quilt DIR)"
result mails_placeholder_identity "${#out}" "$out"
# docs/testing.md's case index is what tests/cases/ and docs/verdicts.csv
# say (scripts/case-index.py), and every case says what it asserts.
out=$(python3 scripts/case-index.py --check docs/testing.md 2>&1) && rc=0 || rc=1
result case_index "$rc" "$out"
# Every FQP_* variable a script uses is on docs/environment.md.
out=$(git grep --untracked -ohE '\bFQP_[A-Z0-9_]+' -- '*.sh' '*.bash' '*.py' .ci/run rootfs/init rootfs/tc-trixie | sort -u |
	while read -r v; do grep -qw -- "$v" docs/environment.md || echo "$v"; done)
[ -z "$out" ] || out="used by the scripts, missing from docs/environment.md (add each with its default and meaning): $(tr '\n' ' ' <<<"$out")"
result environment_documented "${#out}" "$out"
# tests/kunit/.kunitconfig (kunit.py run --kunitconfig) asks for every
# option the harness's kernels get for the series' KUnit tests.
out=$(grep -hE '^CONFIG_' config-fragments/kunit.config config-fragments/kunit-fq.config | sort -u |
	comm -23 - <(grep -hE '^CONFIG_' tests/kunit/.kunitconfig | sort -u))
[ -z "$out" ] || out="tests/kunit/.kunitconfig lacks what config-fragments/kunit*.config set: $(tr '\n' ' ' <<<"$out")"
result kunitconfig "${#out}" "$out"
# tests/kunit/net-next/.kunitconfig is the upstream series' own
# net/sched/tests/.kunitconfig (the KUnit patch adds it): the same options.
out=$(diff <(sed -n '/^+++ b\/net\/sched\/tests\/\.kunitconfig$/,/^diff --git /s/^+\(CONFIG_.*\)/\1/p' patches/net-next/0*.patch | sort -u) \
	<(grep -hE '^CONFIG_' tests/kunit/net-next/.kunitconfig | sort -u) 2>&1) && rc=0 || rc=1
[ "$rc" = 0 ] || out="tests/kunit/net-next/.kunitconfig (>) differs from the net-next series' net/sched/tests/.kunitconfig (<):"$'\n'"$out"
result kunitconfig_net_next "$rc" "$out"
# Every relative link of the documents names a file, and a heading, that exists.
mapfile -t docs < <(git ls-files -co --exclude-standard -- '*.md' CHANGELOG | sort -u)
out=$(python3 scripts/doc-links.py "${docs[@]}" 2>&1) && rc=0 || rc=1
result doc_links "$rc" "$out"
# The repository speaks of the series, not of how the work on it was
# organised: no tracker numbers (the words issue, item, finding or stop
# followed by a number), no work sessions, no times of day. The patches (000[1-9]*) are checked too,
# but their messages are written in the authoring repository
# (scripts/refresh-patches.sh), so a hit there names that as the fix.
words='\b(issues?|items?|findings?|stops?) [0-9]+|\bsessions?\b|\b(morning|afternoon|evening)\b|\blate night\b|\b(this|last|that) night\b|[0-9]{4}-[0-9]{2}-[0-9]{2},? \(?night'
mapfile -t texts < <(git ls-files -co --exclude-standard | grep -v -x -e scripts/lint.sh -e docs/results.csv)
out=$(grep -n -i -E -I -- "$words" "${texts[@]}" 2>/dev/null | grep -v -i -E '\b(tcp|ssh|bgp|netlink) sessions?\b' || true)
[ -z "$out" ] || out+=$'\n'"say what the series does and why, not which tracker entry, work period or time of day it came from; a patch's message is fixed in the authoring repository (scripts/refresh-patches.sh)"
result no_work_words "${#out}" "$out"
tap_summary
