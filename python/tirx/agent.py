"""The agent loop: observe -> plan -> apply -> run, with pluggable policies."""
import json
import os
import random
import re
import urllib.request
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

if TYPE_CHECKING:  # only for the annotations: no import cycle at run time
    from .context import TIRxContext


@dataclass
class Plan:
    transform: str
    params: dict
    target: Optional[str] = None

    def key(self) -> str:
        return json.dumps([self.transform, self.params, self.target], sort_keys=True)


@dataclass
class Observation:
    version: str
    summary: str
    feedback: dict
    views: dict
    last_diff: List[str] = field(default_factory=list)
    tried: List[dict] = field(default_factory=list)  # {plan, ok, outcome}


def prompt_payload(obs: Observation, budget: int = 2000) -> str:
    """The compact text an LLM sees, at most `budget` characters: the
    bottleneck and its figures, the resources, the last diff, the rejected
    and tried candidates. Lines are dropped from the end of each section,
    never truncated mid-figure, so the most important stay."""
    fb = obs.feedback or {}
    res = fb.get("resource_estimate") or {}
    sections = [
        ["version %s" % obs.version,
         "bottleneck: %s %s" % (fb.get("bottleneck", "unknown"), fb.get("bottleneck_reason", "")),
         "where: %s" % fb.get("bottleneck_location", ""),
         "status: compile %s, launch %s, correctness %s" % (
             fb.get("compile_status"), fb.get("launch_status"), fb.get("correctness")),
         "time: median %s us over %s samples; bandwidth %s of copy" % (
             fb.get("duration_us"), fb.get("sample_count"), fb.get("bandwidth_utilization"))],
        ["resources: %s registers, %s B shared, %s B spilled, occupancy %s" % (
            res.get("registers_per_thread"), res.get("shared_mem_bytes"),
            res.get("spill_bytes"), fb.get("theoretical_occupancy"))],
        ["IR: " + line for line in obs.summary.strip().splitlines()],
        ["last diff: " + d for d in obs.last_diff],
        ["rejected: %s -> %s" % (t["plan"], t["outcome"]) for t in obs.tried if not t["ok"]],
        ["tried: %s -> %s" % (t["plan"], t["outcome"]) for t in obs.tried if t["ok"]],
    ]
    out, used = [], 0
    for section in sections:
        for line in section:
            if used + len(line) + 1 > budget:
                break
            out.append(line)
            used += len(line) + 1
    return "\n".join(out)


