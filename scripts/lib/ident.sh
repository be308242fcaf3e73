# shellcheck shell=bash
# The sender's identity and the mails: who signs off and sends the
# patches (git's own user.name/user.email, never invented; placeholders
# refused), and the authoring repo's commits formatted as mails.
# The mails committed under patches/ carry the project's placeholder
# identity (scripts/refresh-patches.sh writes it); scripts/send-series.sh
# replaces it with the sender's. Any identity in a domain reserved for
# examples and tests (RFC 2606/6761: example, invalid, test, localhost) is
# a placeholder too: it stands for nobody, whatever machine made it.

# --- The sender's identity (From and Signed-off-by of every mail) ---------
# Never invented: it is git's own, user.name/user.email from the global or
# system config, or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL in the environment. A
# repository's local config is not read (old authoring repos carry the
# placeholder there). The project's placeholder, what committed mails carry:
FQP_PLACEHOLDER_NAME='fq-pacing developers'
FQP_PLACEHOLDER_EMAIL='fq-pacing@example.org'
# shellcheck disable=SC2034 # used by scripts/refresh-patches.sh
FQP_PLACEHOLDER="$FQP_PLACEHOLDER_NAME <$FQP_PLACEHOLDER_EMAIL>"
# The domains RFC 2606 and RFC 6761 reserve, as an ERE on a lowercase domain.
FQP_RESERVED_DOMAINS='(^|\.)(example|invalid|test|localhost)$|(^|\.)example\.(org|com|net)$'

# sender_ident: "Name <email>", or nothing when no identity is configured.
sender_ident() {
	local n e
	n=${GIT_AUTHOR_NAME:-$(cd / && git config user.name 2>/dev/null || true)}
	e=${GIT_AUTHOR_EMAIL:-$(cd / && git config user.email 2>/dev/null || true)}
	[ -z "$n" ] || [ -z "$e" ] || printf '%s <%s>\n' "$n" "$e"
}

# ident_problem IDENT: why IDENT cannot sign off and send a patch (nothing
# when it can): unset, the project's placeholder, or a domain reserved for
# examples and tests (RFC 2606/6761), which can neither receive replies nor
# stand for a person under the DCO.
ident_problem() {
	local id=$1 dom
	[ -n "$id" ] || { echo "no identity is configured"; return; }
	[[ $id =~ ^(.+)\ \<([^@<>]+)@([^@<>]+)\>$ ]] || { echo "'$id' is not 'Name <user@domain>'"; return; }
	dom=${BASH_REMATCH[3],,}
	if [ "${BASH_REMATCH[1]}" = "$FQP_PLACEHOLDER_NAME" ] || [ "${BASH_REMATCH[2]}@$dom" = "$FQP_PLACEHOLDER_EMAIL" ]; then
		echo "'$id' is the fq-pacing placeholder identity"
	elif [[ $dom =~ $FQP_RESERVED_DOMAINS ]]; then
		echo "'$id' is a placeholder: $dom is a domain reserved for examples and tests"
	fi
}

# require_sender WHAT [--strict]: print the sender's identity. Dies when none
# is configured or it is the project's placeholder; with --strict also when
# ident_problem objects otherwise (a warning without: a dry run may show the
# mails as a machine's reserved-domain identity would send them). WHAT says
# what needs it.
require_sender() {
	local what=$1 id why
	id=$(sender_ident)
	why=$(ident_problem "$id")
	if [ -n "$why" ]; then
		if [ -z "$id" ] || [[ $why == *"fq-pacing placeholder"* ]] || [ "${2:-}" = --strict ]; then
			die "$what needs the sender's identity, and $why" \
				"git config --global user.name 'Your Name'; git config --global user.email you@your.domain (or set GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL), then re-run"
		fi
		warn "$why: fine for a look, but scripts/send-series.sh --send will refuse it"
	fi
	printf '%s\n' "$id"
}

