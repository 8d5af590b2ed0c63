"""The problems a kernel is run on by default, derived from the kernel: the CPU tier's small odd shape for a Triton
counterpart, and the seeds' default problem as near as the kernel's preconditions allow. They live with the registry
(they read a Kernel) so that problems.py, below it, knows nothing of kernels."""

from __future__ import annotations

from harness.catalog_types.kernel import Counterpart, Kernel
from harness.problems import CPU_SGEMM, CPU_SGEMV, DEFAULT_SGEMM, DEFAULT_SGEMV, Problem
from harness.problems.preconditions import allowed_shape


def cpu_problem(kernel: Kernel, counterpart: Counterpart) -> Problem:
    """The CPU tier's shape for a counterpart: odd, two partial tiles a side, K with a partial step.

    The interpreter's cost grows with programs x K steps, so tiny tiles get small problems.
    """
    if kernel.op == "sgemv":
        odd = CPU_SGEMV
    else:
        cfg = counterpart.config(kernel)
        m = min(CPU_SGEMM.M, 2 * int(cfg["block_m"]) + 3)
        odd = Problem("sgemm", m, min(CPU_SGEMM.N, 2 * int(cfg["block_n"]) + 5), CPU_SGEMM.K)
    # a form that needs more of a problem (a user's port without masks) gets the nearest shape it allows
    return allowed_shape(counterpart.preconditions, odd) if counterpart.preconditions else odd


def seed_problem(kernel: Kernel) -> Problem:
    """The seeds' default problem of the kernel's op, as near as the kernel's preconditions allow."""
    return allowed_shape(kernel.preconditions, DEFAULT_SGEMM[0] if kernel.op == "sgemm" else DEFAULT_SGEMV[0])
