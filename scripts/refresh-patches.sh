#!/usr/bin/env bash
# Authoring workflow. The series is written as commits in a git repo over
# the pristine tree ($FQP_AUTHOR, tag `base`), and exported here with
# git format-patch, so patches/ and series are never hand-edited into a
# state that quilt rejects.
#   refresh-patches.sh --init    create the authoring repo, import the series
#   refresh-patches.sh           export base..HEAD to patches/ + series
#   --base 7.3                   the same for the net-next series on its
#                                base, experimental's 7.3:
#                                $FQP_CACHE/authoring-7.3 to patches/net-next/
#   --base 7.3 --series net      the fixes for net, each a mail of its own
#                                (no cover letter, no numbering):
#                                $FQP_CACHE/authoring-7.3-net to patches/net/
#   --base 7.3 --series net-next-rfc
#                                the RFC on top of the net-next series, a
#                                mail of its own ([RFC PATCH net-next], no
#                                cover letter): branch rfc of
#                                $FQP_CACHE/authoring-7.3 (main..rfc) to
#                                patches/net-next-rfc/
# The 7.x authoring repo has two branches: main is the net-next series
# (exported as base..main) and rfc is main plus the RFC's commits
# (main..rfc), so the RFC is written on the series it applies to. After
# amending a net-next commit on main, rebase rfc onto it (the export
# refuses an rfc that does not hold main).
# The cover letter (patches/cover-letter.in) and the commit messages may
# quote figures of docs/results.csv and copy lists of the docs: the export
# resolves them (scripts/facts.py --expand) and stops on a stale one.
# Identity: nothing here invents one. The committed mails carry the
# project's placeholder identity (scripts/lib/ident.sh), whoever exports
# them: a commit by a placeholder (the project's, or any identity in a
# reserved domain, such as a build machine's) is exported as the
# placeholder's; any other author is kept, with an in-body From.
# scripts/send-series.sh puts the sender's own identity in From and
# Signed-off-by at send time. --init imports each patch's From as its
# author, with a clearly local committer.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: $0 [--base 6.1|7.3] [--series net-next|net-next-rfc|net] [--init] [--quilt DIR]
  --init    create the authoring repo over the pristine tree and import the series
            (net-next-rfc: branch rfc on main, the net-next series, imported first)
  --base    7.3: the upstream patches (default the net-next series, branch
            main of \$FQP_CACHE/authoring-7.3 to patches/net-next/)
  --series  with --base 7.3: net-next; net-next-rfc (the RFC on top of it,
            branch rfc of the same repo, main..rfc, to patches/net-next-rfc/);
            or net (the fixes, each its own mail: \$FQP_CACHE/authoring-7.3-net
            to patches/net/)
  --quilt DIR  a directory of mails kept without an authoring repo
            (patches/stable-6.1, patches/stable-6.12): give its mails the
            placeholder identity, nothing else changed
Without --init: export the series' commits (6.1 and net: base..HEAD; net-next:
base..main; net-next-rfc: main..rfc) to its directory and series file.
USAGE
}
mode='export' series=net-next qdir=''
while [ $# -gt 0 ]; do
	case $1 in
	--init) mode=init ;;
	--series) series=${2:-}; shift ;;
	--quilt) mode=quilt qdir=${2:-}; shift ;;
	--base) set_base "${2:-}" || usage_error; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
# The upstream patches are written on one base: exporting them from
# another would rewrite their index lines against a tree they do not target.
[ "$FQP_BASE" = 6.1 ] || [ "$FQP_BASE" = "$FQP_UPSTREAM_BASE" ] ||
	usage_error "the upstream patches' base is $FQP_UPSTREAM_BASE, not $FQP_BASE: use --base $FQP_UPSTREAM_BASE"
