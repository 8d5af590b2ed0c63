"""What the compilers chose, as the report reads it of a run: the record of each implementation that carries its
compiled resources (and why an implementation has none), and each seed kernel under the suite's CUDA build beside
CuPy's default build (-ftz=true, the integer arch), timed in the same run."""

from __future__ import annotations

from dataclasses import dataclass

from harness.analysis.measured import Measured
from harness.analysis.record import Comparison
from harness.records.lines import Result

# A speed difference under this is run-to-run noise for one median (the run flags spreads over 5%).
TOLERANCE = 0.03


@dataclass(frozen=True)
class Uncompiled:
    """An implementation of the run with no resource report: the record that stands for it and its compile error."""

    record: Result
    error: str | None


@dataclass(frozen=True)
class BuildPair:
    """A seed kernel under the suite's build (`own`) and CuPy's default build (`study`), on one problem."""

    own: Result
    study: Result
    speed: Comparison | None = None   # the rounds' verdict on CuPy's build against the suite's (None: single bursts)

    @property
    def ratio(self) -> float:
        """CuPy's build time over the suite's (under 1: CuPy's build is faster)."""
        assert self.own.timing is not None and self.study.timing is not None
        return self.study.timing.median_ms / self.own.timing.median_ms


def compiled_records(m: Measured, kernel_ids: list[str]) -> tuple[list[Result], list[Uncompiled]]:
    """One record with resources per (kernel, implementation) of these kernels, and those that have none."""
    rows, missing = [], []
    for kid, impl in m.implementations:
        if kid not in kernel_ids:
            continue
        r = m.compiled(kid, impl)
        if r is not None:
            rows.append(r)
            continue
        any_rec = m.of_kernel(kid, impl)[0]
        missing.append(Uncompiled(any_rec, any_rec.resources.error if any_rec.resources else None))
    return rows, missing


def build_pairs(m: Measured) -> list[BuildPair]:
    """Each timed row of CuPy's build beside the suite's build of the same kernel on the same problem."""
    out = []
    for r in m.all:
        if not (r.impl_id.is_build_study and r.timed and r.timing):
            continue
        own = next((o for o in m.of_kernel(r.kernel or "", "cuda") if o.problem == r.problem and o.timed), None)
        if own is not None and own.timing is not None:
            c = m.between(r, own)
            out.append(BuildPair(own, r, c if c is not None and c.verdict is not None else None))
    return out


def subnormal_error(r: Result | None) -> float | None:
    v = r.numerics.subnormal if r is not None and r.numerics is not None else None
    return v.error if v is not None else None
