"""The benchmarks' timer for the peers (torch, torch.compile, Triton, cuBLAS),
made to time exactly as tirx-run does (lib/Runtime/Runner.cpp, the timing
loop of `runOne`; lib/Runtime/Stats.cpp):

- 3 warm-up runs, each after `prepare` (tirx-run: `inout` buffers restored
  from pristine copies, `out` buffers poisoned);
- then per sample: `prepare`, an L2 flush (`cuMemsetD32Async` over
  max(2 x L2, 64 MiB), the value changing with each sample: 1 for the
  estimate, i + 2 for sample i), a CUDA event, every launch of one run, a
  CUDA event, a synchronize on the stop event, the elapsed time;
- one estimate sample first (not kept), then `samples` samples (tirx-run's
  `--samples N`; without it about 1 s, at least 10, at most 2000: the same
  rule, `choose_sample_count`);
- the median (and min, max, mean, a 10%-trimmed mean: `summarize`, the same
  code as Stats.cpp).

One addition, for the peers only: before the flush, a GPU spin
(`torch.cuda._sleep`) long enough that the GPU is still busy while Python
enqueues the flush, the start event and the peer's launches. Without it a
Python peer whose host overhead (a torch.compile guard, Triton's launcher:
10-50 us) exceeds the flush's duration would be charged for its host time,
while tirx-run's `cuLaunchKernel` (a few us) hides under the flush. The spin
ends before the flush, so what lies between the two events and the L2's
state at the start event are as in tirx-run. The host time of each peer's
enqueue is recorded (`host_enqueue_us`), and a sample whose enqueue outlasted
the spin is counted (`guard_missed`).

The statistics and rounding helpers need no torch: `report.py` imports them
on hosts without a GPU.
"""
import math
import os
import time

WARMUP = 3            # Runner.h: RunOptions::warmup
MIN_SAMPLES = 10      # RunOptions::minSamples
MAX_SAMPLES = 2000    # RunOptions::maxSamples
BUDGET_SECONDS = 1.0  # RunOptions::budgetSeconds
# cudaEventElapsedTime's documented resolution ("around 0.5 microseconds");
# the measured quantum of the elapsed times is reported next to it.
DOCUMENTED_EVENT_RESOLUTION_US = 0.5


