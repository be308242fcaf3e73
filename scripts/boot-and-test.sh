#!/usr/bin/env bash
# Build what is missing, boot the kernel in QEMU (no network to the outside),
# run the suite in the guest and print a KTAP verdict. Exit 0 only when every
# case passed, the guest finished, and the console shows no splat.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: $0 [options]
  --base 6.1|7.2|7.3      which upstream tree stock is (default \$FQP_BASE or 6.1):
                          6.1 bookworm's linux-source-6.1, 7.2 sid's linux-source-7.2,
                          7.3 experimental's linux-source-7.3 (patched there: 7.x
                          with patches/net/, patches/net-next/ and
                          patches/net-next-rfc/)
  --kernel stock|patched|PATH  which tree (default patched), or the path of a
                          bzImage to boot (as vng and tuxrun take one): an image
                          in one of our build dirs is booted as its tree and
                          config, any other as the series' (its cases assert
                          the patched kernel's behaviour)
  --config test|debug|bench|uml  kernel fragment set (default test); uml:
                          the kernel built for User-Mode Linux (ARCH=um), booted
                          as a host process instead of under QEMU, pinned to one
                          CPU (FQP_UML_CPU, default the last), on the same image
                          (copy-on-write) and run disk (scripts/lib/uml.sh)
  --kconfig-add CONFIG_FOO=VALUE|FILE  a one-off config option or fragment
                          (repeatable): the kernel is built in a build dir of
                          its own (scripts/build-kernel.sh --kconfig-add)
  --bzimage PATH          boot this kernel instead of building one; --kernel
                          then says which tree's behaviour the cases assert
  --initrd PATH           boot with this initramfs (a distribution kernel whose
                          disk drivers are modules: scripts/check-distro.sh)
  --rootfs PATH           boot this guest image instead of build-rootfs.sh's
                          (a copy with a kernel package installed; still
                          snapshot=on, never written)
  --filter REGEX          run only guest cases whose file:case name matches
  --exclude REGEX         skip guest cases whose file:case name matches (not run, not counted)
  --shard I/N             run cases I, I+N, I+2N... of the selected list (0 <= I < N):
                          N boots side by side run them all (scripts/test.sh --shards)
  --cases DIR             run the case files in DIR instead of tests/cases
  --timeout SEC           hard limit for the whole boot (default 3600)
  --silence SEC           fail if the guest prints nothing for SEC (default 900)
  --mem SIZE --smp N      guest size (default 2G; 2 vCPUs, 1 with --clock exact)
  --clock wall|exact      guest clock (default wall). wall: the guest's clock
                          follows the host's, so timing depends on the host's
                          load. exact: QEMU icount (-icount shift=0,sleep=off,
                          align=off): one guest instruction per ns, idle time
                          skipped, timers on time in guest time; TCG only,
                          1 vCPU by default, clocksource=tsc
  --append ARGS           extra kernel command line arguments
  --insn-profile FILE     count the guest kernel's instructions per translation
                          block (QEMU plugin tests/host/insncount.c) and write
                          "address count" lines to FILE at power-off; exact,
                          not sampled (scripts/insn-profile.py reads it)
  --cache-model DIR       run every guest access through the cache model
                          (QEMU plugin tests/host/cachemodel.c; docs/
                          cache-model.md): DIR/windows.txt gets accesses and
                          misses per level of each window the guest marks
                          (tests/src/cachemark), DIR/SEQ.prof the misses per
                          kernel instruction. The model runs from each warm
                          mark to the next close (sim=marks). Extra plugin
                          options (geometry, sim=boot, count=boot) from
                          FQP_CACHE_MODEL_OPTS, e.g. l2=1M:16
  --shell                 boot the same kernel and image to an interactive shell
  --results DIR           run directory (default results/<time>-<kernel>-<config>)
  --no-latest             leave results/latest as it is (it points at the newest
                          run otherwise; the harness self-test's boots use this)
  --rebuild               rebuild the rootfs image and the kernel config first
  --dry-run               print the QEMU command and stop
  -v                      show the guest console live
USAGE
}

