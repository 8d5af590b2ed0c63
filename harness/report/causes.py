"""Why one implementation runs faster than another: every stated reason is a `Reason`, built here and nowhere else.

A reason is a measured quantity on both sides of a pair (faster, slower): an ncu counter, a compiled fact (the
tensor-core instruction generation, spills, load widths, occupancy) or an ablation (two launches of one kernel that
differ in one setting). It points with the speed only where the faster side has the better value; only those, ranked
by how much of the slower kernel's time they plausibly explain, are ever printed as a "because". The rest is context
("despite ...") or nothing.

Executed counts come before static ones: a static SASS count includes paths that never run (the beta != 0 read of C),
so instruction counts from the SASS are never a cause; only the form of an instruction (wgmma or mma.sync, 128-bit or
32-bit loads) is. Counters are used only where ncu's kernel time agrees with the timed median (`tied`): a profile that
ran another configuration (an autotuner choosing differently under the profiler) describes another kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.report import fmt
from harness.report.claims import TIE
from harness.report.measured import Measured
from harness.run.records import Result

__all__ = ["COUNTER_TOLERANCE", "MIN_GAP", "MIN_WEIGHT", "Reason", "because", "counters", "despite",
           "latency_bound", "reasons", "side_name", "tied"]

# ncu's kernel time may differ from the timed median by this fraction before its counters are refused: ncu replays
# one launch with the clocks unlocked, so a few percent is the replay (7% at most among the H100 run's fixed-tile
# rows); an autotuned row 19% to 62% off ran another configuration under the profiler.
COUNTER_TOLERANCE = 0.15
# A gap under this ratio is a tie (the margin the claims use): no cause is stated for it.
MIN_GAP = 1 + TIE
# A reason that plausibly explains less than this share of the slower kernel's time is not a cause.
MIN_WEIGHT = 0.02
# Fixed shares for facts with no executed magnitude: the tensor-core instruction generation (wgmma issues one
# asynchronous 64xNx8 product per warpgroup where mma.sync issues a 16x8x8 per warp and waits on its registers) is
# the largest a compiled kernel can show; a load width is a smaller, bounded effect (the copy path, not the math).
_TC_GENERATION = 0.5
_LOAD_WIDTH = 0.05
_ABLATION = 1.0           # the one setting two launches differ in explains all of their difference

WIDE_GLOBAL = ("LDG.64", "LDG.128", "LDGSTS.64", "LDGSTS.128")
NARROW_GLOBAL = ("LDG.32", "LDGSTS.32")
WIDE_SHARED = ("LDS.64", "LDS.128", "LDSM")


@dataclass(frozen=True)
class Reason:
    """One quantity measured on both sides of a pair, and whether the faster side has the better value."""

    faster: Result
    slower: Result
    quantity: str                  # a counter's key, a compiled fact's name, or the setting an ablation changes
    kind: str                      # "counter" | "compiled" | "ablation"
    value_fast: float | str
    value_slow: float | str
    points_with_speed: bool
    weight: float                  # the share of the slower kernel's time it plausibly explains (0: none it can)
    phrase: str = ""               # how it reads in a sentence, names included

    @property
    def cause(self) -> bool:
        """Printed as a "because": it favours the faster side and could explain a share of the gap worth naming (an
        occupancy without counters saying the slower kernel waits on latency, or a few spilled bytes, cannot)."""
        return self.points_with_speed and self.weight >= MIN_WEIGHT


# ---------------------------------------------------------------------------------------------- counters
def tied(r: Result, tolerance: float = COUNTER_TOLERANCE) -> bool | None:
    """Whether `r`'s stored counters describe the launch that was timed: ncu's kernel time within `tolerance` of the
    timed median. None where there is nothing to compare (no counters, no timing or no kernel time)."""
    prof = r.resources.profile if r.resources else None
    if not prof or not prof.get("duration_ns") or r.timing is None or r.timing.median_ms <= 0:
        return None
    if prof.get("config_pinned") == 0.0:
        return False                              # the profiler says it ran another configuration than the timed one
    return abs(prof["duration_ns"] / 1e6 / r.timing.median_ms - 1) <= tolerance


def counters(r: Result) -> dict[str, float] | None:
    """The counters of `r` that may be reasoned from: None when absent or not tied to the timed configuration."""
    return r.resources.profile if tied(r) and r.resources else None


def _sm_cycles(m: Measured, r: Result) -> float | None:
    """SM-cycles the timed launch spans on the whole GPU (clock read beside the timed runs)."""
    t, sms = r.timing, m.header.sms
    clock = t.clock_mhz_before or t.clock_mhz_after if t else None
    if t is None or not clock or not sms:
        return None
    return t.median_ms * 1e3 * clock * sms


def _work_pipe(r: Result) -> str | None:
    """The pipe that does the op's arithmetic: the tensor pipe for TF32 classes, the FMA pipe for fp32 SGEMM; SGEMV
    is bound by memory, where a pipe's activity explains nothing."""
    if r.op != "sgemm":
        return None
    return "tensor_pipe_pct" if r.precision in ("tf32", "3xtf32") else "fma_pipe_pct"


