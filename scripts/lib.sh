# shellcheck shell=bash
# Shared by every fq-pacing script: the cache paths, then the library in
# scripts/lib/, one file per concern, sourced in this order:
#   log.sh       logging, die with a next step, run_logged, with_lock
#   packages.sh  the Debian packages the pipeline needs, installed on demand
#   debian.sh    the base (6.1, 7.2 or 7.3), the Debian archive and its trees
#   series.sh    the quilt series, its hash, checkpatch
#   kconfig.sh   kernel configs from fragments, build dirs and images
#   qemu.sh      KVM or TCG, the guest clocks
#   uml.sh       User-Mode Linux boots (the native benchmark)
#   plugins.sh   the QEMU plugins' counts (instructions, cache misses)
#   cases.sh     named lists of guest cases (debug core, 7.x core)
#   tap.sh       TAP lines and counts of the host-side checks
#   ident.sh     the sender's identity and the mails
#   distro.sh    Debian's own kernel packages, and the series built as one
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

# shellcheck source=scripts/lib/log.sh
. "$FQP_ROOT/scripts/lib/log.sh"
# shellcheck source=scripts/lib/packages.sh
. "$FQP_ROOT/scripts/lib/packages.sh"
# shellcheck source=scripts/lib/debian.sh
. "$FQP_ROOT/scripts/lib/debian.sh"
# shellcheck source=scripts/lib/series.sh
. "$FQP_ROOT/scripts/lib/series.sh"
# shellcheck source=scripts/lib/kconfig.sh
. "$FQP_ROOT/scripts/lib/kconfig.sh"
# shellcheck source=scripts/lib/qemu.sh
. "$FQP_ROOT/scripts/lib/qemu.sh"
# shellcheck source=scripts/lib/uml.sh
. "$FQP_ROOT/scripts/lib/uml.sh"
# shellcheck source=scripts/lib/plugins.sh
. "$FQP_ROOT/scripts/lib/plugins.sh"
# shellcheck source=scripts/lib/cases.sh
. "$FQP_ROOT/scripts/lib/cases.sh"
# shellcheck source=scripts/lib/tap.sh
. "$FQP_ROOT/scripts/lib/tap.sh"
# shellcheck source=scripts/lib/ident.sh
. "$FQP_ROOT/scripts/lib/ident.sh"
# shellcheck source=scripts/lib/distro.sh
. "$FQP_ROOT/scripts/lib/distro.sh"

set_base "${FQP_BASE:-6.1}" || die "FQP_BASE=$FQP_BASE is not a base" "use one of: $FQP_BASES"
