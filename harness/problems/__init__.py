"""What a kernel is asked to compute: problems (op, shape, alpha, beta), the shapes the suite runs by default, each op's
headline problem and the run's seed (here); what a kernel needs of a problem (preconditions.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

Op = Literal["sgemm", "sgemv"]
OPS: tuple[Op, ...] = ("sgemm", "sgemv")
# A run's seed of its random inputs unless it is given another (`rosetta run --seed`); each problem derives its own.
SEED = 20261122


@dataclass(frozen=True)
class Problem:
    """One instance of an op. sgemm: C = alpha*A@B + beta*C with A MxK, B KxN. sgemv: y = A@x, A MxN."""

    op: Op
    M: int
    N: int
    K: int = 1
    alpha: float = 1.0
    beta: float = 0.0

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"unknown op {self.op!r}: expected one of {', '.join(OPS)}")
        for name in ("M", "N", "K"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{self.op} dimension {name}={value!r} must be a positive integer")
        if self.op == "sgemv" and (self.K != 1 or self.alpha != 1.0 or self.beta != 0.0):
            raise ValueError("sgemv problems are y = A @ x: K, alpha and beta do not apply")

    @property
    def shape_label(self) -> str:
        return f"{self.M}x{self.N}" if self.op == "sgemv" else f"{self.M}x{self.N}x{self.K}"

    @property
    def label(self) -> str:
        """The one way a problem is named, in the terminal, the report and the files (scalars only when not 1, 0)."""
        text = f"{self.op} {self.shape_label}"
        if (self.alpha, self.beta) != (1.0, 0.0):
            text += f" alpha={self.alpha:g} beta={self.beta:g}"
        return text

    @property
    def key(self) -> tuple:
        return (self.op, self.M, self.N, self.K, self.alpha, self.beta)

    @property
    def flops(self) -> float:
        """2*M*N*K for sgemm (the alpha/beta epilogue is not counted), 2*M*N for sgemv."""
        return 2.0 * self.M * self.N * (self.K if self.op == "sgemm" else 1)

    def seed(self, run_seed: int = SEED) -> int:
        """This problem's seed in a run of `run_seed`: its operands and the order of its interleaved rounds are drawn
        from it, so that two problems of one run draw different inputs and a run repeated with its seed the same."""
        return run_seed + (self.M + self.N + self.K) % 1000

    def with_scalars(self, alpha: float, beta: float) -> Problem:
        return replace(self, alpha=alpha, beta=beta)

    def to_json(self) -> dict:
        return {"op": self.op, "M": self.M, "N": self.N, "K": self.K, "alpha": self.alpha, "beta": self.beta}

    @classmethod
    def from_json(cls, data: dict) -> Problem:
        if not isinstance(data, dict) or "op" not in data or "M" not in data or "N" not in data:
            raise ValueError(f"not a problem (op, M, N[, K, alpha, beta]): {data!r}")
        return cls(data["op"], int(data["M"]), int(data["N"]), int(data.get("K", 1)),
                   float(data.get("alpha", 1.0)), float(data.get("beta", 0.0)))


_SHAPE_RE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)(?:\s*[xX×]\s*(\d+))?\s*$")


# What a shape is expected to look like, per op (None: either, the op told by the count of dimensions).
_WANT = {"sgemm": "MxNxK, e.g. 4096x4096x4096", "sgemv": "MxN, e.g. 16384x16384",
         None: "MxNxK (sgemm) or MxN (sgemv), e.g. 4096x4096x4096"}


def parse_shape(text: str, op: Op | None = None) -> Problem:
    """Parse 'MxNxK' (sgemm) or 'MxN' (sgemv) into a Problem, with a message that says what is accepted.

    The one shape parser of every verb: x, X or × between the numbers; without an op, three dimensions are sgemm
    and two sgemv."""
    match = _SHAPE_RE.match(text or "")
    if not match:
        raise ValueError(f"malformed shape {text!r}: expected {_WANT[op]}")
    dims = [int(g) for g in match.groups() if g is not None]
    op = op or ("sgemm" if len(dims) == 3 else "sgemv")
    if len(dims) != (3 if op == "sgemm" else 2):
        raise ValueError(f"shape {text!r} has {len(dims)} dimensions: {op} takes {_WANT[op]}")
    if any(d < 1 for d in dims):
        raise ValueError(f"shape {text!r}: every dimension must be at least 1")
    return Problem(op, *dims)


# The seeds' own problem: M = N = K = 4096, C = A*B (alpha 1, beta 0); every GEMM worklog benchmarks it, and their
# published % of cuBLAS is for it.
SEED_SGEMM = Problem("sgemm", 4096, 4096, 4096)
# The square GEMV far above L2, where a GEMV streams A at the copy bandwidth (4096^2 is too short to reach it).
STREAMING_SGEMV = Problem("sgemv", 16384, 16384)
# The one problem of each op that its headline, findings, glance table and single charts show: the one home of that
# choice (harness/records/order.py headline_problem takes it wherever a run timed it).
HEADLINE: dict[Op, Problem] = {"sgemm": SEED_SGEMM, "sgemv": STREAMING_SGEMV}
DEFAULT_SGEMM = (SEED_SGEMM,)
# Issue-driven sgemv shapes: square near and far above L2, wide, tall/skinny, short/wide.
DEFAULT_SGEMV = (
    Problem("sgemv", 4096, 4096),
    STREAMING_SGEMV,
    Problem("sgemv", 8192, 32768),
    Problem("sgemv", 65536, 1024),
    Problem("sgemv", 1024, 65536),
)
# The CPU tier: small odd shapes, every Triton counterpart in the interpreter in seconds.
CPU_SGEMM = Problem("sgemm", 37, 45, 29)
CPU_SGEMV = Problem("sgemv", 37, 45)
# `rosetta run --sweep`: square sizes plus a few LLM-shaped projections (tokens x hidden x hidden).
SWEEP_SGEMM = (
    *(Problem("sgemm", n, n, n) for n in (256, 512, 1024, 2048, 4096, 8192)),
    Problem("sgemm", 4096, 4096, 11008),
    Problem("sgemm", 8192, 1024, 4096),
    Problem("sgemm", 2048, 14336, 4096),
    # One off either side of a power of two: what edge handling costs the kernels that have it.
    Problem("sgemm", 4095, 4095, 4095),
    Problem("sgemm", 4097, 4097, 4097),
)
