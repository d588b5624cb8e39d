# -*- Python -*-
# lit configuration of the TIRx test suite.

import os
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TIRx"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in",
                   "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tirx_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", os.path.join(config.cuda_home, "bin"),
                             append_path=True)

config.substitutions.append(("%tirx_src", config.tirx_src_root))
config.substitutions.append(("%tirx_obj", config.tirx_obj_root))
config.substitutions.append(
    ("%tirx_plugin", os.path.join(config.tirx_lib_dir, "libTIRxPlugin.so")))
config.substitutions.append(
    ("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))

tools = [ToolSubst("tirx-opt", unresolved="fatal"),
         ToolSubst("tirx-run", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, [config.tirx_tools_dir])

if os.path.exists(os.path.join(config.cuda_home, "bin", "ptxas")):
    config.available_features.add("ptxas")


def cuda_device_answers():
    """True only where a CUDA driver is loaded and reports at least one device."""
    try:
        import ctypes
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    if cuda.cuInit(0) != 0:
        return False
    count = ctypes.c_int(0)
    return cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


if cuda_device_answers():
    config.available_features.add("cuda-device")
