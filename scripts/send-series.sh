#!/usr/bin/env bash
# Send the series upstream with git send-email. Dry run unless --send.
# netdev wants patches tested on net-next, not on a distro tree: rebase the
# authoring branch onto net-next (git am the patches there) and re-test
# before a real send. This script checks and prepares; it never sends
# without --send.
# From and Signed-off-by are the sender's git identity (user.name and
# user.email, or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL); --send refuses while it
# is unset, the fq-pacing placeholder, or on a reserved example domain.
# Reads the authoring repo ($FQP_AUTHOR; made by refresh-patches.sh --init
# when absent).
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat >&2 <<USAGE
usage: $0 [--send] [--to ADDR] [--version N]
  default: format the series as [PATCH net-next vN], run checkpatch --strict
  and get_maintainer.pl, and show what git send-email would send (--dry-run):
  per mail its From, To, Cc and Subject, and send-email's Dry-OK
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

# git send-email and its Recommends: Mail::Address (libmailtools-perl, it
# dies without it), Email::Valid, and SMTP auth and TLS (Authen::SASL,
# IO::Socket::SSL). perl itself satisfies "perl | libnet-smtp-ssl-perl":
# its Net::SMTP does SSL.
ensure_packages git git-email perl libmailtools-perl libemail-valid-perl \
	libauthen-sasl-perl libio-socket-ssl-perl
if [ "$send" = 1 ]; then
	ident=$(require_sender "--send" --strict)
else
	ident=$(require_sender "the dry run")
fi
log "sender (From, Signed-off-by): $ident"
[ -d "$FQP_AUTHOR/.git" ] || "$FQP_ROOT/scripts/refresh-patches.sh" --init
out=$FQP_CACHE/outgoing/v$version
rm -rf "$out"
mkdir -p "$out"
# --base=auto needs an upstream branch; a distro base means nothing upstream.
base=()
! git -C "$FQP_AUTHOR" rev-parse -q --verify '@{upstream}' >/dev/null 2>&1 || base=(--base=auto)
# --thread: the Message-Id and In-Reply-To the mails go out with (send-email
# keeps them), so the outgoing directory reads as the thread lore will have.
format_series "$out" "$ident" --thread=shallow --subject-prefix='PATCH net-next' \
	-v"$version" ${base[@]+"${base[@]}"}
mapfile -t mails < <(find "$out" -maxdepth 1 -name "v$version-*.patch" | sort)
patches=()
for p in "${mails[@]}"; do [[ $p == *-0000-cover-letter.patch ]] || patches+=("$p"); done
[ ${#patches[@]} -gt 0 ] || die "no patch mails in $out" "commit the series in $FQP_AUTHOR (refresh-patches.sh --init)"
log "formatted ${#mails[@]} mails in $out"

bad=0
for p in "${patches[@]}"; do
	r=$(checkpatch_strict "$FQP_AUTHOR" "$p")
	if [ -n "$r" ]; then
		printf '%s\n' "$r" >&2
		warn "checkpatch --strict complains about $(basename "$p")"
		bad=1
	fi
done
[ "$bad" = 0 ] || die "checkpatch --strict is not clean" "fix the commits in $FQP_AUTHOR, then refresh-patches.sh"
log "checkpatch --strict: clean"

gmlog=$out/get_maintainer.log
cc=$(cd "$FQP_AUTHOR" && perl scripts/get_maintainer.pl --no-rolestats --no-git \
	--no-git-fallback "${patches[@]}" 2>"$gmlog") || {
	cat "$gmlog" >&2
	die "get_maintainer.pl failed (log: $gmlog)" "run it by hand in $FQP_AUTHOR on $out/*.patch"
}
cc=$(grep '@' <<<"$cc" || true)
[ -n "$cc" ] || die "get_maintainer.pl named nobody for ${patches[*]##*/} (log: $gmlog)" \
	"check that the mails touch files listed in MAINTAINERS"
printf '%s\n' "$cc" >"$out/maintainers.txt"
log "get_maintainer.pl (Cc; $out/maintainers.txt):"
sed 's/^/  /' <<<"$cc" >&2
to=${to:-netdev@vger.kernel.org}
args=(--from "$ident" --to "$to" --suppress-cc=self)
while read -r a; do [ -z "$a" ] || args+=(--cc "$a"); done <<<"$cc"
warn "this series was tested on Debian's linux-source-6.1, not on net-next: rebase and re-test before --send"
if [ "$send" = 1 ]; then
	git -C "$FQP_AUTHOR" send-email "${args[@]}" "${mails[@]}"
	exit
fi
drylog=$out/send-email-dry-run.log
log "dry run (add --send to really send; log: $drylog):"
if ! git -C "$FQP_AUTHOR" send-email --dry-run --confirm=never "${args[@]}" "${mails[@]}" >"$drylog" 2>&1; then
	tail -n 40 "$drylog" >&2
	die "git send-email --dry-run failed (log: $drylog)" \
		"fix what it says above (a missing Perl module: re-run, ensure_packages installs it)"
fi
# Per mail: the headers that would go out, then send-email's verdict.
awk '/^(From|To|Cc|Subject): / {h = 1; print; next}
	h && /^[ \t]/ {print; next}
	{h = 0}
	/^Dry-OK/ {print}' "$drylog" | sed 's/^/  /'
ok=$(grep -c '^Dry-OK' "$drylog" || true)
[ "$ok" = "${#mails[@]}" ] || die "send-email said Dry-OK for $ok of ${#mails[@]} mails (log: $drylog)" \
	"read the log for the mails it did not accept"
log "dry run: ${#mails[@]} mails would go out from $ident"
