"""The demo report's common parts: the run directory (from the command
line), gnuplot and its .dat files, readers of the guest's key=value, CSV
and JSON output, small statistics (percentile, Jain's index, spread) and
the claims block every experiment adds to."""

import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys


RUN = sys.argv[1]
EXPS = sys.argv[2:]
DATA = os.path.join(RUN, "results", "data")
PLOTS = os.path.join(RUN, "plots")
os.makedirs(PLOTS, exist_ok=True)


def term():
    """pngcairo when this gnuplot has it, else the libgd png terminal."""
    r = subprocess.run(["gnuplot", "-e", "set terminal pngcairo"], capture_output=True, text=True)
    if r.returncode == 0 and not r.stderr.strip():
        return "pngcairo noenhanced size 900,520 font 'Sans,10'"
    return "png noenhanced size 900,520"


TERM = term()
COLORS = {"before": "#d62728", "after": "#1f77b4", "pfifo": "#d62728", "fq": "#1f77b4",
          "fq-nopacing": "#ff7f0e"}


def gnuplot(name, body):
    """Write plots/NAME.gp (PNG plots/NAME.png) and run it; return the PNG name."""
    gp = os.path.join(PLOTS, name + ".gp")
    with open(gp, "w") as f:
        f.write("set terminal %s\nset output '%s.png'\nset grid\nset key top right\n%s\n"
                % (TERM, name, body))
    r = subprocess.run(["gnuplot", name + ".gp"], cwd=PLOTS, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("gnuplot %s failed: %s" % (gp, r.stderr.strip()[-600:]))
    return name + ".png"


def dat(name, rows):
    """Write plots/NAME (whitespace-separated rows; a blank row = new block)."""
    with open(os.path.join(PLOTS, name), "w") as f:
        for r in rows:
            f.write(" ".join(str(x) for x in r) + "\n")
    return name


def kv(path):
    """key=value lines (several per line allowed) into a dict of strings."""
    d = {}
    with open(path) as f:
        for line in f:
            for k, v in re.findall(r"(\w+)=(\S+)", line):
                d.setdefault(k, v)
    return d


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def ij(path):
    with open(path) as f:
        return json.load(f)


def mbit(bps):
    return float(bps) / 1e6


def pct(v, p):
    """Nearest-rank percentile, as pcapstat and rrlat compute them."""
    v = sorted(v)
    return v[max(0, math.ceil(p * len(v) / 100) - 1)] if v else float("nan")


def fmt(x, spec="%.1f"):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else spec % x


CLAIMS = []


def claim(text, source, before, after, verdict, why=""):
    """One line of the claims block: a claim of the seeds as measured."""
    CLAIMS.append(dict(text=text, source=source, before=before, after=after, verdict=verdict, why=why))


def ddir(exp, *name):
    return os.path.join(DATA, exp, *name)


def jain(x):
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if x and any(x) else float("nan")


def spread(v):
    """median, min, max of a list of numbers."""
    return statistics.median(v), min(v), max(v)