kernel=patched config='' bzimage='' initrd='' rootfs='' kadd=() kadd_args=() filter='' exclude='' shard='' cases='' timeout=3600 silence=900
insn_profile='' cache_model=''
latest=1 mem=2G smp='' clock=wall shell=0 rundir='' rebuild=0 dry=0 verbose=0 append=''
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2:-}; shift ;;
	--config) config=${2:-}; shift ;;
	--base) set_base "${2:-}" || usage_error; shift ;;
	--bzimage) bzimage=${2:-}; shift ;;
	--initrd) initrd=${2:-}; shift ;;
	--rootfs) rootfs=${2:-}; shift ;;
	--kconfig-add)
		kconfig_add_lines "${2:-}" >/dev/null || usage_error
		kadd+=("$2") kadd_args+=(--kconfig-add "$2"); shift ;;
	--filter) filter=${2:-}; shift ;;
	--cases) cases=${2:-}; shift ;;
	--exclude) exclude=${2:-}; shift ;;
	--shard) shard=${2:-}; shift ;;
	--timeout) timeout=${2:-}; shift ;;
	--silence) silence=${2:-}; shift ;;
	--mem) mem=${2:-}; shift ;;
	--smp) smp=${2:-}; shift ;;
	--clock) clock=${2:-}; shift ;;
	--append) append=${2:-}; shift ;;
	--insn-profile) insn_profile=${2:-}; shift ;;
	--cache-model) cache_model=${2:-}; shift ;;
	--results) rundir=${2:-}; shift ;;
	--no-latest) latest=0 ;;
	--shell) shell=1 ;;
	--rebuild) rebuild=1 ;;
	--dry-run) dry=1 ;;
	-v) verbose=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
case $kernel in
stock | patched) ;;
*)
	[ -z "$bzimage" ] || usage_error "--kernel PATH and --bzimage PATH: give the image once"
	use_image "$kernel"
	bzimage=$IMAGE kernel=$IMAGE_TREE config=${config:-$IMAGE_CONFIG}
	if [ "$IMAGE_FOREIGN" = 1 ]; then
		log "booting $bzimage, not one of ours: its cases assert the series' behaviour (--bzimage PATH --kernel stock for stock's)"
		run_label=image
	fi
	;;
esac
config=${config:-test}
ktree=$(base_tree "$kernel")
# An image the user gave (--kernel PATH, --bzimage): a re-run boots it too.
user_image=$bzimage
# The run directory's name: the tree, the config and any one-off options.
run_label=${run_label:-$ktree}-$config$(kconfig_add_tag ${kadd[@]+"${kadd[@]}"})
case $config in test | debug | bench | uml) ;; *) usage_error "bad --config: $config" ;; esac
if [ "$config" = uml ]; then
	[ -z "$insn_profile$cache_model" ] || usage_error "--insn-profile and --cache-model are QEMU plugins; a UML kernel runs without QEMU"
	[ "$clock" = wall ] || usage_error "--clock $clock: a UML kernel runs on the host's clock (wall)"
	[ "$shell" = 0 ] || usage_error "--shell: not for a UML kernel"
	smp=${smp:-1}
	[ "$smp" = 1 ] || usage_error "--smp $smp: a UML kernel has one CPU here"
fi
[ -z "$bzimage" ] || [ ${#kadd[@]} = 0 ] || usage_error "--kconfig-add builds a kernel; $bzimage is one already"
case $clock in wall | exact) ;; *) usage_error "bad --clock: $clock (wall or exact)" ;; esac
[[ $timeout =~ ^[0-9]+$ && $silence =~ ^[0-9]+$ ]] || usage_error "bad --timeout or --silence: $timeout, $silence (seconds)"
if [ -n "$shard" ]; then
	[[ $shard =~ ^([0-9]+)/([1-9][0-9]*)$ ]] && [ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ] ||
		usage_error "bad --shard: $shard (I/N with 0 <= I < N)"
