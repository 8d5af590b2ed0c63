"""What a counterpart's launch compiles for a problem on an H100, found without a GPU.

The launch code of every form runs as it would on the GPU (its own choices: the copy path a shape allows, the
persistent grid, an autotuner's search space), in a child process with the interpreter off, against a stand-in
driver that says "sm_90a" and launches nothing: Triton's own launch path specialises the arguments and compiles each
kernel (`warmup`). An autotuner compiles its configurations in order up to the first that fits: the tuner skips one
that raises OutOfResources, so its launch fails only where none fits. What comes back per kernel is the shared memory
it asks for (`metadata.shared`, the number Triton's launcher holds to the device's limit and raises OutOfResources
over), or the ValueError that refused the problem before any launch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# An H100's shared memory per block, opt-in (cudaDevAttrMaxSharedMemoryPerBlockOptin): what Triton's launcher
# compares metadata.shared with before it raises OutOfResources.
H100_SHARED_BYTES = 232448


@dataclass(frozen=True)
class Compiled:
    """One kernel a launch compiled: its name, launch settings and the shared memory it asks for."""

    kernel: str
    settings: str
    shared: int
    tuned: bool  # one of an autotuner's configurations (the tuner skips one that does not fit)


@dataclass(frozen=True)
class Launch:
    """What launching one counterpart on one problem does: refused before launch (the reason), or compiled."""

    kernel_id: str
    form: str
    problem: str
    refused: str
    compiled: tuple[Compiled, ...]

    @property
    def label(self) -> str:
        return f"{self.kernel_id} [{self.form}] on {self.problem}"


def launches(cases: list[tuple[str, str, str, float, float]], workers: int | None = None,
             keep_stages: bool = False, timeout: int = 3000) -> list[Launch]:
    """Each (kernel id, form, "MxNxK" or "MxN", alpha, beta) launched in child processes (see the module), the cases
    shared among `workers` of them (one per CPU core by default), in order. `keep_stages` launches the persistent
    Hopper form with its pipeline depth whatever K is (as it was before a single K step took one stage): the test
    that the check can fail."""
    workers = max(1, min(workers or os.cpu_count() or 1, len(cases)))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    shares = [cases[i::workers] for i in range(workers)]
    answers: list[list[dict]] = []
    with tempfile.TemporaryDirectory(prefix="rosetta-launches-") as tmp:
        procs = []
        for i, share in enumerate(shares):  # every child at work before any answer is read
            asked = Path(tmp) / f"{i}.json"
            asked.write_text(json.dumps({"cases": share, "keep_stages": keep_stages}))
            with asked.open() as stdin:
                procs.append(subprocess.Popen([sys.executable, "-m", "tests.launch_compiles"], stdin=stdin,
                                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                              cwd=root))
        for proc in procs:
            out, err = proc.communicate(timeout=timeout)
            if proc.returncode != 0:
                raise RuntimeError(f"the launch compiles failed: {err.strip()[-3000:]}")
            answers.append(json.loads(out.strip().splitlines()[-1]))
    rows = [answers[i % workers][i // workers] for i in range(len(cases))]
    return [Launch(r["kernel_id"], r["form"], r["problem"], r["refused"],
                   tuple(Compiled(**c) for c in r["compiled"])) for r in rows]


class _SM90Driver:
    """Stands in for the CUDA driver: an sm_90a target (Triton's GPUTarget for an H100), device 0, stream 0."""

    def get_current_target(self) -> object:
        from triton.backends.compiler import GPUTarget

        return GPUTarget("cuda", 90, 32)

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device: int | None = None) -> int:
        return 0

    def is_active(self) -> bool:
        return True


def _capture() -> list[Compiled]:
    """Make every JIT launch compile and not run, and every autotuner compile its configurations up to the first
    that fits."""
    import importlib

    from triton.runtime import autotuner, jit

    driver = importlib.import_module("triton.runtime.driver").driver

    found: list[Compiled] = []
    tuning: list[bool] = [False]
    run = jit.JITFunction.run

    def compile_only(self, *args, grid, warmup, **kwargs):
        kernel = run(self, *args, grid=grid, warmup=True, **kwargs)
        meta = kernel.metadata
        settings = ", ".join(f"{k}={v}" for k, v in sorted(kwargs.items())
                             if isinstance(v, (bool, int, str)) and k not in ("debug",))
        found.append(Compiled(meta.name, settings, int(meta.shared), tuning[0]))
        return kernel

    def first_that_fits(self, *args, **kwargs):
        # the tuner times every configuration and skips one that raises OutOfResources; a launch fails only where
        # none fits, so its configurations are compiled in order until one does
        kwargs.pop("warmup", None)
        tuning[0] = True
        try:
            for config in self.configs:
                out = self.fn.run(*args, warmup=True, **kwargs, **config.all_kwargs())
                if found[-1].shared <= H100_SHARED_BYTES:
                    break
        finally:
            tuning[0] = False
        return out

    jit.JITFunction.run = compile_only
    autotuner.Autotuner.run = first_that_fits
    driver.set_active(_SM90Driver())
    return found


def _child_main() -> None:
    from harness.launch import triton as launch_triton
    from harness.measure import numerics
    from harness.problems import Problem
    from harness.registry import BY_ID

    found = _capture()
    asked = json.loads(sys.stdin.read())
    if asked["keep_stages"]:
        from kernels_triton import gemm_hopper

        gemm_hopper.stages_for = lambda K, block_k, num_stages: num_stages
    out = []
    for kernel_id, form, shape, alpha, beta in asked["cases"]:
        kernel = BY_ID[kernel_id]
        counterpart = kernel.counterpart(form)
        dims = [int(d) for d in shape.split("x")]
        problem = Problem(kernel.op, *dims, alpha=alpha, beta=beta) if kernel.op == "sgemm" else Problem("sgemv", *dims)
        ops = numerics.make_operands(problem, "exact", 0, "cpu")
        tensors = ops.tensors(ops.fresh_output(0.0))
        found.clear()
        refused = ""
        try:
            launch = launch_triton.bind(kernel, counterpart, tensors, problem.alpha, problem.beta, "cpu")
        except ValueError as e:
            refused = str(e)
        else:
            launch()
        out.append({"kernel_id": kernel_id, "form": form, "problem": problem.label, "refused": refused,
                    "compiled": [vars(c) for c in found]})
    sys.stdout.write("\n" + json.dumps(out) + "\n")


if __name__ == "__main__":
    _child_main()
