"""The Python API and the agent loop on saxpy, without a GPU (compile-only
feedback). Run by `make check` (python3 -m unittest)."""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

from tirx import (GreedyPolicy, HarnessAgent, HarnessError, LLMPolicy,  # noqa: E402
                  MCPClient, Observation, RandomPolicy, TIRxContext, prompt_payload,
                  choose_parallel_tiling, cyclic_chunk, library_plan, row_block_threads,
                  vector_widths)
from tirx.client import find_tirx  # noqa: E402

SAXPY = os.path.join(ROOT, "examples", "saxpy.mlir")


class ContextTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.ctx = TIRxContext(backend="cuda", target="sm_90",
                               workspace_dir=os.path.join(self.dir, "ws"))

    def tearDown(self):
        self.ctx.close()

    def test_commit_read_apply_reject_diff(self):
        v1 = self.ctx.commit_ir(SAXPY, message="seed")
        self.assertEqual(v1, "v1")
        self.assertIn("linalg.generic", self.ctx.read_ir(v1))
        r = self.ctx.apply(v1, "tile_to_blocks", {"tile_sizes": [1024]})
        self.assertTrue(r.ok)
        self.assertEqual(r.new_version, "v2")
        bad = self.ctx.apply(r.new_version, "vectorize", {"width": 4})
        self.assertFalse(bad.ok)
        self.assertEqual(bad.rejection.code, "bad_order")
        self.assertEqual(bad.rejection.hint, "apply tile_to_threads first")
        self.assertIn("linalg.generic", bad.rejection.payload_op)
        again = self.ctx.apply(r.new_version, "vectorize", {"width": 4})
        self.assertTrue(again.deduplicated)
        unknown = self.ctx.apply(v1, "teleport", {})
        self.assertEqual(unknown.rejection.code, "unknown_transform")
        diff = self.ctx.diff(v1, r.new_version)
        self.assertTrue(any("loop added" in line for line in diff["summary"]))
        self.assertIn("tile_to_blocks",
                      [s["title"] for s in self.ctx.action_schema()["oneOf"]])

    def test_fusion_by_actions_with_an_indexed_target(self):
        v1 = self.ctx.commit_ir(os.path.join(ROOT, "examples", "exp-scale.mlir"))
        early = self.ctx.apply(v1, "fuse_into")
        self.assertEqual(early.rejection.code, "no_consumer_loop")
        tiled = self.ctx.apply(v1, "tile_to_blocks", {"tile_sizes": [1024]},
                               target={"op": "linalg.generic", "index": 1})
        self.assertTrue(tiled.ok, tiled.rejection)
        fused = self.ctx.apply(tiled.new_version, "fuse_into")
        self.assertTrue(fused.ok, fused.rejection)
        ir = self.ctx.read_ir(fused.new_version)
        self.assertIn("#gpu.address_space<workgroup>", ir)
        self.assertNotIn("memref<1048576xf32> = memref.alloc", ir)

    def test_split_reduction_and_tensor_cores_by_actions(self):
        # A reduction split into three ops, each mapped: three kernels, the
        # block sizes inferred by map_to_gpu; a wrong target is refused.
        v = self.ctx.commit_ir(os.path.join(ROOT, "examples", "rowsum.mlir"))
        recipe = json.load(open(os.path.join(ROOT, "examples", "recipes",
                                             "rowsum-split.json")))
        for step in recipe:
            r = self.ctx.apply(v, step["transform"], step["params"], target=step.get("target"))
            self.assertTrue(r.ok, r.rejection)
            v = r.new_version
        launches = self.ctx.view(v, "thread_binding")["launches"]
        self.assertEqual(len(launches), 3)
        missing = self.ctx.apply(v, "use_mma", {"warps": [2, 2]})
        self.assertEqual(missing.rejection.code, "no_such_target")
        # A matmul on tensor cores: use_mma refuses 4 warps of 16 rows in a
        # 32-row block and says which counts fit.
        m = self.ctx.commit_ir(os.path.join(ROOT, "examples", "matmul.mlir"))
        tiled = self.ctx.apply(m, "tile_to_blocks", {"tile_sizes": [32, 32]},
                               target="linalg.matmul")
        wide = self.ctx.apply(tiled.new_version, "use_mma", {"warps": [4, 1]})
        self.assertEqual(wide.rejection.code, "not_divisible")
        self.assertEqual(wide.rejection.hint, "try 1 or 2")
        mma = self.ctx.apply(tiled.new_version, "use_mma", {"warps": [2, 2]})
        mapped = self.ctx.apply(mma.new_version, "map_to_gpu")
        self.assertTrue(mapped.ok, mapped.rejection)
        self.assertIn("nvgpu.mma.sync", self.ctx.read_ir(mapped.new_version))

    def test_run_without_gpu_is_compile_only(self):
        if os.path.exists("/dev/nvidia0"):
            self.skipTest("a GPU is present")
        v1 = self.ctx.commit_ir(SAXPY)
        v = v1
        for transform, params in [("tile_to_blocks", {"tile_sizes": [1024]}),
                                  ("tile_to_threads", {"elements_per_thread": [4]}),
                                  ("vectorize", {"width": 4}),
                                  ("map_to_gpu", {"block_dims": [256]})]:
            v = self.ctx.apply(v, transform, params).new_version
        feedback = self.ctx.run(v)
        self.assertEqual(feedback["compile_status"], "ok")
        self.assertEqual(feedback["launch_status"], "no_device")
        self.assertIn("align 16", self.ctx.summarize(v))
        session = self.ctx.export_session(os.path.join(self.dir, "session.json"))
        self.assertEqual(session["final_ir_version"], "v1")
        self.assertEqual(len(session["steps"]), 4)

    def test_bad_input_never_kills_the_server(self):
        v1 = self.ctx.commit_ir(SAXPY)
        with self.assertRaises(HarnessError) as e:
            self.ctx.read_ir("../../etc/passwd")
        # Outside the tool's schema (a version is vN): refused before the
        # session is opened.
        self.assertEqual(e.exception.data["error"]["code"], "usage")
        self.assertIn("does not match", e.exception.data["error"]["message"])
        with self.assertRaises(HarnessError) as e:
            self.ctx.read_ir("v99")
        self.assertEqual(e.exception.data["error"]["code"], "unknown_version")
        with self.assertRaises(HarnessError) as e:
            self.ctx._client.request("no/such/method")
        self.assertEqual(e.exception.code, -32601)
        # A malformed line: the server answers with a parse error, then goes on.
        self.ctx._client._proc.stdin.write("{not json\n")
        self.ctx._client._proc.stdin.flush()
        reply = json.loads(self.ctx._client._proc.stdout.readline())
        self.assertEqual(reply["error"]["code"], -32700)
        self.assertIn("linalg.generic", self.ctx.read_ir(v1))
        # A huge request (over 8 MiB) is refused, not buffered; the server lives.
        self.ctx._client._proc.stdin.write('{"jsonrpc": "2.0", "id": 99, "x": "' +
                                           "a" * (9 << 20) + '"}\n')
        self.ctx._client._proc.stdin.flush()
        reply = json.loads(self.ctx._client._proc.stdout.readline())
        self.assertEqual(reply["error"]["code"], -32600)
        self.assertIn("larger than", reply["error"]["message"])
        self.assertEqual(self.ctx.head(), v1)
        with self.assertRaises(ValueError):
            TIRxContext(enable_audit=False)


