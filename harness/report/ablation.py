"""How the SIMT summit's ablation (harness/analysis/ablation.py) is said: the cause it decides, with CUDA as the
control, in the model-or-compiler table and `rosetta gluon`; every variant's speeds and loop facts in the terminal."""

from __future__ import annotations

from harness.analysis.ablation import BANKS, Ablation, Cause
from harness.analysis.verdicts import MARGIN_SIMT, Call, Verdict
from harness.report.wording import baseline_label, relation_of, verdict_speed

FP32 = baseline_label("fp32")
# What a quantity the ablation adds to CUDA's cubin is, as a sentence names it.
QUANTITY = {BANKS: "FFMA reading two of its sources from one register bank"}


def _x(v: Verdict | None) -> str:
    """'0.922x [0.921–0.923] (slower)': the speed and its call, as every other verdict of the page is said."""
    if v is None:
        return "—"
    return f"{verdict_speed(v)} ({relation_of(v.time.call)})"


def cause_sentence(c: Cause, size: int) -> str:
    """The finding as the page prints it: the directed quantity with CUDA as the control, and what was ruled out."""
    head = (f"{size}^3: Gluon's dot form against the CUDA summit, {_x(c.gap)}. With CUDA as the control: the "
            f"form's main loop has {c.gluon:.0f} {QUANTITY.get(c.quantity, c.quantity)} per K tile, CUDA's "
            f"{c.cuda:.0f}; CUDA's own cubin with {c.added:.0f} more (reuse flags cleared, nothing else changed) "
            f"against CUDA as built, {_x(c.control)}")
    share = c.share
    if c.named and share is not None:
        head += (f": {100 * share:.0f}% of the form's gap. The conflicts come from the registers ptxas assigns to the "
                 "PTX Triton's front end writes, which neither CUDA C++ nor Gluon states"
                 + (f"; the other {100 * (1 - share):.0f}% is not ablated" if share < 0.95 else ""))
    elif not c.named:
        head += ": register-bank conflicts do not explain the gap"
    rule = "; ".join(f"{n} against the same PTX as built, {_x(v)}" for n, v in c.ruled_out)
    return head + (f". Ruled out, the assembler ({rule})" if rule else "") + "."


def lines(a: Ablation) -> list[str]:
    """Every variant's speed against CUDA, cuBLAS fp32 and its base, with its loop's facts; then the cause."""
    out = [f"{a.kernel} ablation on {a.device} ({', '.join(f'{k} {v}' for k, v in a.tools.items())}):"]
    for s in a.sizes:
        out.append(f"  {s.size}^3 (speed as a multiple of: CUDA / {FP32} / its base; per K tile: issue cycles, "
                   "same-bank FFMA, reuse-served reads, LDS waited on within 30 cycles)")
        for r in s.rows:
            f = r.facts
            facts = (f"{f.get('loop.issue_cycles', 0):.0f}, {f.get(BANKS, 0):.0f}, {f.get('loop.reuse_served', 0):.0f}"
                     f", {f.get('loop.lds_under_30', 0):.1f}") if f else "-"
            out.append(f"    {r.variant}: " + (f"failed: {r.failed}" if r.failed else
                       f"{_x(r.vs_cuda)} / {_x(r.vs_cublas)} / {_x(r.vs_base)}; {facts}"))
        if s.cause is not None:
            out.append("  " + cause_sentence(s.cause, s.size))
        if (best := s.fastest_gluon) is not None:
            same = best.vs_cuda.call in (Call.SAME, Call.FAST)  # type: ignore[union-attr]
            out.append(f"  the fastest Gluon variant, {best.variant}: {_x(best.vs_cuda)} CUDA's speed, "
                       f"{_x(best.vs_cublas)} {FP32}'s; " + ("a tie with CUDA or better" if same else
                       f"short of a tie with CUDA (within {MARGIN_SIMT:.0%})"))
    return out
