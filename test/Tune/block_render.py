"""block_bench.render on a block.json with made-up peers and a whole-block
run that failed its check against the seed (block-bench.test): the ratio
columns, the peers' table and the note, which the stand-in runner's path
(no torch, every check passing) does not reach."""
import json
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "examples", "bench"))
import block_bench  # noqa: E402

result = json.load(open(sys.argv[2]))
result["peers"] = {"meta": {"device": "NVIDIA H200", "torch": "2.11.0",
                            "compile_mode": "max-autotune-no-cudagraphs"},
                   "block": {"entries": [
    {"name": "torch eager tf32, op by op as the MLIR", "kind": "torch", "form": "literal",
     "precision": "tf32", "check": "pass", "rel_l2": 2.6e-4, "median_us": 800.0,
     "min_us": 790.0, "max_us": 900.0, "kernels": ["k"] * 25, "first_call_s": 0.5},
    {"name": "torch eager tf32, F.rms_norm + softmax + F.silu", "kind": "torch",
     "form": "fused ops", "precision": "tf32", "check": "pass", "rel_l2": 2.6e-4,
     "median_us": 400.0, "min_us": 390.0, "max_us": 450.0},
    {"name": "torch.compile tf32 (max-autotune-no-cudagraphs)", "kind": "torch.compile",
     "form": "compiled", "precision": "tf32", "check": "pass", "rel_l2": 6.9e-4,
     "median_us": 200.0, "min_us": 199.0, "max_us": 210.0, "first_call_s": 80.0},
    {"name": "torch.compile ieee (max-autotune-no-cudagraphs)", "kind": "torch.compile",
     "form": "compiled", "precision": "ieee", "check": "fail", "rel_l2": 3e-3}],
    "agreement": [{"a": "x", "b": "y", "rel_l2": 1e-4}, {"a": "x", "b": "z", "rel_l2": 5e-4}]}}
whole = result["whole"]
whole["runs"] = [{"correctness": "fail", "rel_l2": 6.6e-3, "reference": "seed, mapped plainly"},
                 dict(whole["runs"][0], reference="itself")]
whole["reference"] = "itself"
result["composed"]["auto"].update(correctness="fail", rel_l2=1.5e-3)
result["composed"]["best"].update(determinism=True)
sys.stdout.write(block_bench.render(result))
