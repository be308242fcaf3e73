#!/usr/bin/env bash
# Host-side test of scripts/send-series.sh, reported as TAP, for every
# series it sends (the 6.1 series, net-next, its RFC net-next-rfc, net and
# the stable backports that exist under patches/): the dry run works and
# shows every mail (one
# Dry-OK and its From/To/Subject each, the tree's tag and list), the
# maintainer list is not empty and names netdev, the mails carry the
# sender's identity (From and one Signed-off-by) and no placeholder, and b4
# reads them back to an mbox that applies to the series' base (for a
# series from an authoring repo: to the branch's exact tree; the RFC's base
# is the net-next series, branch main). --send
# refuses a placeholder or an unset identity. Never sends: every git in
# here sees sendemail.smtpServer=/bin/false, so even a broken refusal could
# not reach a mail server. Logs: $FQP_CACHE/logs/send-series-selftest/.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: $0
Checks scripts/send-series.sh's dry run for every series (nothing is sent);
TAP. Logs: \$FQP_CACHE/logs/send-series-selftest/.
USAGE
}
no_options "$@"
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
scratch=$(mktemp -d)
rm -rf "$logdir"
mkdir -p "$logdir"
cleanup() {
	local wt
	for wt in "$scratch"/wt-*; do
		[ ! -d "$wt" ] || git -C "$(cat "$wt.repo")" worktree remove --force "$wt" >/dev/null 2>&1 || true
	done
	rm -rf "$scratch"
}
trap cleanup EXIT

# The series send-series.sh sends, those whose patches exist here.
SERIES=()
for s in 6.1 net-next net-next-rfc net stable-6.1 stable-6.12; do
	case $s in
	6.1) SERIES+=("$s") ;;
	*) [ ! -f "$FQP_ROOT/patches/$s/series" ] || SERIES+=("$s") ;;
	esac
done

# check NAME DETAIL CMD...: one result line; DETAIL and the log's end on failure.
check() {
	local name=$1 detail=$2
	shift 2
	if "$@" >>"$logdir/$name.log" 2>&1 </dev/null; then
		tap_result 0 "send_series_$name"
	else
		echo "# $detail"
		tap_result 1 "send_series_$name" "$logdir/$name.log"
	fi
}
tap_header "$((6 * ${#SERIES[@]} + 5))"

# The subject tag each series' mails carry, and its list.
tag_of() {
	case $1 in
	6.1 | net-next) echo 'PATCH net-next' ;;
	net-next-rfc) echo 'RFC PATCH net-next' ;;
	net) echo 'PATCH net' ;;
	stable-*) echo "PATCH ${1#stable-}.y" ;;
	esac
}
list_of() { case $1 in stable-*) echo stable@vger.kernel.org ;; *) echo netdev@vger.kernel.org ;; esac; }

# count_is FILE PATTERN N: N lines of FILE match the ERE PATTERN.
count_is() {
	local c
	c=$(grep -cE "$2" "$1" || true)
	[ "$c" = "$3" ] || { echo "/$2/: $c lines, want $3"; return 1; }
}

# Every patch mail: From and Signed-off-by are the sender, no placeholder.
identity_ok() {
	local m
	[ $# -gt 0 ] || return 1
	! grep -liE "$FQP_PLACEHOLDER_EMAIL|$FQP_PLACEHOLDER_NAME" "$@" || return 1
	for m in "$@"; do
		# git mailinfo unfolds and decodes the From header.
		git mailinfo /dev/null /dev/null <"$m" | grep -qxF "Email: $email" ||
			{ echo "$m: From is not $email"; return 1; }
		[[ $m == *-0000-cover-letter.patch ]] || [ "$(grep -cxF "Signed-off-by: $ident" "$m")" = 1 ] ||
			{ echo "$m: not one 'Signed-off-by: $ident'"; return 1; }
	done
}

# base_of SERIES: "REPO REV" where the series applies with git am (the
# authoring repos' pristine base), or "DIR" (a plain tree: git apply).
base_of() {
	case $1 in
	6.1 | stable-6.1) echo "$FQP_CACHE/authoring base" ;;
	net-next | net) echo "$FQP_CACHE/authoring-$FQP_UPSTREAM_BASE base" ;;
	net-next-rfc) echo "$FQP_CACHE/authoring-$FQP_UPSTREAM_BASE main" ;;
	stable-6.12) echo "$FQP_CACHE/stock-6.12" ;;
	esac
}