def latency_bound(m: Measured, r: Result) -> bool | None:
    """Neither the work pipe nor DRAM near busy (both under 60%, Nsight Compute's own line for a latency-bound
    kernel): more warps in flight could help. None without counters tied to the timed launch."""
    c, pipe = counters(r), _work_pipe(r)
    peaks = m.header.peaks
    if c is None or pipe is None or pipe not in c or "dram_bytes" not in c or not peaks or not peaks.copy_gbps:
        return None
    dram = c["dram_bytes"] / (c["duration_ns"] * peaks.copy_gbps)          # bytes/ns over GB/s: both 1e9
    return c[pipe] < 60 and dram < 0.6


def _count(v: float) -> str:
    return f"{v:.0f}" if v < 1e5 else f"{v:.1e}".replace("e+0", "e").replace("e+", "e")


# Counters where fewer is better: (key, what it is, weight from (fast value, slow value, pair)).
Weigh = Callable[[float, float, Measured, Result, Result], float]


def _conflict_share(f: float, s: float, m: Measured, fast: Result, slow: Result) -> float:
    # One bank conflict replays one shared-memory wavefront: about one LSU cycle of one SM.
    cycles = _sm_cycles(m, slow)
    return min(1.0, (s - f) / cycles) if cycles else 0.0


def _dram_share(f: float, s: float, m: Measured, fast: Result, slow: Result) -> float:
    peaks, c = m.header.peaks, counters(slow)
    if not peaks or not peaks.copy_gbps or not c:
        return 0.0
    return min(1.0, (s - f) / (c["duration_ns"] * peaks.copy_gbps))


def _relative(scale: float) -> Weigh:
    return lambda f, s, m, fast, slow: scale * (s - f) / s if s > 0 else 0.0


_FEWER: tuple[tuple[str, str, Weigh], ...] = (
    ("smem_bank_conflicts", "shared-memory bank conflicts", _conflict_share),
    ("dram_bytes", "bytes of DRAM traffic", _dram_share),
    ("local_instructions", "executed local-memory (spill) instructions", _relative(0.3)),
    ("stall_long_scoreboard", "cycles a warp waits on global memory per issued instruction", _relative(0.3)),
    ("stall_short_scoreboard", "cycles a warp waits on shared memory per issued instruction", _relative(0.3)),
    ("stall_mio_throttle", "cycles a warp waits on a full shared-memory queue per issued instruction", _relative(0.3)),
    ("stall_barrier", "cycles a warp waits at barriers per issued instruction", _relative(0.2)),
    ("global_requests_per_kfma", "global read instructions per thousand FMAs", _relative(0.1)),
)


