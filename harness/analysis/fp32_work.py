"""fp32 work on the tensor cores as data: which implementations answer fp32 work (cuBLAS fp32 and the TF32 reference,
the SIMT summit, the 3xTF32 rows, Triton's bf16 splits, the Triton tutorial of each fp32 class), the worst error each
carries over the numerics layers, each one's speed interval, and the Pareto front of speed and error. The accuracy
chart (harness/report/plots/accuracy.py) and the fp32-class table (harness/report/overview.py) draw and write it.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.analysis.measured import Measured
from harness.analysis.relations import Relation
from harness.catalog_types.kernel import PRECISION_CLASSES
from harness.problems import Problem
from harness.records.lines import Result

# The layers whose errors count (the exact layer's is 0 by construction) and the two measures of each.
ERROR_LAYERS = ("random", "subnormal", "scaled")


def worst_error(r: Result) -> tuple[float, str] | None:
    """The worst error a record carries over ERROR_LAYERS, normwise and componentwise, and where it is ("scaled,
    componentwise"); None where it carries none."""
    found: list[tuple[float, str]] = []
    for name, v in (r.numerics.layers.items() if r.numerics else ()):
        if name not in ERROR_LAYERS:
            continue
        for value, measure in ((v.error, "normwise"), (v.componentwise, "componentwise")):
            if value is not None and value > 0:
                found.append((value, f"{name}, {measure}"))
    return max(found) if found else None


def layer_error(r: Result, layer: str) -> float | None:
    """The larger of the normwise and componentwise errors on one layer; None where the record has no such layer."""
    v = r.numerics.layers.get(layer) if r.numerics else None
    if v is None:
        return None
    found = [e for e in (v.error, v.componentwise) if e is not None]
    return max(found) if found else None


def summit(m: Measured) -> set[str]:
    """The SIMT ladder's summit, as the file's catalog declares it: its kernels' ids."""
    return {k.id for k in m.catalog.ladder("fp32").summit}


def for_fp32_work(m: Measured, r: Result) -> bool:
    """cuBLAS (fp32 and the TF32 reference), the Triton tutorial GEMM of an fp32 class, the SIMT summit's rows, and
    every row of a tensor-core class used in place of fp32 (3xTF32 and the bf16 splits).

    A deliberately different form counts where it is of a tensor-core fp32 class (Triton's pre-split 3xTF32): this
    answers what someone who needs fp32 would run, whatever its design, while the CUDA-against-Triton comparisons
    keep to like-for-like forms."""
    cls = PRECISION_CLASSES.get(r.precision)  # type: ignore[call-overload]
    if cls is None or r.impl_id.is_build_study:
        return False
    if r.baseline:
        return r.impl_id.is_cublas or cls.yardstick == "fp32"
    if cls.yardstick == "fp32" and cls.tensor_cores:
        return True
    return r.kernel in summit(m) and not m.deliberately_different(r)


def speed_intervals(m: Measured) -> dict[tuple, tuple[float, float]]:
    """Each timed record's TFLOP/s interval: its rate scaled by the 95% interval of its speed against its class's
    cuBLAS (the verdict of the interleaved rounds); none for cuBLAS itself or a file of single bursts."""
    out: dict[tuple, tuple[float, float]] = {}
    for r in m.all:
        c = m.vs(r, Relation.CUBLAS) if r.timed and r.figures else None
        if c is None or r.figures is None:
            continue
        pct, lo, hi = c.pct()
        if lo is not None and hi is not None:
            out[r.key] = (r.figures.tflops * lo / pct, r.figures.tflops * hi / pct)
    return out


def pareto_front(points: list[tuple[float, float]]) -> list[int]:
    """Indices of the (speed, error) points no other point beats on both (at least as fast and as accurate, better
    on one), in order of speed."""
    front = [i for i, (x, y) in enumerate(points)
             if not any(x2 >= x and y2 <= y and (x2 > x or y2 < y) for x2, y2 in points)]
    return sorted(front, key=lambda i: points[i][0])


@dataclass(frozen=True)
class Point:
    result: Result
    tflops: float
    error: float          # the worst over ERROR_LAYERS (worst_error)


@dataclass(frozen=True)
class AccuracyFront:
    """The fp32-work records of one problem that carry an error, and the Pareto front of the classes timed against
    cuBLAS fp32 (indices into `points`, fastest last); cuBLAS TF32 is drawn, never on it."""

    problem: Problem
    points: tuple[Point, ...]
    front: tuple[int, ...]


def fp32_rows(m: Measured, problem: Problem) -> list[Result]:
    """The timed fp32-work records of a problem, in the run's order."""
    return [r for r in m.on(problem) if r.timed and r.figures and for_fp32_work(m, r)]


def accuracy_front(m: Measured, problem: Problem) -> AccuracyFront:
    points = tuple(Point(r, r.figures.tflops, worst[0]) for r in fp32_rows(m, problem)
                   if (worst := worst_error(r)) and r.figures)
    fp32_class = [i for i, p in enumerate(points) if PRECISION_CLASSES[p.result.precision].yardstick == "fp32"]
    front = [fp32_class[j] for j in pareto_front([(points[i].tflops, points[i].error) for i in fp32_class])]
    return AccuracyFront(problem, points, tuple(front))
