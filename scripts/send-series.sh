#!/usr/bin/env bash
# Send a series upstream with git send-email. Dry run unless --send.
#   --series net-next    (default) the upstream series on 7.3
#                        (patches/net-next/, its authoring repo's branch
#                        main), [PATCH net-next vN m/n], To netdev
#   --series net-next-rfc
#                        the RFC on top of it (patches/net-next-rfc/, the
#                        same repo's branch rfc), a mail of its own,
#                        [RFC PATCH net-next vN], To netdev: send it after
#                        the series it applies to
#   --series 6.1         the 6.1 series (patches/, the authoring repo), as
#                        [PATCH net-next vN]: netdev wants it rebased onto
#                        net-next and re-tested before a real send
#   --series net         the fixes for net (patches/net/), [PATCH net vN]
#   --series stable-6.1, stable-6.12
#                        the stable backports (patches/stable-*/),
#                        [PATCH 6.1.y] / [PATCH 6.12.y], To stable@
# Cc: get_maintainer.pl of the tree the series applies to. This script
# checks and prepares; it never sends without --send.
# --reflect sends the mails to the sender alone, Cc nobody (as b4's
# --reflect): to see them as the list would, before the real send.
# From and Signed-off-by are the sender's git identity (user.name and
# user.email, or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL), in place of the
# placeholder the committed mails carry; --send refuses while it is unset,
# the fq-pacing placeholder, or in a domain reserved for examples and tests.
# Reads the authoring repo ($FQP_AUTHOR; made by refresh-patches.sh --init
# when absent).
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: $0 [--series net-next|net-next-rfc|net|6.1|stable-6.1|stable-6.12] [--send] [--reflect] [--to ADDR] [--version N]
  --series   net-next (default): the upstream series on $FQP_UPSTREAM_BASE, a cover
             letter and its patches; net-next-rfc: the RFC on top of it, one
             mail of its own (send it after the series); net: the fixes,
             each its own mail; 6.1, stable-6.1, stable-6.12
  default: format the series (default net-next) as its tree wants it, run
  checkpatch --strict and get_maintainer.pl, and show what git send-email
  would send (--dry-run): per mail its From, To, Cc and Subject, and
  send-email's Dry-OK
  --reflect  To the sender's own address, Cc nobody (with --send: a copy
             to yourself, to read before the real send)
USAGE
}
send=0 reflect=0 to='' to_given='' version=1 series=net-next
while [ $# -gt 0 ]; do
	case $1 in
	--series) series=${2:-}; shift ;;
	--send) send=1 ;;
	--reflect) reflect=1 ;;
	--to) to=${2:-} to_given=1; shift ;;
	--version) version=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
[[ $version =~ ^[0-9]+$ ]] || usage_error "bad --version: '$version' (a number)"
[ "$reflect" = 0 ] || [ -z "$to_given" ] || usage_error "--reflect and --to both say where the mails go: drop one"

# Per series: where its mails come from (the base's authoring repo, or the
# quilt directory under patches/), the tree get_maintainer.pl and
# checkpatch.pl run in, the subject prefix, the list it goes to, and what
# to say before a real send.
case $series in
6.1)
	set_base 6.1
	tree=$FQP_AUTHOR prefix='PATCH net-next' list=netdev@vger.kernel.org
	caveat="this series was tested on Debian's linux-source-6.1, not on net-next: rebase and re-test before --send"
	;;
net-next)
	set_base "$FQP_UPSTREAM_BASE"
	tree=$FQP_AUTHOR prefix='PATCH net-next' list=netdev@vger.kernel.org
	caveat="tested on Debian's linux-source-$FQP_BASE ($(base_version)): git am it onto net-next's tip and re-run the tests there before --send"
	;;
net-next-rfc)
	set_base "$FQP_UPSTREAM_BASE"
	FQP_SERIES_DIR=$FQP_ROOT/patches/net-next-rfc
	tree=$FQP_AUTHOR prefix='RFC PATCH net-next' list=netdev@vger.kernel.org
	caveat="an RFC on top of the net-next series, tested on Debian's linux-source-$FQP_BASE ($(base_version)) with it: send it after that series, git am both onto net-next's tip and re-run the tests there before --send"
	;;
net)
	set_base "$FQP_UPSTREAM_BASE"
	tree=$FQP_STOCK prefix='PATCH net' list=netdev@vger.kernel.org
	caveat="tested on Debian's linux-source-$FQP_BASE ($(base_version)): check that net's tip still has each bug before --send"
	;;
stable-6.1 | stable-6.12)
	tree=$FQP_CACHE/stock
	[ "$series" = stable-6.1 ] || tree=$FQP_CACHE/stock-6.12
	prefix="PATCH ${series#stable-}.y" list=stable@vger.kernel.org
	caveat="tested on Debian's linux-source-${series#stable-}: check that the latest ${series#stable-}.y still has the bug before --send"
	;;
