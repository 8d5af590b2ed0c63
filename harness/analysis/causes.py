"""Why one implementation runs faster than another: every stated cause is a `Cause`, built here and nowhere else.

A cause is data: a measured quantity on both sides of a pair (faster, slower), an ncu counter, a compiled fact (the
tensor-core instruction generation, spills, occupancy) or an ablation (two launches of one kernel that
differ in one setting), with the side whose value is the better one. It points with the speed only where that is the
faster side; only those, ranked by how much of the slower kernel's time they plausibly explain, are ever said as a
"because" (harness/report/cause_words.py words them). The rest is context ("despite ...") or nothing.

Executed counts come before static ones: a static SASS count includes paths that never run (the beta != 0 read of C),
so instruction counts from the SASS are never a cause; only the form of an instruction (wgmma or mma.sync) is.
Counters are used only where ncu's kernel time agrees with the timed median (`tied`): a profile that ran another
configuration (an autotuner choosing differently under the profiler) describes another kernel.

A cause must also discriminate: the quantity differs between the two rows it separates in the direction of the speed,
and not the same way between two rows where the speed does not go that way (`controls`). The control pairs are the
file's own comparisons in the same class, on any problem (a Triton form against its CUDA kernel, its Gluon mirror, a
rung against its step before, a row against its Triton baseline): one the rounds called SAME refutes a quantity that
differs as much, the same way, between its two rows (the shared-memory tile's Triton dot has the wide loads its CUDA
kernel lacks, yet at the kernel's own 32x32 tile the two run alike), and holds it where it differs less or not at
all; one the rounds decided refutes a quantity that differs as much the same way with the speed the other way (a
rung's fewer bank conflicts, where in another pair the side with as many fewer is the slower). Only a cause that some
control pair holds and none refutes is stated. An ablation is its own control (two launches that
differ in one setting). Where no cause is left, none was measured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.analysis.claims import TIE
from harness.analysis.measured import Measured
from harness.analysis.record import MIN_WEIGHT, Cause, Comparison
from harness.analysis.relations import Relation
from harness.analysis.verdicts import Call
from harness.records.lines import Result

# ncu's kernel time may differ from the timed median by this fraction before its counters are refused: ncu replays
# one launch with the clocks unlocked, so a few percent is the replay (7% at most among the H100 run's fixed-tile
# rows); an autotuned row 19% to 62% off ran another configuration under the profiler.
COUNTER_TOLERANCE = 0.15
# A gap under this ratio is a tie (the margin the claims use): no cause is stated for it.
MIN_GAP = 1 + TIE
# Fixed shares for facts with no executed magnitude: the tensor-core instruction generation (wgmma issues one
# asynchronous 64xNx8 product per warpgroup where mma.sync issues a 16x8x8 per warp and waits on its registers) is
# the largest a compiled kernel can show. A load's width (128-bit or 32-bit) is no cause: one kernel pair's SASS is
# the same at every shape while its order changes with the shape (the H100 run T012026Z: Triton's wide global loads
# against CUDA's 32-bit ones in 18 pairs, Triton faster in 11, slower in 6, a tie in 1).
_TC_GENERATION = 0.5
_ABLATION = 1.0           # the one setting two launches differ in explains all of their difference



def _side(better: bool) -> str:
    return "faster" if better else "slower"


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
    """SM-cycles the timed launch spans on the whole GPU: the clock of its timed runs (the rounds' windows, else the
    reading beside a single burst)."""
    t, sms = r.timing, m.header.sms
    clock = (t.clock_mhz or t.clock_mhz_before or t.clock_mhz_after) if t else None
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


# Counters where fewer is better: (key, weight from (fast value, slow value, pair)).
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


FEWER: tuple[tuple[str, Weigh], ...] = (
    ("smem_bank_conflicts", _conflict_share),
    ("dram_bytes", _dram_share),
    ("local_instructions", _relative(0.3)),
    ("stall_long_scoreboard", _relative(0.3)),
    ("stall_short_scoreboard", _relative(0.3)),
    ("stall_mio_throttle", _relative(0.3)),
    ("stall_barrier", _relative(0.2)),
    ("global_requests_per_kfma", _relative(0.1)),
)


def _counter_causes(m: Measured, fast: Result, slow: Result) -> list[Cause]:
    a, b = counters(fast), counters(slow)
    if a is None or b is None:
        return []
    out = []
    for key, weigh in FEWER:
        if key not in a or key not in b or a[key] == b[key]:
            continue
        f, s = a[key], b[key]
        better = f < s
        weight = weigh(f, s, m, fast, slow) if better else weigh(s, f, m, slow, fast)
        detail = {"model_bytes": a["model_bytes"]} if key == "dram_bytes" and "model_bytes" in a else {}
        out.append(Cause(key, "counter", f, s, _side(better), weight, detail))
    pipe = _work_pipe(fast)
    if pipe and pipe == _work_pipe(slow) and pipe in a and pipe in b and a[pipe] != b[pipe]:
        f, s = a[pipe], b[pipe]
        # A busier work pipe is as much the speed as its cause; half its difference in points is the share credited.
        out.append(Cause(pipe, "counter", f, s, _side(f > s), abs(f - s) / 200))
    occ = "achieved_occupancy_pct"
    if occ in a and occ in b and a[occ] != b[occ]:
        f, s = a[occ], b[occ]
        # More warps only help a kernel that waits on latency; otherwise occupancy is context, never a cause.
        helps = f > s and latency_bound(m, slow) is True
        out.append(Cause(occ, "counter", f, s, _side(f > s), 0.3 * (f - s) / f if helps else 0.0,
                         {"latency_bound": True} if helps else {}))
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


def _compiled_causes(m: Measured, fast: Result, slow: Result) -> list[Cause]:
    out: list[Cause] = []
    # per side, not per impl: two rungs of one model are both "cuda"
    g_f, g_s = ("HGMMA" if _sass(r, "HGMMA") else "HMMA" if _sass(r, "HMMA") else None for r in (fast, slow))
    if g_f and g_s and g_f != g_s:
        wg = fast if g_f == "HGMMA" else slow
        sync = slow if wg is fast else fast
        out.append(Cause("tensor_core_instructions", "compiled", g_f, g_s, _side(g_f == "HGMMA"), _TC_GENERATION,
                         {"HGMMA": _sass(wg, "HGMMA"), "HMMA": _sass(sync, "HMMA")}))
    sp_f, sp_s = (int(r.resources.spills or 0) if r.resources else 0 for r in (fast, slow))
    if sp_f != sp_s:
        share_f, share_s = _spill_share(fast), _spill_share(slow)
        better = sp_f < sp_s
        weight = share_s - (share_f if better else 0.0) if better else share_f
        worse = slow if better else fast
        out.append(Cause("spills", "compiled", sp_f, sp_s, _side(better), max(0.0, weight),
                         {"local": _sass(worse, "LDL", "STL"), "total": _sass(worse, "total")}))
    occ_f, occ_s = m.occupancy(fast), m.occupancy(slow)
    measured = all((c := counters(r)) and "achieved_occupancy_pct" in c for r in (fast, slow))
    # Where ncu measured the occupancy, the theoretical one says the same thing less exactly: it is left out.
    if occ_f and occ_s and occ_f.fraction != occ_s.fraction and not measured:
        helps = occ_f.fraction > occ_s.fraction and latency_bound(m, slow) is True
        low = occ_s if occ_s.fraction < occ_f.fraction else occ_f
        out.append(Cause("theoretical_occupancy", "compiled", occ_f.fraction, occ_s.fraction,
                         _side(occ_f.fraction > occ_s.fraction),
                         0.3 * (occ_f.fraction - occ_s.fraction) / occ_f.fraction if helps else 0.0,
                         {"limiter": low.limiter}))
    return out


# ---------------------------------------------------------------------------------------------- ablations
def _template_args(r: Result) -> tuple[str, list[str]] | None:
    kid = r.kernel or ""
    if "<" not in kid or not kid.endswith(">"):
        return None
    base, args = kid[:-1].split("<", 1)
    return base, [a.strip() for a in args.split(",")]


def _ablation_causes(m: Measured, fast: Result, slow: Result) -> list[Cause]:
    """Two launches of one kernel that differ in exactly one setting: that setting is the reason."""
    cf, cs = m.counterpart(fast), m.counterpart(slow)
    if fast.impl_id.is_triton and slow.impl_id.is_triton and cf and cs:
        if cf.module != cs.module:
            return []
        a, b = m.config(fast), m.config(slow)   # as they ran: an autotuner's choice over the settings it started from
    elif fast.impl_id.is_cuda and slow.impl_id.is_cuda:
        ta, tb = _template_args(fast), _template_args(slow)
        if ta is None or tb is None or ta[0] != tb[0] or len(ta[1]) != len(tb[1]):
            return []
        a, b = ({f"template argument {i + 1}": x for i, x in enumerate(args)} for _, args in (ta, tb))
    else:
        return []
    diff = [k for k in {**a, **b} if a.get(k) != b.get(k)]
    if len(diff) != 1:
        return []
    key = diff[0]
    return [Cause(key, "ablation", str(a.get(key)), str(b.get(key)), "faster", _ABLATION)]


# ---------------------------------------------------------------------------------------------- control pairs
# The comparisons of a file that make control pairs: two rows of kernels that both have compiled facts (a cuBLAS row
# has none) and differ in code, not in the implementation timed twice ("aa") or across files ("runs").
CONTROL_RELATIONS = (Relation.COUNTERPART, Relation.GLUON, Relation.MODEL, Relation.STEP, Relation.TRITON_BASELINE)


@dataclass(frozen=True)
class Control:
    """A cause held to a control pair: two rows the rounds called SAME or decided, and whether the quantity differs
    between them as it does between the pair it is said of where their speed does not go that way (`refutes`)."""

    cause: Cause
    pair: Comparison
    refutes: bool


def _measurable(m: Measured, r: Result, c: Cause) -> bool:
    """Whether a cause's quantity can be read on a row at all."""
    if c.kind == "counter":
        found = counters(r)
        return found is not None and (c.quantity in found or c.quantity == "achieved_occupancy_pct")
    if c.quantity == "theoretical_occupancy":
        return m.occupancy(r) is not None
    return r.resources is not None and bool(r.resources.sass)


