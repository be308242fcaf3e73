# shellcheck shell=bash
# User-Mode Linux: the kernel built with ARCH=um (build-kernel.sh --config
# uml, config-fragments/uml.config) runs as a host process, its code as
# native x86-64 instructions on this machine's CPU and caches
# (docs/benchmark.md, "Native time"). boot-and-test.sh --config uml boots
# it on the guest image, copy-on-write (ubd0=COW,IMAGE: the shared image
# is never written), with the run disk as ubd1, the console on stdout and
# the second serial line (ttyS1, the suite's KTAP) on a pipe into a file,
# as the QEMU guest has them. bench.sh --native runs the exact bench's workloads in it.

# The guest's memory (the QEMU guests' 2G).
FQP_UML_MEM=${FQP_UML_MEM:-2G}

# uml_image DIR: the UML kernel of build dir DIR (a host executable).
uml_image() { printf '%s/linux\n' "$1"; }

# uml_init: PID 1 of a UML boot, as the kernel's init= and its arguments
# after "--": a shell that names the first ubd disks as the QEMU guest's
# virtio disks (/dev/vda, /dev/vdb; devtmpfs is mounted at boot) and hands
# over to the image's own init (/sbin/fqp-init), which mounts /dev/vdb and
# runs the suite. No "=" may appear in it (the kernel would read a
# parameter).
uml_init() {
	printf '%s\n' init=/bin/sh -- -c \
		'"ln -sf ubda /dev/vda && ln -sf ubdb /dev/vdb && exec /sbin/fqp-init"'
}

# uml_command LINUX ROOTFS COW RUNDISK KTAP-FD CMDLINE...: the host
# command of one boot, one word a line: LINUX with the image ROOTFS under
# the copy-on-write file COW (created; the image is only read), the run
# disk RUNDISK (written), the console on fd 0/1 and ttyS1's output on fd
# KTAP-FD, then CMDLINE (kernel parameters) and the init. Both outputs
# must be pipes (or ttys): UML polls its lines' descriptors with epoll,
# which refuses a regular file (a WARN in um_request_irq, and the line
# cannot be opened again). Nothing reads from the guest's lines.
uml_command() {
	local linux=$1 rootfs=$2 cow=$3 disk=$4 kfd=$5
	shift 5
	printf '%s\n' "$linux" "ubd0=$cow,$rootfs" "ubd1=$disk" "mem=$FQP_UML_MEM" \
		con=null con0=null,fd:1 ssl=null "ssl1=null,fd:$kfd" "$@"
	uml_init
}

# uml_pin_cpu: the host CPU a UML boot is pinned to (FQP_UML_CPU, else the
# last one): every host process of the guest (its kernel and each guest
# process, which UML runs as host processes of its own) inherits it.
uml_pin_cpu() {
	local cpu=${FQP_UML_CPU:-$(($(nproc) - 1))}
	[[ $cpu =~ ^[0-9]+$ ]] && [ "$cpu" -lt "$(nproc --all)" ] ||
		die "FQP_UML_CPU=$cpu is not a CPU of this machine (0-$(($(nproc --all) - 1)))" "unset it or pick one of those"
	echo "$cpu"
}

# uml_sampler_pin CPU: the taskset words that keep the host's sampler of
# a guest pinned to CPU off that CPU (one a line; none on a 1-CPU host).
uml_sampler_pin() {
	local c
	for c in $(seq 0 $(($(nproc) - 1))); do
		[ "$c" = "$1" ] || { printf '%s\n' taskset -c "$c"; return 0; }
	done
}

# uml_host_facts: the host's conditions for a native run's meta.txt: CPU
# model, cores, kernel, and the load average now.
uml_host_facts() {
	echo "host_cpu=$(awk -F': *' '/^model name/ { m = $2 } /^cpu family/ { f = $2 } /^model\t/ { n = $2 }
		/^cpu MHz/ { h = $2 } /^$/ { exit } END { printf "%s, family %s model %s, %.0f MHz", m, f, n, h }' /proc/cpuinfo)"
	echo "host_caches=$(lscpu 2>/dev/null | awk -F': *' '/^L[123][di]? cache/ { printf "%s%s %s", s, $1, $2; s = ", " }')"
	grep -q '^flags.* hypervisor' /proc/cpuinfo && echo "host_virtual=yes (a virtual machine)" || true
	echo "host_cores=$(nproc --all)"
	echo "host_kernel=$(uname -r)"
	echo "host_loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
}