def _counter_reasons(m: Measured, fast: Result, slow: Result, names: tuple[str, str]) -> list[Reason]:
    a, b = counters(fast), counters(slow)
    if a is None or b is None:
        return []
    out = []
    fn, sn = names
    for key, what, weigh in _FEWER:
        if key not in a or key not in b or a[key] == b[key]:
            continue
        f, s = a[key], b[key]
        better = f < s
        weight = weigh(f, s, m, fast, slow) if better else weigh(s, f, m, slow, fast)
        # Said from the side with more of it, whichever side that is.
        (wv, wn), (bv, bn) = ((s, sn), (f, fn)) if better else ((f, fn), (s, sn))
        if key == "dram_bytes" and "model_bytes" in a:
            phrase = (f"{wn} moves {wv / a['model_bytes']:.2f}x the fewest DRAM bytes the problem needs against "
                      f"{bv / a['model_bytes']:.2f}x for {bn}")
        else:
            phrase = f"{wn} has {_count(wv)} {what} against {_count(bv)} in {bn}"
        out.append(Reason(fast, slow, key, "counter", f, s, better, weight, phrase))
    pipe = _work_pipe(fast)
    if pipe and pipe == _work_pipe(slow) and pipe in a and pipe in b and a[pipe] != b[pipe]:
        f, s = a[pipe], b[pipe]
        name = "tensor" if pipe == "tensor_pipe_pct" else "FMA"
        # A busier work pipe is as much the speed as its cause; half its difference in points is the share credited.
        out.append(Reason(fast, slow, pipe, "counter", f, s, f > s, abs(f - s) / 200,
                          f"the {name} pipe is busy {f:.0f}% of the time in {fn} against {s:.0f}% in {sn}"))
    occ = "achieved_occupancy_pct"
    if occ in a and occ in b and a[occ] != b[occ]:
        f, s = a[occ], b[occ]
        # More warps only help a kernel that waits on latency; otherwise occupancy is context, never a cause.
        helps = f > s and latency_bound(m, slow) is True
        out.append(Reason(fast, slow, occ, "counter", f, s, f > s, 0.3 * (f - s) / f if helps else 0.0,
                          f"{fn} keeps {f:.0f}% of its warp slots busy against {s:.0f}% in {sn}, which waits on "
                          f"latency (neither its work pipe nor DRAM is 60% busy)" if helps else
                          f"{fn} keeps {f:.0f}% of its warp slots busy against {s:.0f}% in {sn}"))
    return out


# ---------------------------------------------------------------------------------------------- compiled facts
def _sass(r: Result, *keys: str) -> int:
    mix = r.resources.sass if r.resources else {}
    return sum(int(mix.get(k, 0)) for k in keys)


def _spill_share(r: Result) -> float:
    """The share of a kernel's work its spills plausibly cost: executed local-memory instructions over executed
    global and shared loads where counted, else the static LDL/STL share of the SASS (0 for a few bytes)."""
    res = r.resources
    spills = int(res.spills or 0) if res else 0
    c = counters(r)
    if c and "local_instructions" in c:
        loads = c.get("global_ld_instructions", 0.0) + c.get("shared_ld_instructions", 0.0)
        return min(1.0, c["local_instructions"] / loads) if loads else 0.0
    total = _sass(r, "total")
    if spills < 16 or not total:
        return 0.0                                # a few bytes: a register or two, never a large gap's cause
    return _sass(r, "LDL", "STL") / total


