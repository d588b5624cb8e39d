# Source this file to use the pack: `. tirx-pack/env.sh`.
# tirx, tirx-opt and tirx-run come first on PATH; the Python package is on
# PYTHONPATH; the Python client finds the programs through TIRX_BIN_DIR.
# ptxas (and libdevice) are found by the lowering through $CUDA_HOME,
# $CUDA_PATH, ptxas on PATH, then /usr/local/cuda.
TIRX_PACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
export TIRX_PACK_DIR
export TIRX_BIN_DIR=$TIRX_PACK_DIR/bin
export PATH=$TIRX_PACK_DIR/bin:$PATH
export PYTHONPATH=$TIRX_PACK_DIR/python${PYTHONPATH:+:$PYTHONPATH}
