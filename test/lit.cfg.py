# -*- Python -*-
# lit configuration of the TIRx test suite.

import os
import sys
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TIRx"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Unit", "corpus", "node_modules", "client.mjs", "package.json", "package-lock.json", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "lit_cuda.py",
                   "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tirx_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", os.path.join(config.cuda_home, "bin"),
                             append_path=True)

config.substitutions.append(("%tirx_src", config.tirx_src_root))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%tirx_obj", config.tirx_obj_root))
config.substitutions.append(("%tirx_version", config.tirx_version))
config.substitutions.append(("%cuda_home", config.cuda_home))
# Longer names first: a substitution also matches the start of a longer one.
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx_launcher",
    "-DCMAKE_CXX_COMPILER_LAUNCHER=" + config.cxx_launcher
    if config.cxx_launcher else ""))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
config.substitutions.append(
    ("%tirx_plugin", os.path.join(config.tirx_lib_dir, "libTIRxPlugin.so")))
config.substitutions.append(
    ("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))

tools = [ToolSubst("tirx-opt", unresolved="fatal"),
         ToolSubst("tirx-run", unresolved="fatal"),
         ToolSubst("tirx", unresolved="fatal"),
         ToolSubst("tirx-minimal-opt", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, [config.tirx_tools_dir])

import shutil
if shutil.which("node") and os.path.isdir(os.path.join(
        config.tirx_src_root, "test", "MCP", "node_modules", "@modelcontextprotocol", "sdk")):
    config.available_features.add("mcp-sdk")

# tools/tirx-cpu-check: a schedule's arithmetic checked on the CPU through
# mlir-runner (test/Tools/cpu-check).
config.substitutions.append(("%tirx_cpu_check", "%s %s --bin %s --llvm-bin %s" % (
    sys.executable,
    os.path.join(config.tirx_src_root, "tools", "tirx-cpu-check", "tirx-cpu-check.py"),
    config.tirx_tools_dir, config.llvm_tools_dir)))
if os.path.exists(os.path.join(config.llvm_tools_dir, "mlir-runner")) and \
        os.path.exists(os.path.join(os.path.dirname(config.llvm_tools_dir), "lib",
                                    "libmlir_c_runner_utils.so")):
    config.available_features.add("mlir-runner")
# Debian's chromium (make deps installs it): renders the report headless.
if shutil.which("chromium"):
    config.available_features.add("chromium")

if os.path.exists(os.path.join(config.cuda_home, "bin", "ptxas")):
    config.available_features.add("ptxas")
# A single-node Slurm cluster that test/Tune/slurm.test starts and stops
# itself: Debian's slurm-wlm and munge (make deps installs them), as root.
if os.geteuid() == 0 and all(shutil.which(t) for t in (
        "slurmctld", "slurmd", "munged", "sbatch", "squeue", "scancel",
        "scontrol")):
    config.available_features.add("slurm")


sys.path.insert(0, os.path.dirname(__file__))
from lit_cuda import cuda_device_answers  # noqa: E402

if cuda_device_answers():
    config.available_features.add("cuda-device")
