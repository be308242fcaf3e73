#!/usr/bin/env bash
# Host-side test of scripts/send-series.sh, reported as TAP: the dry run
# works and shows every mail (one Dry-OK and its From/To/Subject each), the
# maintainer list is not empty and names netdev, the mails carry the
# sender's identity (From and Signed-off-by) and no placeholder, `git am`
# and b4 read them back to the authoring branch's exact tree, and --send
# refuses a placeholder or an unset identity. Never sends: every git in
# here sees sendemail.smtpServer=/bin/false, so even a broken refusal could
# not reach a mail server. Logs: $FQP_CACHE/logs/send-series-selftest/.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

[ $# = 0 ] || { echo "usage: $0" >&2; exit 2; }
ensure_packages git git-email b4
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=sendemail.smtpServer GIT_CONFIG_VALUE_0=/bin/false
if [ -z "$(sender_ident)" ]; then
	# TEST IDENTITY: only in this process's environment, for the dry run;
	# the dry run writes to $FQP_CACHE/outgoing, never to patches/.
	export GIT_AUTHOR_NAME='fq-pacing selftest (TEST IDENTITY)' GIT_AUTHOR_EMAIL='selftest@fq-pacing.invalid'
	export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	log "no git identity on this machine: using the test identity '$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>'"
fi
ident=$(sender_ident)
email=${ident##*<}
email=${email%>}
logdir=$FQP_CACHE/logs/send-series-selftest
out=$FQP_CACHE/outgoing/v1
scratch=$(mktemp -d)
rm -rf "$logdir"
mkdir -p "$logdir"
cleanup() {
	[ ! -d "$scratch/wt" ] || git -C "$FQP_AUTHOR" worktree remove --force "$scratch/wt" >/dev/null 2>&1 || true
	rm -rf "$scratch"
}
trap cleanup EXIT

n=0 pass=0 failn=0
# check NAME DETAIL CMD...: one TAP line; DETAIL (and the logs) on failure.
check() {
	local name=$1 detail=$2
	shift 2
	n=$((n + 1))
	if "$@" >>"$logdir/$name.log" 2>&1 </dev/null; then
		echo "ok $n send_series_$name"
		pass=$((pass + 1))
	else
		echo "# $detail (log: $logdir/$name.log)"
		echo "not ok $n send_series_$name"
		failn=$((failn + 1))
	fi
}
echo "TAP version 13"
echo "1..9"

dry=$logdir/dry-run.out
dry_run() {
	"$FQP_ROOT/scripts/send-series.sh" >"$dry" 2>"$logdir/dry-run.err" || { tail -n 20 "$logdir/dry-run.err"; return 1; }
}
log "dry run of scripts/send-series.sh as $ident (log: $logdir/dry-run.err)"
check dry_run "send-series.sh (dry run) failed (its stderr: $logdir/dry-run.err)" dry_run
mapfile -t mails < <(find "$out" -maxdepth 1 -name 'v1-*.patch' 2>/dev/null | sort)
nmails=${#mails[@]}
npatches=$(series_patches | wc -l)

# count_is PATTERN N: N lines of the dry run's output match the ERE PATTERN.
count_is() {
	local c
	c=$(grep -cE "$1" "$dry" || true)
	[ "$c" = "$2" ] || { echo "/$1/: $c lines, want $2"; return 1; }
}
dry_ok_per_mail() { [ "$nmails" = $((npatches + 1)) ] && count_is '^  Dry-OK' "$nmails"; }
headers_per_mail() {
	count_is "^  From: .*<$email>\$" "$nmails" && count_is '^  To: ' "$nmails" &&
		count_is "^  Subject: \\[PATCH net-next v1 [0-9]+/$npatches\\] " "$nmails"
}
check dry_ok_per_mail "want $((npatches + 1)) mails in $out, each with one Dry-OK" dry_ok_per_mail
check headers_per_mail "want one From (the sender), To and Subject per mail in the dry run ($dry)" headers_per_mail
check maintainers_name_netdev "get_maintainer.pl's list ($out/maintainers.txt) is empty or lacks netdev" \
	grep -qx 'netdev@vger.kernel.org' "$out/maintainers.txt"

# Every patch mail: From and Signed-off-by are the sender, no placeholder.
identity_ok() {
	local m
	[ "$nmails" -gt 0 ] || return 1
	! grep -liE "$FQP_PLACEHOLDER_EMAIL|$FQP_PLACEHOLDER_NAME" "${mails[@]}" || return 1
	for m in "${mails[@]}"; do
		# git mailinfo unfolds and decodes the From header.
		git mailinfo /dev/null /dev/null <"$m" | grep -qxF "Email: $email" ||
			{ echo "$m: From is not $email"; return 1; }
		[[ $m == *-0000-cover-letter.patch ]] || grep -qxF "Signed-off-by: $ident" "$m" ||
			{ echo "$m: no 'Signed-off-by: $ident'"; return 1; }
	done
}
check sender_identity "a mail lacks the sender's From or Signed-off-by, or names the placeholder" identity_ok

# git am into a sparse scratch worktree at base (only the files the series
# touches are checked out): the result must be the authoring branch's tree.
am_tree_same() {
	local wt=$scratch/wt
	[ "$nmails" -gt 1 ] || return 1
	if [ ! -d "$wt" ]; then
		git -C "$FQP_AUTHOR" worktree add -q --no-checkout --detach "$wt" base
		mapfile -t files < <(grep -h '^+++ b/' "${mails[@]}" | sed 's|^+++ b/|/|' | sort -u)
		git -C "$wt" sparse-checkout set --no-cone "${files[@]}"
		git -C "$wt" read-tree -mu HEAD
	fi
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" reset -q --hard base
	git -C "$wt" am -q "$@"
	[ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(git -C "$FQP_AUTHOR" rev-parse 'main^{tree}')" ] ||
		{ echo "git am gave another tree than the authoring branch main"; return 1; }
}
check git_am_clean "git am of the mails failed or gave another tree than $FQP_AUTHOR main" \
	am_tree_same "${mails[@]:1}"

# b4 reads the thread (stdin: b4 0.12's -m FILE fails on folded headers)
# and writes an am-ready mbox, which git am applies to the same tree.
b4_ok() {
	mkdir -p "$scratch/b4"
	cat "${mails[@]}" | XDG_CACHE_HOME=$scratch/b4/cache XDG_DATA_HOME=$scratch/b4/data \
		b4 -n am -C -m - -o "$scratch/b4" || return 1
	local mbx
	mbx=$(find "$scratch/b4" -maxdepth 1 -name '*.mbx' | head -n 1)
	[ -n "$mbx" ] && [ "$(grep -c '^From ' "$mbx")" = "$npatches" ] || { echo "b4 wrote no mbox with $npatches patches"; return 1; }
	am_tree_same "$mbx"
}
check b4_am_clean "b4 am could not read the mails, or its mbox does not apply to the same tree" b4_ok

# --send must refuse before doing anything with a bad identity.
refuses() {
	local why=$1 rc=0
	shift
	env "$@" "$FQP_ROOT/scripts/send-series.sh" --send >"$scratch/refuse.out" 2>&1 </dev/null || rc=$?
	cat "$scratch/refuse.out"
	[ "$rc" != 0 ] && grep -q "$why" "$scratch/refuse.out" && ! grep -q 'formatted' "$scratch/refuse.out"
}
check send_refuses_placeholder "--send did not refuse the placeholder identity" \
	refuses 'placeholder' GIT_AUTHOR_NAME="$FQP_PLACEHOLDER_NAME" GIT_AUTHOR_EMAIL="$FQP_PLACEHOLDER_EMAIL"
check send_refuses_unset "--send did not refuse without an identity" \
	refuses 'no identity is configured' -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL HOME="$scratch" GIT_CONFIG_NOSYSTEM=1
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