def summarize(samples):
    """Stats.cpp `summarize`: count, min, max, mean, median (mean of the two
    middle samples for an even count), trimmed mean (the lowest and highest
    10% dropped, at least one each, for 10 samples or more)."""
    s = sorted(samples)
    n = len(s)
    if n == 0:
        return {"count": 0}
    median = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    cut = max(1, n // 10) if n >= 10 else 0
    kept = s[cut:n - cut]

    def quantile(q):  # linear interpolation, for the spread only
        pos = q * (n - 1)
        lo = int(math.floor(pos))
        hi = min(lo + 1, n - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)

    return {"count": n, "min": s[0], "max": s[-1], "mean": sum(s) / n,
            "median": median, "trimmed_mean": sum(kept) / len(kept),
            "p10": quantile(0.1), "p90": quantile(0.9)}


def choose_sample_count(estimate_seconds, budget_seconds=BUDGET_SECONDS,
                        min_samples=MIN_SAMPLES, max_samples=MAX_SAMPLES):
    """Stats.cpp `chooseSampleCount`."""
    if not (estimate_seconds > 0) or not math.isfinite(estimate_seconds):
        return min_samples
    n = math.ceil(budget_seconds / estimate_seconds)
    return int(min(max(n, min_samples), max_samples))


def quantum(values):
    """The smallest positive step between distinct values: the timer's
    resolution as seen in the samples (None with fewer than 2 values)."""
    v = sorted(set(values))
    steps = [b - a for a, b in zip(v, v[1:]) if b - a > 1e-9]
    return min(steps) if steps else None


# -- rounding to the digits the measurement justifies -----------------------

def uncertainty(median, minimum, resolution):
    """How far a median can be trusted, in its own unit: the larger of the
    timer's resolution and the lower half of the spread (median - min). The
    upper half is left out: it holds the rare slow sample (a clock dip, an
    interrupt), which the median ignores and min-max would over-weight."""
    u = resolution or 0.0
    if minimum is not None and median is not None:
        u = max(u, median - minimum)
    return u


def round_to(value, u, min_sig=2):
    """`value` rounded at the decimal place of `u`'s leading digit, but to at
    least `min_sig` significant digits; returned as text."""
    if value is None or not math.isfinite(value):
        return "-"
    if value == 0:
        return "0"
    lead = math.floor(math.log10(abs(value)))
    place = lead - (min_sig - 1)                 # at least min_sig digits
    if u and u > 0:
        place = min(place, math.floor(math.log10(u)))
    # never more than 6 significant digits: beyond what any timer gives
    place = max(place, lead - 5)
    decimals = max(0, -place)
    rounded = round(value, -place)
    return "%.*f" % (decimals, rounded)


def ratio_with_uncertainty(t_ours, u_ours, t_peer, u_peer):
    """ours / peer and its uncertainty (relative uncertainties in
    quadrature)."""
    if not t_ours or not t_peer:
        return None, None
    r = t_ours / t_peer
    rel = math.hypot(u_ours / t_ours, u_peer / t_peer)
    return r, r * rel


# -- the GPU timer (torch imported lazily) ----------------------------------

class Timer:
    """Times a callable as tirx-run times a bundle (see the module doc)."""

    def __init__(self, device=0):
        import torch
        self.torch = torch
        torch.cuda.set_device(device)
        props = torch.cuda.get_device_properties(device)
        l2 = getattr(props, "L2_cache_size", 0) or self._attribute(38) or (50 << 20)
        self.l2_bytes = int(l2)
        self.flush_bytes = max(2 * self.l2_bytes, 64 << 20)
        self.flush = torch.empty(self.flush_bytes // 4, dtype=torch.int32,
                                 device="cuda")
        self.flush_method = "cuMemsetD32Async"
        self._memset = None
        try:
            import ctypes
            cuda = ctypes.CDLL("libcuda.so.1")
            f = cuda.cuMemsetD32Async
            f.argtypes = [ctypes.c_uint64, ctypes.c_uint, ctypes.c_size_t,
                          ctypes.c_void_p]
            f.restype = ctypes.c_int
            self._memset = f
            self._flush(1)
            torch.cuda.synchronize()
        except Exception as e:  # no driver symbol, no current context
            self._memset = None
            self.flush_method = "torch fill_ (cuMemsetD32Async failed: %s)" % e
        self.sleep_cycles_per_us = self._calibrate_sleep()
        self.all_samples_us = []   # every sample of this process, for quantum()

    @staticmethod
    def _attribute(attr, device=0):
        try:
            import ctypes
            cuda = ctypes.CDLL("libcuda.so.1")
            v = ctypes.c_int(0)
            if cuda.cuDeviceGetAttribute(ctypes.byref(v), attr, device) == 0:
                return v.value
        except Exception:
            pass
        return None

    def _flush(self, salt):
        if self._memset is not None:
            stream = self.torch.cuda.current_stream().cuda_stream
            r = self._memset(self.flush.data_ptr(), salt & 0xFFFFFFFF,
                             self.flush_bytes // 4, stream)
            if r != 0:
                raise RuntimeError("cuMemsetD32Async returned %d" % r)
        else:
            self.flush.fill_(salt)

    def _calibrate_sleep(self):
        torch = self.torch
        cycles = 2_000_000
        torch.cuda._sleep(cycles)
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        torch.cuda._sleep(cycles)
        stop.record()
        stop.synchronize()
        us = start.elapsed_time(stop) * 1e3
        return cycles / us if us > 0 else 2000.0

    def time(self, fn, prepare=None, samples=None):
        """Times `fn` (all launches of one run) as tirx-run does. Returns the
        statistics in microseconds, plus `last`: what the last timed call
        returned (outputs to check)."""
        torch = self.torch
        prepare = prepare or (lambda: None)
        host = []
        for _ in range(WARMUP):
            prepare()
            t0 = time.perf_counter()
            fn()
            host.append((time.perf_counter() - t0) * 1e6)
            torch.cuda.synchronize()
        # The spin covers the enqueue of flush + events + fn with margin.
        guard_us = min(max(100.0, 3 * max(host) + 50.0), 5000.0)
        guard_cycles = int(guard_us * self.sleep_cycles_per_us)
        enqueue = []
        missed = 0

        def one(salt):
            nonlocal missed
            prepare()
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(guard_cycles)
            t0 = time.perf_counter()
            self._flush(salt)
            start.record()
            out = fn()
            stop.record()
            t1 = time.perf_counter()
            stop.synchronize()
            enqueue.append((t1 - t0) * 1e6)
            if (t1 - t0) * 1e6 > 0.9 * guard_us:
                missed += 1
            return start.elapsed_time(stop) * 1e3, out

        estimate, _ = one(1)
        n = samples if samples else choose_sample_count(estimate * 1e-6)
        times = []
        last = None
        for i in range(n):
            t, last = one(i + 2)
            times.append(t)
        self.all_samples_us += times
        stats = summarize(times)
        stats["host_enqueue_us"] = summarize(enqueue)["median"]
        stats["guard_us"] = guard_us
        stats["guard_missed"] = missed
        stats["last"] = last
        return stats

    def resolution_us(self):
        q = quantum(self.all_samples_us)
        return q


def stats_entry(stats):
    """The JSON part of a Timer result (without `last`), keys in us."""
    keys = ("median", "min", "max", "mean", "trimmed_mean", "p10", "p90")
    e = {k + "_us": stats[k] for k in keys if k in stats}
    e["samples"] = stats["count"]
    for k in ("host_enqueue_us", "guard_us", "guard_missed"):
        if k in stats:
            e[k] = stats[k]
    return e


# -- the check, with tirx-run's tolerances (docs/feedback.md) ----------------

TOLERANCE = {  # precision: (rtol, also the relative-L2 limit; atol; rmsRel)
    "ieee": (1e-4, 1e-5, 1e-5),
    "tf32": (2e-3, 1e-5, 1e-2),
    # 16-bit outputs (tirx-run's bf16 and f16 tolerances): the plain
    # 16-bit products listed for scale by matmul16_peers.py.
    "bfloat16": (2e-2, 1e-2, 0.0),
    "float16": (1e-2, 1e-3, 0.0),
}


def check(got, want, precision, terms=0):
    """tirx-run's rule: every element within atol + rtol |want| + rmsRel
    rms(want), and the relative L2 error at most rtol. `want` is float64.
    For f32 sums of `terms` terms rmsRel grows as tirx-run's does
    (lib/Runtime/Check.cpp toleranceFor): (sqrt(2 ln 2n) + 2) u sqrt(K / 2)
    for n elements, never below 1e-5. Returns (pass, rel_l2)."""
    rtol, atol, rms_rel = TOLERANCE[precision]
    if precision == "ieee" and terms > 0:
        spread = 2.0 ** -24 * math.sqrt(terms / 2)
        tail = math.sqrt(2 * math.log(2.0 * max(want.numel(), 1)))
        rms_rel = max(rms_rel, (tail + 2) * spread)
    g = got.double()
    rms = want.pow(2).mean().sqrt().item()
    err = (g - want).abs()
    elementwise = bool((err <= atol + rtol * want.abs() + rms_rel * rms).all().item())
    rel_l2 = ((g - want).norm() / want.norm()).item()
    return elementwise and rel_l2 <= rtol and math.isfinite(rel_l2), rel_l2


# -- one peer: checked, timed, checked again --------------------------------

# torch.compile's mode for every torch.compile peer (say which in the table):
# max-autotune-no-cudagraphs searches Triton templates and tile configs (and,
# for matmuls, compares them with cuBLAS); no CUDA graphs, as tirx-run
# launches each kernel itself. TIRX_BENCH_COMPILE_MODE=default for a faster
# run.
COMPILE_MODE = os.environ.get("TIRX_BENCH_COMPILE_MODE",
                              "max-autotune-no-cudagraphs")


def compile_fn(fn):
    import torch
    # dynamic=False: each shape compiled for itself (no automatic dynamic
    # shapes after the first recompilation).
    return torch.compile(fn, mode=COMPILE_MODE, fullgraph=True, dynamic=False)


def measure(timer, samples, name, kind, precision, fn, want, output,
            prepare=None, config=None, note=None, terms=0):
    """Checks `fn` (after `prepare`) against `want` (float64) at `precision`,
    times it with `timer`, checks the last timed call's output again.
    `output(ret)` gives the output tensor from fn's return value (a buffer
    for in-place and out= peers). The first call (compilation, autotuning)
    is timed on the wall clock: `first_call_s`. Returns a JSON entry; a
    failure is an entry with `check: fail` or `error`, never an exception.
    `terms`: the length of the sums in each output (check's tolerance)."""
    import torch
    entry = {"name": name, "kind": kind, "precision": precision}
    if config:
        entry["config"] = config
    if note:
        entry["note"] = note
    try:
        prepare = prepare or (lambda: None)
        prepare()
        t0 = time.perf_counter()
        fn()  # compiles, autotunes (which may run an in-place kernel often)
        torch.cuda.synchronize()
        entry["first_call_s"] = round(time.perf_counter() - t0, 2)
        prepare()
        ret = fn()
        torch.cuda.synchronize()
        ok, rel = check(output(ret), want, precision, terms)
        entry["rel_l2"] = rel
        if not ok:
            entry["check"] = "fail"
            return entry
        stats = timer.time(fn, prepare, samples)
        ok2, rel2 = check(output(stats["last"]), want, precision, terms)
        entry.update(stats_entry(stats))
        entry["rel_l2"] = max(rel, rel2)
        entry["check"] = "pass" if ok2 else "fail (after timing)"
    except Exception as e:  # a peer that cannot run is reported, not fatal
        entry["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300] if str(e) else "")
        entry["check"] = "error"
    return entry


def triton_best_config(kernel):
    """The config Triton's autotuner chose, as text (None without one)."""
    best = getattr(kernel, "best_config", None)
    if best is None:
        return None
    kw = dict(getattr(best, "kwargs", {}) or {})
    for k in ("num_warps", "num_stages"):
        v = getattr(best, k, None)
        if v is not None:
            kw[k] = v
    return ", ".join("%s=%s" % (k, v) for k, v in sorted(kw.items()))
