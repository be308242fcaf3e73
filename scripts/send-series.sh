#!/usr/bin/env bash
# Send the series upstream with git send-email. Dry run unless --send.
# netdev wants patches tested on net-next, not on a distro tree: rebase the
# authoring branch onto net-next (git am the patches there) and re-test
# before a real send. This script checks and prepares; it never sends
# without --send.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat >&2 <<USAGE
usage: $0 [--send] [--to ADDR] [--version N]
  default: format the series as [PATCH net-next vN], run checkpatch --strict
  and get_maintainer.pl, and show what git send-email would send (--dry-run)
USAGE
	exit 2
}
send=0 to='' version=1
while [ $# -gt 0 ]; do
	case $1 in
	--send) send=1 ;;
	--to) to=${2:-}; shift ;;
	--version) version=${2:-}; shift ;;
	-h | --help) usage ;;
	*) echo "unknown option: $1" >&2; usage ;;
	esac
	shift
done
[[ $version =~ ^[0-9]+$ ]] || usage

ensure_packages git git-email perl
[ -d "$FQP_AUTHOR/.git" ] || "$FQP_ROOT/scripts/refresh-patches.sh" --init
out=$FQP_CACHE/outgoing/v$version
rm -rf "$out"
mkdir -p "$out"
git -C "$FQP_AUTHOR" config branch.main.description "$(cat "$FQP_ROOT/patches/cover-letter.in")"
git -C "$FQP_AUTHOR" format-patch -q --cover-letter --cover-from-description=subject \
	--base=auto --subject-prefix='PATCH net-next' -v"$version" -o "$out" base..HEAD 2>/dev/null ||
	git -C "$FQP_AUTHOR" format-patch -q --cover-letter --cover-from-description=subject \
		--subject-prefix='PATCH net-next' -v"$version" -o "$out" base..HEAD
log "formatted $(find "$out" -name '*.patch' | wc -l) mails in $out"

bad=0
for p in "$out"/*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	if ! (cd "$FQP_AUTHOR" && perl scripts/checkpatch.pl --strict -q "$p"); then
		warn "checkpatch --strict complains about $(basename "$p")"
		bad=1
	fi
done
[ "$bad" = 0 ] || die "checkpatch --strict is not clean" "fix the commits in $FQP_AUTHOR, then refresh-patches.sh"
log "checkpatch --strict: clean"

cc=$(cd "$FQP_AUTHOR" && perl scripts/get_maintainer.pl --no-rolestats --no-git \
	--no-git-fallback "$out"/0*.patch 2>/dev/null | grep '@' || true)
log "get_maintainer.pl:"
sed 's/^/  /' <<<"$cc" >&2
to=${to:-netdev@vger.kernel.org}
args=(--to "$to" --suppress-cc=self)
while read -r a; do [ -z "$a" ] || args+=(--cc "$a"); done <<<"$cc"
warn "this series was tested on Debian's linux-source-6.1, not on net-next: rebase and re-test before --send"
if [ "$send" = 1 ]; then
	git -C "$FQP_AUTHOR" send-email "${args[@]}" "$out"/*.patch
else
	log "dry run (add --send to really send):"
	git -C "$FQP_AUTHOR" send-email --dry-run --confirm=never "${args[@]}" "$out"/*.patch 2>&1 |
		grep -E '^(Dry-OK|Subject|To|Cc|Result)' | sed 's/^/  /' >&2 || true
fi
