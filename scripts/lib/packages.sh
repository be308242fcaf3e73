# shellcheck shell=bash
# The Debian packages the pipeline needs, installed on demand with apt
# (ensure_packages), and the root check that goes with installing them.

# Everything the pipeline needs from Debian, installed on demand.
FQP_PACKAGES=(linux-source-6.1 quilt git gcc make flex bison bc libelf-dev
	libssl-dev qemu-system-x86 debootstrap e2fsprogs iproute2 iperf3
	ccache shellcheck gnuplot-nox libpcap-dev libmnl-dev python3 xz-utils
	cpio kmod perl libc6-dev debian-archive-keyring clang libbpf-dev)

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
