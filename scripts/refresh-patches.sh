#!/usr/bin/env bash
# Authoring workflow. The series is written as commits in a git repo over
# the pristine tree ($FQP_AUTHOR, tag `base`), and exported here with
# git format-patch, so patches/ and series are never hand-edited into a
# state that quilt rejects.
#   refresh-patches.sh --init    create the authoring repo, import the series
#   refresh-patches.sh           export base..HEAD to patches/ + series
# Identity: nothing here invents one. The export writes From and
# Signed-off-by from the sender's git identity (user.name/user.email, or
# GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL), replacing the old placeholder, and
# refuses without one. --init works without one: the imported commits keep
# the author of each patch's From, with a clearly local committer.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mode='export'
case ${1:-} in
"") ;;
--init) mode=init ;;
*) echo "usage: $0 [--init]" >&2; exit 2 ;;
esac

ensure_packages git
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

init_repo() {
	[ ! -d "$FQP_AUTHOR/.git" ] || return 0
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
		g commit -q -m "linux-source-6.1 (Debian), pristine"
	g tag base
	# git am takes each author from the patch's From; the committer is the
	# user, or a clearly local one when no identity is configured.
	if ! (cd / && git -c user.useConfigOnly=true var GIT_COMMITTER_IDENT) >/dev/null 2>&1; then
		warn "no git identity configured: importing with committer '$LOCAL_NAME <$LOCAL_EMAIL>'; set one before exporting"
		export GIT_COMMITTER_NAME="$LOCAL_NAME" GIT_COMMITTER_EMAIL="$LOCAL_EMAIL"
	fi
	local p
	while read -r p; do
		log "importing $p"
		g am -q "$FQP_ROOT/patches/$p" || die "git am $p failed" \
			"the series does not apply to the pristine tree; fix it in $FQP_AUTHOR"
	done < <(series_patches)
}

drop_placeholder_config
if [ "$mode" = init ]; then
	init_repo
	log "authoring repo ready: $FQP_AUTHOR ($(g rev-list --count base..HEAD) commits on base)"
	exit 0
fi

[ -d "$FQP_AUTHOR/.git" ] || die "no authoring repo at $FQP_AUTHOR" "run $0 --init first"
ident=$(require_sender "exporting the series")
log "sender (From, Signed-off-by): $ident"
[ -z "$(g status --porcelain --untracked-files=no)" ] ||
	die "the authoring repo has uncommitted changes" "commit or stash them in $FQP_AUTHOR"
count=$(g rev-list --count base..HEAD)
[ "$count" -gt 0 ] || die "no commits on top of base in $FQP_AUTHOR" "commit your change there first"
cover=$FQP_ROOT/patches/cover-letter.in
[ -f "$cover" ] || die "missing $cover" "write the cover letter (subject line, blank line, body)"
rm -f "$FQP_ROOT"/patches/0*.patch
format_series "$FQP_ROOT/patches" "$ident"
{
	echo "# quilt series: applied to linux-source-6.1 with quilt push -a"
	for p in "$FQP_ROOT"/patches/0*.patch; do
		case ${p##*/} in 0000-cover-letter.patch) ;; *) echo "${p##*/}" ;; esac
	done
} >"$FQP_ROOT/series"
log "exported $count patches to patches/ and series:"
sed 's/^/  /' "$FQP_ROOT/series" >&2
