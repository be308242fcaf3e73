# shellcheck shell=bash
# Cache-model calibration (harness-selftest.sh boots this with
# --cache-model): cachewalk reads arrays of known size, one byte per 64-byte
# line, inside a model window each. The guest only walks and writes
# "SIZE STRIDE PASSES ACCESSES" per window to $R/data/cachewalk.txt, in
# window order; the host divides the model's misses by the accesses and
# judges them against the geometry.
# shellcheck disable=SC2034 # read by run.sh
CASE_TIMEOUT=600

# One line per window; sizes chosen against the default geometry: 32K
# fits L1d (48K), 1M fits L2 (2M), 16M fits the LLC (32M), 64M fits none.
# The 32K walk makes 256 passes (131072 reads): a window is the whole
# guest, and one disk completion that lands in a short one (the host's
# I/O is timed by the host, not by the exact clock) added 30 % accesses
# to its 32768 reads on a loaded host.
CACHEWALK_POINTS="32K:64:256 1M:64:4 16M:64:2 64M:64:1"

t_cachewalk() {
	local p size stride passes out
	mkdir -p "$R/data"
	: >"$R/data/cachewalk.txt"
	for p in $CACHEWALK_POINTS; do
		IFS=: read -r size stride passes <<<"$p"
		# Nothing of the last walk's output left to write back.
		sync
		out=$(cachewalk "$size" "$stride" "$passes") || fail "cachewalk $size $stride $passes failed: $out"
		echo "$size $stride $passes ${out%% *}" | sed 's/accesses=//' >>"$R/data/cachewalk.txt"
		say "cachewalk $size/$stride x$passes: $out"
	done
}
