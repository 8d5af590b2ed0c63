"""Check and time implementations on one problem, one typed Result at a time.

For each problem: the cuBLAS baselines first (their error is the random layer's reference point), then
every implementation that supports the problem. Each is checked through the numerics layers and the
beta == 0 test; those that pass are then timed together, in interleaved rounds (time_pending), so
that every comparison of two of them is made from runs taken side by side. Whatever fails is
recorded as failed with its reason; this module never raises for a kernel's fault. (A kernel that
kills the process or hangs is the worker's business: run/worker.py.)
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from harness.catalog_types.tables import Catalog
from harness.device.roofline import Peaks, flops, intensity, operand_bytes, tile_bytes
from harness.identity import CUBLAS_FP32
from harness.launch import interpreter_precision
from harness.launch.implementations import Impl
from harness.measure import numerics
from harness.measure.rounds import REP_MS, ROUNDS
from harness.problems import SEED, Problem
from harness.records.kernel_facts import KernelFacts
from harness.records.lines import Beta0, Figures, Numerics, Resources, Result, Status
from harness.run.phases import timed


@dataclass
class ProblemContext:
    """Operands, references and the vendor error of one problem, shared by every implementation."""

    problem: Problem
    device: torch.device
    seed: int
    # Whether an autotuned implementation tunes: where the problem is timed. A check of a problem no run times (the
    # tests' odd shapes) runs each autotuned implementation at its declared configuration (tune=False).
    tune: bool = True
    _ops: dict = field(default_factory=dict)
    _refs: dict = field(default_factory=dict)
    _vendor: dict = field(default_factory=dict)

    def numerics_problem(self, layer: str, impl: Impl) -> Problem:
        return numerics.layer_problem(self.problem, layer, impl.computes_alpha_beta)

    def operands(self, p: Problem, layer: str) -> numerics.Operands:
        key = (p, layer)
        if key not in self._ops:
            seed = self.seed + (0 if layer == "exact" else 1) + 7 * len(self._ops)
            self._ops[key] = numerics.make_operands(p, layer, seed, self.device)
        return self._ops[key]

    def reference(self, p: Problem, layer: str) -> torch.Tensor:
        key = (p, layer)
        if key not in self._refs:
            self._refs[key] = numerics.reference(self.operands(p, layer))
        return self._refs[key]

    def vendor_error(self, p: Problem, device_type: str, layer: str = "random") -> float:
        """The fp32 library's forward error on the `layer` operands of p (torch's BLAS on a CPU)."""
        return self.vendor_errors(p, device_type, layer)[0]

    def vendor_errors(self, p: Problem, device_type: str, layer: str = "random") -> tuple[float, float]:
        """The fp32 library's (normwise, componentwise) forward errors on the `layer` operands of p."""
        key = (p, layer)
        if key not in self._vendor:
            ops = self.operands(p, layer)
            out = ops.fresh_output(float("nan"))
            Impl(CUBLAS_FP32, p.op).bind(ops.tensors(out), p.alpha, p.beta, device_type)()
            self._vendor[key] = numerics.errors(out, ops, self.reference(p, layer))
        return self._vendor[key]


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def warm_up(impl: Impl, ctx: ProblemContext, device_type: str) -> None:
    """The first launch, on its own: loading the CUDA module (waiting for its build if it is still under way),
    Triton's compile and autotuning. Timed as the record's compile phase, so that numerics and timing are not. It
    launches the problem itself, the one that is timed: an autotuner tunes there, and the numerics layers (their
    own alpha and beta) then run what it chose (kernels_triton/gemm_tutorial.py)."""
    p = ctx.problem
    ops = ctx.operands(p, "random")
    impl.bind(ops.tensors(ops.fresh_output(numerics.poison_for(impl.reads_c_when_beta_zero))), p.alpha, p.beta,
              device_type, ctx.tune)()
    sync(ctx.device)


