"""The documents' published figures beside ours, as % of cuBLAS on each side's own GPU."""

from __future__ import annotations

from harness.problems import Problem
from harness.registry import KERNELS, PUBLISHED_CLAIMS, PUBLISHED_CUBLAS, PUBLISHED_STRIDE_SWEEP, SEEDS
from harness.results import Results


def _ours(results: Results | None, kernel_id: str, impl: str = "cuda") -> dict | None:
    """Our record at the seed's own problem size (the largest measured for the kernel), if any."""
    if results is None:
        return None
    recs = [r for r in results.results if r.get("kernel") == kernel_id and r["impl"] == impl
            and r.get("status") == "ok" and r.get("timing")]
    if not recs:
        return None
    return max(recs, key=lambda r: Problem.from_json(r["problem"]).M * Problem.from_json(r["problem"]).N)


def claims_table(results: Results | None) -> list[dict]:
    rows = []
    for k in KERNELS:
        if k.seed is None or k.published is None:
            continue
        pub, ours = k.published, _ours(results, k.id)
        cublas = PUBLISHED_CUBLAS.get(k.seed)
        pub_pct = pub.pct_cublas
        if pub_pct is None and pub.ms and cublas and cublas.ms:
            pub_pct = 100 * cublas.ms / pub.ms
        parts = (f"{pub.ms} ms" if pub.ms else "", f"{pub.tflops} TFLOPS" if pub.tflops else "",
                 f"{pub.pct_bandwidth}% of bandwidth" if pub.pct_bandwidth else "", pub.note)
        rows.append({
            "kernel": k.id, "seed": k.seed, "gpu": SEEDS[k.seed].gpu, "published_pct_cublas": pub_pct,
            # Within one document (one GPU) TFLOPS rank kernels as % of cuBLAS would: seed 001 gives only those.
            "published_rank_value": pub_pct if pub_pct is not None else pub.tflops,
            "published": ", ".join(x for x in parts if x),
            "ours_pct_cublas": ours.get("pct_cublas") if ours else None,
            "ours": _ours_text(ours),
        })
    _mark_order(rows)
    return rows


def _ours_text(rec: dict | None) -> str:
    if rec is None:
        return "not measured"
    ms = rec["timing"]["median_ms"]
    return f"{ms:.2f} ms, {rec['tflops']:.2f} TF/s" if rec["op"] == "sgemm" else f"{ms:.3f} ms, {rec['gbps']:.0f} GB/s"


def _rank(values: dict[str, float], key: str, tolerance: float) -> int:
    """1 + how many kernels are clearly below this one (within `tolerance` counts as a tie)."""
    return 1 + sum(v < values[key] * (1 - tolerance) for v in values.values())


def _mark_order(rows: list[dict]) -> None:
    """Within each document, flag kernels whose rank differs between the document and our run."""
    by_seed: dict[str, list[dict]] = {}
    for r in rows:
        if r["published_rank_value"] is not None and r["ours_pct_cublas"] is not None:
            by_seed.setdefault(r["seed"], []).append(r)
    for group in by_seed.values():
        theirs = {r["kernel"]: r["published_rank_value"] for r in group}
        ours = {r["kernel"]: r["ours_pct_cublas"] for r in group}
        for r in group:
            # 2% ties: a document's figures carry two or three digits, our medians a few % of spread.
            a, b = _rank(ours, r["kernel"], 0.02), _rank(theirs, r["kernel"], 0.02)
            r["order"] = "same rank" if a == b else f"rank {a} here, {b} in the document (1 = slowest)"


def unroll_ratio(results: Results | None) -> str:
    a = _ours(results, "s000.v3_unroll_idx<64,64,16,16,16>")
    b = _ours(results, "s000.v3_unroll_tid<64,64,16,16,16>")
    if not (a and b):
        return "unroll ratio: not measured"
    ratio = b["timing"]["median_ms"] / a["timing"]["median_ms"]
    return (f"unroll ratio (i = tid time / i = 0; idx = i + tid time): {ratio:.2f}x here; the document: "
            f"{PUBLISHED_CLAIMS['000.unroll'].split(': ')[1]}")


def stride_sweep(results: Results | None) -> list[dict]:
    """Seed 001's stride table, our columns beside the document's."""
    rows = []
    for k in KERNELS:
        if k.idea != "coarsen_1d":
            continue
        ours = _ours(results, k.id)
        res = (ours or {}).get("resources") or {}
        stride = int(k.published.note.split()[-1])
        doc_occupancy, doc_registers = PUBLISHED_STRIDE_SWEEP[stride]
        rows.append({"stride": str(stride), "kernel": k.id, "threads": k.threads,
                     "published_tflops": k.published.tflops, "published_occupancy": doc_occupancy,
                     "published_registers": doc_registers,
                     "tflops": round(ours["tflops"], 2) if ours else None,
                     "registers": res.get("registers"),
                     "occupancy": res.get("occupancy")})
    return rows


def print_claims(rows: list[dict], console, results: Results | None = None) -> None:
    from rich.table import Table

    t = Table(title="The documents' figures beside ours (% of cuBLAS, each on its own GPU)")
    for col in ("kernel", "document GPU", "published", "doc % cuBLAS", "ours (H100)", "our % cuBLAS", "order"):
        t.add_column(col, overflow="fold")
    for r in rows:
        t.add_row(r["kernel"], r["gpu"], r["published"], _fmt(r["published_pct_cublas"]), r["ours"],
                  _fmt(r["ours_pct_cublas"]), r.get("order", "-"))
    console.print(t)
    s = Table(title="Seed 001's stride sweep: document (RTX 3090) beside ours")
    for col in ("stride", "threads/block", "doc TFLOPS", "our TFLOPS", "doc regs", "our regs", "doc theor. occ.",
                "our theor. occ."):
        s.add_column(col)
    for r in stride_sweep(results):
        s.add_row(r["stride"], str(r["threads"]), str(r["published_tflops"]), str(r["tflops"] or "-"),
                  str(r["published_registers"]), str(r["registers"] or "-"), _fmt(r["published_occupancy"]),
                  _fmt(100 * r["occupancy"] if r["occupancy"] is not None else None))
    console.print(s)
    console.print(unroll_ratio(results))


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}%"
