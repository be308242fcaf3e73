#!/usr/bin/env bash
# Authoring workflow. The series is written as commits in a git repo over
# the pristine tree ($FQP_AUTHOR, tag `base`), and exported here with
# git format-patch, so patches/ and series are never hand-edited into a
# state that quilt rejects.
#   refresh-patches.sh --init    create the authoring repo, import the series
#   refresh-patches.sh           export base..HEAD to patches/ + series
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

init_repo() {
	[ ! -d "$FQP_AUTHOR/.git" ] || return 0
	"$FQP_ROOT/scripts/prepare-tree.sh" --stock-only
	log "creating the authoring repo in $FQP_AUTHOR"
	rm -rf "$FQP_AUTHOR"
	cp -a "$FQP_STOCK" "$FQP_AUTHOR"
	rm -f "$FQP_AUTHOR/.fqp-unpacked"
	g init -q -b main
	g config user.name >/dev/null || g config user.name "fq-pacing developers"
	g config user.email >/dev/null || g config user.email "fq-pacing@example.org"
	# Debian's top-level .gitignore ignores everything: add by force.
	g add -f -A . >/dev/null
	g commit -q -m "linux-source-6.1 (Debian), pristine"
	g tag base
	local p
	while read -r p; do
		log "importing $p"
		g am -q "$FQP_ROOT/patches/$p" || die "git am $p failed" \
			"the series does not apply to the pristine tree; fix it in $FQP_AUTHOR"
	done < <(series_patches)
}

if [ "$mode" = init ]; then
	init_repo
	log "authoring repo ready: $FQP_AUTHOR ($(g rev-list --count base..HEAD) commits on base)"
	exit 0
fi

[ -d "$FQP_AUTHOR/.git" ] || die "no authoring repo at $FQP_AUTHOR" "run $0 --init first"
[ -z "$(g status --porcelain --untracked-files=no)" ] ||
	die "the authoring repo has uncommitted changes" "commit or stash them in $FQP_AUTHOR"
count=$(g rev-list --count base..HEAD)
[ "$count" -gt 0 ] || die "no commits on top of base in $FQP_AUTHOR" "commit your change there first"
cover=$FQP_ROOT/patches/cover-letter.in
[ -f "$cover" ] || die "missing $cover" "write the cover letter (subject line, blank line, body)"
g config branch.main.description "$(cat "$cover")"
rm -f "$FQP_ROOT"/patches/0*.patch
g format-patch -q --cover-letter --cover-from-description=subject \
	-o "$FQP_ROOT/patches" base..HEAD
{
	echo "# quilt series: applied to linux-source-6.1 with quilt push -a"
	for p in "$FQP_ROOT"/patches/0*.patch; do
		case ${p##*/} in 0000-cover-letter.patch) ;; *) echo "${p##*/}" ;; esac
	done
} >"$FQP_ROOT/series"
log "exported $count patches to patches/ and series:"
sed 's/^/  /' "$FQP_ROOT/series" >&2
