#!/usr/bin/env python3
"""Figures and lists written once: the documents quote them, this checks
every quote against its source (scripts/lint.sh) and rewrites or copies
them from it.

usage: facts.py --check [FILE...]   exit 1 where a quote differs from its source
       facts.py --write FILE...     rewrite FILEs' quoted figures and copied blocks
       facts.py --expand FILE|-     FILE (a cover letter, a commit message) as
                                    mailed: its markup resolved (refuses a stale figure)
       facts.py --check-export MAIL SOURCE
                                    MAIL (git format-patch's cover letter) has
                                    SOURCE's body, expanded
Without FILEs --check reads the documents that quote figures: README.md,
docs/*.md, CHANGELOG and every patches/**/cover-letter.in.

A measured figure is quoted with the row and column it comes from:
  in Markdown        <!-- r:WORKLOAD VARIANT METRIC COLUMN -->0.57<!-- /r -->
  in a mail's text   {{r:WORKLOAD VARIANT METRIC COLUMN|0.57}}
"r:" names a row of docs/results.csv by its run key (the workload, variant
and run_metric columns that scripts/bench-table.py --update matches),
COLUMN one of its columns (stock61, series, ratio, stock72, ratio72,
spread_series...). "run:ID COLUMN" names a row of docs/runs.csv (the
dated runs of the tests, CI and the demo) by its id. A last word "/N" divides the source's
value first (ns to us: /1000). The quoted figure is the source's value
rounded to as many decimals as the quote shows: 0.571 may be quoted as
0.571, 0.57 or 0.6, never 0.59; thousands separators and a % are ignored.
--write rewrites each quote from the source with the decimals it had.

A run named in backquotes by its id (`ci-fresh-2026-12-06`) must be a row
of docs/runs.csv.

A list or table written once is copied where it is needed:
  the source marks it      <!-- block NAME --> ... <!-- block end -->
  a Markdown copy          <!-- include FILE NAME --> ... <!-- include end -->
  a mail's copy            {{include FILE NAME [COLUMNS]}}  (a line of its own)
A Markdown copy must equal the block (--write copies it); a mail's copy is
made at export (--expand, run by scripts/refresh-patches.sh), as plain text:
a list wrapped at 72 columns, markup dropped, numbered items kept; a table
aligned, with only the COLUMNS given ("1-7": the first seven).
"""
import csv
import decimal
import glob
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = {"r": "docs/results.csv", "run": "docs/runs.csv"}

MD_QUOTE = re.compile(r"<!-- (r|run):([^>]*?) -->(.*?)<!-- /r -->")
TXT_QUOTE = re.compile(r"\{\{(r|run):([^|}]*)\|([^}]*)\}\}")
BLOCK = re.compile(r"^<!-- block (\S+) -->$")
BLOCK_END = "<!-- block end -->"
INCLUDE = re.compile(r"^<!-- include (\S+) (\S+) -->$")
INCLUDE_END = "<!-- include end -->"
TXT_INCLUDE = re.compile(r"^\{\{include (\S+) (\S+)(?: ([0-9,-]+))?\}\}$")
NUMBER = re.compile(r"^-?[0-9][0-9,]*(\.[0-9]+)?%?$")
RUN_ID = re.compile(r"`([a-z0-9][a-z0-9-]*-20[0-9]{2}-[0-9]{2}-[0-9]{2})`")


def default_files():
    files = ["README.md", "CHANGELOG"] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    files += sorted(glob.glob(os.path.join(ROOT, "patches", "**", "cover-letter.in"), recursive=True))
    return [os.path.relpath(os.path.join(ROOT, f), ROOT) for f in files]


class Sources:
    """The CSV files quotes name, read once; rows by their key."""

    def __init__(self):
        self.rows = {}

    def table(self, kind):
        if kind not in self.rows:
            rows = {}
            with open(os.path.join(ROOT, SOURCES[kind]), newline="") as f:
                for r in csv.DictReader(f):
                    key = r["id"] if kind == "run" else " ".join((r["workload"], r["variant"], r["run_metric"]))
                    if key.strip():
                        rows[key] = r
            self.rows[kind] = rows
        return self.rows[kind]

    def value(self, kind, ref):
        """The value REF names (KEY... COLUMN [/N]) as a float, or raises
        ValueError saying what is wrong."""
        words = ref.split()
        div = decimal.Decimal(1)
        if words and words[-1].startswith("/"):
            div = decimal.Decimal(words.pop()[1:])
        if len(words) < 2:
            raise ValueError("'%s': want KEY COLUMN [/N]" % ref)
        key, column = " ".join(words[:-1]), words[-1]
        row = self.table(kind).get(key)
        if row is None:
            raise ValueError("%s has no row '%s'" % (SOURCES[kind], key))
        if column not in row:
            raise ValueError("%s has no column '%s'" % (SOURCES[kind], column))
        cell = (row[column] or "").replace(",", "").rstrip("%")
        try:
            return decimal.Decimal(cell) / div
        except decimal.InvalidOperation:
            raise ValueError("%s: row '%s', column %s is '%s', not a number" % (
                SOURCES[kind], key, column, row[column])) from None


