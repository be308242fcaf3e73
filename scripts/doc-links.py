#!/usr/bin/env python3
"""Check the relative links of the repository's markdown documents.

usage: doc-links.py FILE...

Every [text](target) whose target is not a URL must name a file or
directory that exists, relative to the document; a #fragment must be a
heading of the target document (GitHub's anchor rule: lower case,
punctuation dropped, spaces to hyphens). Prints each broken link as
FILE:LINE: TARGET and exits 1 if there is any.
"""
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path):
    out = set()
    fence = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^#+\s+(.*?)\s*$", line)
        if m:
            text = re.sub(r"[`*]", "", m.group(1)).lower()
            out.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return out


def main(files):
    bad = 0
    for doc in files:
        base = os.path.dirname(doc)
        fence = False
        for n, line in enumerate(open(doc, encoding="utf-8"), 1):
            if line.startswith("```"):
                fence = not fence
            if fence:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue
                path, _, frag = target.partition("#")
                full = os.path.normpath(os.path.join(base, path)) if path else doc
                if not os.path.exists(full):
                    print("%s:%d: %s: no such file" % (doc, n, target))
                    bad = 1
                elif frag and full.endswith(".md") and frag not in anchors(full):
                    print("%s:%d: %s: no such heading in %s" % (doc, n, target, full))
                    bad = 1
    return bad


if __name__ == "__main__":
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        sys.exit(0)
    if len(sys.argv) < 2 or any(a.startswith("-") for a in sys.argv[1:]):
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
