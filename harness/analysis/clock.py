"""The SM clock probe's readings above the GPU's maximum in a results file, as data (`rosetta clock RESULTS`, no GPU).

Every timed run's window has a clock reading (harness/measure/sm_clock.py), and the file's header of samples names the
GPU's maximum SM clock (NVML). A reading above the maximum is the probe's error (no SM runs faster than its maximum), so
the readings of a finished run say where that error shows: by the window's length (a run's time: the probe's two reads
of the timer are as far apart) and by what ran in it (CUDA, Triton, cuBLAS; SIMT or tensor cores).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from harness.catalog_types.kernel import PRECISION_CLASSES
from harness.records.lines import Result

# Window lengths (ms) the readings are grouped by: a run's event time, which the probes bracket.
WINDOW_EDGES_MS = (0.0, 0.05, 0.3, 1.0, 3.0, 10.0, 30.0, float("inf"))


@dataclass(frozen=True)
class Excess:
    """The readings of one group of windows against the GPU's maximum SM clock."""

    group: str
    runs: int                 # windows with a clock reading
    over: int                 # read above the maximum
    median_mhz: float
    p95_mhz: float
    max_mhz: float            # the highest reading
    device_max_mhz: float     # the GPU's maximum SM clock (NVML)

    @property
    def share_over(self) -> float:
        return self.over / self.runs if self.runs else 0.0

    @property
    def worst(self) -> float:
        """The highest reading's excess over the maximum, relative (0 where none is above)."""
        return max(0.0, self.max_mhz / self.device_max_mhz - 1)


def _readings(results: Iterable[Result]) -> list[tuple[Result, float, float, float]]:
    """(record, event ms, clock reading, the GPU's maximum) of every timed run with a clock and a known maximum."""
    out = []
    for r in results:
        s = r.timing.samples if r.timing else None
        if s is None or not s.max_mhz:
            continue
        out += [(r, ms, mhz, s.max_mhz) for ms, mhz in zip(s.ms, s.mhz, strict=True) if mhz]
    return out


def _q(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))]


def _grouped(found: list[tuple[Result, float, float, float]], key: Callable[[Result, float], str | None],
             order: list[str]) -> list[Excess]:
    groups: dict[str, list[tuple[float, float]]] = {}
    for r, ms, mhz, top in found:
        name = key(r, ms)
        if name is not None:
            groups.setdefault(name, []).append((mhz, top))
    out = []
    for name in [*order, *sorted(set(groups) - set(order))]:
        if name not in groups:
            continue
        read = [m for m, _ in groups[name]]
        top = max(t for _, t in groups[name])
        out.append(Excess(name, len(read), sum(m > t for m, t in groups[name]), _q(read, 0.5), _q(read, 0.95),
                          max(read), top))
    return out


def _window(ms: float) -> str:
    lo, hi = next((lo, hi) for lo, hi in itertools.pairwise(WINDOW_EDGES_MS) if lo <= ms < hi)
    return f"{lo:g}-{hi:g} ms" if hi != float("inf") else f">= {lo:g} ms"


def window_names() -> list[str]:
    return [_window(lo) for lo in WINDOW_EDGES_MS[:-1]]


def by_window(results: Iterable[Result]) -> list[Excess]:
    """The readings grouped by the window's length (the run's event time)."""
    return _grouped(_readings(results), lambda r, ms: _window(ms), window_names())


def implementation_group(r: Result) -> str:
    """What ran in a window, as the excess is grouped: the implementation's family, its op, and for sgemm whether it
    ran on the tensor cores."""
    impl = r.impl_id
    family = ("CUDA" if impl.is_cuda else "Triton" if impl.is_triton else "cuBLAS" if impl.is_cublas
              else "Triton tutorial")
    cls = PRECISION_CLASSES.get(r.precision)  # type: ignore[call-overload]
    kind = "tensor cores" if cls is not None and cls.tensor_cores else "SIMT"
    return f"{family}, {r.op} {kind}" if r.op == "sgemm" else f"{family}, {r.op}"


def by_implementation(results: Iterable[Result]) -> list[Excess]:
    """The readings grouped by what ran in the window (implementation_group)."""
    return _grouped(_readings(results), lambda r, ms: implementation_group(r), [])


def overall(results: Iterable[Result]) -> Excess | None:
    found = _grouped(_readings(results), lambda r, ms: "all", ["all"])
    return found[0] if found else None
