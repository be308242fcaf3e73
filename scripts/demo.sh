#!/usr/bin/env bash
# The README's first command: build what is missing, boot the kernel in
# QEMU, run the pacing experiments (tests/demo/demo.sh) in the guest, and
# render their raw data into plots, report.md and a summary table.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

EXPERIMENTS=(burstiness spacing fairness unfair newflows gc lossy police gro chunked shallow memory)

usage() {
	cat <<USAGE
usage: $0 [--kernel patched|stock] [--clock wall|exact] [--only NAME[,NAME]] [--results DIR]
  --kernel patched|stock  the kernel to boot (default patched)
  --clock wall|exact      guest clock (default exact under TCG, wall under
                          KVM; see boot-and-test.sh: exact = QEMU icount,
                          1 vCPU, TCG only; docs/demo.md says why)
  --only NAME[,NAME]      run only these experiments (default all):
                          ${EXPERIMENTS[*]}
  --results DIR           run directory (default results/<time>-demo-<kernel>)
Writes DIR/report.md, DIR/plots/*.png and DIR/summary.txt; the raw data
(pcaps, pcapstat CSV, iperf3 JSON) is in DIR/results/data/<experiment>/.
USAGE
}

kernel=patched clock='' only='' rundir=''
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2:-}; shift ;;
	--clock) clock=${2:-}; shift ;;
	--only) only=${2:-}; shift ;;
	--results) rundir=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
case $kernel in stock | patched) ;; *) usage_error "bad --kernel: '$kernel'" ;; esac
case $clock in '' | wall | exact) ;; *) usage_error "bad --clock: '$clock'" ;; esac
sel=$(select_names experiment "$only" "${EXPERIMENTS[@]}") || usage_error
mapfile -t selected <<<"$sel"

ensure_packages
if [ -z "$clock" ]; then
	# The clock depends on the accelerator, whose probe boots the kernel.
	"$FQP_ROOT/scripts/build-kernel.sh" --tree "$kernel" --config test
	clock=$(auto_clock "$(kernel_image "$kernel" test)")
fi
rundir=${rundir:-$FQP_RESULTS/$(date +%Y%m%d-%H%M%S)-demo-$kernel}
mkdir -p "$rundir"
rundir=$(cd "$rundir" && pwd)
filter="^demo:($(IFS='|'; echo "${selected[*]}"))\$"
log "experiments: ${selected[*]} on the $kernel kernel, clock $clock (about 1-2 min of guest time each under TCG)"
log "run directory: $rundir"

# 4 GB: the memory experiment queues a million skbs (~1 GB).
# boot-and-test.sh prints its own progress (build, boot, one line per
# experiment as it finishes) on stderr; its KTAP goes to a file here.
brc=0
"$FQP_ROOT/scripts/boot-and-test.sh" --kernel "$kernel" --cases "$FQP_ROOT/tests/demo" \
	--filter "$filter" --results "$rundir" --clock "$clock" --mem 4G >"$rundir/boot-and-test.out" || brc=$?
if [ ! -f "$rundir/verdict.ktap" ]; then
	tail -n 20 "$rundir/boot-and-test.out" >&2 || true
	die "the kernel build or the boot failed before any experiment ran (exit $brc)" \
		"read the messages above and $rundir/boot-and-test.out, fix the cause, re-run $0"
fi
guest=$(sed -n 's/.*"verdict": "\(.*\)",*$/\1/p' "$rundir/metadata.json" 2>/dev/null || true)
[ "$guest" = complete ] ||
	warn "the guest did not complete: ${guest:-no verdict} (console: $rundir/console.log); rendering what came back"

log "rendering the report"
rrc=0
python3 "$FQP_ROOT/scripts/render-demo.py" "$rundir" "${selected[@]}" || rrc=$?
log "report: $rundir/report.md (plots in $rundir/plots/, raw data in $rundir/results/data/)"
if [ "$rrc" -ne 0 ] || [ "$guest" != complete ]; then
	die "some experiments failed or could not be rendered (see FAILED / not rendered above)" \
		"read the experiment's log named above, then re-run: $0 --kernel $kernel --only NAME"
fi
