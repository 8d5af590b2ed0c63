"""Model or compiler: for each rung with all three columns, which part of the CUDA-Triton gap the Gluon column closes.

On one problem, a rung's CUDA kernel (C), its plain Triton counterpart (T, the rung's tile, the rest the compiler's)
and its Gluon mirror (G, every decision the CUDA kernel's, Triton's compiler) give three verdicts of the analysis
record (harness/analysis/record.py): T against C ("counterpart": the whole gap), T against G ("model": what the
program leaves to the compiler on the same tile) and G against C ("gluon": what the compiler makes of the same
decisions). Beside them, the compiled quantities of all three columns, read from the run's own records: for the fp32
(SIMT) rungs FFMA per wide shared-memory load (static SASS: LDS.64, LDS.128 and LDSM; the 4-byte LDS count holds the
compilers' never-executed `@!PT LDS` padding), registers, spilled bytes and block barriers (static BAR), and, where a
`rosetta profile` file is given, the share of cycles an SM issues an instruction (issue active, ncu). A quantity
"moves" between Triton and Gluon when it differs, and is named as moving with the speed when the faster of the two
has the better value (more FFMA per shared load, fewer spills, fewer barriers, more issue-active cycles); registers
have no better side and are shown as context. Where the SIMT summit's ablation lies beside the results file
(harness/analysis/ablation.py), the compiler's part of that rung carries its cause, measured with CUDA as the control.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.analysis import ablation
from harness.analysis.measured import Measured
from harness.analysis.record import Comparison, RowKey
from harness.analysis.relations import Relation
from harness.analysis.verdicts import Call
from harness.catalog_types.gluon import GLUON_MIRROR
from harness.catalog_types.kernel import Role
from harness.identity import KernelImpl
from harness.problems import Problem
from harness.records.lines import Result

# quantity -> which value is better: +1 the higher, -1 the lower, 0 neither (context only)
BETTER = {"FFMA per wide shared load": 1, "registers": 0, "spilled bytes": -1, "BAR (static)": -1, "issue active %": 1}
# two values closer than this (relative) do not move
SAME_WITHIN = 0.02


@dataclass(frozen=True)
class Quantity:
    name: str
    cuda: float | None
    triton: float | None
    gluon: float | None

    @property
    def moves(self) -> bool:
        """Triton's and Gluon's values differ by more than SAME_WITHIN of the larger."""
        if self.triton is None or self.gluon is None:
            return False
        top = max(abs(self.triton), abs(self.gluon))
        return top > 0 and abs(self.triton - self.gluon) > SAME_WITHIN * top

    def with_speed(self, gluon_faster: bool) -> bool:
        """Moves, and the faster of Triton and Gluon has the better value."""
        better = BETTER[self.name]
        if not self.moves or better == 0:
            return False
        gluon_better = (self.gluon - self.triton) * better > 0  # type: ignore[operator]
        return gluon_better == gluon_faster


@dataclass(frozen=True)
class Split:
    """One rung on one problem: the three records' keys, the three verdicts and the quantities (a finding's figures:
    harness/analysis/findings.py ModelOrCompiler keeps it in the analysis record)."""

    kernel: str
    problem: Problem
    cuda: RowKey
    triton: RowKey
    gluon: RowKey
    gap: Comparison | None        # Triton against CUDA
    model: Comparison | None      # Triton against Gluon
    compiler: Comparison | None   # Gluon against CUDA
    quantities: tuple[Quantity, ...]
    cause: ablation.Cause | None = None   # why Gluon trails CUDA, by the ablation beside the file (same problem)

    @property
    def closed(self) -> float | None:
        """The share of the CUDA-Triton gap (T/C - 1) that the Gluon column closes, (T/C - G/C) / (T/C - 1); None
        unless the rounds call Triton SLOW against CUDA (no decided gap to close) or a ratio is missing."""
        if self.gap is None or self.compiler is None or self.gap.call is not Call.SLOW:
            return None
        return (self.gap.ratio - self.compiler.ratio) / (self.gap.ratio - 1)

    @property
    def moving(self) -> list[Quantity]:
        """The quantities that move between Triton and Gluon with the speed, where the rounds decide which of the two
        is faster (FAST or SLOW); none where they tie or cannot tell."""
        if self.model is None or self.model.call not in (Call.FAST, Call.SLOW):
            return []
        gluon_faster = self.model.call is Call.SLOW  # Triton (the subject) slower than Gluon
        return [q for q in self.quantities if q.with_speed(gluon_faster)]


def _sass(r: Result, key: str) -> float | None:
    return float(r.resources.sass.get(key, 0)) if r.resources is not None and r.resources.sass else None


def _ffma_per_wide_shared_load(r: Result) -> float | None:
    if r.resources is None or not r.resources.sass or r.precision != "fp32":
        return None
    s = r.resources.sass
    loads = s.get("LDS.64", 0) + s.get("LDS.128", 0) + s.get("LDSM", 0)
    return s.get("FFMA", 0) / loads if loads and s.get("FFMA", 0) else None


def _field(r: Result, name: str) -> float | None:
    if r.resources is None:
        return None
    value = getattr(r.resources, name)
    return float(value) if value is not None else None


def issue_active(profile: Path | Sequence[Path] | None) -> dict[KernelImpl, float]:
    """(kernel id, impl) -> issue-active % of `rosetta profile` files (empty without one): several files are read as
    one (a profile taken up where an earlier one stopped, `rosetta profile --impl`), each implementation from the
    last file that has it."""
    paths = [] if profile is None else [profile] if isinstance(profile, (str, Path)) else list(profile)
    out: dict[KernelImpl, float] = {}
    for path in paths:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        out.update({KernelImpl(row["kernel"], row["impl"]): float(row["metrics"]["issue_active_pct"])
                    for row in data.get("rows", [])
                    if row.get("metrics") and row["metrics"].get("issue_active_pct") is not None})
    return out


def _quantities(c: Result, t: Result, g: Result, issue: dict) -> tuple[Quantity, ...]:
    def of(fn) -> tuple:
        return fn(c), fn(t), fn(g)

    out = [Quantity("FFMA per wide shared load", *of(_ffma_per_wide_shared_load)),
           Quantity("registers", *of(lambda r: _field(r, "registers"))),
           Quantity("spilled bytes", *of(lambda r: _field(r, "spills"))),
           Quantity("BAR (static)", *of(lambda r: _sass(r, "BAR")))]
    if issue:
        out.append(Quantity("issue active %", *(issue.get(r.kernel_impl) for r in (c, t, g))))
    return tuple(q for q in out if any(v is not None for v in (q.cuda, q.triton, q.gluon)))


def splits(m: Measured, profile: Path | Sequence[Path] | None = None) -> list[Split]:
    """Every rung with a timed CUDA kernel, plain Triton counterpart and Gluon mirror on one problem, in the file's
    order: each with its three verdicts and its quantities."""
    issue = issue_active(profile)
    found = ablation.read_beside(m.file.path) if m.file.path.suffix == ".jsonl" else None
    out: list[Split] = []
    for kernel in m.kernels:
        plain = [c.name for c in kernel.counterparts if c.role is Role.PLAIN]
        if not plain or not any(g.name == GLUON_MIRROR for g in kernel.gluon):
            continue
        for problem in m.problems:
            rows = {r.impl: r for r in m.of_kernel(kernel.id) if r.problem == problem and r.timed}
            c, t, g = rows.get("cuda"), rows.get(f"triton:{plain[0]}"), rows.get(f"gluon:{GLUON_MIRROR}")
            if c is None or t is None or g is None:
                continue
            at = found.at(problem.M) if found is not None and found.kernel == kernel.id and \
                problem.M == problem.N == problem.K else None
            out.append(Split(kernel.id, problem, c.key, t.key, g.key, m.vs(t, Relation.COUNTERPART) or m.between(t, c),
                             m.vs(t, Relation.MODEL) or m.between(t, g), m.vs(g, Relation.GLUON) or m.between(g, c),
                             _quantities(c, t, g, issue), at.cause if at is not None else None))
    return out


def _pct(c: Comparison | None) -> str:
    if c is None:
        return "-"
    pct, lo, hi = c.pct()
    call = f" {c.call.value}" if c.call is not None else ""
    return f"{pct:.1f}%" + (f" [{lo:.1f}-{hi:.1f}]" if lo is not None else "") + call


def lines(found: list[Split]) -> list[str]:
    """The splits in words, one block a rung and problem: what the terminal prints and a page can show."""
    out: list[str] = []
    for s in found:
        closed = s.closed
        decided = s.model is not None and s.model.call in (Call.FAST, Call.SLOW)
        moving = (", ".join(q.name for q in s.moving) or "none of the compiled quantities") if decided else \
            "no direction: the rounds do not decide between Triton and Gluon"
        out.append(f"{s.kernel} {s.problem.label}: Triton {_pct(s.gap)} of CUDA's speed; Gluon {_pct(s.compiler)} "
                   f"of CUDA's (the compiler's part); Triton {_pct(s.model)} of Gluon's (the model's part)"
                   + (f"; the Gluon column closes {100 * closed:.0f}% of the gap" if closed is not None else ""))
        for q in s.quantities:
            values = " / ".join("-" if v is None else f"{v:.3g}" for v in (q.cuda, q.triton, q.gluon))
            out.append(f"    {q.name} (CUDA / Triton / Gluon): {values}")
        out.append(f"    moves with the speed between Triton and Gluon: {moving}")
        if s.cause is not None:
            out.append(f"    why Gluon trails CUDA (the ablation, CUDA as the control): "
                       f"{ablation.cause_sentence(s.cause, s.problem.M)}")
    return out


def closed_text(closed: float) -> str:
    """'55% of the gap'; past the whole gap (Gluon faster than CUDA), 'the whole gap and more (173%)'."""
    return f"{100 * closed:.0f}% of the gap" if closed <= 1 else f"the whole gap and more ({100 * closed:.0f}%)"
