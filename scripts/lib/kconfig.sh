# shellcheck shell=bash
# Kernel configuration: a config from tinyconfig and fragments
# (kconfig_make), the check that every symbol asked for stuck
# (config_check) and the bzImage of each tree and config.

# kconfig_make SRC OUT LOG BASE FRAG... -- MAKE...: configure the O= dir OUT
# of tree SRC: `MAKE BASE` (e.g. tinyconfig), merge the fragments (paths
# absolute or relative to SRC), olddefconfig. MAKE is the whole make command
# (make -C SRC O=OUT ARCH=...). Output goes to LOG; a failure dies.
kconfig_make() {
	local src=$1 out=$2 logf=$3 base=$4
	local -a frags=()
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do frags+=("$1"); shift; done
	[ "${1:-}" = -- ] || die "kconfig_make: no -- before the make command (a bug in $0)"
	shift
	"$@" "$base" >"$logf" 2>&1 || die "make $base failed (log: $logf)" "read the log; is the tree complete?"
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "${frags[@]}") >>"$logf" 2>&1 ||
		die "merge_config.sh failed (log: $logf)" "check the fragments: ${frags[*]}"
	"$@" olddefconfig >>"$logf" 2>&1 || die "make olddefconfig failed (log: $logf)"
}

# config_check CONFIG FRAG...: every symbol the fragments set (=y/m/value or
# "is not set") must be so in CONFIG; where two fragments set one symbol,
# the later one's value counts, as in merge_config.sh. merge_config.sh only
# warns when one does not stick (a missing dependency, a typo); a kernel
# without what was asked for is worse than none. Says which did not stick;
# status 1 then.
config_check() {
	local cfg=$1 bad=0 line sym val
	local -A cfg_want=()
	shift
	while read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			cfg_want[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
			cfg_want[${BASH_REMATCH[1]}]=''
		fi
	done < <(cat "$@")
	for sym in "${!cfg_want[@]}"; do
		val=${cfg_want[$sym]}
		if [ -n "$val" ]; then
			grep -qxF "$sym=$val" "$cfg" || {
				warn "$sym=$val requested, got: $(grep -E "^(# )?${sym}[= ]" "$cfg" || echo 'absent')"
				bad=1
			}
		elif grep -qE "^$sym=" "$cfg"; then
			warn "$sym requested off, but it is on"
			bad=1
		fi
	done
	[ "$bad" = 0 ]
}

# kernel_image TREE CONFIG: the bzImage of TREE (stock|patched) on the base.
kernel_image() { printf '%s/%s-%s/arch/x86/boot/bzImage\n' "$FQP_BUILD" "$(base_tree "$1")" "$2"; }