def check_numerics(impl: Impl, ctx: ProblemContext, device_type: str) -> Numerics:
    """Every layer and the beta == 0 test; raises only for a launch that raises."""
    poison = numerics.poison_for(impl.reads_c_when_beta_zero)
    verdicts = {}
    for layer in numerics.LAYERS:
        p = ctx.numerics_problem(layer, impl)
        ops = ctx.operands(p, layer)
        result = ops.fresh_output(poison)
        impl.bind(ops.tensors(result), p.alpha, p.beta, device_type, ctx.tune)()
        sync(ctx.device)
        # the library itself is judged by the bounds alone: its own error is no yardstick for itself; TF32 rows are
        # never set beside fp32's error. Rows of a class that is not fp32-accurate (bf16x3) get the library's errors
        # recorded beside theirs, and are held to their class's bound only.
        vendor = (ctx.vendor_errors(p, device_type, layer) if layer != "exact" and not impl.tf32
                  and impl.id != CUBLAS_FP32 else (None, None))
        verdicts[layer] = numerics.check(result, ops, ctx.reference(p, layer), poison=poison, vendor_error=vendor[0],
                                         vendor_componentwise=vendor[1], tf32=impl.tf32, precision=impl.precision,
                                         fp32_accurate=impl.precision_class.fp32_accurate,
                                         declares_flush=impl.declares_flush)
    beta0 = beta_zero(impl, ctx, device_type)
    passed = all(v.passed for v in verdicts.values()) and (beta0 is None or beta0.agrees)
    return Numerics(passed, verdicts["exact"], verdicts["random"], beta0, verdicts["subnormal"],
                    scaled=verdicts["scaled"], not_checked=not_checked(impl, device_type))


def not_checked(impl: Impl, device_type: str) -> str:
    """Why a row's class is not what it computed on this device ("" where it is): on a CPU, Triton's interpreter
    rounds as each class does once harness/launch/interpreter_precision.py is installed; torch's CPU matmul has no
    reduced-precision mode."""
    if device_type != "cpu" or impl.precision == "fp32":
        return ""
    if impl.id.runs_triton:
        return interpreter_precision.not_checked(impl.precision_class.input_precision)
    return interpreter_precision.NOT_CHECKED


def beta_zero(impl: Impl, ctx: ProblemContext, device_type: str) -> Beta0 | None:
    """With beta == 0 and NaN in C, does NaN reach the output? Compared with what the registry declares."""
    if ctx.problem.op != "sgemm":
        return None
    declared = "leaks NaN" if impl.reads_c_when_beta_zero else "honours"
    if not impl.computes_alpha_beta:
        return Beta0("honours", declared, "the kernel never reads C (C = A*B)")
    p = ctx.problem.with_scalars(1.0, 0.0)
    ops = ctx.operands(p, "exact")
    result = ops.fresh_output(float("nan"))
    impl.bind(ops.tensors(result), 1.0, 0.0, device_type, ctx.tune)()
    sync(ctx.device)
    return Beta0(numerics.beta_zero_verdict(result), declared, "C filled with NaN")


def figures(impl: Impl, problem: Problem, median_ms: float, peaks: Peaks | None) -> Figures:
    """Rates from a median time. A ratio to another implementation is a verdict, made from the samples of both by
    harness/analysis (the one place it is computed), not stored here."""
    seconds = median_ms * 1e-3
    reads_c = impl.reads_c_when_beta_zero or problem.beta != 0.0
    if impl.kernel is not None and problem.op == "sgemm":
        tm, tn = (1, 1) if impl.kernel.idea == "naive" else (impl.kernel.tile_m, impl.kernel.tile_n)
        moved = tile_bytes(problem, tm, tn, reads_c)
    else:
        moved = operand_bytes(problem)
    out = Figures(tflops=flops(problem) / seconds / 1e12, gbps=operand_bytes(problem) / seconds / 1e9,
                  intensity=intensity(problem, moved), bytes_model=moved)
    if peaks and not impl.tf32:  # the FMA peak is no ceiling for tensor cores' TF32
        out.pct_peak = (100.0 * out.tflops / peaks.fp32_tflops if problem.op == "sgemm"
                        else 100.0 * out.gbps / peaks.copy_gbps)
    return out


@dataclass
class RunOptions:
    time: bool = True
    rep_ms: float = REP_MS       # timed device time per implementation, spread over the rounds
    seed: int = SEED             # the run's; each problem's is derived from it (Problem.seed)
    device_type: str = "cuda"
    rounds: int = ROUNDS         # interleaved rounds per problem (harness/measure/rounds.py)
    aa: bool = False             # time every implementation twice, as two entries: the A/A control


@dataclass
class Pending:
    """A record whose numerics passed, waiting for the interleaved rounds of its problem."""

    impl: Impl
    result: Result
    launch: Callable[[], object]
    estimate_ms: float


Resourcer = Callable[[Impl, object], Resources | None]