# is_placeholder NAME EMAIL: the project's placeholder identity, or any in a
# reserved domain.
is_placeholder() {
	local e=${2,,}
	[ "$1" = "$FQP_PLACEHOLDER_NAME" ] || [ "$e" = "$FQP_PLACEHOLDER_EMAIL" ] ||
		[[ ${e##*@} =~ $FQP_RESERVED_DOMAINS ]]
}

# placeholder_trailer_ere: an ERE matching a Signed-off-by line of a
# placeholder (the project's, or any address in a reserved domain).
placeholder_trailer_ere() {
	printf '^Signed-off-by: *(%s|.*<(%s|[^<>@]+@([^<>@]*\\.)?(example|invalid|test|localhost|example\\.(org|com|net)))>)[[:space:]]*$' \
		"$FQP_PLACEHOLDER_NAME" "${FQP_PLACEHOLDER_EMAIL//./\\.}"
}

# remail IN OUT IDENT PREFIX VERSION I N STAMP: a git format-patch mail of a
# quilt directory (patches/net/, patches/stable-*/) from IDENT: From is IDENT
# (the mail's own author goes into the body as "From:" when it is someone
# other than a placeholder, as git format-patch --from writes it), and the
# trailers end with IDENT's Signed-off-by, once; a placeholder's
# Signed-off-by (is_placeholder) is dropped. With a PREFIX, as the sender
# sends it: the Subject's tag is [PREFIX vVERSION I/N] ([PREFIX vVERSION]
# for a single patch), and a mail without a Message-ID gets one in git
# format-patch's form (the first mail's, STAMP, is the thread's root: the
# others reply to it), as send-email keeps it and b4 needs it to read the
# thread. Without one (refresh-patches.sh --quilt): only the identity
# changes.
remail() {
	python3 - "$@" "$FQP_PLACEHOLDER_NAME" "$FQP_PLACEHOLDER_EMAIL" <<'PY'
import re
import sys
src, dst, ident, prefix, version, i, n, stamp, ph_name, ph_email = sys.argv[1:]
# Reserved for examples and tests (RFC 2606, RFC 6761): a placeholder.
RESERVED = re.compile(r"(^|\.)(example|invalid|test|localhost)$|(^|\.)example\.(org|com|net)$")


def placeholder(who):
    m = re.search(r"<[^<>@]+@([^<>@]+)>", who)
    return (ph_name in who or ph_email in who.lower()
            or bool(m and RESERVED.search(m.group(1).lower())))


text = open(src).read()
head, sep, body = text.partition("\n\n")
if not sep:
    sys.exit("%s: no blank line after the headers" % src)
lines = head.split("\n")
hdrs = []
for ln in lines:
    if ln[:1] in (" ", "\t") and hdrs:
        hdrs[-1] += " " + ln.strip()
    else:
        hdrs.append(ln)
author = next((h[6:] for h in hdrs if h.startswith("From: ")), "")
tag = "[%s v%s%s]" % (prefix, version, "" if n == "1" else " %s/%s" % (i, n))
out = []
for h in hdrs:
    if h.startswith("From: "):
        h = "From: " + ident
    elif h.startswith("Subject: ") and prefix:
        h = "Subject: " + tag + " " + re.sub(r"^(\[[^]]*\]\s*)+", "", h[9:])
    out.append(h)
if prefix and not any(h.lower().startswith("message-id:") for h in hdrs):
    mail = ident[ident.rfind("<") + 1:].rstrip(">")
    out.append("Message-ID: <%s-%s-%s>" % (stamp, i, mail))
    if i != "1":
        out.append("In-Reply-To: <%s-1-%s>" % (stamp, mail))
        out.append("References: <%s-1-%s>" % (stamp, mail))
msg, dashes, rest = body.partition("\n---\n")
if not dashes:
    sys.exit("%s: no --- line before the diffstat" % src)
is_ph = author and placeholder(author)
keep = [ln for ln in msg.rstrip("\n").split("\n")
        if not (ln.startswith("Signed-off-by: ") and
                (placeholder(ln) or ln == "Signed-off-by: " + ident))]
if author and not is_ph and author != ident:
    keep = ["From: " + author, ""] + keep
keep.append("Signed-off-by: " + ident)
open(dst, "w").write("\n".join(out) + "\n\n" + "\n".join(keep) + "\n---\n" + rest)
PY
}

# authoring_range SERIES: the commits of the authoring repo ($FQP_AUTHOR)
# that are SERIES, as FROM..TO. The 6.1 series and the net fixes are their
# repo's base..HEAD. The 7.x repo holds two series on two branches: main,
# the net-next series (base..main), and rfc, the RFC on top of it
# (main..rfc), so that the RFC's commits are written and tested on the
# series they apply to and exported apart. Dies when rfc does not hold
# main (an amended net-next commit): rebase rfc onto main first.
authoring_range() {
	case $1 in
	net-next) [ "$FQP_BASE" = 6.1 ] && echo base..HEAD || echo base..main ;;
	net-next-rfc)
		git -C "$FQP_AUTHOR" merge-base --is-ancestor main rfc 2>/dev/null ||
			die "branch rfc of $FQP_AUTHOR does not hold main (the net-next series)" \
				"git -C $FQP_AUTHOR rebase --onto main <main's old tip> rfc"
		echo main..rfc
		;;
	*) echo base..HEAD ;;
	esac
}

