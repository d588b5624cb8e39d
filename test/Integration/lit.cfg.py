# -*- Python -*-
# The GPU integration suite: runs bundles with tirx-run on a CUDA device.
# It needs only python3, tirx-run and the bundles that the build made
# (build/integration-bundles); no LLVM tool. Where no CUDA device answers,
# every test is UNSUPPORTED.

import os
import sys

import lit.formats

config.name = "TIRx-Integration"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.join(config.tirx_src_root, "test", "Integration")
config.test_exec_root = os.path.join(config.tirx_obj_root, "test", "Integration")

bundles = lit_config.params.get(
    "tirx_bundles", os.path.join(config.tirx_obj_root, "integration-bundles"))
tirx_run = lit_config.params.get(
    "tirx_run", os.path.join(config.tirx_obj_root, "bin", "tirx-run"))

# One GPU test at a time: tests that time kernels must not share the device.
lit_config.parallelism_groups["cuda-device"] = 1
config.parallelism_group = "cuda-device"

# `tirx` itself (tirx tune): a tirx that runs without LLVM installed (the
# self-contained one of `make pack`), passed as --param tirx=PATH; tests
# that need it are UNSUPPORTED without one.
tirx_cli = lit_config.params.get(
    "tirx", os.path.join(config.tirx_obj_root, "bin", "tirx"))
if os.access(tirx_cli, os.X_OK):
    config.available_features.add("tirx-cli")
config.substitutions.append(("%tirx_cli", tirx_cli))
config.substitutions.append(("%tirx_src", config.tirx_src_root))
config.substitutions.append(("%tirx_run", tirx_run))
config.substitutions.append(("%bundles", bundles))
config.substitutions.append(("%python", sys.executable))
# The runner caches the device profile here, not in $HOME.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.tirx_obj_root, "cache")
for var in ["CUDA_VISIBLE_DEVICES", "HOME", "PATH", "LD_LIBRARY_PATH"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]


sys.path.insert(0, os.path.join(config.tirx_src_root, "test"))
from lit_cuda import cuda_device_answers  # noqa: E402

if cuda_device_answers():
    config.available_features.add("cuda-device")

# mlir-runner-22 and its libraries, for the CUDA runtime's tests
# (CudaRuntime/, docs/cuda-runtime.md). The build makes
# build/runner-bundle.tar.xz (target tirx-runner-bundle), the one file to
# carry; it is unpacked here when the directory is missing or older.
runner_bundle = lit_config.params.get(
    "tirx_runner_bundle", os.path.join(config.tirx_obj_root, "runner-bundle"))
runner_archive = runner_bundle + ".tar.xz"
runner_bin = os.path.join(runner_bundle, "bin", "mlir-runner")
if os.path.isfile(runner_archive) and (
        not os.path.isfile(runner_bin) or
        os.path.getmtime(runner_bin) < os.path.getmtime(runner_archive)):
    import shutil
    import tarfile
    shutil.rmtree(runner_bundle, ignore_errors=True)
    try:
        with tarfile.open(runner_archive) as archive:
            # Plain files only; the "data" filter (Python 3.12+) checks that.
            extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            archive.extractall(os.path.dirname(runner_bundle), **extra)
        os.utime(runner_bin)
    except Exception as error:  # a carried bundle that cannot be used is an error
        lit_config.fatal("cannot unpack %s: %s" % (runner_archive, error))
if os.path.isfile(runner_bin):
    config.available_features.add("mlir-runner-bundle")
    runner_lib = os.path.join(runner_bundle, "lib")
    # glibc is the host's; everything else comes from the bundle.
    run_env = "env LD_LIBRARY_PATH=" + runner_lib + " "
    config.substitutions.append(("%mlir_runner", run_env + runner_bin))
    config.substitutions.append(
        ("%FileCheck", run_env + os.path.join(runner_bundle, "bin", "FileCheck")))
    config.substitutions.append(
        ("%cuda_runtime", os.path.join(runner_lib, "libtirx_cuda_runtime.so")))
    config.substitutions.append(
        ("%runner_utils", os.path.join(runner_lib, "libmlir_runner_utils.so") +
         "," + os.path.join(runner_lib, "libmlir_c_runner_utils.so")))
    config.substitutions.append(
        ("%runner_modules", os.path.join(runner_bundle, "modules")))