def measure(impl: Impl, ctx: ProblemContext, opts: RunOptions, resources: Resourcer | None = None,
            catalog: Catalog | None = None) -> Result | Pending:
    """Numerics, then, where they pass and the run times, the bound launch that the rounds will time (Pending).
    Never raises for the kernel's faults: a failure is a finished Result. `catalog`: the run's (its record keeps the
    facts of the kernel as that catalog has it)."""
    from harness.measure.rounds import estimate_ms

    problem = ctx.problem
    rec = Result.of(impl.id, problem, Status.OK, kernel=impl.kernel.id if impl.kernel else None, tf32=impl.tf32,
                    precision=impl.precision, facts=KernelFacts.of(impl.kernel, catalog) if impl.kernel else None)
    failed = impl.unmet(problem)
    if failed:
        rec.status, rec.reason = Status.SKIPPED, "; ".join(failed)
        return rec
    try:
        with timed(rec.phase_s, "compile"):
            warm_up(impl, ctx, opts.device_type)
        with timed(rec.phase_s, "numerics"):
            rec.numerics = check_numerics(impl, ctx, opts.device_type)
        if not rec.numerics.passed:
            rec.status, rec.reason = Status.FAILED, "numerics: " + "; ".join(rec.numerics.failure_reasons())
            return rec
        handle = None
        pending = None
        if opts.time:
            with timed(rec.phase_s, "timing"):
                ops = ctx.operands(problem, "random")
                out = ops.fresh_output(numerics.poison_for(impl.reads_c_when_beta_zero))
                launch = impl.bind(ops.tensors(out), problem.alpha, problem.beta, opts.device_type)
                handle = launch()  # compiles, loads, autotunes: outside the measurement, and gives the compiled handle
                if impl.kernel is not None and impl.kernel.b_layout == "kmajor":
                    from harness.measure.timing import time_gpu

                    rec.pack_ms = time_gpu(lambda: ops.B.t().contiguous(), rep_ms=20).median_ms
                pending = Pending(impl, rec, launch, estimate_ms(launch, ctx.device))
        if resources and not impl.vendor:  # cuBLAS has no compiled kernel of ours to describe
            # A phase of its own: without a GPU it is an sm_90 compile of the counterpart, most of a CPU run's time
            with timed(rec.phase_s, "resources"):
                try:
                    rec.resources = resources(impl, handle)
                except Exception as e:  # what the compiler chose is a report detail, not the result
                    rec.resources = Resources(error=f"{type(e).__name__}: {e}"[:500])
        return pending or rec
    except Exception as e:  # the kernel's failure is a result, not the run's end
        rec.status, rec.reason = Status.FAILED, f"{type(e).__name__}: {e}".strip()
        rec.traceback = traceback.format_exc(limit=4)
    return rec


def time_pending(pending: list[Pending], ctx: ProblemContext, opts: RunOptions, peaks: Peaks | None,
                 on_burst: Callable[[int, int], None] | None = None) -> list[Result]:
    """Time every pending record of one problem in interleaved rounds and finish it: timing, figures.

    on_burst(index into pending, round) is called before each burst, so a caller can tell which one was running
    when something went wrong.
    """
    from harness.measure.rounds import Entry, interleave
    from harness.measure.timing import Timing

    seconds = [0.0] * len(pending)
    last: list = [None, 0.0]

    def burst(key, r: int) -> None:
        now = time.perf_counter()
        if last[0] is not None:
            seconds[last[0]] += now - last[1]
        index = key if isinstance(key, int) else key[0]
        last[0], last[1] = index, now
        if on_burst is not None:
            on_burst(index, r)

    samples = interleave([Entry(i, p.launch, p.estimate_ms) for i, p in enumerate(pending)], rounds=opts.rounds,
                         rep_ms=opts.rep_ms, seed=ctx.problem.seed(opts.seed), twins=opts.aa,
                         device=ctx.device, on_burst=burst)
    if last[0] is not None:
        seconds[last[0]] += time.perf_counter() - last[1]
    out = []
    for i, p in enumerate(pending):
        rec = p.result
        rec.timing = Timing.of(samples[i], samples.get((i, "aa")))
        rec.figures = figures(p.impl, ctx.problem, rec.timing.median_ms, peaks)
        rec.phase_s["timing"] = rec.phase_s.get("timing", 0.0) + seconds[i]
        out.append(rec)
    return out