# format_series OUT IDENT RANGE FORMAT-PATCH-ARG...: the authoring repo's
# commits RANGE (FROM..TO, authoring_range) as mails in OUT (cover letter
# from the series dir: patches/cover-letter.in, or
# patches/net-next/cover-letter.in on 7.x; none where the series dir has
# no cover-letter.in: patches/net/'s fixes and patches/net-next-rfc/'s
# RFC are mails of their own),
# From and Signed-off-by the sender IDENT. The cover letter and each
# message are mailed as scripts/facts.py --expand makes them: a quoted
# figure ({{r:ROW COLUMN|FIGURE}}) checked against docs/results.csv and
# written plain, a copied list ({{include FILE BLOCK}}) copied; a stale
# figure stops the export. The branch is not touched: the
# mails are made from a copy of each commit (same tree and dates) whose
# placeholder author (is_placeholder) becomes IDENT and whose placeholder
# Signed-off-by lines are replaced by IDENT's; other authors and trailers
# are kept, and a commit by someone else gets an in-body From line (git
# format-patch --from). IDENT is the placeholder for the committed mails
# (refresh-patches.sh) and the sender for the sent ones (send-series.sh).
format_series() {
	local out=$1 ident=$2 range=$3 name email c tip an ae msg
	shift 3
	[[ $ident =~ ^(.+)\ \<(.+)\>$ ]] || die "format_series: bad identity '$ident' (a bug in $0)"
	name=${BASH_REMATCH[1]} email=${BASH_REMATCH[2]}
	local -a ga=(git -C "$FQP_AUTHOR")
	[ -z "$("${ga[@]}" rev-list --merges "$range")" ] ||
		die "the authoring branch has merge commits in $range" "rebase it linearly onto ${range%%..*} in $FQP_AUTHOR"
	tip=$("${ga[@]}" rev-parse "${range%%..*}")
	while read -r c; do
		an=$("${ga[@]}" log -1 --format=%an "$c") ae=$("${ga[@]}" log -1 --format=%ae "$c")
		! is_placeholder "$an" "$ae" || an=$name ae=$email
		msg=$("${ga[@]}" log -1 --format=%B "$c" | python3 "$FQP_ROOT/scripts/facts.py" --expand - |
			grep -viE "$(placeholder_trailer_ere)" |
			"${ga[@]}" interpret-trailers --if-exists addIfDifferent --trailer "Signed-off-by: $ident") ||
			die "the message of $("${ga[@]}" log -1 --format='%h (%s)' "$c") quotes a figure its source does not have" \
				"fix the {{r:...|FIGURE}} quote in $FQP_AUTHOR (git commit --amend, or rebase -i), or the row of docs/results.csv"
		tip=$(GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae \
			GIT_AUTHOR_DATE=$("${ga[@]}" log -1 --format=%ad --date=raw "$c") \
			GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
			GIT_COMMITTER_DATE=$("${ga[@]}" log -1 --format=%cd --date=raw "$c") \
			"${ga[@]}" commit-tree -p "$tip" -F - "$c^{tree}" <<<"$msg")
	done < <("${ga[@]}" rev-list --reverse "$range")
	"${ga[@]}" branch -f fqp-export "$tip"
	if [ ! -f "$FQP_SERIES_DIR/cover-letter.in" ]; then
		GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email "${ga[@]}" format-patch -q \
			--from="$ident" -o "$out" "$@" "${range%%..*}..fqp-export"
		"${ga[@]}" branch -q -D fqp-export
		return 0
	fi
	# format-patch takes the cover letter from the description of the branch
	# it formats: a short-lived branch for the copy. The cover letter's From
	# is the committer's: the sender too.
	local cover
	cover=$(python3 "$FQP_ROOT/scripts/facts.py" --expand "$FQP_SERIES_DIR/cover-letter.in") ||
		die "${FQP_SERIES_DIR#"$FQP_ROOT/"}/cover-letter.in quotes a figure or a block its source does not have" \
			"scripts/facts.py --write ${FQP_SERIES_DIR#"$FQP_ROOT/"}/cover-letter.in, then read the sentences around what changed"
	"${ga[@]}" config branch.fqp-export.description "$cover"
	GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email "${ga[@]}" format-patch -q \
		--cover-letter --cover-from-description=subject --from="$ident" -o "$out" "$@" "${range%%..*}..fqp-export"
	"${ga[@]}" branch -q -D fqp-export
	! grep -lF '*** SUBJECT HERE ***' "$out"/*0000-cover-letter.patch ||
		die "the cover letter in $out has no subject" "patches/cover-letter.in: subject line, blank line, body"
}