def vector_widths(element_bytes: int, inner: int) -> List[int]:
    """16 bytes / element size, halved down to 1, each dividing `inner`
    (the rule of tirx auto, lib/Harness/Auto.cpp)."""
    out, w = [], max(1, 16 // element_bytes)
    while w >= 1:
        if inner % w == 0:
            out.append(w)
        w //= 2
    return out


def choose_parallel_tiling(extents: Sequence[int], element_bytes: int = 4,
                           vectorizable: bool = True) -> Optional[Dict[str, Any]]:
    """The block tile, elements per thread and threads tirx auto picks for a
    parallel iteration space (chooseParallelTiling in lib/Harness/Auto.cpp):
    tiles dividing the extents, threads a multiple of 32 in [32, 1024] near
    256, the widest vector that fits first; None when no tile divides."""
    import math
    if not extents or any((not isinstance(e, int)) or e <= 0 for e in extents):
        return None
    tiled = min(len(extents), 3)
    inner = tiled - 1
    widths = vector_widths(element_bytes, extents[inner]) \
        if vectorizable and len(extents) <= 3 else [1]
    total = 1
    for e in extents[:tiled]:
        total *= e
    for w in widths:
        best, best_cost = None, 0.0
        for ti in (d for d in range(1, min(extents[inner], 1024 * w) + 1)
                   if extents[inner] % d == 0 and d % w == 0):
            outers = [d for d in range(1, min(extents[inner - 1], 1024) + 1)
                      if extents[inner - 1] % d == 0] if tiled >= 2 else [1]
            for to in outers:
                threads = to * (ti // w)
                if threads < 32 or threads > 1024 or threads % 32:
                    continue
                blocks = total // (to * ti)
                cost = 4 * abs(math.log2(threads / 256))
                if ti * element_bytes < 128:
                    cost += 2
                if blocks < 264:
                    cost += math.log2(264 / blocks)
                cost -= 0.001 * ti
                if best is None or cost < best_cost:
                    tile = [1] * tiled
                    tile[inner] = ti
                    per = [1] * tiled
                    per[inner] = w
                    if tiled >= 2:
                        tile[inner - 1] = to
                    best, best_cost = {"block_tile": tile, "per_thread": per,
                                       "width": w, "threads": threads}, cost
        if best:
            return best
    return None


class GreedyPolicy:
    """Reads the views and the bottleneck and takes the next step of the
    classic schedule for an elementwise payload: blocks, threads, 16-byte
    vectors, GPU mapping; for a reduction with its parallel loops first (a
    row sum), a row per block whose threads share the row
    (reduce_in_block). Rejections steer it (a hint's width or sizes). Its
    tilings of several loops are those of `tirx auto`
    (choose_parallel_tiling); `TIRxContext.auto` runs the whole automatic
    schedule of the library (matmuls, split reductions, column sums, ...)."""

    def plan(self, obs: Observation, schema: Dict[str, Any]) -> Optional[Plan]:
        tried = {t["plan"] for t in obs.tried}
        bind = obs.views.get("thread_binding", {})
        loops = obs.views.get("loop_structure", {}).get("loops", [])
        mapped = bind.get("mapped_loops", [])
        launched = bool(bind.get("launches"))
        block_loops = [m for m in mapped if any(x.startswith("block") for x in m["mapping"])]
        thread_loops = [m for m in mapped if any(x.startswith("thread") for x in m["mapping"])]
        vectorized = "vector" in obs.summary and "align 16" in obs.summary

        def first_untried(candidates):
            for c in candidates:
                if c.key() not in tried:
                    return c
            return None

        # A reduction: its parallel loops (first) to blocks of one output,
        # the reduction shared by the block's threads, then the kernel.
        reductions = [l for l in loops if l["kind"].startswith("linalg")
                      and any(a["iterator"] == "reduction" for a in l["axes"])]
        if reductions and not launched:
            axes = reductions[0]["axes"]
            parallel = [a for a in axes if a["iterator"] == "parallel"]
            leading = axes[:len(parallel)] == parallel
            if not block_loops and parallel and leading:
                return first_untried([Plan("tile_to_blocks",
                                           {"tile_sizes": [1] * len(parallel)})])
            if block_loops and not thread_loops:
                return first_untried([Plan("reduce_in_block", {"threads": t})
                                      for t in (256, 128, 32)])
        if reductions == [] and launched is False and thread_loops and block_loops \
                and not any(l["kind"].startswith("linalg") for l in loops):
            return first_untried([Plan("map_to_gpu", {})])

        linalg = [l for l in loops if l["kind"].startswith("linalg")]
        if not launched and not block_loops:
            extents = [a["extent"] for l in linalg for a in l["axes"]]
            extent = next((e for e in extents if isinstance(e, int)), None)
            if linalg and len(linalg[0]["axes"]) > 1:
                # Several loops: the tiling tirx auto picks (tiles that
                # divide, threads a multiple of 32).
                t = choose_parallel_tiling([a["extent"] for a in linalg[0]["axes"]])
                return first_untried([Plan("tile_to_blocks", {"tile_sizes": t["block_tile"]})]
                                     if t else [])
            sizes = [s for s in (1024, 512, 256) if extent and extent % s == 0]
            # No size divides (a prime length): blocks of 1024 and a tail.
            return first_untried([Plan("tile_to_blocks", {"tile_sizes": [s]})
                                  for s in sizes or [1024]])
        if not launched and not thread_loops:
            if linalg and len(linalg[0]["axes"]) > 1:
                tile = [a["extent"] for a in linalg[0]["axes"]]
                plans = []
                for w in vector_widths(4, tile[-1]):
                    threads = 1
                    for e in tile:
                        threads *= e
                    threads //= w
                    if 32 <= threads <= 1024 and threads % 32 == 0:
                        plans.append(Plan("tile_to_threads",
                                          {"elements_per_thread": [1] * (len(tile) - 1) + [w]}))
                return first_untried(plans)
            return first_untried([Plan("tile_to_threads", {"elements_per_thread": [e]})
                                  for e in (4, 2, 1, 8)])
        if not launched and not vectorized:
            widths = [4, 2]
            for t in obs.tried:
                m = re.search(r"try width (\d+)", t["outcome"])
                if m:
                    widths.insert(0, int(m.group(1)))
            # The block: the widest thread loop (a tail's may be narrower).
            widest = max((t["iterations"] for t in thread_loops), default=256)
            return first_untried([Plan("vectorize", {"width": w}) for w in widths]) \
                or first_untried([Plan("map_to_gpu", {"block_dims": [widest]})])
        if not launched:
            threads = max((t["iterations"] for t in thread_loops), default=256)
            return first_untried([Plan("map_to_gpu", {"block_dims": [threads]})])
        return None  # launched with wide accesses: nothing left in this schedule


class RandomPolicy:
    """Random actions from the schema (a baseline and a search seed)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def plan(self, obs: Observation, schema: Dict[str, Any]) -> Optional[Plan]:
        choice = self.rng.choice(schema["oneOf"])
        name = choice["properties"]["transform"]["const"]
        props = choice["properties"]["params"].get("properties", {})
        params = {}
        for key in choice["properties"]["params"].get("required", []):
            spec = props[key]
            if "enum" in spec:
                params[key] = self.rng.choice(spec["enum"])
            elif spec.get("type") == "array":
                params[key] = [self.rng.choice([1, 2, 4, 16, 256, 1024])]
            else:
                lo, hi = spec.get("minimum", 1), min(spec.get("maximum", 64), 64)
                params[key] = self.rng.randint(lo, hi)
        return Plan(name, params)


class LLMPolicy:
    """Asks any OpenAI-compatible chat-completions endpoint for the next
    action. URL, model and key come from TIRX_LLM_URL, TIRX_LLM_MODEL and
    TIRX_LLM_KEY (or the arguments). The reply must contain one JSON object
    {"transform": ..., "params": {...}} or {"done": true}."""

    SYSTEM = ("You optimize a GPU kernel through a harness. Answer with one JSON "
              "object: an action {\"transform\": NAME, \"params\": {...}, "
              "\"target\": {\"op\": OP}} from the schema, or {\"done\": true}.")

    def __init__(self, url: Optional[str] = None, model: Optional[str] = None,
                 key: Optional[str] = None, budget: int = 2000, timeout: int = 60) -> None:
        self.url = url or os.environ.get("TIRX_LLM_URL", "http://localhost:8000/v1")
        self.model = model or os.environ.get("TIRX_LLM_MODEL", "default")
        self.key = key or os.environ.get("TIRX_LLM_KEY", "")
        self.budget, self.timeout = budget, timeout

    def plan(self, obs: Observation, schema: Dict[str, Any]) -> Optional[Plan]:
        names = [s["properties"]["transform"]["const"] for s in schema["oneOf"]]
        user = (prompt_payload(obs, self.budget) + "\nactions: " + ", ".join(names) +
                "\nschema: " + json.dumps({s["title"]: s["properties"]["params"]
                                          for s in schema["oneOf"]})[:4000])
        body = json.dumps({"model": self.model, "temperature": 0,
                           "messages": [{"role": "system", "content": self.SYSTEM},
                                        {"role": "user", "content": user}]}).encode()
        request = urllib.request.Request(self.url.rstrip("/") + "/chat/completions", data=body,
                                         headers={"Content-Type": "application/json"})
        if self.key:
            request.add_header("Authorization", "Bearer " + self.key)
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            reply = json.load(response)
        content = reply["choices"][0]["message"]["content"]
        match = re.search(r"\{.*\}", content, re.S)
        if not match:
            return None
        action = json.loads(match.group(0))
        if action.get("done"):
            return None
        target = (action.get("target") or {}).get("op")
        return Plan(action["transform"], action.get("params", {}), target)


class HarnessAgent:
    """observe -> plan -> apply -> run for at most `steps` steps."""

    def __init__(self, policy: Any, ctx: "TIRxContext",
                 views: Sequence[str] = ("thread_binding", "loop_structure")) -> None:
        self.policy, self.ctx, self.views = policy, ctx, views

    def observe(self, version: str, feedback: Dict[str, Any], last_diff: List[str],
                tried: List[Dict[str, Any]]) -> Observation:
        views = {w: self.ctx.view(version, w) for w in self.views}
        return Observation(version, self.ctx.summarize(version), feedback, views,
                           last_diff, tried)

    def run(self, version: str, steps: int = 8,
            profile_rounds: Optional[int] = None) -> Dict[str, Any]:
        schema = self.ctx.action_schema()
        feedback = self.ctx.run(version, profile_rounds)
        tried, last_diff, history = [], [], []
        for step in range(steps):
            obs = self.observe(version, feedback, last_diff, tried)
            plan = self.policy.plan(obs, schema)
            if plan is None:
                break
            result = self.ctx.apply(version, plan.transform, plan.params, plan.target)
            outcome = result.new_version if result.ok else str(result.rejection)
            tried.append({"plan": plan.key(), "ok": result.ok, "outcome": outcome})
            history.append({"step": step, "from": version, "plan": plan.__dict__,
                            "ok": result.ok, "outcome": outcome})
            if not result.ok:
                continue
            last_diff = self.ctx.diff(version, result.new_version).get("summary", [])
            version = result.new_version
            feedback = self.ctx.run(version, profile_rounds)
        return {"final_version": version, "feedback": feedback, "history": history}