def _compiled_reasons(m: Measured, fast: Result, slow: Result, names: tuple[str, str]) -> list[Reason]:
    fn, sn = names
    out: list[Reason] = []
    # per side, not per impl: two rungs of one model are both "cuda"
    g_f, g_s = ("HGMMA" if _sass(r, "HGMMA") else "HMMA" if _sass(r, "HMMA") else None for r in (fast, slow))
    if g_f and g_s and g_f != g_s:
        wg = fast if g_f == "HGMMA" else slow
        sync = slow if wg is fast else fast
        wn, yn = (fn, sn) if wg is fast else (sn, fn)
        out.append(Reason(fast, slow, "tensor_core_instructions", "compiled", g_f, g_s, g_f == "HGMMA", _TC_GENERATION,
                          f"{wn} issues warpgroup MMA (wgmma: {_sass(wg, 'HGMMA')} HGMMA in its SASS) and {yn} "
                          f"warp-level mma.sync ({_sass(sync, 'HMMA')} HMMA)"))
    sp_f, sp_s = (int(r.resources.spills or 0) if r.resources else 0 for r in (fast, slow))
    if sp_f != sp_s:
        share_f, share_s = _spill_share(fast), _spill_share(slow)
        better = sp_f < sp_s
        weight = share_s - (share_f if better else 0.0) if better else share_f
        worse, wn = (slow, sn) if better else (fast, fn)
        other = fn if better else sn
        out.append(Reason(fast, slow, "spills", "compiled", sp_f, sp_s, better, max(0.0, weight),
                          f"{wn} spills {max(sp_f, sp_s)} B a thread to local memory "
                          f"({_sass(worse, 'LDL', 'STL')} LDL/STL of its {_sass(worse, 'total')} SASS instructions) "
                          f"where {other} spills {min(sp_f, sp_s) or 'nothing'}"
                          + ("" if min(sp_f, sp_s) == 0 else " B")))
    for family, wide, narrow, what in (("global", WIDE_GLOBAL, NARROW_GLOBAL, "global memory"),
                                       ("shared", WIDE_SHARED, ("LDS.32",), "shared memory")):
        # Only a form one side lacks altogether: then every read it makes, executed or not, has that width.
        w_f, w_s, n_f, n_s = _sass(fast, *wide), _sass(slow, *wide), _sass(fast, *narrow), _sass(slow, *narrow)
        if w_f and not w_s and n_s:
            out.append(Reason(fast, slow, f"{family}_load_width", "compiled", "wide", "32-bit", True, _LOAD_WIDTH,
                              f"{fn} reads {what} with 64- or 128-bit loads ({w_f} in its SASS) while every read of "
                              f"{sn} is 32-bit"))
        elif w_s and not w_f and n_f:
            out.append(Reason(fast, slow, f"{family}_load_width", "compiled", "32-bit", "wide", False, _LOAD_WIDTH,
                              f"{sn} reads {what} with 64- or 128-bit loads while every read of {fn} is 32-bit"))
    occ_f, occ_s = m.occupancy(fast), m.occupancy(slow)
    measured = all((c := counters(r)) and "achieved_occupancy_pct" in c for r in (fast, slow))
    # Where ncu measured the occupancy, the theoretical one says the same thing less exactly: it is left out.
    if occ_f and occ_s and occ_f.fraction != occ_s.fraction and not measured:
        helps = occ_f.fraction > occ_s.fraction and latency_bound(m, slow) is True
        low = occ_s if occ_s.fraction < occ_f.fraction else occ_f
        out.append(Reason(fast, slow, "theoretical_occupancy", "compiled", occ_f.fraction, occ_s.fraction,
                          occ_f.fraction > occ_s.fraction,
                          0.3 * (occ_f.fraction - occ_s.fraction) / occ_f.fraction if helps else 0.0,
                          f"theoretical occupancy is {fmt.pct_round(occ_f.fraction)} for {fn} against "
                          f"{fmt.pct_round(occ_s.fraction)} for {sn} (the lower one limited by {low.limiter})"))
    return out


# ---------------------------------------------------------------------------------------------- ablations
def _effective_config(m: Measured, r: Result) -> dict:
    cfg = m.config(r)
    chosen = cfg.pop("autotuned", None)
    return dict(chosen) if isinstance(chosen, dict) else cfg


