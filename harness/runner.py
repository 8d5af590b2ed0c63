"""Check and time implementations on problems, one record at a time.

For each problem: the cuBLAS baselines first (their time is every kernel's yardstick, their error
the random layer's reference point), then every kernel that supports the problem with its Triton
counterparts. Each implementation is checked through both numerics layers and the beta == 0 test
before it is timed. Whatever fails is recorded as failed with its reason and the run goes on.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import torch

from harness import numerics
from harness.implementations import Impl, baselines
from harness.problems import Problem
from harness.roofline import Peaks, flops, intensity, operand_bytes, tile_bytes


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

    def vendor_error(self, p: Problem, device_type: str) -> float:
        """The fp32 library's forward error on the random operands of p (torch's BLAS on a CPU)."""
        if p not in self._vendor:
            ops = self.operands(p, "random")
            out = ops.fresh_output(float("nan"))
            Impl("cublas", p.op).bind(tensors(ops, out), p.alpha, p.beta, device_type)()
            self._vendor[p] = numerics.forward_error(out, self.reference(p, "random"), numerics.error_scale(ops))
        return self._vendor[p]


def tensors(ops: numerics.Operands, out: torch.Tensor) -> dict[str, torch.Tensor]:
    if ops.problem.op == "sgemv":
        return {"A": ops.A, "x": ops.B, "y": out}
    return {"A": ops.A, "B": ops.B, "C": out}


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def check_numerics(impl: Impl, ctx: ProblemContext, device_type: str) -> dict:
    """Both layers and the beta == 0 test; raises nothing, reports everything."""
    out: dict = {"passed": True}
    poison = numerics.poison_for(impl.reads_c_when_beta_zero)
    for layer in ("exact", "random"):
        p = ctx.numerics_problem(layer, impl)
        ops = ctx.operands(p, layer)
        result = ops.fresh_output(poison)
        impl.bind(tensors(ops, result), p.alpha, p.beta, device_type)()
        sync(ctx.device)
        vendor = ctx.vendor_error(p, device_type) if layer == "random" and not impl.tf32 else None
        verdict = numerics.check(result, ops, ctx.reference(p, layer), poison=poison, vendor_error=vendor,
                                 tf32=impl.tf32)
        out[layer] = verdict.to_json()
        out["passed"] &= verdict.passed
    out["beta0"] = beta_zero(impl, ctx, device_type)
    if out["beta0"] and out["beta0"]["observed"] != out["beta0"]["declared"]:
        out["passed"] = False
    return out


def beta_zero(impl: Impl, ctx: ProblemContext, device_type: str) -> dict | None:
    """With beta == 0 and NaN in C, does NaN reach the output? Compared with what the registry declares."""
    if ctx.problem.op != "sgemm":
        return None
    declared = "leaks NaN" if impl.reads_c_when_beta_zero else "honours"
    if not impl.computes_alpha_beta:
        return {"observed": "honours", "declared": declared, "how": "the kernel never reads C (C = A*B)"}
    p = ctx.problem.with_scalars(1.0, 0.0)
    ops = ctx.operands(p, "exact")
    result = ops.fresh_output(float("nan"))
    impl.bind(tensors(ops, result), 1.0, 0.0, device_type)()
    sync(ctx.device)
    return {"observed": numerics.beta_zero_verdict(result), "declared": declared, "how": "C filled with NaN"}


def figures(impl: Impl, problem: Problem, median_ms: float, cublas_ms: float | None, peaks: Peaks | None) -> dict:
    seconds = median_ms * 1e-3
    reads_c = impl.reads_c_when_beta_zero or problem.beta != 0.0
    if impl.kernel is not None and problem.op == "sgemm":
        tm, tn = (1, 1) if impl.kernel.idea == "naive" else (impl.kernel.tile_m, impl.kernel.tile_n)
        moved = tile_bytes(problem, tm, tn, reads_c)
    else:
        moved = operand_bytes(problem)
    out = {
        "tflops": flops(problem) / seconds / 1e12,
        "gbps": operand_bytes(problem) / seconds / 1e9,
        "intensity": intensity(problem, moved),
        "bytes_model": moved,
        "pct_cublas": 100.0 * cublas_ms / median_ms if cublas_ms and not impl.tf32 else None,
    }
    if peaks and not impl.tf32:  # TF32 rows are labelled on their own, never in fp32 ratios
        out["pct_peak"] = (100.0 * out["tflops"] / peaks.fp32_tflops if problem.op == "sgemm"
                           else 100.0 * out["gbps"] / peaks.copy_gbps)
    return out


def cpu_problem(impl: Impl) -> Problem:
    """The CPU tier's shape for a counterpart: odd, two partial tiles a side, K with a partial step.

    The interpreter's cost grows with programs x K steps, so tiny tiles get small problems.
    """
    if impl.op == "sgemv":
        return Problem("sgemv", 37, 45)
    p = impl.counterpart.params if impl.counterpart else {"block_m": 16, "block_n": 16}
    return Problem("sgemm", min(37, 2 * p["block_m"] + 3), min(45, 2 * p["block_n"] + 5), 29)


@dataclass
class RunOptions:
    time: bool = True
    rep_ms: float = 100.0
    seed: int = 20261122
    device_type: str = "cuda"


def measure(impl: Impl, ctx: ProblemContext, opts: RunOptions, cublas_ms: float | None, peaks: Peaks | None,
            resources: Callable[[Impl], dict | None] | None = None) -> dict:
    """One record: numerics, then (if they pass) timing and figures. Never raises for the kernel's faults."""
    from harness.timing import time_gpu

    problem = ctx.problem
    rec: dict = {"record": "result", "kernel": impl.kernel.id if impl.kernel else None, "impl": impl.name,
                 "model": impl.model, "op": problem.op, "problem": problem.to_json(), "tf32": impl.tf32}
    failed = impl.unmet(problem)
    if failed:
        return {**rec, "status": "skipped", "reason": "; ".join(failed)}
    try:
        rec["numerics"] = check_numerics(impl, ctx, opts.device_type)
        if not rec["numerics"]["passed"]:
            reasons = [rec["numerics"][layer].get("reason") for layer in ("exact", "random")]
            b0 = rec["numerics"].get("beta0")
            if b0 and b0["observed"] != b0["declared"]:
                reasons.append(f"beta == 0: {b0['observed']}, declared {b0['declared']}")
            return {**rec, "status": "failed", "reason": "numerics: " + "; ".join(r for r in reasons if r)}
        if opts.time:
            p = problem
            ops = ctx.operands(p, "random")
            out = ops.fresh_output(numerics.poison_for(impl.reads_c_when_beta_zero))
            t = time_gpu(impl.bind(tensors(ops, out), p.alpha, p.beta, opts.device_type), rep_ms=opts.rep_ms)
            rec["timing"] = t.to_json()
            rec.update(figures(impl, p, t.median_ms, cublas_ms, peaks))
        rec["status"] = "ok"
        if resources:
            try:
                rec["resources"] = resources(impl)
            except Exception as e:  # what the compiler chose is a report detail, not the result
                rec["resources"] = {"error": f"{type(e).__name__}: {e}"[:500]}
    except Exception as e:  # the kernel's failure is a result, not the run's end
        rec.update(status="failed", reason=f"{type(e).__name__}: {e}".strip(),
                   traceback=traceback.format_exc(limit=4))
    return rec


def run_problem(problem: Problem, impls: Iterable[Impl], ctx: ProblemContext, opts: RunOptions,
                peaks: Peaks | None, emit: Callable[[dict], None],
                resources: Callable[[Impl], dict | None] | None = None,
                progress: Callable[[str], None] | None = None) -> list[dict]:
    """Baselines, then the implementations; each record is emitted (written) as soon as it exists."""
    records = []
    cublas_ms = None
    vendor = [b for b in baselines(problem.op) if opts.device_type == "cuda" or not b.tf32]  # TF32: GPU only
    for impl in [*vendor, *impls]:
        if progress:
            progress(f"{problem.label}: {impl.label}")
        rec = measure(impl, ctx, opts, cublas_ms, peaks, resources if impl.kernel else None)
        if impl.name == "cublas" and rec.get("timing"):
            cublas_ms = rec["timing"]["median_ms"]
            rec.update(figures(impl, problem, cublas_ms, cublas_ms, peaks))
        emit(rec)
        records.append(rec)
    return records
