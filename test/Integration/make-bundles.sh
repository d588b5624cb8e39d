#!/usr/bin/env bash
# Builds the bundles the GPU integration tests run, from the recipes below:
#   make-bundles.sh TIRX_OPT SOURCE_ROOT OUT_DIR
set -euo pipefail
opt=$1 src=$2 out=$3
mkdir -p "$out"
export_bundle() { # name input [passes...]
  local name=$1 input=$2; shift 2
  rm -rf "$out/$name"
  "$opt" "$input" "$@" --tirx-export-bundle="dir=$out/$name ir-version=$name" -o /dev/null
}
schedule() { # name script
  echo "--transform-preload-library=transform-library-paths=$src/examples/$2"
}
ex=$src/examples
in=$src/test/Integration/Inputs
export_bundle saxpy-ref "$ex/saxpy.mlir" --tirx-map-reference
export_bundle saxpy-scalar "$ex/saxpy.mlir" "$(schedule x saxpy-scalar.transform.mlir)" --transform-interpreter
export_bundle saxpy-vec4 "$ex/saxpy.mlir" "$(schedule x saxpy-vec4.transform.mlir)" --transform-interpreter
export_bundle saxpy-off-by-one "$in/saxpy-off-by-one.mlir"
export_bundle saxpy-hang "$in/saxpy-hang.mlir"
touch "$out/.stamp"