class AgentTest(unittest.TestCase):
    def test_greedy_reaches_4_wide_in_8_steps(self):
        d = tempfile.mkdtemp()
        with TIRxContext(workspace_dir=os.path.join(d, "ws")) as ctx:
            v1 = ctx.commit_ir(SAXPY)
            result = HarnessAgent(GreedyPolicy(), ctx).run(v1, steps=8)
            final = result["final_version"]
            summary = ctx.summarize(final)
            self.assertIn("grid 65536x1x1, block 256x1x1", summary)
            self.assertIn("load x: 16 B, contiguous, align 16", summary)
            self.assertLessEqual(len(result["history"]), 8)
            # The same kernel as the 4-wide recipe (examples/recipes/
            # saxpy-vec4.json, measured in docs/benchmarks.md): same IR,
            # same speed on a GPU.
            recipe = json.load(open(os.path.join(ROOT, "examples", "recipes", "saxpy-vec4.json")))
            with TIRxContext(workspace_dir=os.path.join(d, "recipe")) as other:
                v = other.commit_ir(SAXPY)
                for action in recipe:
                    v = other.apply(v, action["transform"], action["params"]).new_version
                self.assertEqual(other.read_ir(v), ctx.read_ir(final))

    def test_greedy_schedules_a_prime_length_with_tails(self):
        # 1000003 elements: no block size divides them; blocks of 1024 and
        # a tail block, 4-wide vectors, one kernel of 977 blocks.
        d = tempfile.mkdtemp()
        with TIRxContext(workspace_dir=os.path.join(d, "ws")) as ctx:
            v1 = ctx.commit_ir(os.path.join(ROOT, "examples", "prime-saxpy.mlir"))
            result = HarnessAgent(GreedyPolicy(), ctx).run(v1, steps=8)
            summary = ctx.summarize(result["final_version"])
            self.assertIn("grid 977x1x1, block 256x1x1", summary)
            self.assertIn("align 16", summary)

    def test_greedy_shares_a_reduction_among_a_blocks_threads(self):
        # A row sum: a row per block, reduce_in_block, one kernel; the IR of
        # the benchmark's rowsum-block recipe (docs/benchmarks.md: 0.96 of
        # Triton on the H200).
        d = tempfile.mkdtemp()
        rowsum = os.path.join(ROOT, "examples", "rowsum.mlir")
        with TIRxContext(workspace_dir=os.path.join(d, "ws")) as ctx:
            v1 = ctx.commit_ir(rowsum)
            result = HarnessAgent(GreedyPolicy(), ctx).run(v1, steps=6)
            plans = [h["plan"]["transform"] for h in result["history"]]
            self.assertEqual(plans[:3], ["tile_to_blocks", "reduce_in_block", "map_to_gpu"])
            final = result["final_version"]
            self.assertIn("grid 1024x1x1, block 256x1x1", ctx.summarize(final))
            recipe = json.load(open(os.path.join(ROOT, "examples", "bench", "recipes",
                                                 "rowsum-block.json")))
            with TIRxContext(workspace_dir=os.path.join(d, "recipe")) as other:
                v = other.commit_ir(rowsum)
                for action in recipe:
                    v = other.apply(v, action["transform"], action["params"],
                                    target=action.get("target")).new_version
                self.assertEqual(other.read_ir(v), ctx.read_ir(final))

    def test_auto_reaches_a_mapped_version(self):
        # The library's automatic schedule: saxpy in 4 steps (the IR of the
        # recipe saxpy-vec4), a 1000 x 1000 payload with 2-wide vectors.
        with TIRxContext(workspace_dir=os.path.join(tempfile.mkdtemp(), "ws")) as ctx:
            v1 = ctx.commit_ir(SAXPY)
            r = ctx.auto(v1)
            self.assertTrue(r["ok"], r)
            self.assertEqual(r["final_version"], "v5")
            self.assertEqual([s["action"]["transform"] for s in r["steps"]],
                             ["tile_to_blocks", "tile_to_threads", "vectorize", "map_to_gpu"])
            self.assertTrue(ctx.view("v5", "thread_binding")["launches"])

    def test_greedy_tiles_several_loops_as_auto_does(self):
        ctx = TIRxContext(workspace_dir=os.path.join(tempfile.mkdtemp(), "ws-sq"))
        try:
            v = ctx.commit_ir(os.path.join(ROOT, "examples", "suite", "square_1000.mlir"))
            result = HarnessAgent(GreedyPolicy(), ctx).run(v, steps=6)
            plans = [h["plan"] for h in result["history"] if h["ok"]]
            self.assertEqual(plans[0]["params"], {"tile_sizes": [8, 40]})
            self.assertEqual(plans[1]["params"], {"elements_per_thread": [1, 2]})
            self.assertEqual(plans[-1]["transform"], "map_to_gpu")
        finally:
            ctx.close()

    def _greedy_matches_suite_recipe(self, name, steps):
        # The greedy policy from the tensor seed: the IR of the suite's
        # recipe (what tirx auto takes too: test/Harness/auto.test).
        d = tempfile.mkdtemp()
        seed = os.path.join(ROOT, "examples", "suite", name + ".mlir")
        with TIRxContext(workspace_dir=os.path.join(d, "ws")) as ctx:
            v1 = ctx.commit_ir(seed)
            result = HarnessAgent(GreedyPolicy(), ctx).run(v1, steps=steps)
            self.assertTrue(all(h["ok"] for h in result["history"]), result["history"])
            plans = [h["plan"]["transform"] for h in result["history"]]
            recipe = json.load(open(os.path.join(ROOT, "examples", "suite", "recipes",
                                                 name + ".json")))
            self.assertEqual(plans, [a["transform"] for a in recipe])
            with TIRxContext(workspace_dir=os.path.join(d, "recipe")) as other:
                v = other.commit_ir(seed)
                for action in recipe:
                    v = other.apply(v, action["transform"], action["params"],
                                    target=action.get("target")).new_version
                self.assertEqual(other.read_ir(v), ctx.read_ir(result["final_version"]))

    def test_greedy_maps_what_its_own_rules_do_not_cover(self):
        # Named ops (linalg.matmul, linalg.transpose, a batch matmul), a
        # column reduction, a run-time size, a convolution, a row sum over a
        # view: the greedy policy's own rules stopped or were refused on
        # each (no_such_target, not_parallel...); the library's next step
        # (tirx auto --suggest) takes it to a kernel, as tirx auto does.
        for name in ("matmul_f32", "colsum_acc", "add_dynamic", "conv2d",
                     "permute_0213_f16", "view_rowsum"):
            with self.subTest(name=name), TIRxContext(
                    workspace_dir=os.path.join(tempfile.mkdtemp(), "ws")) as ctx:
                v1 = ctx.commit_ir(os.path.join(ROOT, "examples", "suite", name + ".mlir"))
                result = HarnessAgent(GreedyPolicy(), ctx).run(v1, steps=48)
                final = result["final_version"]
                self.assertTrue(ctx.view(final, "thread_binding")["launches"],
                                [(h["plan"], h["outcome"]) for h in result["history"]])
                self.assertTrue(ctx.suggest(final)["mapped"])

    def test_library_plan_passes_over_a_refused_optional_step(self):
        # What auto does with an optional step each of whose candidates was
        # refused (a pipeline a race check refuses): passed over, the next
        # step's candidate taken; a refusal at another version is no
        # refusal here.
        pipe = {"transform": "pipeline", "params": {"stages": 2},
                "target": {"op": "scf.for", "index": 0}}
        gpu = {"transform": "map_to_gpu", "params": {}}
        asked = []

        def suggest(skipped=()):
            asked.append(list(skipped))
            steps = [{"why": "map", "optional": False, "key": "", "candidates": [gpu]}]
            if "pipe" not in skipped:
                steps.insert(0, {"why": "pipeline", "optional": True, "key": "pipe",
                                 "candidates": [pipe]})
            return {"steps": steps, "mapped": False}

        refusal = {"from": "v7", "ok": False, "plan": {"transform": "pipeline",
                   "params": {"stages": 2}, "target": {"op": "scf.for", "index": 0}}}
        obs = Observation("v7", "", {}, {}, history=[refusal], suggest=suggest)
        self.assertEqual(library_plan(obs).transform, "map_to_gpu")
        self.assertEqual(asked, [[], ["pipe"]])
        obs = Observation("v8", "", {}, {}, history=[refusal], suggest=suggest)
        self.assertEqual(library_plan(obs).transform, "pipeline")
        self.assertIsNone(library_plan(Observation("v8", "", {}, {})))

        def broken(skipped=()):
            raise HarnessError(None, "tirx auto --suggest answered no JSON")
        self.assertIsNone(library_plan(Observation("v8", "", {}, {}, suggest=broken)))

    def test_greedy_puts_softmax_in_one_kernel(self):
        # Two reductions in the row: 512 threads, for every op of the block.
        self._greedy_matches_suite_recipe("softmax", 14)

    def test_greedy_puts_layernorm_on_512_threads(self):
        self._greedy_matches_suite_recipe("layernorm", 11)

    def test_greedy_keeps_rmsnorm_on_1024_threads(self):
        self._greedy_matches_suite_recipe("rmsnorm_weight", 9)

    def test_greedy_transposes_through_shared_memory(self):
        self._greedy_matches_suite_recipe("transpose", 6)
    def test_greedy_puts_a_16_bit_matmul_on_tensor_cores_as_auto_does(self):
        # f16 x f16 -> f32 on an sm_90 workspace: the library's actions, as
        # `tirx auto` takes them (128x256 blocks, use_wgmma with 2
        # warpgroups, the kernel), the same final IR.
        payload = os.path.join(ROOT, "test", "Tune", "Inputs", "matmul_f16_256.mlir")
        with TIRxContext(workspace_dir=os.path.join(tempfile.mkdtemp(), "ws")) as ctx:
            v1 = ctx.commit_ir(payload)
            result = HarnessAgent(GreedyPolicy(), ctx).run(v1, steps=8)
            plans = [h["plan"] for h in result["history"] if h["ok"]]
            self.assertEqual([p["transform"] for p in plans],
                             ["tile_to_blocks", "use_wgmma", "map_to_gpu"])
            self.assertEqual(plans[1]["params"], {"stages": 4, "warpgroups": 2})
            auto = ctx.auto(v1)
            self.assertTrue(auto["ok"], auto)
            self.assertEqual([s["action"]["params"] for s in auto["steps"] if s["ok"]],
                             [p["params"] for p in plans])
            self.assertEqual(ctx.read_ir(auto["final_version"]),
                             ctx.read_ir(result["final_version"]))

    def test_greedy_keeps_mma_sync_on_an_sm_80_workspace(self):
        # No wgmma on sm_80 (the lowering refuses it): auto's mma.sync
        # schedule (128x128 blocks, K steps of 32, padded shared tiles, 2x2
        # warps, the copies pipelined), which the greedy policy takes too.
        payload = os.path.join(ROOT, "test", "Tune", "Inputs", "matmul_f16_256.mlir")
        ws = os.path.join(tempfile.mkdtemp(), "ws")
        subprocess.run([find_tirx(), "init", payload, "--target", "sm_80",
                        "--workspace", ws], check=True, capture_output=True)
        with TIRxContext(workspace_dir=ws) as ctx:
            result = HarnessAgent(GreedyPolicy(), ctx).run("v1", steps=8)
            plans = [h["plan"] for h in result["history"] if h["ok"]]
            self.assertEqual([p["transform"] for p in plans],
                             ["tile_to_blocks", "tile_reduction", "promote_to_shared",
                              "use_mma", "pipeline", "map_to_gpu"])
            auto = ctx.auto("v1")
            self.assertTrue(auto["ok"], auto)
            self.assertEqual(ctx.read_ir(auto["final_version"]),
                             ctx.read_ir(result["final_version"]))

    def test_rules_match_the_library(self):
        # The same choices as test/Unit/AutoTest.cpp.
        self.assertEqual(vector_widths(2, 8192), [8, 4, 2, 1])
        self.assertEqual(row_block_threads(8192), 1024)  # [1, 8]: 4-wide twice
        self.assertEqual(row_block_threads(1024), 256)
        self.assertEqual(row_block_threads(8192, at_most=512), 512)  # [1, 16]
        self.assertEqual(row_block_threads(1024, at_most=512), 256)
        self.assertEqual([cyclic_chunk(8), cyclic_chunk(16, 2), cyclic_chunk(8, 4, False),
                          cyclic_chunk(4), cyclic_chunk(1)], [4, 8, 1, 0, 0])
        self.assertEqual(choose_parallel_tiling([67108864])["block_tile"], [1024])
        self.assertEqual(choose_parallel_tiling([8192, 8192])["block_tile"], [1, 1024])
        t = choose_parallel_tiling([1000, 1000])
        self.assertEqual((t["width"], t["block_tile"]), (2, [8, 40]))
        self.assertIsNone(choose_parallel_tiling([1000003]))

    def test_random_policy_is_seeded_and_survives_refusals(self):
        d = tempfile.mkdtemp()
        with TIRxContext(workspace_dir=os.path.join(d, "ws")) as ctx:
            v1 = ctx.commit_ir(SAXPY)
            a = HarnessAgent(RandomPolicy(seed=3), ctx).run(v1, steps=4)
            plans = [h["plan"] for h in a["history"]]
            self.assertEqual(len(plans), 4)
            b = [RandomPolicy(seed=3).plan(None, ctx.action_schema()).__dict__]
            self.assertEqual(b[0], plans[0])

    def test_prompt_payload_keeps_its_budget(self):
        obs = Observation("v3", "line\n" * 50,
                          {"bottleneck": "narrow_global_access", "duration_us": 235.0,
                           "resource_estimate": {"registers_per_thread": 18}},
                          {}, ["vector width 1 -> 4"],
                          [{"plan": "p%d" % i, "ok": i % 2 == 0, "outcome": "x" * 40}
                           for i in range(100)])
        text = prompt_payload(obs, budget=500)
        self.assertLessEqual(len(text), 500)
        self.assertTrue(text.startswith("version v3\nbottleneck: narrow_global_access"))


