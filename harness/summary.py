"""The side-by-side table printed at the end of a run: one row per kernel, CUDA beside Triton."""

from __future__ import annotations

from collections import defaultdict

from harness.problems import Problem
from harness.roofline import Peaks


def _rate(rec: dict) -> str:
    if rec.get("status") != "ok" or "timing" not in rec:
        return "-"
    return f"{rec['tflops']:.2f} TF/s" if rec["op"] == "sgemm" else f"{rec['gbps']:.0f} GB/s"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def verdict(rec: dict) -> str:
    status = rec.get("status")
    if status in ("skipped", "compiled"):
        return status
    if status == "failed":
        return "FAIL: " + rec.get("reason", "")[:60]
    n = rec.get("numerics", {})
    rnd = n.get("random", {})
    text = f"exact ok, err {rnd.get('error', 0):.1e}"
    flags = rec.get("timing", {}).get("flags") or []
    return text + (" [" + "; ".join(flags) + "]" if flags else "")


def beta0(rec: dict) -> str:
    b = (rec.get("numerics") or {}).get("beta0")
    if not b:
        return "-"
    return b["observed"] + ("" if b["observed"] == b["declared"] else f" (declared {b['declared']})")


def regs(rec: dict | None) -> str:
    r = (rec or {}).get("resources") or {}
    if "registers" not in r:
        return "-"
    return f"{r['registers']}" + (f"+{r['spills']}sp" if r.get("spills") else "")


def print_summary(records: list[dict], peaks: Peaks | None, console) -> None:
    from rich.table import Table

    by_problem: dict[str, list[dict]] = defaultdict(list)
    for rec in records:
        by_problem[Problem.from_json(rec["problem"]).label].append(rec)
    for label, recs in by_problem.items():
        pct_name = "% FMA peak" if recs[0]["op"] == "sgemm" else "% copy BW"
        table = Table(title=label + (f"   (peaks: {peaks.fp32_tflops:.1f} TF/s FP32, {peaks.copy_gbps:.0f} GB/s copy)"
                                     if peaks else ""))
        for col in ("kernel", "impl", "ms", "rate", "% cuBLAS", pct_name, "numerics", "beta=0", "regs"):
            table.add_column(col, overflow="fold", justify="right" if col in ("ms", "rate", "% cuBLAS", pct_name,
                                                                             "regs") else "left")
        for rec in recs:
            t = rec.get("timing") or {}
            table.add_row(rec.get("kernel") or "baseline", rec["impl"],
                          f"{t['median_ms']:.3f}" if t else "-", _rate(rec), _pct(rec.get("pct_cublas")),
                          _pct(rec.get("pct_peak")), verdict(rec), beta0(rec), regs(rec))
        console.print(table)