def _as_much(c: Cause, other: Cause) -> bool:
    """`other` (a control pair's) differs the way `c` does, by at least as much."""
    if other.quantity != c.quantity or other.kind != c.kind:
        return False
    if isinstance(c.faster, str) or isinstance(c.slower, str):
        return (other.faster, other.slower) == (c.faster, c.slower)
    f, s, of, os_ = float(c.faster), float(c.slower), float(other.faster), float(other.slower)  # type: ignore[arg-type]
    if (f < s) != (of < os_) or of == os_:
        return False
    return abs(of - os_) / max(abs(of), abs(os_)) >= abs(f - s) / max(abs(f), abs(s))


def _swapped(c: Cause) -> Cause:
    """The same difference read from the other side: the slower's value first."""
    return Cause(c.quantity, c.kind, c.slower, c.faster, "slower" if c.favours == "faster" else "faster", c.weight,
                 c.detail)


def _control_pairs(m: Measured, fast: Result, slow: Result) -> list[Comparison]:
    """The file's comparisons of control relations in the pair's class that the rounds called SAME, FAST or SLOW,
    those on the pair's problem and sharing a kernel with it first."""
    kernels = {fast.kernel, slow.kernel} - {None}
    found = [c for c in m.analysis.comparisons
             if c.relation in CONTROL_RELATIONS and c.call in (Call.SAME, Call.FAST, Call.SLOW)
             and not {c.subject_key, c.reference_key} <= {fast.key, slow.key}]
    found = [c for c in found if m.record(c.reference_key).precision == slow.precision
             and m.record(c.subject_key).precision == slow.precision]
    return sorted(found, key=lambda c: (c.problem != slow.problem, not ({c.subject[0], c.reference[0]} & kernels)))