class ChatHandler(http.server.BaseHTTPRequestHandler):
    replies, requests = [], []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ChatHandler.requests.append({"path": self.path, "body": body,
                                     "auth": self.headers.get("Authorization")})
        content = ChatHandler.replies.pop(0)
        data = json.dumps({"choices": [{"message": {"role": "assistant",
                                                    "content": content}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class LLMPolicyTest(unittest.TestCase):
    def test_chat_completions_protocol(self):
        server = http.server.HTTPServer(("127.0.0.1", 0), ChatHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        ChatHandler.replies = [
            'First tile to blocks: {"transform": "tile_to_blocks", "params": {"tile_sizes": [1024]}}',
            '{"transform": "vectorize", "params": {"width": 4}}',
            '{"done": true}']
        ChatHandler.requests = []
        d = tempfile.mkdtemp()
        url = "http://127.0.0.1:%d/v1" % server.server_address[1]
        with TIRxContext(workspace_dir=os.path.join(d, "ws")) as ctx:
            v1 = ctx.commit_ir(SAXPY)
            policy = LLMPolicy(url=url, model="test-model", key="secret")
            result = HarnessAgent(policy, ctx).run(v1, steps=5)
        server.shutdown()
        self.assertEqual(len(ChatHandler.requests), 3)
        first = ChatHandler.requests[0]
        self.assertEqual(first["path"], "/v1/chat/completions")
        self.assertEqual(first["auth"], "Bearer secret")
        self.assertEqual(first["body"]["model"], "test-model")
        self.assertEqual([m["role"] for m in first["body"]["messages"]], ["system", "user"])
        self.assertIn("version v1", first["body"]["messages"][1]["content"])
        # The refusal of the second action reaches the third prompt.
        third = ChatHandler.requests[2]["body"]["messages"][1]["content"]
        self.assertIn("rejected:", third)
        self.assertIn("bad_order", third)
        self.assertEqual(result["history"][0]["ok"], True)
        self.assertEqual(result["history"][1]["ok"], False)


if __name__ == "__main__":
    unittest.main()