# applies_to_base SERIES WANT_TREE MAIL...: git am into a sparse scratch
# worktree of the base (only the files the mails touch are checked out);
# with WANT_TREE, the result must be that tree (the authoring branch's).
# A base that is a plain tree takes them with git apply --check.
applies_to_base() {
	local s=$1 want=$2 repo rev wt
	shift 2
	[ $# -gt 0 ] || return 1
	read -r repo rev <<<"$(base_of "$s")"
	if [ -z "$rev" ]; then
		[ -d "$repo" ] || { echo "no tree at $repo"; return 1; }
		(cd "$repo" && git apply --check "$@")
		return
	fi
	wt=$scratch/wt-$s
	if [ ! -d "$wt" ]; then
		git -C "$repo" worktree add -q --no-checkout --detach "$wt" "$rev"
		echo "$repo" >"$wt.repo"
		mapfile -t files < <(grep -h '^+++ b/' "$@" | sed 's|^+++ b/|/|' | sort -u)
		git -C "$wt" sparse-checkout set --no-cone "${files[@]}"
		git -C "$wt" read-tree -mu HEAD
	fi
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" reset -q --hard "$rev"
	git -C "$wt" am -q "$@"
	[ -z "$want" ] || [ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$want" ] ||
		{ echo "git am gave another tree than the authoring branch"; return 1; }
}

# headers_ok DRY N TAG LIST: each of the N mails of the dry run's output
# DRY has one Dry-OK, From the sender, To LIST and a Subject tagged [TAG].
headers_ok() {
	count_is "$1" '^  Dry-OK' "$2" && count_is "$1" "^  From: .*<$email>\$" "$2" &&
		count_is "$1" "^  To: $4\$" "$2" && count_is "$1" "^  Subject: \\[$3\\] " "$2"
}

# b4_ok SERIES NPATCHES WANT_TREE MAIL...: b4 reads the thread (stdin: b4
# 0.12's -m FILE fails on folded headers) and writes an am-ready mbox of
# NPATCHES patches, which applies to the series' base (applies_to_base).
b4_ok() {
	local s=$1 np=$2 want=$3 d=$scratch/b4-$1 mbx
	shift 3
	mkdir -p "$d"
	cat "$@" | XDG_CACHE_HOME=$d/cache XDG_DATA_HOME=$d/data b4 -n am -C -m - -o "$d" || return 1
	mbx=$(find "$d" -maxdepth 1 -name '*.mbx' | head -n 1)
	[ -n "$mbx" ] && [ "$(grep -c '^From ' "$mbx")" = "$np" ] || { echo "b4 wrote no mbox with $np patches"; return 1; }
	applies_to_base "$s" "$want" "$mbx"
}

for s in "${SERIES[@]}"; do
	out=$FQP_CACHE/outgoing/$s/v1 dry=$logdir/dry-run-$s.out tag=$(tag_of "$s")
	log "dry run of scripts/send-series.sh --series $s as $ident (log: $logdir/dry-run-$s.err)"
	# shellcheck disable=SC2016 # expanded by the inner shell
	check "dry_run_$s" "send-series.sh --series $s (dry run) failed (its stderr: $logdir/dry-run-$s.err)" \
		bash -c '"$1" --series "$2" >"$3" 2>"$4" || { tail -n 20 "$4"; exit 1; }' _ \
		"$FQP_ROOT/scripts/send-series.sh" "$s" "$dry" "$logdir/dry-run-$s.err"
	mapfile -t mails < <(find "$out" -maxdepth 1 -name 'v1-*.patch' 2>/dev/null | sort)
	nmails=${#mails[@]} pmails=()
	for m in "${mails[@]}"; do [[ $m == *-0000-cover-letter.patch ]] || pmails+=("$m"); done
	np=${#pmails[@]}
	case $s in
	6.1) want=$(series_file_patches "$FQP_ROOT/series" | wc -l) ;;
	*) want=$(series_file_patches "$FQP_ROOT/patches/$s/series" | wc -l) ;;
	esac
	nums="v1 [0-9]+/$want" covers=1
	# A series of one mail has no cover letter; the net fixes are each their own.
	case $s in net | net-next-rfc | stable-*) covers=0 ;; esac
	[ "$want" != 1 ] || nums=v1
	# shellcheck disable=SC2016
	check "mails_$s" "want $want patch mails (and a cover letter for a series from an authoring repo) in $out, each with one Dry-OK, From the sender, To $(list_of "$s") and [$tag ...]" \
		bash -c '[ "$1" = "$2" ] && [ "$3" = $(($2 + $4)) ] || { echo "$1 patch mails of $3, want $2"; exit 1; }' _ "$np" "$want" "$nmails" "$covers"
	check "headers_$s" "want one Dry-OK, From (the sender), To and Subject per mail in the dry run ($dry)" \
		headers_ok "$dry" "$nmails" "$tag $nums" "$(list_of "$s")"
	check "maintainers_$s" "get_maintainer.pl's list ($out/maintainers.txt) is empty or lacks netdev" \
		grep -qx 'netdev@vger.kernel.org' "$out/maintainers.txt"
	check "sender_identity_$s" "a mail lacks the sender's From or its one Signed-off-by, or names the placeholder" \
		identity_ok ${mails[@]+"${mails[@]}"}
	wt=''
	case $s in
	6.1) wt=$(git -C "$FQP_CACHE/authoring" rev-parse 'main^{tree}') ;;
	net-next) wt=$(git -C "$FQP_CACHE/authoring-$FQP_UPSTREAM_BASE" rev-parse 'main^{tree}') ;;
	net-next-rfc) wt=$(git -C "$FQP_CACHE/authoring-$FQP_UPSTREAM_BASE" rev-parse 'rfc^{tree}') ;;
	esac
	check "b4_am_$s" "b4 am could not read the mails, or its mbox does not apply to the base (the authoring branch's tree)" \
		b4_ok "$s" "$np" "$wt" ${mails[@]+"${mails[@]}"}
