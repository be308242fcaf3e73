# shellcheck shell=bash
# The sender's identity and the mails: who signs off and sends the
# patches (git's own user.name/user.email, never invented; the old
# placeholder and example domains refused), and the authoring repo's
# commits formatted as mails from that identity.

# --- The sender's identity (From and Signed-off-by of every mail) ---------
# Never invented: it is git's own, user.name/user.email from the global or
# system config, or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL in the environment. A
# repository's local config is not read (old authoring repos carry the
# placeholder there). The placeholder the first patches were made with:
FQP_PLACEHOLDER_NAME='fq-pacing developers'
FQP_PLACEHOLDER_EMAIL='fq-pacing@example.org'

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
	elif [[ $dom =~ (^|\.)example\.(org|com|net)$ || $dom =~ (^|\.)(example|invalid|test|localhost)$ ]]; then
		echo "'$id' uses the reserved example/test domain $dom"
	fi
}

# require_sender WHAT [--strict]: print the sender's identity. Dies when none
# is configured or it is the placeholder; with --strict also when
# ident_problem objects otherwise (a warning without). WHAT says what needs it.
require_sender() {
	local what=$1 id why
	id=$(sender_ident)
	why=$(ident_problem "$id")
	if [ -n "$why" ]; then
		if [ -z "$id" ] || [[ $why == *placeholder* ]] || [ "${2:-}" = --strict ]; then
			die "$what needs the sender's identity, and $why" \
				"git config --global user.name 'Your Name'; git config --global user.email you@your.domain (or set GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL), then re-run"
		fi
		warn "$why: fine for a look, but scripts/send-series.sh --send will refuse it"
	fi
	printf '%s\n' "$id"
}

# is_placeholder NAME EMAIL: the project's placeholder identity.
is_placeholder() { [ "$1" = "$FQP_PLACEHOLDER_NAME" ] || [ "${2,,}" = "$FQP_PLACEHOLDER_EMAIL" ]; }

# format_series OUT IDENT FORMAT-PATCH-ARG...: the authoring repo's
# base..HEAD as mails in OUT (cover letter from the series dir:
# patches/cover-letter.in, or patches/net-next/cover-letter.in on 7.x;
# none where the series dir has no cover-letter.in: patches/net/'s fixes
# are mails of their own),
# From and Signed-off-by the sender IDENT. The cover letter and each
# message are mailed as scripts/facts.py --expand makes them: a quoted
# figure ({{r:ROW COLUMN|FIGURE}}) checked against docs/results.csv and
# written plain, a copied list ({{include FILE BLOCK}}) copied; a stale
# figure stops the export. The branch is not touched: the
# mails are made from a copy of each commit (same tree and dates) whose
# placeholder author becomes IDENT and whose placeholder Signed-off-by is
# replaced by IDENT's; other authors and trailers are kept, and a commit by
# someone else gets an in-body From line (git format-patch --from).
format_series() {
	local out=$1 ident=$2 name email c tip an ae msg
	shift 2
	[[ $ident =~ ^(.+)\ \<(.+)\>$ ]] || die "format_series: bad identity '$ident' (a bug in $0)"
	name=${BASH_REMATCH[1]} email=${BASH_REMATCH[2]}
	local -a ga=(git -C "$FQP_AUTHOR")
	[ -z "$("${ga[@]}" rev-list --merges base..HEAD)" ] ||
		die "the authoring branch has merge commits" "rebase it linearly onto base in $FQP_AUTHOR"
	tip=$("${ga[@]}" rev-parse base)
	while read -r c; do
		an=$("${ga[@]}" log -1 --format=%an "$c") ae=$("${ga[@]}" log -1 --format=%ae "$c")
		! is_placeholder "$an" "$ae" || an=$name ae=$email
		msg=$("${ga[@]}" log -1 --format=%B "$c" | python3 "$FQP_ROOT/scripts/facts.py" --expand - |
			grep -viE "^Signed-off-by: *($FQP_PLACEHOLDER_NAME|.*<$FQP_PLACEHOLDER_EMAIL>)" |
			"${ga[@]}" interpret-trailers --if-exists addIfDifferent --trailer "Signed-off-by: $ident") ||
			die "the message of $("${ga[@]}" log -1 --format='%h (%s)' "$c") quotes a figure its source does not have" \
				"fix the {{r:...|FIGURE}} quote in $FQP_AUTHOR (git commit --amend, or rebase -i), or the row of docs/results.csv"
		tip=$(GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae \
			GIT_AUTHOR_DATE=$("${ga[@]}" log -1 --format=%ad --date=raw "$c") \
			GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
			GIT_COMMITTER_DATE=$("${ga[@]}" log -1 --format=%cd --date=raw "$c") \
			"${ga[@]}" commit-tree -p "$tip" -F - "$c^{tree}" <<<"$msg")
	done < <("${ga[@]}" rev-list --reverse base..HEAD)
	"${ga[@]}" branch -f fqp-export "$tip"
	if [ ! -f "$FQP_SERIES_DIR/cover-letter.in" ]; then
		GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email "${ga[@]}" format-patch -q \
			--from="$ident" -o "$out" "$@" base..fqp-export
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
		--cover-letter --cover-from-description=subject --from="$ident" -o "$out" "$@" base..fqp-export
	"${ga[@]}" branch -q -D fqp-export
	! grep -lF '*** SUBJECT HERE ***' "$out"/*0000-cover-letter.patch ||
		die "the cover letter in $out has no subject" "patches/cover-letter.in: subject line, blank line, body"
}