fi
[ -n "$smp" ] || smp=$(clock_smp "$clock")
[[ $smp =~ ^[1-9][0-9]*$ ]] || usage_error "bad --smp: $smp"
# Cases that need the debug config's fault injection (failslab, debugfs)
# are not run, and not counted, on the other kernels.
[ "$config" = debug ] || exclude="${exclude:+$exclude|}$FQP_DEBUG_ONLY"

ensure_packages
stage_times=()
stage() { stage_times+=("\"$1\": $(($(date +%s) - $2))"); }

# 1. Kernel.
t=$(date +%s)
if [ -z "$bzimage" ]; then
	[ "$rebuild" = 0 ] || rm -f "$(build_dir "$kernel" "$config" ${kadd[@]+"${kadd[@]}"})/.fqp-config"
	"$FQP_ROOT/scripts/build-kernel.sh" --base "$FQP_BASE" --tree "$kernel" --config "$config" ${kadd_args[@]+"${kadd_args[@]}"}
	bzimage=$(kernel_image "$kernel" "$config" ${kadd[@]+"${kadd[@]}"})
fi
if [ -n "$initrd" ]; then
	[ -f "$initrd" ] || die "no initramfs at --initrd $initrd"
	initrd=$(realpath "$initrd")
fi
[ -f "$bzimage" ] || die "no kernel image at $bzimage" "run scripts/build-kernel.sh --base $FQP_BASE --tree $kernel --config $config"
stage kernel "$t"

# 2. Root filesystem (cached, never written by a run: snapshot=on). Other
# guests and UML runs (ubd copy-on-write over it) read it at the same
# time; one that holds it locked would stop QEMU ("Failed to get
# "consistent read" lock"), so QEMU takes no lock on it (file.locking=off):
# nothing writes it while runs use it.
t=$(date +%s)
if [ -n "$rootfs" ]; then
	[ -f "$rootfs" ] || die "no guest image at --rootfs $rootfs" "make it first (scripts/check-distro.sh makes its images)"
	rootfs=$(realpath "$rootfs")
else
	[ "$rebuild" = 0 ] || rm -f "$("$FQP_ROOT/scripts/build-rootfs.sh" --print-path)"
	"$FQP_ROOT/scripts/build-rootfs.sh"
	rootfs=$("$FQP_ROOT/scripts/build-rootfs.sh" --print-path)
fi
stage rootfs "$t"

# 3. The run directory and its disk with the tests and helpers.
stamp=$(date +%Y%m%d-%H%M%S)
rundir=${rundir:-$FQP_RESULTS/$stamp-$run_label}
mkdir -p "$rundir" "$FQP_RESULTS"
# Absolute: the helpers are built with make -C, where a relative BIN would
# put them under the tests directory and the guest would find none.
rundir=$(cd "$rundir" && pwd)
[ "$latest" = 0 ] || ln -sfn "$rundir" "$FQP_RESULTS/latest"
t=$(date +%s)
stage_dir=$rundir/disk
rm -rf "$stage_dir"
mkdir -p "$stage_dir/results"
cp -a "$FQP_ROOT/tests" "$stage_dir/tests"
rm -rf "$stage_dir/tests/bin"
if [ -n "$cases" ]; then
	[ -d "$cases" ] || die "--cases $cases is not a directory"
	rm -rf "$stage_dir/tests/cases"
	cp -a "$cases" "$stage_dir/tests/cases"
fi
base_version=$(base_version)
# The tree's own tdc suite runs against the kernel it came from.
src_tree=$FQP_PATCHED
[ "$kernel" = patched ] || src_tree=$FQP_STOCK
if [ -d "$src_tree/tools/testing/selftests/tc-testing" ]; then
	cp -a "$src_tree/tools/testing/selftests/tc-testing" "$stage_dir/tdc"
