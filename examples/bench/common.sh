# Sourced by the *-bench.sh scripts: "$@" is [BUILD_DIR] [OUT_DIR]. Sets
# build, out (created), here (this directory), bundles (the integration
# bundles built by `make build`) and the tirx-run device-profile cache.
set -euo pipefail
build=${1:-build}
out=${2:-$build/bench}
mkdir -p "$out"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bundles=$build/integration-bundles
export XDG_CACHE_HOME=$out/cache
