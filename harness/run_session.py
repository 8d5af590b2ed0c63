"""One `rosetta run`: header record, peaks, every problem, a progress bar and the side-by-side table."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from harness import env
from harness.implementations import Impl, all_impls
from harness.problems import Problem
from harness.registry import Kernel
from harness.results import SCHEMA, ResultsWriter


class RunSession:
    def __init__(self, kernels: list[Kernel], problems: list[Problem], *, gpu: bool, rep_ms: float,
                 out_path: Path, seed: int, console, argv: list[str]) -> None:
        self.kernels, self.problems, self.gpu = kernels, problems, gpu
        self.rep_ms, self.out_path, self.seed, self.console, self.argv = rep_ms, Path(out_path), seed, console, argv
        self._resources: dict = {}

    def resources(self, impl: Impl) -> dict | None:
        """What the compiler chose for this implementation (cached: one compile per kernel)."""
        key = (impl.kernel.id, impl.name)
        if key not in self._resources:
            self._resources[key] = _resources(impl, self.gpu)
        return self._resources[key]

    def run(self) -> list[dict]:
        import torch
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        from harness.runner import ProblemContext, RunOptions, run_problem

        device = torch.device("cuda", torch.cuda.current_device()) if self.gpu else torch.device("cpu")
        opts = RunOptions(time=self.gpu, rep_ms=self.rep_ms, seed=self.seed,
                          device_type="cuda" if self.gpu else "cpu")
        records: list[dict] = []
        with ResultsWriter(self.out_path) as out:
            peaks = None
            header = {"record": "run", "schema": SCHEMA, "started": _now(), "mode": "gpu" if self.gpu else "cpu",
                      "device": torch.cuda.get_device_name(device) if self.gpu else "cpu (Triton interpreter)",
                      "versions": env.versions(), "argv": self.argv[1:], "seed": self.seed,
                      "problems": [p.to_json() for p in self.problems], "rep_ms": self.rep_ms}
            if self.gpu:
                from harness.cublas import fp32_is_default
                from harness.roofline import measure_peaks

                if not fp32_is_default():
                    raise RuntimeError("torch.backends.cuda.matmul.allow_tf32 is on: fp32 baselines would be TF32")
                props = torch.cuda.get_device_properties(device)
                header["sms"] = props.multi_processor_count
                header["l2_bytes"] = getattr(props, "L2_cache_size", None)
                self.console.print("measuring peaks (FP32 FMA micro-kernel, 1 GiB device copy)...")
                peaks = measure_peaks(device)
                header["peaks"] = peaks.to_json()
            if self.gpu:
                plan = [(p, [i for i in all_impls(self.kernels) if i.op == p.op]) for p in self.problems]
            else:
                plan = _cpu_plan(self.kernels, self.problems)
                compiled = {_compile_problem(k) for k in self.kernels}
                header["problems"] = [p.to_json() for p in [*(p for p, _ in plan), *sorted(compiled, key=str)]]
            out.write(header)
            total = sum(len(impls) + (2 if p.op == "sgemm" and self.gpu else 1) for p, impls in plan)
            total += 0 if self.gpu else len(self.kernels)
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                          console=self.console, transient=True) as bar:
                task = bar.add_task("starting", total=total)

                def emit(rec: dict) -> None:
                    out.write(rec)
                    records.append(rec)
                    bar.advance(task)

                for i, (problem, impls) in enumerate(plan):
                    ctx = ProblemContext(problem, device, self.seed + 1000 * i)
                    run_problem(problem, impls, ctx, opts, peaks, emit, self.resources,
                                lambda text: bar.update(task, description=text[:70]))
                if not self.gpu:
                    for kernel in self.kernels:
                        bar.update(task, description=f"compiling {kernel.id}")
                        emit(_compile_record(kernel))
            failures = [r for r in records if r["status"] == "failed"]
            out.write({"record": "end", "finished": _now(), "failures": len(failures),
                       "results": len(records)})
        from harness.summary import print_summary

        print_summary(records, peaks, self.console)
        return failures


def _cpu_plan(kernels: list[Kernel], problems: list[Problem]) -> list[tuple[Problem, list[Impl]]]:
    """CPU tier: each counterpart on the small odd shape its tile calls for (see runner.cpu_problem)."""
    from harness.runner import cpu_problem

    groups: dict[Problem, list[Impl]] = {}
    ops = {p.op for p in problems}
    for impl in all_impls(kernels, ("triton",)):
        if impl.op in ops:
            groups.setdefault(cpu_problem(impl), []).append(impl)
    return list(groups.items())


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _resources(impl: Impl, gpu: bool) -> dict | None:
    if impl.model == "cuda":
        from harness.resources import cuda_resources
        from kernels_cuda import source_path

        out: dict = {}
        if env.has_nvcc():
            r = cuda_resources(source_path(impl.kernel.source), impl.kernel.symbol)
            out = {"registers": r.registers, "spills": r.spill_stores, "shared_bytes": r.shared_bytes,
                   "local_bytes": r.local_bytes, "sass": r.sass,
                   "occupancy": r.occupancy(impl.kernel.threads).fraction, "source": "nvcc -arch=sm_90"}
        if gpu:
            from harness.cuda import attributes

            out["driver"] = attributes(impl.kernel)
        return out or None
    from harness import triton_side

    if gpu:
        return triton_side.compiled_resources(impl.counterpart)
    return triton_side.aot_resources(impl.counterpart)


def _compile_problem(kernel: Kernel) -> Problem:
    """The seed's problem (as the kernel's preconditions allow it): what a compile record is filed under."""
    from harness.preconditions import allowed_shape
    from harness.problems import DEFAULT_SGEMM, DEFAULT_SGEMV

    return allowed_shape(kernel.preconditions, DEFAULT_SGEMM[0] if kernel.op == "sgemm" else DEFAULT_SGEMV[0])


def _compile_record(kernel: Kernel) -> dict:
    """CPU tier: the CUDA source compiled for sm_90, its resources recorded (it cannot run here)."""
    problem = _compile_problem(kernel)
    rec = {"record": "result", "kernel": kernel.id, "impl": "cuda", "model": "cuda", "op": kernel.op,
           "problem": problem.to_json(), "tf32": False}
    if not env.has_nvcc():
        return {**rec, "status": "skipped", "reason": "no GPU and no nvcc: cannot run or compile"}
    try:
        res = _resources(Impl("cuda", kernel.op, kernel), gpu=False)
        return {**rec, "status": "compiled", "reason": "no GPU: compiled for sm_90, not run", "resources": res}
    except Exception as e:
        return {**rec, "status": "failed", "reason": f"compile: {type(e).__name__}: {e}"}