fi
# A kernel with modules (a modular sch_fq: --kconfig-add CONFIG_NET_SCH_FQ=m):
# they go on the run disk, where the guest's run.sh loads fq with modprobe.
cfg_dir=$(dirname "$(dirname "$(dirname "$(dirname "$bzimage")")")")
if grep -qsx 'CONFIG_MODULES=y' "$cfg_dir/.config"; then
	make -s -C "$cfg_dir" INSTALL_MOD_PATH="$stage_dir/modroot" INSTALL_MOD_STRIP=1 \
		modules_install >"$rundir/modules-install.log" 2>&1 ||
		die "installing the kernel's modules on the run disk failed (log: $rundir/modules-install.log)" \
			"rebuild the kernel (scripts/build-kernel.sh) and re-run"
fi
make -s -C "$stage_dir/tests" BIN="$stage_dir/tests/bin" >"$rundir/helpers-build.log" 2>&1 ||
	{ cat "$rundir/helpers-build.log" >&2; die "building the test helpers failed (log: $rundir/helpers-build.log)" "fix tests/src/ and re-run"; }
# So are its SO_TXTIME and tc BPF EDT selftests (95-tree-selftests): the
# scripts as they are, their program and BPF object built here.
st=$src_tree/tools/testing/selftests
if [ -f "$st/net/so_txtime.sh" ] && [ -f "$st/bpf/test_tc_edt.sh" ]; then
	mkdir -p "$stage_dir/selftests"
	cp "$st/net/so_txtime.sh" "$st/bpf/test_tc_edt.sh" "$stage_dir/selftests/"
	make -s -C "$stage_dir/tests" BIN="$stage_dir/tests/bin" SELFTESTS="$st" \
		STBIN="$stage_dir/selftests" selftests >>"$rundir/helpers-build.log" 2>&1 ||
		{ cat "$rundir/helpers-build.log" >&2; die "building the tree's selftests failed (log: $rundir/helpers-build.log)" "check $st and re-run"; }
fi
# Newer trees (7.x) test fq's per-band packet limit: fq_band_pktlimit.sh,
# the netns wrapper it runs itself in, and its sender built here.
if [ -f "$st/net/fq_band_pktlimit.sh" ]; then
	mkdir -p "$stage_dir/selftests"
	cp "$st/net/fq_band_pktlimit.sh" "$st/net/in_netns.sh" "$stage_dir/selftests/"
	make -s -C "$stage_dir/tests" BIN="$stage_dir/tests/bin" SELFTESTS="$st" \
		STBIN="$stage_dir/selftests" selftests-bands >>"$rundir/helpers-build.log" 2>&1 ||
		{ cat "$rundir/helpers-build.log" >&2; die "building the tree's cmsg_sender failed (log: $rundir/helpers-build.log)" "check $st and re-run"; }
fi
{
	printf 'filter=%q\nexclude=%q\nshard=%q\n' "$filter" "$exclude" "$shard"
	printf 'FQP_KERNEL=%q\nFQP_CONFIG=%q\nFQP_CLOCK=%q\n' "$kernel" "$config" "$clock"
	# The base the kernel was built from: the cases assert its semantics.
	printf 'FQP_BASE=%q\nFQP_BASE_VERSION=%q\n' "$FQP_BASE" "$base_version"
	# The guest stops starting cases this long before the timeout: the
	# final dmesg and kmemleak check, the shutdown and the boot itself.
	# In exact mode guest time is not the host's: no deadline there.
	reserve=120
	[ "$config" != debug ] || reserve=360
	[ "$clock" = exact ] || [ "$timeout" -le "$reserve" ] ||
		printf 'FQP_DEADLINE=%d\n' $((timeout - reserve))
} >"$stage_dir/run.conf"
mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 -L fqprun -d "$stage_dir" "$rundir/run.ext4" 1024M ||
	die "could not make the run disk $rundir/run.ext4" "check free space in $rundir"
stage rundisk "$t"

