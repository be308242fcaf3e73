# shellcheck shell=bash
# QEMU and the guest's clock: whether KVM really works here (a probe
# guest, not /dev/kvm alone), the accelerator each clock uses, and the
# exact clock's icount settings (one guest instruction per ns, 1 vCPU).

# kvm_usable: 0 only if a real KVM guest boots to a marker. /dev/kvm alone
# proves nothing: on CPUs without vmx/svm a KVM guest hangs after the BIOS.
kvm_usable() {
	local bz=$1 out
	[ "${FQP_ACCEL:-auto}" != tcg ] || return 1
	[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	grep -qE '\b(vmx|svm)\b' /proc/cpuinfo || return 1
	out=$(timeout 25 qemu-system-x86_64 -accel kvm -m 256 -nographic -nic none \
		-no-reboot -kernel "$bz" -append "console=ttyS0 panic=-1 rdinit=/nonexistent" \
		2>&1 || true)
	grep -q 'Linux version' <<<"$out"
}

# Pick the accelerator once per process and say which, once.
pick_accel() {
	local bz=$1
	if [ -n "${FQP_ACCEL_PICKED:-}" ]; then
		printf '%s\n' "$FQP_ACCEL_PICKED"
		return
	fi
	if [ "${FQP_ACCEL:-auto}" = kvm ] || { [ "${FQP_ACCEL:-auto}" = auto ] && kvm_usable "$bz"; }; then
		FQP_ACCEL_PICKED=kvm
	else
		FQP_ACCEL_PICKED=tcg
		warn "KVM probe failed (no vmx/svm or the probe guest did not boot): using TCG emulation"
	fi
	export FQP_ACCEL_PICKED
	printf '%s\n' "$FQP_ACCEL_PICKED"
}

# auto_clock BZIMAGE: the default guest clock of the demo and the
# benchmark: exact (deterministic guest time) where the guest runs under
# TCG, wall under KVM (the exact clock is TCG only, and KVM's wall clock
# is real time).
auto_clock() {
	if [ "$(pick_accel "$1")" = tcg ]; then echo exact; else echo wall; fi
}

# The guest clock (boot-and-test.sh --clock, and the scripts above it).
# wall: QEMU's virtual clock follows the host's, so every guest timing
# depends on the host's load. exact: icount at shift 0, one guest
# instruction per ns of guest time, idle time skipped (sleep=off) and no
# throttling to real time (align=off): a deterministic machine that retires
# one instruction per ns and has no cache model. TCG only.
EXACT_ICOUNT="shift=0,sleep=off,align=off"
# Under TCG the default clocksource is the HPET (an emulated MMIO read per
# clock read); the TSC follows the icount clock.
EXACT_CMDLINE="clocksource=tsc tsc=reliable"
export EXACT_ICOUNT EXACT_CMDLINE
# icount runs every vCPU on one host thread, in turn. With 2 vCPUs the
# instructions per packet spread 20x more between boots than with 1
# (docs/testing.md, "The guest"), so exact mode defaults to 1 vCPU.
EXACT_SMP=1

# clock_smp CLOCK: the default vCPU count for that clock.
clock_smp() { if [ "$1" = exact ]; then echo "$EXACT_SMP"; else echo 2; fi; }

# clock_accel CLOCK BZIMAGE: the accelerator for that clock. Exact mode is
# TCG's icount: it refuses KVM when KVM is asked for (FQP_ACCEL=kvm), and
# otherwise uses TCG without probing KVM, and says so.
clock_accel() {
	if [ "$1" != exact ]; then
		pick_accel "$2"
		return
	fi
	[ "${FQP_ACCEL:-auto}" != kvm ] ||
		die "--clock exact needs TCG (QEMU icount has no KVM equivalent), but FQP_ACCEL=kvm asks for KVM" \
			"unset FQP_ACCEL (exact mode then uses TCG), or use --clock wall with KVM"
	log "clock exact: TCG with -icount $EXACT_ICOUNT (KVM, if any, is not used)"
	echo tcg
}

# clock_qemu_args CLOCK: QEMU's extra arguments for that clock, one a line.
clock_qemu_args() { [ "$1" != exact ] || printf '%s\n' -icount "$EXACT_ICOUNT"; }