def controls(m: Measured, fast: Result, slow: Result, found: list[Cause]) -> list[Control]:
    """Each cause of `found` held to each control pair on which its quantity can be read on both rows (see the
    module's docstring); ablations, their own control, are not held to any."""
    out = []
    pairs = [(c, m.record(c.subject_key), m.record(c.reference_key)) for c in _control_pairs(m, fast, slow)]
    for cause in found:
        if cause.kind == "ablation":
            continue
        for comparison, x, y in pairs:
            if not (_measurable(m, x, cause) and _measurable(m, y, cause)):
                continue
            if comparison.call is Call.SAME:
                alike = [*causes(m, x, y), *causes(m, y, x)]
                out.append(Control(cause, comparison, any(_as_much(cause, other) for other in alike)))
            else:   # decided: read from its faster side; the same difference with the speed reversed refutes
                cf, cs = (x, y) if comparison.call is Call.FAST else (y, x)
                if any(_as_much(cause, _swapped(o)) for o in causes(m, cf, cs)):
                    out.append(Control(cause, comparison, True))
    return out


def discriminating(m: Measured, fast: Result, slow: Result, found: list[Cause]) -> list[Cause]:
    """The causes of `found` that discriminate: an ablation, or a quantity that some control pair holds and none
    refutes. Each keeps, in its detail, the control pair that held it (its subject's and reference's kernel and
    implementation)."""
    held = controls(m, fast, slow, found)
    out = []
    for cause in found:
        if cause.kind == "ablation":
            out.append(cause)
            continue
        mine = [h for h in held if h.cause is cause]
        if mine and not any(h.refutes for h in mine):
            pair = mine[0].pair
            out.append(Cause(cause.quantity, cause.kind, cause.faster, cause.slower, cause.favours, cause.weight,
                             {**cause.detail, "control": [list(pair.subject), list(pair.reference)]}))
    return out


# ---------------------------------------------------------------------------------------------- the API
def causes(m: Measured, fast: Result, slow: Result) -> list[Cause]:
    """Every measured difference between `fast` and `slow`, those that point with the speed first, by weight."""
    out = [*_ablation_causes(m, fast, slow), *_counter_causes(m, fast, slow), *_compiled_causes(m, fast, slow)]
    return sorted(out, key=lambda c: (not c.cause, not c.points_with_speed, -c.weight))


def stated(m: Measured, fast: Result, slow: Result, limit: int = 2) -> list[Cause]:
    """The top measured causes that point with the speed and discriminate (`discriminating`); none where none does
    (or the gap is within a rerun's reach): then no cause was measured. `fast` must be the faster of the two as
    timed."""
    f, s = fast.timing, slow.timing
    if f is not None and s is not None and f.median_ms > 0 and s.median_ms / f.median_ms < MIN_GAP:
        return []
    return discriminating(m, fast, slow, [c for c in causes(m, fast, slow) if c.cause])[:limit]


def against(m: Measured, fast: Result, slow: Result) -> Cause | None:
    """Context: the largest measured difference that favours the slower side (never a cause), where it is as large as
    a cause would have to be."""
    found = [c for c in causes(m, fast, slow) if not c.points_with_speed and c.weight >= MIN_WEIGHT]
    return max(found, key=lambda c: c.weight) if found else None
