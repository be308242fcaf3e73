#!/usr/bin/env python3
"""The index of the guest cases in docs/testing.md, generated from the
cases themselves.

usage: case-index.py              print the index (markdown)
       case-index.py --write FILE rewrite FILE's index block
       case-index.py --check FILE exit 1 if FILE's index is not what the
                                  cases say, or a case has no comment

The block lies between the lines
  <!-- case-index -->
  <!-- case-index end -->
For every tests/cases/*.sh it gives the file's first comment paragraph
(what the file is about), then one row per case (a t_NAME function): its
name as --filter takes it (FILE:CASE), what it asserts (the comment just
above the function), the boots that run it (from the named lists of
scripts/lib/cases.sh) and its verdict on each kernel where one was
recorded (docs/verdicts.csv). A case without a comment above it fails
--check: say there what the case asserts. So does a verdict of a case
that no longer exists.
"""
import csv
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERDICTS = os.path.join(ROOT, "docs", "verdicts.csv")
BEGIN, END = "<!-- case-index -->", "<!-- case-index end -->"
KERNELS = (("stock61", "6.1"), ("series", "series"), ("stock72", "7.2"), ("next72", "7.2 + upstream"))
LISTS = ("FQP_EXACT_CASES", "FQP_TIMING_CASES", "FQP_SEMANTIC_CASES", "FQP_DEBUG_CORE", "FQP_DEBUG_ONLY",
         "FQP_CORE72")


def case_lists():
    """The named case lists of scripts/lib/cases.sh, compiled."""
    script = ". scripts/lib/cases.sh; " + "; ".join('printf "%%s\\n" "$%s"' % n for n in LISTS)
    out = subprocess.run(("bash", "-c", script), cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {n: re.compile(rx) for n, rx in zip(LISTS, out.split("\n"))}


def comment_text(lines):
    """Comment lines as one line of markdown table text."""
    text = " ".join(line.lstrip("#").strip() for line in lines).strip()
    return text.replace("|", "\\|").replace("<", "&lt;").replace("*", "\\*")


def read_cases(path):
    """(header paragraph, [(case, comment lines)]) of one case file."""
    lines = open(path).read().split("\n")
    header = []
    for line in lines[1:]:
        if not line.startswith("#") or line.startswith("# shellcheck") or line.strip() == "#":
            break
        header.append(line)
    cases = []
    for i, line in enumerate(lines):
        m = re.match(r"^t_([A-Za-z0-9_]+)\(\)", line)
        if m:
            j = i
            while j > 0 and lines[j - 1].startswith("#"):
                j -= 1
            cases.append((m.group(1), lines[j:i]))
    return header, cases


def runs_in(name, lists):
    """Where scripts/test.sh and CI run the case NAME (FILE:CASE)."""
    def on(n):
        return lists[n].search(name) is not None
    if on("FQP_DEBUG_ONLY"):
        where = ["debug only"]
    else:
        where = ["exact boot" if on("FQP_EXACT_CASES") else "test"]
        if on("FQP_DEBUG_CORE"):
            where.append("debug core")
        elif not (on("FQP_TIMING_CASES") or on("FQP_SEMANTIC_CASES")):
            where.append("debug")
    if on("FQP_CORE72"):
        where.append("7.2 core")
    return ", ".join(where)


def index():
    """The index's lines, and the problems found on the way."""
    lists = case_lists()
    with open(VERDICTS, newline="") as f:
        verdicts = {r["case"]: r for r in csv.DictReader(f)}
    out, problems, seen = [], [], set()
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "cases", "*.sh"))):
        base = os.path.basename(path)[:-3]
        header, cases = read_cases(path)
        out += ["### %s" % base, "", comment_text(header), "",
                "| case | what it asserts | runs in | " + " | ".join(k for _, k in KERNELS) + " |",
                "|---|---|---|" + "---|" * len(KERNELS)]
        for case, comment in cases:
            name = "%s:%s" % (base, case)
            seen.add(name)
            if not comment:
                problems.append("tests/cases/%s.sh: t_%s has no comment above it: say what it asserts" % (
                    base, case))
            v = verdicts.get(name, {})
            cells = [v.get(k) or "-" for k, _ in KERNELS]
            if v.get("note"):
                cells[-1] += " (7.2: %s)" % v["note"]
            out.append("| `%s` | %s | %s | %s |" % (name, comment_text(comment), runs_in(name, lists),
                                                     " | ".join(cells)))
        out.append("")
    problems += ["docs/verdicts.csv: %s is no case of tests/cases/" % c for c in sorted(set(verdicts) - seen)]
    return out[:-1], problems


def block(path, want):
    """PATH's lines with the index block replaced by WANT, and whether it differed."""
    lines = open(path).read().split("\n")
    if BEGIN not in lines or END not in lines:
        sys.exit("%s: no '%s' ... '%s' block" % (path, BEGIN, END))
    i, j = lines.index(BEGIN), lines.index(END)
    return lines[:i + 1] + want + lines[j:], lines[i + 1:j] != want


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    want, problems = index()
    if not argv:
        print("\n".join(want))
        return 0
    if len(argv) != 2 or argv[0] not in ("--write", "--check"):
        sys.stderr.write(__doc__)
        return 2
    out, differs = block(argv[1], want)
    if argv[0] == "--write":
        if differs:
            with open(argv[1], "w") as f:
                f.write("\n".join(out))
    elif differs:
        problems.append("%s: its case index is not what tests/cases/ and docs/verdicts.csv say: "
                        "run scripts/case-index.py --write %s" % (argv[1], argv[1]))
    print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