def decimals(text):
    return len(text.split(".")[1]) if "." in text else 0


def quoted(text):
    """The number a quote shows: no separators, no %."""
    return decimal.Decimal(text.replace(",", "").rstrip("%"))


def render(value, like):
    """VALUE (a Decimal) written as LIKE was: its decimals (rounded half
    up, as a reader rounds 0.605 to 0.61), its separators, its %."""
    step = decimal.Decimal(1).scaleb(-decimals(like.rstrip("%")))
    out = str(value.quantize(step, rounding=decimal.ROUND_HALF_UP))
    if "," in like:
        whole, _, frac = out.partition(".")
        out = "{:,}".format(int(whole)) + ("." + frac if frac else "")
    return out + ("%" if like.endswith("%") else "")


def check_quote(src, kind, ref, text):
    """None when TEXT quotes the value REF names, else what is wrong."""
    if not NUMBER.match(text):
        return "quote '%s' of %s:%s is not a number" % (text, kind, ref)
    try:
        want = src.value(kind, ref)
    except ValueError as e:
        return str(e)
    if render(want, text) != render(quoted(text), text):
        return "%s:%s is %s, the text says %s" % (kind, ref, render(want, text), text)
    return None


def read_block(path, name):
    """The lines of block NAME of PATH (relative to the repository)."""
    with open(os.path.join(ROOT, path)) as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        m = BLOCK.match(line)
        if m and m.group(1) == name:
            end = lines.index(BLOCK_END, i)
            return lines[i + 1:end]
    raise ValueError("%s has no '<!-- block %s -->'" % (path, name))


def process(path, src, fix):
    """Checks (or, with FIX, rewrites) PATH; returns its problems."""
    with open(os.path.join(ROOT, path)) as f:
        lines = f.read().split("\n")
    problems, out, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        m = INCLUDE.match(line)
        if m:
            end = i + 1
            while end < len(lines) and lines[end] != INCLUDE_END:
                end += 1
            if end == len(lines):
                problems.append("%s:%d: '%s' has no '%s'" % (path, i + 1, line, INCLUDE_END))
                out.extend(lines[i:])
                break
            try:
                want = read_block(m.group(1), m.group(2))
            except (OSError, ValueError) as e:
                problems.append("%s:%d: %s" % (path, i + 1, e))
                want = lines[i + 1:end]
            if lines[i + 1:end] != want:
                problems.append("%s:%d: the copy of %s's block '%s' differs from it" % (
                    path, i + 1, m.group(1), m.group(2)))
            out += [line] + want + [INCLUDE_END]
            i = end + 1
            continue
        if TXT_INCLUDE.match(line):
            try:
                read_block(*TXT_INCLUDE.match(line).groups()[:2])
            except (OSError, ValueError) as e:
                problems.append("%s:%d: %s" % (path, i + 1, e))
        for run in RUN_ID.findall(line):
            if run not in src.table("run"):
                problems.append("%s:%d: %s is no run of %s" % (path, i + 1, run, SOURCES["run"]))
        pattern = MD_QUOTE if path.endswith(".md") or path == "CHANGELOG" else TXT_QUOTE

        def one(mq):
            kind, ref, text = mq.groups()
            why = check_quote(src, kind, ref.strip(), text)
            if why is None:
                return mq.group(0)
            problems.append("%s:%d: %s" % (path, i + 1, why))
            try:
                new = render(src.value(kind, ref.strip()), text) if NUMBER.match(text) else text
            except ValueError:
                return mq.group(0)
            return mq.group(0)[:mq.start(3) - mq.start(0)] + new + mq.group(0)[mq.end(3) - mq.start(0):]

        out.append(pattern.sub(one, line))
        i += 1
    if fix and out != lines:
        with open(os.path.join(ROOT, path), "w") as f:
            f.write("\n".join(out))
    return problems


# --- Markdown to the plain text of a mail ------------------------------------

PLAIN = [(re.compile(r"\*\*|`"), ""), (re.compile(r"\[([^\]]*)\]\([^)]*\)"), r"\1"),
         (re.compile("µ"), "u"), (re.compile("≥"), ">="), (re.compile("≤"), "<="),
         (re.compile("×"), "x"), (re.compile("→"), "->"), (re.compile("−"), "-")]


def plain(text):
    for pat, rep in PLAIN:
        text = pat.sub(rep, text)
    return text


def columns(spec):
    """"1-3,5" as the 0-based column indexes [0, 1, 2, 4]; None: all."""
    if not spec:
        return None
    out = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += range(int(a) - 1, int(b or a))
    return out


