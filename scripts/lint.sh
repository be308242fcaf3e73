#!/usr/bin/env bash
# Lint every script of the repository, reported as TAP: shellcheck (with
# the repository's .shellcheckrc) on each shell file, and a compile check
# of each Python script. Part of scripts/test.sh.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# = 0 ] || { echo "usage: $0" >&2; exit 2; }
ensure_packages shellcheck python3
cd "$FQP_ROOT"
mapfile -t shells < <(git ls-files -co --exclude-standard -- '*.sh' '*.bash' .ci/run rootfs/init rootfs/tc-trixie | sort -u)
mapfile -t pys < <(git ls-files -co --exclude-standard -- '*.py' | sort -u)
echo "TAP version 13"
echo "1..$((${#shells[@]} + ${#pys[@]} + 1))"
n=0 pass=0 failn=0
for f in "${shells[@]}" "${pys[@]}"; do
	n=$((n + 1))
	if [[ $f == *.py ]]; then
		out=$(python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" 2>&1) && rc=0 || rc=1
	else
		out=$(shellcheck -x "$f" 2>&1) && rc=0 || rc=1
	fi
	if [ "$rc" = 0 ]; then
		echo "ok $n lint:$f"
		pass=$((pass + 1))
	else
		sed 's/^/# /' <<<"$out" | head -n 30
		echo "not ok $n lint:$f"
		failn=$((failn + 1))
	fi
done
# tests/run.sh lists the cases without sourcing their files (case_list):
# what sourcing each file defines must be what it lists.
n=$((n + 1)) out=''
for f in tests/cases/*.sh; do
	want=$(T=$FQP_ROOT/tests bash -c ". tests/lib.sh; . '$f'; declare -F | awk -v to=\"\${CASE_TIMEOUT:-300}\" '\$3 ~ /^t_/ {print \$3, to}'" 2>&1) ||
		out+="$f: sourcing it failed: $want"$'\n'
	got=$(T=$FQP_ROOT/tests bash -c ". tests/lib.sh; case_list '$f'" | cut -d' ' -f2-)
	[ "$want" = "$got" ] || out+="$f: sourcing defines [$(tr '\n' ' ' <<<"$want")], case_list reads [$(tr '\n' ' ' <<<"$got")]: define cases as t_NAME() at a line's start and CASE_TIMEOUT=N alone on its line"$'\n'
done
if [ -z "$out" ]; then
	echo "ok $n lint:case_list"
	pass=$((pass + 1))
else
	printf '%s' "$out" | sed 's/^/# /' | head -n 30
	echo "not ok $n lint:case_list"
	failn=$((failn + 1))
fi
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