def _template_args(r: Result) -> tuple[str, list[str]] | None:
    kid = r.kernel or ""
    if "<" not in kid or not kid.endswith(">"):
        return None
    base, args = kid[:-1].split("<", 1)
    return base, [a.strip() for a in args.split(",")]


def _ablation_reasons(m: Measured, fast: Result, slow: Result, names: tuple[str, str]) -> list[Reason]:
    """Two launches of one kernel that differ in exactly one setting: that setting is the reason."""
    if fast.model == slow.model == "triton" and m.counterpart(fast) and m.counterpart(slow):
        cf, cs = m.counterpart(fast), m.counterpart(slow)
        assert cf is not None and cs is not None
        if cf.module != cs.module:
            return []
        a, b = _effective_config(m, fast), _effective_config(m, slow)
        diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    elif fast.model == slow.model == "cuda":
        ta, tb = _template_args(fast), _template_args(slow)
        if ta is None or tb is None or ta[0] != tb[0] or len(ta[1]) != len(tb[1]):
            return []
        diff = [f"template argument {i + 1}" for i, (x, y) in enumerate(zip(ta[1], tb[1], strict=True)) if x != y]
        a = {f"template argument {i + 1}": x for i, x in enumerate(ta[1])}
        b = {f"template argument {i + 1}": y for i, y in enumerate(tb[1])}
    else:
        return []
    if len(diff) != 1:
        return []
    key = diff[0]
    return [Reason(fast, slow, key, "ablation", str(a.get(key)), str(b.get(key)), True, _ABLATION,
                   f"the one setting they differ in is {key}: {a.get(key)} for {names[0]} against {b.get(key)} "
                   f"for {names[1]}")]


# ---------------------------------------------------------------------------------------------- the API
def side_name(r: Result) -> str:
    """How one side of a pair is named in a reason: 'CUDA' or the Triton label ('Triton tuned')."""
    return "CUDA" if r.model == "cuda" else r.label


def _names(fast: Result, slow: Result, names: tuple[str, str] | None) -> tuple[str, str]:
    if names is not None:
        return names
    a, b = side_name(fast), side_name(slow)
    if a == b:                                     # one model on both sides: the kernels tell them apart
        return fast.kernel or a, slow.kernel or b
    return a, b


def reasons(m: Measured, fast: Result, slow: Result, names: tuple[str, str] | None = None) -> list[Reason]:
    """Every measured difference between `fast` and `slow`, those that point with the speed first, by weight."""
    n = _names(fast, slow, names)
    out = [*_ablation_reasons(m, fast, slow, n), *_counter_reasons(m, fast, slow, n),
           *_compiled_reasons(m, fast, slow, n)]
    return sorted(out, key=lambda r: (not r.cause, not r.points_with_speed, -r.weight))


def _gap(fast: Result, slow: Result) -> float | None:
    if fast.timing is None or slow.timing is None or fast.timing.median_ms <= 0:
        return None
    return slow.timing.median_ms / fast.timing.median_ms


def because(m: Measured, fast: Result, slow: Result, names: tuple[str, str] | None = None,
            limit: int = 2) -> str | None:
    """The top measured reasons that point with the speed, with their numbers; None where none does (or the gap is
    within a rerun's reach). `fast` must be the faster of the two as timed."""
    gap = _gap(fast, slow)
    if gap is not None and gap < MIN_GAP:
        return None
    found = [r for r in reasons(m, fast, slow, names) if r.cause]
    return fmt.joined([r.phrase for r in found[:limit]]) if found else None


def despite(m: Measured, fast: Result, slow: Result, names: tuple[str, str] | None = None) -> str | None:
    """Context: the largest measured difference that favours the slower side (never a cause), where it is as large as
    a cause would have to be."""
    against = [r for r in reasons(m, fast, slow, names) if not r.points_with_speed and r.weight >= MIN_WEIGHT]
    against.sort(key=lambda r: -r.weight)
    return against[0].phrase if against else None