def mail_table(md_lines, cols=None):
    """A Markdown table as aligned columns (COLS of them, or all): two
    spaces in, the first column left-aligned, the others right-aligned."""
    rows = []
    for line in md_lines:
        cells = [plain(c.strip()) for c in line.strip().strip("|").split("|")]
        if all(re.match(r"^:?-+:?$", c) for c in cells):
            continue
        rows.append([cells[i] for i in cols] if cols else cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                             for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows]


def mail_block(md_lines, cols=None, width=72):
    """A Markdown table (mail_table), or a list (numbered items, "-"
    sub-items, indented continuations) as the plain text of a mail: " 1. "
    items with hanging indents, "- " sub-items under them, wrapped at
    WIDTH."""
    if md_lines and md_lines[0].startswith("|"):
        return mail_table(md_lines, cols)
    items = []  # (head, indent, text)
    for line in md_lines:
        s = line.strip()
        m = re.match(r"^(\d+)\.\s+(.*)$", line)
        sub = re.match(r"^\s+-\s+(.*)$", line)
        if m:
            items.append(["%2s. " % m.group(1), "    ", m.group(2)])
        elif sub:
            items.append(["    - ", "      ", sub.group(1)])
        elif s and items:
            items[-1][2] += " " + s
        elif s:
            items.append(["", "", s])
    out = []
    for head, indent, text in items:
        out += textwrap.wrap(plain(text), width, initial_indent=head, subsequent_indent=indent,
                             break_long_words=False, break_on_hyphens=False)
    return out


def expand(path, width=72):
    """The text of PATH ("-": stdin) as mailed; raises ValueError on a
    stale figure or a missing block. A paragraph whose quotes were
    resolved is wrapped again at WIDTH, unless it is indented (a table, a
    list, a map)."""
    text = sys.stdin.read() if path == "-" else open(path).read()
    src, problems, out, para, quoted_para = Sources(), [], [], [], False

    def flush():
        if quoted_para and para and not any(line[:1].isspace() for line in para):
            # A unit stays with its number: "0.2 %" is not broken.
            text = re.sub(r" (%|us|ms)(?!\w)", "\u00a0\\1", " ".join(para))
            out.extend(line.replace("\u00a0", " ") for line in
                       textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False))
        else:
            out.extend(para)
        del para[:]

    for n, line in enumerate(text.split("\n"), 1):
        m = TXT_INCLUDE.match(line)
        if m:
            flush()
            quoted_para = False
            try:
                out.extend(mail_block(read_block(m.group(1), m.group(2)), columns(m.group(3))))
            except (OSError, ValueError) as e:
                problems.append("%s:%d: %s" % (path, n, e))
            continue
        if not line.strip():
            flush()
            quoted_para = False
            out.append(line)
            continue

        def one(mq):
            why = check_quote(src, mq.group(1), mq.group(2).strip(), mq.group(3))
            if why:
                problems.append("%s:%d: %s" % (path, n, why))
            return mq.group(3)

        quoted_para = quoted_para or bool(TXT_QUOTE.search(line))
        para.append(TXT_QUOTE.sub(one, line))
    flush()
    if problems:
        raise ValueError("\n".join(problems))
    return "\n".join(out)


def check_export(mail, source):
    """Problems of MAIL, a git format-patch cover letter, against SOURCE:
    its subject and body must be SOURCE expanded."""
    want = expand(source).strip("\n").split("\n")
    with open(mail) as f:
        lines = f.read().split("\n")
    start = lines.index("") + 1  # the body follows the headers
    body = lines[start:]
    # format-patch ends the description before the shortlog: "Name (N):".
    end = next((k for k, line in enumerate(body) if re.match(r"^\S.* \(\d+\):$", line)), len(body))
    got = "\n".join(body[:end]).strip("\n").split("\n")
    if got != want[2:]:
        return ["%s: its body is not %s expanded: re-export (scripts/refresh-patches.sh)" % (mail, source)]
    return []


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if argv[:1] == ["--expand"] and len(argv) == 2:
        try:
            sys.stdout.write(expand(argv[1]))
        except ValueError as e:
            sys.stderr.write("%s\nfix the figure where it is quoted (scripts/facts.py --write FILE), "
                             "or the source it names\n" % e)
            return 1
        return 0
    if argv[:1] == ["--check-export"] and len(argv) == 3:
        try:
            problems = check_export(argv[1], argv[2])
        except ValueError as e:
            problems = [str(e)]
        print("\n".join(problems))
        return 1 if problems else 0
    if argv[:1] not in (["--check"], ["--write"]) or argv[0] == "--write" and len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    src, problems = Sources(), []
    for path in argv[1:] or default_files():
        path = os.path.relpath(os.path.abspath(path), ROOT)
        if argv[0] == "--write":
            process(path, src, fix=True)
        problems += process(path, src, fix=False)
    if problems:
        print("\n".join(problems))
        if argv[0] == "--check":
            print("each quoted figure, named run and copied block must be its source's: for a figure or "
                  "a copy run scripts/facts.py --write on the file, then read the sentence around each "
                  "figure that changed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
