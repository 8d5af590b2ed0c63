"""Check and time implementations on one problem, one typed Result at a time.

For each problem: the cuBLAS baselines first (their time is every kernel's yardstick, their error
the random layer's reference point), then every implementation that supports the problem. Each is
checked through both numerics layers and the beta == 0 test before it is timed. Whatever fails is
recorded as failed with its reason; this module never raises for a kernel's fault. (A kernel that
kills the process or hangs is the worker's business: run/worker.py.)
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from harness import numerics
from harness.launch.implementations import Impl
from harness.problems import Problem
from harness.roofline import Peaks, flops, intensity, operand_bytes, tile_bytes
from harness.run.records import Beta0, Figures, Numerics, Resources, Result, Status


@dataclass
class ProblemContext:
    """Operands, references and the vendor error of one problem, shared by every implementation."""

    problem: Problem
    device: torch.device
    seed: int
    _ops: dict = field(default_factory=dict)
    _refs: dict = field(default_factory=dict)
    _vendor: dict = field(default_factory=dict)

    def numerics_problem(self, layer: str, impl: Impl) -> Problem:
        if self.problem.op == "sgemv":
            return self.problem
        return self.problem.with_scalars(*numerics.scalars_for(layer, impl.computes_alpha_beta))

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
        key = (p, layer)
        if key not in self._vendor:
            ops = self.operands(p, layer)
            out = ops.fresh_output(float("nan"))
            Impl("cublas", p.op).bind(tensors(ops, out), p.alpha, p.beta, device_type)()
            self._vendor[key] = numerics.forward_error(out, self.reference(p, layer), numerics.error_scale(ops))
        return self._vendor[key]


def tensors(ops: numerics.Operands, out: torch.Tensor) -> dict[str, torch.Tensor]:
    if ops.problem.op == "sgemv":
        return {"A": ops.A, "x": ops.B, "y": out}
    return {"A": ops.A, "B": ops.B, "C": out}


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def warm_up(impl: Impl, ctx: ProblemContext, device_type: str) -> None:
    """The first launch, on its own: loading the CUDA module (waiting for its build if it is still under way),
    Triton's compile and autotuning. Timed as the record's compile phase, so that numerics and timing are not."""
    p = ctx.numerics_problem("exact", impl)
    ops = ctx.operands(p, "exact")
    impl.bind(tensors(ops, ops.fresh_output(numerics.poison_for(impl.reads_c_when_beta_zero))), p.alpha, p.beta,
              device_type)()
    sync(ctx.device)


def check_numerics(impl: Impl, ctx: ProblemContext, device_type: str) -> Numerics:
    """Every layer and the beta == 0 test; raises only for a launch that raises."""
    poison = numerics.poison_for(impl.reads_c_when_beta_zero)
    verdicts = {}
    for layer in numerics.LAYERS:
        p = ctx.numerics_problem(layer, impl)
        ops = ctx.operands(p, layer)
        result = ops.fresh_output(poison)
        impl.bind(tensors(ops, result), p.alpha, p.beta, device_type)()
        sync(ctx.device)
        # the library itself is judged by the bounds alone: its own error is no yardstick for itself
        vendor = (ctx.vendor_error(p, device_type, layer) if layer != "exact" and not impl.tf32
                  and impl.name != "cublas" else None)
        verdicts[layer] = numerics.check(result, ops, ctx.reference(p, layer), poison=poison, vendor_error=vendor,
                                         tf32=impl.tf32, declares_flush=impl.declares_flush)
    beta0 = beta_zero(impl, ctx, device_type)
    passed = all(v.passed for v in verdicts.values()) and (beta0 is None or beta0.agrees)
    return Numerics(passed, verdicts["exact"], verdicts["random"], beta0, verdicts["subnormal"])


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
    impl.bind(tensors(ops, result), 1.0, 0.0, device_type)()
    sync(ctx.device)
    return Beta0(numerics.beta_zero_verdict(result), declared, "C filled with NaN")


def figures(impl: Impl, problem: Problem, median_ms: float, yardstick_ms: float | None, peaks: Peaks | None) -> Figures:
    """Rates from a median time. yardstick_ms is cuBLAS of the same precision class on the same problem."""
    seconds = median_ms * 1e-3
    reads_c = impl.reads_c_when_beta_zero or problem.beta != 0.0
    if impl.kernel is not None and problem.op == "sgemm":
        tm, tn = (1, 1) if impl.kernel.idea == "naive" else (impl.kernel.tile_m, impl.kernel.tile_n)
        moved = tile_bytes(problem, tm, tn, reads_c)
    else:
        moved = operand_bytes(problem)
    out = Figures(tflops=flops(problem) / seconds / 1e12, gbps=operand_bytes(problem) / seconds / 1e9,
                  intensity=intensity(problem, moved), bytes_model=moved,
                  pct_cublas=100.0 * yardstick_ms / median_ms if yardstick_ms else None)
    if peaks and not impl.tf32:  # the FMA peak is no ceiling for tensor cores' TF32
        out.pct_peak = (100.0 * out.tflops / peaks.fp32_tflops if problem.op == "sgemm"
                        else 100.0 * out.gbps / peaks.copy_gbps)
    return out


@dataclass
class RunOptions:
    time: bool = True
    rep_ms: float = 100.0
    seed: int = 20261122
    device_type: str = "cuda"


Resourcer = Callable[[Impl, object], Resources | None]


def measure(impl: Impl, ctx: ProblemContext, opts: RunOptions, yardsticks: dict[str, float], peaks: Peaks | None,
            resources: Resourcer | None = None) -> Result:
    """One record: numerics, then (if they pass) timing and figures. Never raises for the kernel's faults.

    yardsticks maps a precision class ("fp32", "tf32") to cuBLAS's median time on this problem.
    """
    from harness.timing import time_gpu

    problem = ctx.problem
    rec = Result(impl=impl.name, model=impl.model, problem=problem, status=Status.OK,
                 kernel=impl.kernel.id if impl.kernel else None, tf32=impl.tf32, precision=impl.precision)
    failed = impl.unmet(problem)
    if failed:
        rec.status, rec.reason = Status.SKIPPED, "; ".join(failed)
        return rec
    try:
        clock = time.perf_counter()
        warm_up(impl, ctx, opts.device_type)
        rec.phase_s["compile"] = time.perf_counter() - clock
        clock = time.perf_counter()
        rec.numerics = check_numerics(impl, ctx, opts.device_type)
        rec.phase_s["numerics"] = time.perf_counter() - clock
        if not rec.numerics.passed:
            rec.status, rec.reason = Status.FAILED, "numerics: " + "; ".join(rec.numerics.failure_reasons())
            return rec
        handle = None
        clock = time.perf_counter()
        if opts.time:
            ops = ctx.operands(problem, "random")
            out = ops.fresh_output(numerics.poison_for(impl.reads_c_when_beta_zero))
            launch = impl.bind(tensors(ops, out), problem.alpha, problem.beta, opts.device_type)
            handle = launch()  # compiles, loads, autotunes: outside the measurement, and gives the compiled handle
            if impl.kernel is not None and impl.kernel.b_layout == "kmajor":
                rec.pack_ms = time_gpu(lambda: ops.B.t().contiguous(), rep_ms=20).median_ms
            rec.timing = time_gpu(launch, rep_ms=opts.rep_ms)
            yardstick = yardsticks.get("tf32" if impl.tf32 else "fp32")
            rec.figures = figures(impl, problem, rec.timing.median_ms, yardstick, peaks)
            rec.phase_s["timing"] = time.perf_counter() - clock
        if resources and impl.kernel is not None:
            try:
                rec.resources = resources(impl, handle)
            except Exception as e:  # what the compiler chose is a report detail, not the result
                rec.resources = Resources(error=f"{type(e).__name__}: {e}"[:500])
    except Exception as e:  # the kernel's failure is a result, not the run's end
        rec.status, rec.reason = Status.FAILED, f"{type(e).__name__}: {e}".strip()
        rec.traceback = traceback.format_exc(limit=4)
    return rec


def yardstick_of(result: Result) -> tuple[str, float] | None:
    """A baseline's precision class and time, for the implementations measured after it."""
    if result.baseline and result.timing is not None and result.ok:
        return ("tf32" if result.tf32 else "fp32", result.timing.median_ms)
    return None