# 4. Boot.
if [ "$config" = uml ]; then accel=uml; else accel=$(clock_accel "$clock" "$bzimage"); fi
# rootflags=noinit_itable, and the run disk made with its inode tables
# zeroed: no ext4lazyinit thread zeroing them in the background, whose
# hundreds of millions of instructions landed in the exact-clock benchmark's
# windows (the root image is a snapshot, so it was zeroed again every boot).
# no_timer_check: the IO-APIC timer check counts timer ticks over a busy
# loop, and a TCG guest on a loaded host (several guests and builds on 2
# cores) misses it and panics at 0.05 s ("IO-APIC + timer doesn't work").
cmdline="console=ttyS0,115200 root=/dev/vda rw rootfstype=ext4 rootflags=noinit_itable init=/sbin/fqp-init panic=-1 loglevel=6 net.ifnames=0 slab_nomerge no_timer_check"
[ "$shell" = 0 ] || cmdline="$cmdline fqp.shell=1"
[ "$clock" != exact ] || cmdline="$cmdline $EXACT_CMDLINE"
[ -z "$append" ] || cmdline="$cmdline $append"
# Under KASAN + lockdep in TCG, boot-time ACPI parsing alone holds a CPU for
# ~30 s: raise the soft lockup threshold to its maximum (2 x 60 s) and the
# RCU stall timeout to 120 s there, so only a real lockup is reported.
[ "$config" != debug ] || cmdline="$cmdline watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120"
# The same kernel evaluates the PCI slots' interrupt routing (_PRT) past
# ACPICA's 30 s loop limit, twice per boot (AE_AML_LOOP_TIMEOUT, 63 s
# lost). virtio-pci uses MSI-X and needs no INTx route: acpi=noirq skips
# the evaluation (measured: the disks probed at 16 s of uptime, not 79 s).
[ "$config" != debug ] || cmdline="$cmdline acpi=noirq"
# 94-fq-failslab: fq_flow_cache and kmalloc-4k (fq's bucket table at 512
# buckets) may fail allocations (SLAB_FAILSLAB; since 5.14 only settable
# at boot). Nothing fails until the case sets failslab's probability, and
# then only in caches with the flag (cache-filter) and in the one task
# the case marks (task-filter).
[ "$config" != debug ] || cmdline="$cmdline slub_debug=A,fq_flow_cache,kmalloc-4k,kmalloc-8k"
qemu=(qemu-system-x86_64 -accel "$accel" -cpu max -m "$mem" -smp "$smp"
	-nic none -no-reboot -display none -monitor none
	-kernel "$bzimage" -append "$cmdline"
	-drive "file=$rootfs,if=virtio,format=raw,snapshot=on,file.locking=off"
	-drive "file=$rundir/run.ext4,if=virtio,format=raw")
[ -z "$initrd" ] || qemu+=(-initrd "$initrd")
mapfile -t clock_args < <(clock_qemu_args "$clock")
qemu+=("${clock_args[@]}")
if [ -n "$insn_profile" ]; then
	mkdir -p "$(dirname "$insn_profile")"
	# Kernel text only: user space is not what the profile is for.
	qemu+=(-plugin "$(qemu_plugin insncount),out=$(realpath -m "$insn_profile"),min=ffffffff80000000")
fi
if [ -n "$cache_model" ]; then
	mkdir -p "$cache_model"
	cache_model=$(realpath "$cache_model")
	qemu+=(-plugin "$(qemu_plugin cachemodel),out=$cache_model/windows.txt,prof=$cache_model,sim=marks${FQP_CACHE_MODEL_OPTS:+,$FQP_CACHE_MODEL_OPTS}")
fi
if [ "$shell" = 1 ]; then
	qemu+=(-serial mon:stdio -serial "file:$rundir/ktap.log")
else
	qemu+=(-serial "file:$rundir/console.log" -serial "file:$rundir/ktap.log")