# Where the export goes: 6.1's series at the top (series, patches/), the
# net-next series in patches/net-next/ with its own series file, its RFC
# in patches/net-next-rfc/ with its own, the net fixes in patches/net/
# with theirs (own authoring repo: they apply to the pristine tree, as
# net's tree has none of net-next's patches).
case $FQP_BASE:$series in
6.1:net-next)
	series_file=$FQP_ROOT/series prefix=(--subject-prefix=PATCH)
	series_head="# quilt series: applied to linux-source-6.1 with quilt push -a"
	;;
*:net-next)
	series_file=$FQP_SERIES_DIR/series prefix=(--subject-prefix="PATCH net-next")
	series_head="# quilt series: net-next, applied to linux-source-$FQP_BASE after patches/net/series"
	;;
6.1:*) usage_error "--series goes with --base $FQP_UPSTREAM_BASE" ;;
*:net-next-rfc)
	FQP_SERIES_DIR=$FQP_ROOT/patches/net-next-rfc
	series_file=$FQP_SERIES_DIR/series prefix=(--subject-prefix="RFC PATCH net-next")
	series_head="# quilt series: the net-next RFC, its own mail, applied to linux-source-$FQP_BASE after patches/net-next/series"
	;;
*:net)
	FQP_AUTHOR=$FQP_AUTHOR-net FQP_SERIES_DIR=$FQP_ROOT/patches/net
	series_file=$FQP_SERIES_DIR/series prefix=(--subject-prefix="PATCH net" --no-numbered)
	series_head="# quilt series: net, each fix its own mail, applied to linux-source-$FQP_BASE before patches/net-next/series"
	;;
*) usage_error "unknown --series: '$series' (net-next, net-next-rfc or net)" ;;
esac

ensure_packages git python3
g() { git -C "$FQP_AUTHOR" "$@"; }
LOCAL_NAME='fq-pacing import (local, not a sender)' LOCAL_EMAIL='import@localhost'

# Authoring repos made before the identity fix set the placeholder as their
# local user: drop it, so commits made there carry the user's own identity.
drop_placeholder_config() {
	[ -d "$FQP_AUTHOR/.git" ] || return 0
	if is_placeholder "$(g config --local user.name || true)" "$(g config --local user.email || true)"; then
		log "removing the placeholder identity from $FQP_AUTHOR/.git/config"
		g config --local --unset user.name || true
		g config --local --unset user.email || true
	fi
}

# import_series SERIES-FILE DIR: git am each patch SERIES-FILE lists, from
# DIR, onto the checked-out branch.
import_series() {
	local p
	while read -r p; do
		log "importing ${2#"$FQP_ROOT/"}/$p"
		g am -q "$2/$p" || die "git am $p failed" \
			"the series does not apply where it belongs; fix it in $FQP_AUTHOR"
	done < <(series_file_patches "$1")
}

# git am takes each author from the patch's From; the committer is the
# user, or a clearly local one when no identity is configured.
import_committer() {
	if ! (cd / && git -c user.useConfigOnly=true var GIT_COMMITTER_IDENT) >/dev/null 2>&1; then
		warn "no git identity configured: importing with committer '$LOCAL_NAME <$LOCAL_EMAIL>'; set one before exporting"
		export GIT_COMMITTER_NAME="$LOCAL_NAME" GIT_COMMITTER_EMAIL="$LOCAL_EMAIL"
	fi
}

