# shellcheck shell=bash
# Shared by every fq-pacing script: logging, errors, paths, packages, KVM.
# Source it; it sets strict mode for the caller.
set -euo pipefail

FQP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FQP_CACHE=${FQP_CACHE:-$HOME/.cache/fq-pacing}
FQP_TARBALL=${FQP_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
FQP_STOCK=$FQP_CACHE/stock        # pristine linux-source-6.1
FQP_PATCHED=$FQP_CACHE/patched    # stock + quilt push -a
FQP_AUTHOR=$FQP_CACHE/authoring   # git repo over stock, for refresh-patches.sh
FQP_BUILD=$FQP_CACHE/build        # O= dirs: build/<tree>-<config>
FQP_IMAGES=$FQP_CACHE/images      # rootfs images, keyed by content hash
FQP_RESULTS=${FQP_RESULTS:-$FQP_ROOT/results}
export FQP_ROOT FQP_CACHE FQP_STOCK FQP_PATCHED FQP_AUTHOR FQP_BUILD FQP_IMAGES

# Everything the pipeline needs from Debian, installed on demand.
FQP_PACKAGES=(linux-source-6.1 quilt git gcc make flex bison bc libelf-dev
	libssl-dev qemu-system-x86 debootstrap e2fsprogs iproute2 iperf3
	ccache shellcheck gnuplot-nox libpcap-dev libmnl-dev python3 xz-utils
	cpio kmod perl libc6-dev debian-archive-keyring)

FQP_T0=${FQP_T0:-$(date +%s)}
export FQP_T0
FQP_STEP=${FQP_STEP:-$(basename "${0%.sh}")}

_elapsed() {
	local s=$(($(date +%s) - FQP_T0))
	printf '%02d:%02d' $((s / 60)) $((s % 60))
}

log() { printf '[%s %s] %s\n' "$(_elapsed)" "$FQP_STEP" "$*" >&2; }
warn() { printf '[%s %s] WARNING: %s\n' "$(_elapsed)" "$FQP_STEP" "$*" >&2; }

# die WHAT [NEXT]: say what failed and what to do about it, then exit 1.
die() {
	printf '[%s %s] ERROR: %s\n' "$(_elapsed)" "$FQP_STEP" "$1" >&2
	[ $# -lt 2 ] || printf '[%s %s]   next: %s\n' "$(_elapsed)" "$FQP_STEP" "$2" >&2
	exit 1
}

# run_logged LOGFILE DESCRIPTION CMD...: run CMD with output in LOGFILE,
# print a heartbeat while it runs, and on failure show the tail and the path.
run_logged() {
	local logf=$1 what=$2 pid rc=0 n=0
	shift 2
	mkdir -p "$(dirname "$logf")"
	log "$what (log: $logf)"
	"$@" >"$logf" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		n=$((n + 5))
		if [ $((n % 60)) -eq 0 ]; then
			log "  ... $what: ${n}s, $(tail -n 1 "$logf" | cut -c1-100)"
		fi
	done
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$logf" >&2 || true
		die "$what failed (exit $rc); full log: $logf" \
			"read the log above, fix the cause and re-run $0"
	fi
	log "$what: done in ${n}s"
}

need_root() {
	[ "$(id -u)" -eq 0 ] ||
		die "$1 needs root (debootstrap, package install)" "re-run as root, e.g. sudo $0"
}

# ensure_packages [PKG...]: install what is missing, once; idempotent.
ensure_packages() {
	local missing=() p
	[ $# -gt 0 ] || set -- "${FQP_PACKAGES[@]}"
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	need_root "installing ${missing[*]}"
	log "installing missing Debian packages: ${missing[*]}"
	local logf=$FQP_CACHE/logs/apt.log
	mkdir -p "$FQP_CACHE/logs"
	if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$logf" 2>&1; then
		tail -n 20 "$logf" >&2
		die "apt-get could not install: ${missing[*]} (log: $logf)" \
			"check the machine's apt sources and network, then re-run"
	fi
}

# The Debian mirror, read from this machine's own apt configuration.
apt_mirror() {
	local m
	m=$(awk '/^URIs:/ {for (i = 2; i <= NF; i++) print $i}' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v -- '-security' | head -n 1 || true)
	if [ -z "$m" ]; then
		m=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' \
			/etc/apt/sources.list 2>/dev/null || true)
	fi
	[ -n "$m" ] || die "no Debian mirror found in /etc/apt/sources.list{,.d}" \
		"configure apt for bookworm, or set FQP_MIRROR"
	printf '%s\n' "${FQP_MIRROR:-$m}"
}

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

# Hash of the patch series, so trees are re-applied when it changes.
series_patches() { grep -vE '^[[:space:]]*(#|$)' "$FQP_ROOT/series" | awk '{print $1}'; }

series_hash() {
	local p
	{
		cat "$FQP_ROOT/series"
		series_patches | while read -r p; do cat "$FQP_ROOT/patches/$p"; done
	} | sha256sum | cut -c1-16
}

export QUILT_PATCHES=$FQP_ROOT/patches QUILT_SERIES=$FQP_ROOT/series QUILT_PC=.pc

# quilt_pop_all TREE: undo every applied patch. Files the patches touched
# are touched again afterwards: quilt restores the old mtime, and make would
# keep objects built from the patched text.
quilt_pop_all() {
	local tree=$1 files
	[ -d "$tree/.pc" ] || return 0
	files=$(cd "$tree" && find .pc -mindepth 2 -type f ! -name '.*' |
		sed -E 's|^\.pc/[^/]+/||' | sort -u)
	(cd "$tree" && quilt pop -a -f -q) >"$FQP_CACHE/logs/quilt-pop.log" 2>&1 || return 1
	rm -rf "$tree/.pc" "$tree/.fqp-series"
	(cd "$tree" && while read -r f; do [ -z "$f" ] || [ ! -e "$f" ] || touch "$f"; done <<<"$files")
}

# with_lock FILE: hold an exclusive lock on FILE until the script exits, so
# two runs never build into the same directory at once.
with_lock() {
	local fd
	mkdir -p "$(dirname "$1")"
	exec {fd}>"$1"
	if ! flock -n "$fd"; then
		log "waiting for another run holding $1"
		flock "$fd"
	fi
}

kernel_image() { printf '%s/%s-%s/arch/x86/boot/bzImage\n' "$FQP_BUILD" "$1" "$2"; }

# select_names WHAT LIST NAME...: the names in the comma-separated LIST,
# one per line, each checked against the known NAMEs (all of them when LIST
# is empty). An unknown one is reported and the status is 2 (usage).
select_names() {
	local what=$1 list=$2 n
	local -a names
	shift 2
	if [ -z "$list" ]; then
		printf '%s\n' "$@"
		return 0
	fi
	IFS=, read -ra names <<<"$list"
	for n in "${names[@]}"; do
		[[ " $* " == *" $n "* ]] || { echo "unknown $what: '$n' (known: $*)" >&2; return 2; }
		printf '%s\n' "$n"
	done
}