fi
if [ "$config" = uml ]; then
	# The same command line but for the devices: UML's own disks and
	# console (scripts/lib/uml.sh), no ACPI or PCI to tune. ttyS1's output
	# goes to fd 3, ktap.log, as QEMU's second serial port.
	cpu=$(uml_pin_cpu)
	ucmd=${cmdline/root=\/dev\/vda/root=\/dev\/ubda}
	ucmd=${ucmd/console=ttyS0,115200 /}
	ucmd=${ucmd/ init=\/sbin\/fqp-init/}
	# x86's own parameters, which UML would hand to init as arguments.
	ucmd=${ucmd/ no_timer_check/}
	read -ra ucmd <<<"$ucmd"
	mapfile -t qemu < <(uml_command "$bzimage" "$rootfs" "$rundir/root.cow" "$rundir/run.ext4" 3 "${ucmd[@]}")
	qemu=(taskset -c "$cpu" "${qemu[@]}")
	rm -f "$rundir/root.cow"
fi
printf '%q ' "${qemu[@]}" >"$rundir/qemu.cmd"
echo >>"$rundir/qemu.cmd"
{
	echo '#!/bin/sh'
	echo "# Re-run this boot by hand (the run disk is reused as it is)."
	echo "# Kernel: $kernel/$config, base $FQP_BASE ($base_version, $(base_package))."
	cat "$rundir/qemu.cmd"
} >"$rundir/reproducer.sh"
chmod +x "$rundir/reproducer.sh"
[ ! -f "$cfg_dir/.config" ] || cp "$cfg_dir/.config" "$rundir/kernel.config"
[ ! -f "$cfg_dir/build.log" ] || cp "$cfg_dir/build.log" "$rundir/build.log"
if [ "$dry" = 1 ]; then
	cat "$rundir/qemu.cmd"
	exit 0
fi
if [ "$shell" = 1 ]; then
	log "interactive guest ($accel, clock $clock); 'poweroff -f' ends it"
	exec "${qemu[@]}"
fi

t=$(date +%s)
log "booting $kernel/$config kernel (base $FQP_BASE, $base_version) under ${accel^^}, clock $clock, $smp vCPU${cpu:+ pinned to host CPU $cpu} (timeout ${timeout}s, silence ${silence}s; console: $rundir/console.log)"
: >"$rundir/console.log"
if [ "$config" = uml ]; then
	# UML's console is its stdout and ttyS1 its fd 3, each a pipe into
	# its file (scripts/lib/uml.sh); the job waits for both readers. It
	# is a process group of its own (job control on while it starts), so
	# that a timeout ends the kernel and every guest process with it.
	: >"$rundir/ktap.log"
	set -m
	# The host's record of the UML process's CPU time (uml-cpu.py sample,
	# on another CPU than the guest's): bench.sh --native reads each
	# window's CPU time from it.
	(
		exec 3> >(exec cat >>"$rundir/ktap.log")
		kt=$!
		exec 4> >(exec cat >"$rundir/console.log")
		ct=$!
		"${qemu[@]}" </dev/null 2>"$rundir/qemu.out" >&4 &
		up=$!
		# UML puts itself in a process group of its own: a timeout ends it.
		echo "$up" >"$rundir/uml.pid"
		mapfile -t other < <(uml_sampler_pin "$cpu")
		${other[@]+"${other[@]}"} python3 "$FQP_ROOT/scripts/uml-cpu.py" sample "$up" "$rundir/uml-cpu.txt" &
		sp=$!
		wait "$up" || true
		exec 3>&- 4>&-
		wait "$kt" "$ct" "$sp" || true
	) &
	set +m
else
	"${qemu[@]}" >"$rundir/qemu.out" 2>&1 &
