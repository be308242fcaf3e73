#!/usr/bin/env python3
"""Assemble a boot's verdict as one KTAP version 1 document.

usage: ktap.py verdict RUNDIR [--host FILE] [--header TEXT] [--stopped REASON]
                       [--rerun CMD]

Reads what boot-and-test.sh gathered in RUNDIR and writes RUNDIR/verdict.ktap
(Documentation/dev-tools/ktap.rst; kunit.py parse reads it):

  KTAP version 1
  1..N                  every top-level test below
  # TEXT                the --header
  ok 1 ...              the host's cases (FILE: "STATUS<tab>NAME<tab>DIRECTIVE
                        <tab>LOG" lines, STATUS 0 for ok, 1 for not ok, "skip";
                        "# ..." lines before one are its diagnostics)
    KTAP version 1      each KUnit suite that ran at boot or module load, with
    # Subtest: SUITE    its own tests (read from RUNDIR/results/dmesg.txt,
    ...                 dmesg-boot.txt or console.log)
  ok 5 SUITE
    KTAP version 1      the guest's results (RUNDIR/ktap.log: tests/run.sh),
    # Subtest: FILE     one subtest per case file, its cases named FILE:CASE
    ...                 as boot-and-test.sh --filter takes them
  ok 6 FILE
  not ok N guest_run # REASON     when the guest stopped early (--stopped:
                                  PANIC, TIMEOUT, ...); a case file and the
                                  case it was running are closed as failed
  # failed: NAME (log: PATH)      each failed test and its log
  # re-run one: CMD --filter '^NAME$'
  # Totals: pass:P fail:F xfail:0 xpass:0 skip:S error:0
  P passed, F failed[, S skipped]

Diagnostic lines are kept before failed tests only. Prints "P F S" (the
counts of the tests without subtests) on stdout; exit 1 when any failed.
"""
import os
import re
import sys

VERSION = re.compile(r"^(K?TAP) version \d+$")
PLAN = re.compile(r"^1\.\.(\d+)")
RESULT = re.compile(r"^(ok|not ok) (\d+)(?: - | )?([^#]*?)\s*(?:#\s?(.*))?$")
SUBTEST = re.compile(r"^# Subtest: (.*)$")
RUNNING = re.compile(r"^# running: (\S+)")
STAMP = re.compile(r"^\[[ 0-9.]+\] ")


class Test:
    kunit = False  # a KUnit suite: its tests are named SUITE.TEST
    log = None     # where a failure is explained
    running = None  # a block cut short: the case it was running

    def __init__(self, name, ok, directive="", diags=None, subtests=None):
        self.name, self.ok, self.directive = name, ok, directive
        self.diags = diags or []
        self.subtests = subtests

    @property
    def skipped(self):
        return self.directive.upper().startswith("SKIP")


def split(line):
    """(indentation, text) of one line."""
    line = line.rstrip("\r\n")
    text = line.lstrip(" ")
    return len(line) - len(text), text


class Block:
    """One KTAP document or subtest block: its tests, the diagnostics
    before its first test (header) and after its last (trailing)."""

    def __init__(self):
        self.tests, self.header, self.trailing, self.name = [], [], [], None


def parse_block(rows, pos, ind):
    b, diags, sub = Block(), [], None
    while pos < len(rows):
        i, t = rows[pos]
        if i < ind:
            break
        if i > ind:
            if VERSION.match(t):
                sub, pos = parse_block(rows, pos + 1, i)
            else:
                diags.append(t)
                pos += 1
            continue
        pos += 1
        m = RESULT.match(t)
        if m:
            test = Test(m.group(3).strip(), m.group(1) == "ok", (m.group(4) or "").strip(), diags)
            if sub is not None:
                test.subtests, test.diags = sub.tests, diags + sub.trailing
            b.tests.append(test)
            diags, sub = [], None
        elif SUBTEST.match(t):
            b.name = SUBTEST.match(t).group(1)
        elif VERSION.match(t) or PLAN.match(t):
            pass
        elif ind == 0 and not b.tests and sub is None and not RUNNING.match(t):
            # The document's own diagnostics, before its first test (a
            # first test's failure diagnostics cannot be told apart).
            b.header.append(t)
        else:
            diags.append(t)
    if sub is not None:
        # A subtest block whose own result line never came: cut short.
        test = Test(sub.name or "", None, "", diags, sub.tests)
        marks = [RUNNING.match(d).group(1) for d in sub.trailing if RUNNING.match(d)]
        test.running = marks[-1] if marks else None
        b.tests.append(test)
        diags = []
    b.trailing = diags
    return b, pos


def parse(lines):
    """KTAP text (a list of lines) into a Block; tolerant of a document cut
    short (a block without its result line: a Test with ok None)."""
    rows = [split(line) for line in lines if line.strip()]
    return parse_block(rows, 0, 0)[0]


def close_unfinished(tests, reason):
    """A case file's block the guest stopped in fails, with the case it was
    running (its last '# running: NAME' line) as a failed test."""
    for t in tests:
        if t.ok is not None:
            continue
        if t.running and t.running not in {s.name for s in t.subtests}:
            t.subtests.append(Test(t.running, False, "did not finish: " + reason))
        t.ok, t.directive = False, "did not finish: " + reason


