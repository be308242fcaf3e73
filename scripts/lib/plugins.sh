# shellcheck shell=bash
# The QEMU TCG plugins of tests/host/ (insncount, cachemodel): building
# them, and turning what they counted in a benchmark boot into raw.csv
# rows (instructions and cache misses per packet) and the cache model's
# report.

# qemu_plugin NAME: the path of the QEMU TCG plugin tests/host/NAME.c
# (insncount: instructions per block; cachemodel: the cache model), built
# into the cache when missing or older than its source.
qemu_plugin() {
	local src=$FQP_ROOT/tests/host/$1.c so=$FQP_CACHE/tools/$1.so
	if [ ! -f "$so" ] || [ "$src" -nt "$so" ] ||
		[ "$FQP_ROOT/tests/host/qemu-plugin-api.h" -nt "$so" ] ||
		[ "$FQP_ROOT/tests/host/plugin-table.h" -nt "$so" ]; then
		ensure_packages gcc
		mkdir -p "$FQP_CACHE/tools"
		gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC \
			-o "$so" "$src" -lpthread >&2 ||
			die "building the QEMU plugin $src failed" "fix the compile error above and re-run"
	fi
	echo "$so"
}

# cache_rows OUT KERNEL REP: the raw.csv rows of the cache model's windows
# of one bench boot (OUT: boot-and-test.sh's run directory, with
# --cache-model OUT/cache); fails when the plugin's windows and the
# guest's labels do not pair up.
cache_rows() {
	python3 "$FQP_ROOT/scripts/cache-model.py" rows "$1/cache" "$1/results/data/cachemodel.windows" "$2" "$3"
}

# count_rows OUT KERNEL REP CSV: the raw.csv rows of one bench boot under
# --count-insns: the guest's rows (CSV), except that the plugin's exact
# instruction counts of the marked windows (cache_rows) replace the
# guest's figures of the same point: fq_insn and pfifo_insn per packet,
# the least of a point's windows ("QDISC#W"), and fq_cost their difference.
count_rows() {
	# A boot whose points marked no window (paced, tcp...) keeps its rows.
	if [ ! -s "$1/results/data/cachemodel.windows" ]; then
		sed "s/^/$2,$3,/" "$4"
		return
	fi
	cache_rows "$1" "$2" "$3" | python3 -c '
import sys
k, rep, guest = sys.argv[1:4]
least = {}
for line in sys.stdin:
    f = line.rstrip("\n").split(",")
    wl, var, metric = f[2][len("cache-"):], f[3], f[4]
    if not metric.endswith("_insn") or metric.startswith("cost_"):
        continue
    q = metric[:-len("_insn")].split("#")[0]
    key = (wl, var, q + "_insn")
    least[key] = min(least.get(key, float("inf")), float(f[5]))
plugin = {key: "%.4f" % v for key, v in least.items()}
for (wl, var, m) in list(least):
    if m == "fq_insn" and (wl, var, "pfifo_insn") in least:
        plugin[(wl, var, "fq_cost")] = "%.4f" % (least[(wl, var, m)] - least[(wl, var, "pfifo_insn")])
for line in open(guest):
    f = line.rstrip("\n").split(",")
    if len(f) >= 5 and (f[0], f[1], f[2]) in plugin:
        continue
    print("%s,%s,%s" % (k, rep, line.rstrip("\n")))
for (wl, var, metric), v in plugin.items():
    print("%s,%s,%s,%s,%s,%s,insn/pkt" % (k, rep, wl, var, metric, v))
' "$2" "$3" "$4"
}

# cache_report RUNDIR: RUNDIR/cache.md (the cache model's table), and for
# each fq point of the first boot of each stock kernel and of the series,
# where its L1d, L2 and LLC misses go: RUNDIR/cache-profile/POINT.LEVEL.txt
# against stock 6.1, POINT-7.2.LEVEL.txt against stock 7.2 (insn-profile.py
# --compare, misses per packet by function, A the stock kernel, B series).
cache_report() {
	local r=$1 a b f lv label ref sfx
	python3 "$FQP_ROOT/scripts/cache-model.py" table "$r" >/dev/null ||
		die "cache-model.py table failed on $r/raw.csv" "fix scripts/cache-model.py and run it on $r"
	b=$r/1-patched
	[ -d "$b/cache/merged" ] || { warn "no cache profiles of the series' first boot"; return 0; }
	mkdir -p "$r/cache-profile"
	for ref in stock stock72; do
		a=$r/1-$ref sfx=''
		[ "$ref" = stock ] || sfx=-7.2
		[ -d "$a/cache/merged" ] || continue
		for f in "$a"/cache/merged/*_fq.pkts; do
			label=$(basename "$f" .pkts)
			[ -f "$b/cache/merged/$label.pkts" ] || continue
			for lv in l1d l2 llc; do
				python3 "$FQP_ROOT/scripts/insn-profile.py" --compare --top 30 \
					--per-a "$(cat "$f")" --per-b "$(cat "$b/cache/merged/$label.pkts")" \
					"$a/vmlinux" "$a/cache/merged/$label.$lv" "$b/vmlinux" "$b/cache/merged/$label.$lv" \
					>"$r/cache-profile/$label$sfx.$lv.txt" 2>&1 || true
			done
		done
	done
	log "cache model: $r/cache.md; misses by function in $r/cache-profile/"
}