fi
qpid=$!
[ "$verbose" = 0 ] || tail -F "$rundir/console.log" 2>/dev/null &
tailpid=$!
verdict='' last_size=0 last_change=$t shown=0
while kill -0 "$qpid" 2>/dev/null; do
	sleep 2
	now=$(date +%s)
	size=$(($(stat -c %s "$rundir/console.log") + $(stat -c %s "$rundir/ktap.log" 2>/dev/null || echo 0)))
	if [ "$size" != "$last_size" ]; then
		last_size=$size last_change=$now
	fi
	# Each result as it comes (a case file's cases, then the file's own).
	if grep -qE '^ *(not )?ok ' "$rundir/ktap.log" 2>/dev/null; then
		n=$(grep -cE '^ *(not )?ok ' "$rundir/ktap.log")
		while [ "$shown" -lt "$n" ]; do
			shown=$((shown + 1))
			log "  $(grep -E '^ *(not )?ok ' "$rundir/ktap.log" | sed -n "${shown}p")"
		done
	fi
	if [ $((now - t)) -ge "$timeout" ]; then
		verdict="TIMEOUT: no verdict after ${timeout}s"
	elif [ $((now - last_change)) -ge "$silence" ]; then
		verdict="TIMEOUT: guest silent for ${silence}s"
	fi
	if [ -n "$verdict" ]; then
		if [ "$config" = uml ]; then
			kill -- -"$(cat "$rundir/uml.pid" 2>/dev/null || echo "$qpid")" 2>/dev/null || true
			kill -- -"$qpid" 2>/dev/null || true
		fi
		kill "$qpid" 2>/dev/null || true
		break
	fi
done
wait "$qpid" 2>/dev/null || true
rm -f "$rundir/root.cow" "$rundir/uml.pid"
[ "$verbose" = 0 ] || kill "$tailpid" 2>/dev/null || true
stage boot "$t"

# 5. Results back from the run disk, then the verdict.
debugfs -R "rdump /results $rundir" "$rundir/run.ext4" >/dev/null 2>&1 ||
	warn "could not copy results/ back from $rundir/run.ext4"
rm -rf "$stage_dir"

SPLAT_RE=$(grep -v '^#' "$FQP_ROOT/tests/splat-patterns")
grep -q 'Kernel panic' "$rundir/console.log" && verdict="PANIC: $(grep -m1 'Kernel panic' "$rundir/console.log")"
if [ -z "$verdict" ] && ! grep -q 'fqp-run-complete' "$rundir/ktap.log" 2>/dev/null; then
	verdict="the guest stopped before the suite completed"
fi

