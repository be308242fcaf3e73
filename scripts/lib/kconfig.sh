# shellcheck shell=bash
# Kernel configuration: a config from tinyconfig and fragments
# (kconfig_make), the check that every symbol asked for stuck
# (config_check), one-off options (--kconfig-add) and the build dir and
# bzImage of each tree and config.

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

# cross_fragments SRC: the fragments of a cross or check build of tree SRC
# on top of tinyconfig: cross.config, and cross-proc-sysctl.config where
# the tree has PROC_SYSCTL (7.3 folded it into SYSCTL).
cross_fragments() {
	echo "$FQP_ROOT/config-fragments/cross.config"
	! grep -qsx 'config PROC_SYSCTL' "$1/fs/proc/Kconfig" ||
		echo "$FQP_ROOT/config-fragments/cross-proc-sysctl.config"
}

# kunit_fq_fits SRC FRAG...: tree SRC has fq's KUnit tests
# (NET_SCH_FQ_KUNIT_TEST) and a config from the fragments FRAG can build
# them: where the option depends on NET_SCH_FQ=y (both series: a module
# must not carry the tests), no fragment may make sch_fq a module.
kunit_fq_fits() {
	local src=$1 dep
	shift
	dep=$(awk '/^config NET_SCH_FQ_KUNIT_TEST$/ {on = 1; next} on && /^(config|menu|endmenu|if|endif)/ {on = 0}
		on && /depends on/ {print}' "$src/net/sched/Kconfig" 2>/dev/null)
	grep -qs '^config NET_SCH_FQ_KUNIT_TEST$' "$src/net/sched/Kconfig" || return 1
	[[ $dep == *NET_SCH_FQ=y* ]] || return 0
	! grep -qhx 'CONFIG_NET_SCH_FQ=m' "$@"
}

# --- One-off options: --kconfig-add ITEM, as tuxmake takes it ------------
# A build with one-off options has a build dir of its own, named after
# their hash: the standard build of the same tree and config, which every
# other run reuses, is never reconfigured by it.

# kconfig_add_lines ITEM: the fragment lines of one --kconfig-add ITEM:
# CONFIG_FOO=VALUE as it is, CONFIG_FOO=n as "# CONFIG_FOO is not set",
# or the lines of a fragment file. Status 2 (usage) for anything else.
kconfig_add_lines() {
	if [[ $1 =~ ^(CONFIG_[A-Za-z0-9_]+)=n$ ]]; then
		printf '# %s is not set\n' "${BASH_REMATCH[1]}"
	elif [[ $1 =~ ^CONFIG_[A-Za-z0-9_]+=.+$ ]]; then
		printf '%s\n' "$1"
	elif [ -f "$1" ]; then
		cat "$1"
	else
		echo "bad --kconfig-add: '$1' (CONFIG_FOO=y, =m, =n or =VALUE, or the path of a config fragment)" >&2
		return 2
	fi
}

# kconfig_add_tag ITEM...: what one-off options add to the build dir's
# name: nothing without any, else "+kconfig-" and 8 hex digits of the
# hash of their fragment.
kconfig_add_tag() {
	local i
	[ $# -gt 0 ] || return 0
	printf '+kconfig-%s\n' "$(for i in "$@"; do kconfig_add_lines "$i"; done | sha256sum | cut -c1-8)"
}

# build_dir TREE CONFIG [ITEM...]: the O= dir of TREE (stock|patched) on
# the base, in CONFIG, with the one-off options ITEM (--kconfig-add).
build_dir() {
	local tree=$1 config=$2
	shift 2
	printf '%s/%s-%s%s\n' "$FQP_BUILD" "$(base_tree "$tree")" "$config" "$(kconfig_add_tag "$@")"
}

# kernel_image TREE CONFIG [ITEM...]: the bzImage of that build dir (the
# UML executable of a uml one).
kernel_image() {
	if [ "$2" = uml ]; then uml_image "$(build_dir "$@")"; else printf '%s/arch/x86/boot/bzImage\n' "$(build_dir "$@")"; fi
}

# use_image PATH: --kernel PATH, a bzImage to boot (as vng and tuxrun
# take one). Sets IMAGE (its absolute path), IMAGE_TREE (stock|patched:
# whose behaviour its cases assert) and IMAGE_CONFIG (test|debug|bench).
# An image in one of our build dirs (build/patched-test, build/stock73-
# debug+kconfig-...) is what its dir says, on its base (set_base); one
# from elsewhere is booted as the series' (IMAGE_FOREIGN=1, IMAGE_CONFIG
# empty). Bad usage (exit 2) when PATH is no file.
# shellcheck disable=SC2034 # IMAGE_* are for the caller
use_image() {
	local d
	[ -f "$1" ] || usage_error "bad --kernel: '$1' (stock, patched, or the path of a bzImage)"
	IMAGE=$(realpath "$1") IMAGE_TREE=patched IMAGE_CONFIG='' IMAGE_FOREIGN=1
	d=${IMAGE%/arch/x86/boot/bzImage}
	[ "${d%/*}" = "$(realpath -m "$FQP_BUILD")" ] &&
		[[ ${d##*/} =~ ^(stock|patched)(7([0-9]))?(-[0-9]+)?-(test|debug|bench)(\+.*)?$ ]] || return 0
	IMAGE_TREE=${BASH_REMATCH[1]} IMAGE_CONFIG=${BASH_REMATCH[5]} IMAGE_FOREIGN=0
	if [ -n "${BASH_REMATCH[2]}" ]; then set_base "7.${BASH_REMATCH[3]}"; else set_base 6.1; fi
}
