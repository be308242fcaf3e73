#!/usr/bin/env python3
"""Render `nlfuzz --print-contract` as the markdown table of docs/testing.md (robustness contract, table A).

    make -C tests bin/nlfuzz && tests/bin/nlfuzz --print-contract | tests/robust-contract.py

Each row: the message (TCA_OPTIONS payload), then what stock 6.1.192 and our
series answer and which option values differ from the defaults afterwards in
change/replace mode (create mode: the same answer; on error no qdisc is made).
"""
import sys


def cell(ans, why, keeps, msg=None):
    out = "`%s`" % ans
    if ans != "0":
        out += " " + why
        if msg and msg not in ("none", "any"):
            out += ', extack "%s"' % msg
    elif why not in ("accepted",):
        out += " " + why
    if keeps != "-":
        out += "; keeps " + keeps.replace(",", ", ")
    elif ans != "0":
        out += "; unchanged"
    return out


rows = []
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if not f or f[0] != "contract":
        continue
    rows.append(dict(kv.split("=", 1) for kv in f[1:]))

print("| # | message | stock 6.1.192 | our series |")
print("|---|---|---|---|")
for i, r in enumerate(rows, 1):
    s = cell(r["stock"], r["stock_why"], r["stock_keeps"], r["stock_msg"])
    p = cell(r["patched"], r["patched_why"], r["patched_keeps"])
    if r.get("patched_msg", "required") == "required" and r["patched"] != "0":
        p += ", extack required"
    if r["differ"] == "1":
        p = "**" + p + "**"
    name = "`%s`%s" % (r["id"], " (syzkaller)" if r["syz"] == "1" else "")
    print("| %d | %s: %s | %s | %s |" % (i, name, r["desc"], s, p))
print()
print("%d messages, %d where stock and our series differ." %
      (len(rows), sum(r["differ"] == "1" for r in rows)))