init_repo() {
	if [ ! -d "$FQP_AUTHOR/.git" ]; then
		"$FQP_ROOT/scripts/prepare-tree.sh" --stock-only
		log "creating the authoring repo in $FQP_AUTHOR"
		rm -rf "$FQP_AUTHOR"
		cp -a "$FQP_STOCK" "$FQP_AUTHOR"
		rm -f "$FQP_AUTHOR/.fqp-unpacked"
		g init -q -b main
		# Debian's top-level .gitignore ignores everything: add by force.
		g add -f -A . >/dev/null
		# The pristine import is nobody's work: a local identity, not the sender's.
		GIT_AUTHOR_NAME="$LOCAL_NAME" GIT_AUTHOR_EMAIL="$LOCAL_EMAIL" \
			GIT_COMMITTER_NAME="$LOCAL_NAME" GIT_COMMITTER_EMAIL="$LOCAL_EMAIL" \
			g commit -q -m "linux-source-$FQP_BASE (Debian), pristine"
		g tag base
		import_committer
		# The RFC's branch sits on the net-next series, branch main.
		if [ "$series" = net-next-rfc ]; then
			import_series "$FQP_ROOT/patches/net-next/series" "$FQP_ROOT/patches/net-next"
		else
			import_series "$series_file" "$FQP_SERIES_DIR"
		fi
	fi
	if [ "$series" = net-next-rfc ] && ! g rev-parse -q --verify refs/heads/rfc >/dev/null; then
		log "branch rfc: the RFC on top of main"
		import_committer
		g checkout -q -b rfc main
		import_series "$series_file" "$FQP_SERIES_DIR"
		g checkout -q main
	fi
}

if [ "$mode" = quilt ]; then
	[ -f "$qdir/series" ] || usage_error "--quilt: no series file in '$qdir'"
	mapfile -t qp < <(series_file_patches "$qdir/series")
	[ ${#qp[@]} -gt 0 ] || die "$qdir/series lists no patch" "write the series first"
	for p in "${qp[@]}"; do
		remail "$qdir/$p" "$qdir/$p" "$FQP_PLACEHOLDER" '' '' '' '' '' ||
			die "could not rewrite $qdir/$p" "check that it is a git format-patch mail"
	done
	log "${#qp[@]} mails of $qdir carry $FQP_PLACEHOLDER"
	exit 0
fi
drop_placeholder_config
if [ "$mode" = init ]; then
	init_repo
	log "authoring repo ready: $FQP_AUTHOR ($(g rev-list --count "$(authoring_range "$series")") commits of the $series series)"
	exit 0
fi

[ -d "$FQP_AUTHOR/.git" ] || die "no authoring repo at $FQP_AUTHOR" "run $0 --init first"
ident=$FQP_PLACEHOLDER
log "From and Signed-off-by of the committed mails: $ident (scripts/send-series.sh puts the sender's)"
[ -z "$(g status --porcelain --untracked-files=no)" ] ||
	die "the authoring repo has uncommitted changes" "commit or stash them in $FQP_AUTHOR"
range=$(authoring_range "$series")
count=$(g rev-list --count "$range")
[ "$count" -gt 0 ] || die "no commits in $range of $FQP_AUTHOR" "commit your change there first"
cover=$FQP_SERIES_DIR/cover-letter.in
# A series of one mail has no cover letter: the net fixes, the RFC.
case $series in net | net-next-rfc) ;; *) [ -f "$cover" ] || die "missing $cover" "write the cover letter (subject line, blank line, body)" ;; esac
mkdir -p "$FQP_SERIES_DIR"
# Exported beside the mails first: a message or cover letter that cannot
# be exported (a quoted figure its source does not have) leaves the
# committed mails as they were.
export_dir=$(mktemp -d "$FQP_SERIES_DIR/.export.XXXXXX")
trap 'rm -rf "$export_dir"' EXIT
format_series "$export_dir" "$ident" "$range" "${prefix[@]}"
rm -f "$FQP_SERIES_DIR"/0*.patch
mv "$export_dir"/0*.patch "$FQP_SERIES_DIR"/
{
	echo "$series_head"
	for p in "$FQP_SERIES_DIR"/0*.patch; do
		case ${p##*/} in 0000-cover-letter.patch) ;; *) echo "${p##*/}" ;; esac
	done
} >"$series_file"
log "exported $count patches ($range) to ${FQP_SERIES_DIR#"$FQP_ROOT/"}/ and ${series_file#"$FQP_ROOT/"}:"
sed 's/^/  /' "$series_file" >&2