done

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
check send_refuses_reserved_domain "--send did not refuse an identity in a domain reserved for examples" \
	refuses 'reserved for examples' GIT_AUTHOR_NAME='Build Machine' GIT_AUTHOR_EMAIL='ci@runner-7.example'

# The default series is the one netdev takes; --reflect mails the sender
# alone and Cc's nobody (the dry run shows the headers it would send).
# shellcheck disable=SC2016 # expanded by the inner shell
check default_series_net_next "send-series.sh without --series did not format the net-next series" \
	bash -c '"$1" >/dev/null 2>"$2" || exit 1; grep -q "mails of the net-next series" "$2"' _ \
	"$FQP_ROOT/scripts/send-series.sh" "$logdir/default.err"
reflect_ok() {
	local n
	# One mail per fix of patches/net/, each To the sender alone.
	n=$(series_file_patches "$FQP_ROOT/patches/net/series" | wc -l)
	"$FQP_ROOT/scripts/send-series.sh" --series net --reflect >"$scratch/reflect.out" 2>&1 || { tail -n 20 "$scratch/reflect.out"; return 1; }
	count_is "$scratch/reflect.out" "^  To: $email\$" "$n" && count_is "$scratch/reflect.out" '^  Cc: ' 0 &&
		count_is "$scratch/reflect.out" '^  Dry-OK' "$n"
}
check reflect_to_sender_only "--reflect's dry run did not address the sender alone (To the sender, no Cc)" reflect_ok
tap_summary