def leaves(tests, prefix="", log=None):
    """(name, test) of every test without subtests."""
    for t in tests:
        if t.subtests:
            yield from leaves(t.subtests, t.name + "." if t.kunit else prefix, t.log or log)
        else:
            if t.log is None:
                t.log = log
            yield prefix + t.name, t


def emit(tests, depth=0, name=None):
    """KTAP lines of TESTS at DEPTH (two spaces each), numbered from 1,
    with a version, Subtest and plan line for a subtest block."""
    pad = "  " * depth
    out = []
    if depth:
        out += [pad + "KTAP version 1", pad + "# Subtest: " + name, pad + "1..%d" % len(tests)]
    for n, t in enumerate(tests, 1):
        if t.subtests is not None:
            out += emit(t.subtests, depth + 1, t.name)
        if not t.ok:
            out += [pad + (d if d.startswith("#") else "# " + d) for d in t.diags if not RUNNING.match(d)]
        out.append("%s%s %d %s%s" % (pad, "ok" if t.ok else "not ok", n, t.name,
                                     " # " + t.directive if t.directive else ""))
    return out


def kunit_suites(rundir):
    """The KUnit suites in the first of the run's kernel logs that has
    any, each a Test with the suite's tests."""
    for rel in ("results/dmesg.txt", "results/dmesg-boot.txt", "console.log"):
        path = os.path.join(rundir, rel)
        if not os.path.exists(path):
            continue
        lines = []
        for line in open(path, errors="replace"):
            line = STAMP.sub("", line.rstrip("\n"))
            i, t = split(line)
            # Only KTAP's own lines: the kernel's other messages interleave.
            if VERSION.match(t) or PLAN.match(t) or RESULT.match(t) or SUBTEST.match(t) or \
                    (t.startswith("#") and i > 0):
                lines.append(line)
        suites = [t for t in parse(lines).tests if t.subtests is not None]
        for s in suites:
            s.kunit, s.log = True, path
        if suites:
            return suites
    return []


def host_cases(path):
    """FILE's cases: "STATUS<tab>NAME<tab>DIRECTIVE<tab>LOG" lines, each
    after its "# ..." diagnostics."""
    tests, diags = [], []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("#"):
            diags.append(line)
            continue
        status, name, directive, log = (line.split("\t") + ["", "", ""])[:4]
        if status == "skip":
            directive = "SKIP " + directive
        tests.append(Test(name, status in ("0", "skip"), directive, diags))
        tests[-1].log = log or None
        diags = []
    return tests


def case_log(rundir, name):
    """Where the guest's test NAME is explained."""
    for rel in ("results/logs/%s.log" % name, "results/dmesg.txt" if name == "dmesg_clean" else None):
        if rel and os.path.exists(os.path.join(rundir, rel)):
            return os.path.join(rundir, rel)
    return os.path.join(rundir, "console.log")


def console_tail(rundir):
    path = os.path.join(rundir, "console.log")
    if not os.path.exists(path):
        return []
    lines = open(path, errors="replace").read().splitlines()[-50:]
    return ["# last console lines (%s):" % path] + ["#   " + line for line in lines]


def verdict(argv):
    rundir, opts, rest = argv[0], {"--host": None, "--header": None, "--stopped": None, "--rerun": None}, argv[1:]
    while rest:
        if rest[0] not in opts or len(rest) < 2:
            sys.stderr.write(__doc__)
            return 2
        opts[rest[0]], rest = rest[1], rest[2:]
    tests = host_cases(opts["--host"]) if opts["--host"] else []
    tests += kunit_suites(rundir)
    header = ["# " + opts["--header"]] if opts["--header"] else []
    ktap_log = os.path.join(rundir, "ktap.log")
    if os.path.exists(ktap_log):
        guest = parse(open(ktap_log, errors="replace").read().splitlines())
        header += [h if h.startswith("#") else "# " + h for h in guest.header]
        if opts["--stopped"]:
            close_unfinished(guest.tests, opts["--stopped"])
        for t in guest.tests:
            for s in t.subtests or [t]:
                s.log = case_log(rundir, s.name)
        tests += guest.tests
    if opts["--stopped"]:
        tests.append(Test("guest_run", False, opts["--stopped"], console_tail(rundir)))
        tests[-1].log = os.path.join(rundir, "console.log")
    out = ["KTAP version 1", "1..%d" % len(tests)] + header + emit(tests)
    counts, first = {"pass": 0, "fail": 0, "skip": 0}, None
    for name, t in leaves(tests):
        kind = "fail" if not t.ok else "skip" if t.skipped else "pass"
        counts[kind] += 1
        if kind == "fail":
            out.append("# failed: %s%s" % (name, " (log: %s)" % t.log if t.log else ""))
            first = first or (name if ":" in name else None)
    if first and opts["--rerun"]:
        out.append("# re-run it alone: %s --filter '^%s$'" % (opts["--rerun"], first))
    out.append("# Totals: pass:%(pass)d fail:%(fail)d xfail:0 xpass:0 skip:%(skip)d error:0" % counts)
    out.append("%d passed, %d failed%s" % (counts["pass"], counts["fail"],
                                           ", %d skipped" % counts["skip"] if counts["skip"] else ""))
    with open(os.path.join(rundir, "verdict.ktap"), "w") as f:
        f.write("\n".join(out) + "\n")
    print(counts["pass"], counts["fail"], counts["skip"])
    return 1 if counts["fail"] else 0


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(argv) >= 2 and argv[0] == "verdict":
        return verdict(argv[1:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
