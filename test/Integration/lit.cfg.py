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