# Host-side cases, reported with the guest's in one KTAP document
# (scripts/ktap.py): "STATUS<tab>NAME<tab>DIRECTIVE<tab>LOG" lines, each
# after its "# ..." diagnostics.
hostf=$rundir/host-cases.txt
: >"$hostf"
# host_case STATUS NAME [DIRECTIVE [LOG]]: STATUS 0 passed, 1 failed.
host_case() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "${3:-}" "${4:-}" >>"$hostf"; }
# The series checks belong to the suite, not to the demo or the benchmark
# (--cases): they read the patches, not the booted kernel.
# A shard past the first leaves them to the first.
if [ "$kernel" = patched ] && [ -z "$cases" ] && { [ -z "$shard" ] || [ "${shard%%/*}" = 0 ]; } &&
	[ -f "$FQP_PATCHED/.fqp-series" ]; then
	host_case 0 "series_quilt_push_applies"
	cp_log=$rundir/checkpatch.log
	: >"$cp_log"
	while read -r p; do
		r=$(checkpatch_strict "$FQP_PATCHED" "$FQP_ROOT/patches/$p")
		printf '== %s\n%s\n' "$p" "$r" >>"$cp_log"
		# 0001 (6.1), net_0001, net-next_0001 and net-next-rfc_0001 (7.x):
		# one name each.
		n=${p##*/} n=${n%%-*}
		[[ $p != */* ]] || n=${p%%/*}_$n
		if [ -n "$r" ]; then
			host_case 1 "checkpatch_strict_$n" "" "$cp_log"
		else
			host_case 0 "checkpatch_strict_$n"
		fi
	done < <(series_patches)
fi
splat=$(grep -E "$SPLAT_RE" "$rundir/console.log" | head -n 10 || true)
if [ -z "$splat" ]; then
	host_case 0 console_no_splat
else
	{ echo "# kernel splat on the console:"; sed 's/^/#   /' <<<"$splat"; } >>"$hostf"
	host_case 1 console_no_splat "" "$rundir/console.log"
fi
# KUnit suites built into the kernel ran at boot (or at the module's load)
# and logged KTAP at KERN_INFO, below the console's loglevel: ktap.py reads
# them, test by test, from the dmesg the guest saved. Tests built in and
# no suite there is a failure of its own (a guest that stopped before it
# saved its dmesg fails as guest_run).
if grep -qE '^CONFIG_[A-Z0-9_]+_KUNIT_TEST=y' "$rundir/kernel.config" 2>/dev/null &&
	[ -f "$rundir/results/dmesg-boot.txt" ] &&
	! grep -qsE '^\[[ 0-9.]+\] +# Subtest: ' "$rundir/results/dmesg-boot.txt" "$rundir/results/dmesg.txt"; then
	host_case 1 kunit "KUnit tests are built in, but no suite result in the boot log" "$rundir/results/dmesg.txt"
fi

# The verdict: the host's cases, the KUnit suites, the guest's cases, and
# the guest's end when it stopped early, with the failures and their logs.
rerun=(scripts/boot-and-test.sh)
[ "$FQP_BASE" = 6.1 ] || rerun+=(--base "$FQP_BASE")
if [ -n "$user_image" ]; then rerun+=(--kernel "$bzimage" --config "$config"); else rerun+=(--kernel "$kernel" --config "$config"); fi
[ -z "$cases" ] || rerun+=(--cases "$cases")
[ -z "$initrd" ] || rerun+=(--initrd "$initrd")
[ -z "$rootfs" ] || [ "$rootfs" = "$("$FQP_ROOT/scripts/build-rootfs.sh" --print-path)" ] || rerun+=(--rootfs "$rootfs")
[ "$clock" = wall ] || rerun+=(--clock "$clock")
rerun+=(${kadd_args[@]+"${kadd_args[@]}"})
header="$kernel/$config kernel (base $FQP_BASE, $base_version), ${accel^^}, clock $clock, $smp vCPU${shard:+, shard $shard}, run dir $rundir"
counts=$(python3 "$FQP_ROOT/scripts/ktap.py" verdict "$rundir" --host "$hostf" --header "$header" \
	${verdict:+--stopped "$verdict"} --rerun "$(printf '%q ' "${rerun[@]}" | sed 's/ $//')") || true
read -r pass failn skipn <<<"$counts"
[ -n "${skipn:-}" ] || die "scripts/ktap.py could not write $rundir/verdict.ktap from the run's logs" \
	"run python3 scripts/ktap.py verdict $rundir by hand to see why; the raw guest output is $rundir/ktap.log"

echo
cat "$rundir/verdict.ktap"
{
	printf '{\n  "git": "%s",\n  "kernel": "%s",\n  "config": "%s",\n' \
		"$(git -C "$FQP_ROOT" describe --always --dirty 2>/dev/null || echo unknown)" "$kernel" "$config"
	printf '  "base": "%s",\n  "base_version": "%s",\n  "base_package": "%s",\n' \
		"$FQP_BASE" "$base_version" "$(base_package)"
	printf '  "series": "%s",\n  "gcc": "%s",\n  "accel": "%s",\n' \
		"$(series_patches | paste -sd' ' -)" "$(gcc -dumpfullversion)" "$accel"
	printf '  "clock": "%s",\n  "smp": %d,\n  "mem": "%s",\n  "cmdline": "%s",\n' \
		"$clock" "$smp" "$mem" "$cmdline"
	printf '  "uname": "%s",\n' "$(grep -m1 -o 'Linux version [^ ]*' "$rundir/console.log" || true)"
	printf '  "passed": %d, "failed": %d, "skipped": %d,\n' "$pass" "$failn" "$skipn"
	printf '  "verdict": "%s",\n  "stage_seconds": {%s}\n}\n' "${verdict:-complete}" "$(IFS=,; echo "${stage_times[*]}")"
} >"$rundir/metadata.json"
if [ "$failn" -gt 0 ]; then
	echo "# failed run: $rundir (verdict.ktap, console.log, ktap.log, results/logs/, reproducer.sh)"
	log "FAILED: each failed test's log is named above (# failed:); the run: $rundir"
	exit 1
fi
rm -f "$rundir/run.ext4"
log "all passed; logs in $rundir"
