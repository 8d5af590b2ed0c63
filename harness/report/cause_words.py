"""How a cause (harness/analysis/causes.py) is said: one phrase per quantity, both sides named, said from the side with
more of a counter whichever side that is, and the causes of a pair joined into a clause ("because" only for those that
point with the speed). The findings and the report's sections say causes in these words."""

from __future__ import annotations

from harness.analysis.record import Cause
from harness.report import fmt

# What each counter where fewer is better counts, as a sentence names it.
COUNTED = {
    "smem_bank_conflicts": "shared-memory bank conflicts",
    "dram_bytes": "bytes of DRAM traffic",
    "local_instructions": "executed local-memory (spill) instructions",
    "stall_long_scoreboard": "cycles a warp waits on global memory per issued instruction",
    "stall_short_scoreboard": "cycles a warp waits on shared memory per issued instruction",
    "stall_mio_throttle": "cycles a warp waits on a full shared-memory queue per issued instruction",
    "stall_barrier": "cycles a warp waits at barriers per issued instruction",
    "global_requests_per_kfma": "global read instructions per thousand FMAs",
}
# What a sentence says of a decided difference where no measured quantity discriminates (causes.stated is empty)
NO_CAUSE = "no cause was measured"
_PIPES = {"tensor_pipe_pct": "tensor", "fma_pipe_pct": "FMA"}


def _count(v: float) -> str:
    return f"{v:.0f}" if v < 1e5 else f"{v:.1e}".replace("e+0", "e").replace("e+", "e")


def phrase(c: Cause, names: tuple[str, str]) -> str:
    """The cause in a sentence, `names` being (the faster side's, the slower side's)."""
    fn, sn = names
    f, s, d = c.faster, c.slower, c.detail
    better = c.points_with_speed
    if c.quantity in COUNTED:
        assert isinstance(f, float | int) and isinstance(s, float | int)
        # Said from the side with more of it, whichever side that is.
        (wv, wn), (bv, bn) = ((s, sn), (f, fn)) if better else ((f, fn), (s, sn))
        if "model_bytes" in d:
            return (f"{wn} moves {wv / d['model_bytes']:.2f}x the fewest DRAM bytes the problem needs against "
                    f"{bv / d['model_bytes']:.2f}x for {bn}")
        return f"{wn} has {_count(wv)} {COUNTED[c.quantity]} against {_count(bv)} in {bn}"
    if c.quantity in _PIPES:
        return f"the {_PIPES[c.quantity]} pipe is busy {f:.0f}% of the time in {fn} against {s:.0f}% in {sn}"
    if c.quantity == "achieved_occupancy_pct":
        return (f"{fn} keeps {f:.0f}% of its warp slots busy against {s:.0f}% in {sn}"
                + (", which waits on latency (neither its work pipe nor DRAM is 60% busy)"
                   if d.get("latency_bound") else ""))
    if c.quantity == "tensor_core_instructions":
        wn, yn = (fn, sn) if f == "HGMMA" else (sn, fn)
        return (f"{wn} issues warpgroup MMA (wgmma: {d['HGMMA']} HGMMA in its SASS) and {yn} "
                f"warp-level mma.sync ({d['HMMA']} HMMA)")
    if c.quantity == "spills":
        wn, other = (sn, fn) if better else (fn, sn)
        least = min(int(f), int(s))
        return (f"{wn} spills {max(int(f), int(s))} B a thread to local memory ({d['local']} LDL/STL of its "
                f"{d['total']} SASS instructions) where {other} spills {least or 'nothing'}"
                + ("" if least == 0 else " B"))
    if c.quantity == "theoretical_occupancy":
        return (f"theoretical occupancy is {fmt.pct_round(float(f))} for {fn} against {fmt.pct_round(float(s))} for "
                f"{sn} (the lower one limited by {d['limiter']})")
    return f"the one setting they differ in is {c.quantity}: {f} for {fn} against {s} for {sn}"


def said(found: list[Cause] | tuple[Cause, ...], names: tuple[str, str]) -> str | None:
    """Causes joined into one clause, `names` being (the faster side's, the slower side's); None where there is
    none."""
    return fmt.joined([phrase(c, names) for c in found]) if found else None