*) usage_error "unknown series: '$series'" ;;
esac
qdir=''
case $series in net | stable-*) qdir=$FQP_ROOT/patches/$series ;; esac
if [ -n "$qdir" ]; then
	[ -f "$qdir/series" ] || die "no $qdir/series" "write the series first"
	[ -f "$tree/scripts/get_maintainer.pl" ] || {
		if [ "$series" = stable-6.1 ]; then
			"$FQP_ROOT/scripts/prepare-tree.sh" --base 6.1 --stock-only
		elif [ "$series" = net ]; then
			"$FQP_ROOT/scripts/prepare-tree.sh" --base "$FQP_UPSTREAM_BASE" --stock-only
		else
			with_lock "$FQP_CACHE/.tree-6.12-lock"
			fetch_debian_tree trixie linux-source-6.12 "$tree"
		fi
	}
fi

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
out=$FQP_CACHE/outgoing/$series/v$version
rm -rf "$out"
mkdir -p "$out"
if [ -z "$qdir" ]; then
	case $series in
	net-next-rfc)
		git -C "$FQP_AUTHOR" rev-parse -q --verify refs/heads/rfc >/dev/null 2>&1 ||
			"$FQP_ROOT/scripts/refresh-patches.sh" --base "$FQP_BASE" --series net-next-rfc --init
		;;
	*) [ -d "$FQP_AUTHOR/.git" ] || "$FQP_ROOT/scripts/refresh-patches.sh" --base "$FQP_BASE" --init ;;
	esac
	# --base=auto needs an upstream branch; a distro base means nothing upstream.
	base=()
	! git -C "$FQP_AUTHOR" rev-parse -q --verify '@{upstream}' >/dev/null 2>&1 || base=(--base=auto)
	# --thread: the Message-Id and In-Reply-To the mails go out with (send-email
	# keeps them), so the outgoing directory reads as the thread lore will have.
	format_series "$out" "$ident" "$(authoring_range "$series")" --thread=shallow --subject-prefix="$prefix" \
		-v"$version" ${base[@]+"${base[@]}"}
else
	mapfile -t qp < <(series_file_patches "$qdir/series")
	[ ${#qp[@]} -gt 0 ] || die "$qdir/series lists no patch" "write the series first"
	i=0 stamp=$(date -u +%Y%m%d%H%M%S).$$
	for p in "${qp[@]}"; do
		i=$((i + 1))
		remail "$qdir/$p" "$out/v$version-$(printf %04d "$i")-${p#[0-9][0-9][0-9][0-9]-}" \
			"$ident" "$prefix" "$version" "$i" "${#qp[@]}" "$stamp"
	done
fi
mapfile -t mails < <(find "$out" -maxdepth 1 -name "v$version-*.patch" | sort)
patches=()
for p in "${mails[@]}"; do [[ $p == *-0000-cover-letter.patch ]] || patches+=("$p"); done
[ ${#patches[@]} -gt 0 ] || die "no patch mails in $out" "commit the series in $FQP_AUTHOR (refresh-patches.sh --init)"
log "formatted ${#mails[@]} mails of the $series series in $out"

bad=0
for p in "${patches[@]}"; do
	r=$(checkpatch_strict "$tree" "$p")
	if [ -n "$r" ]; then
		printf '%s\n' "$r" >&2
		warn "checkpatch --strict complains about $(basename "$p")"
		bad=1
	fi
done
[ "$bad" = 0 ] || die "checkpatch --strict is not clean" "fix the commits in $FQP_AUTHOR, then refresh-patches.sh"
log "checkpatch --strict: clean"

gmlog=$out/get_maintainer.log
cc=$(cd "$tree" && perl scripts/get_maintainer.pl --no-rolestats --no-git \
	--no-git-fallback "${patches[@]}" 2>"$gmlog") || {
	cat "$gmlog" >&2
	die "get_maintainer.pl failed (log: $gmlog)" "run it by hand in $tree on $out/*.patch"
}
cc=$(grep '@' <<<"$cc" || true)
[ -n "$cc" ] || die "get_maintainer.pl named nobody for ${patches[*]##*/} (log: $gmlog)" \
	"check that the mails touch files listed in MAINTAINERS"
printf '%s\n' "$cc" >"$out/maintainers.txt"
log "get_maintainer.pl (Cc; $out/maintainers.txt):"
sed 's/^/  /' <<<"$cc" >&2
to=${to:-$list}
args=(--from "$ident" --to "$to" --suppress-cc=self)
if [ "$reflect" = 1 ]; then
	to=${ident##*<} to=${to%>}
	args=(--from "$ident" --to "$to" --suppress-cc=all)
	log "--reflect: To $to only, Cc nobody (the maintainers above are not mailed)"
else
	while read -r a; do [ -z "$a" ] || [ "$a" = "$to" ] || args+=(--cc "$a"); done <<<"$cc"
fi
warn "$caveat"
if [ "$send" = 1 ]; then
	git -C "$out" send-email "${args[@]}" "${mails[@]}"
	exit
fi
drylog=$out/send-email-dry-run.log
log "dry run (add --send to really send; log: $drylog):"
if ! git -C "$out" send-email --dry-run --confirm=never "${args[@]}" "${mails[@]}" >"$drylog" 2>&1; then
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
