"""Model or compiler: for each rung with all three columns, which part of the CUDA-Triton gap the Gluon column closes.

On one problem, a rung's CUDA kernel (C), its plain Triton counterpart (T, the rung's tile, the rest the compiler's)
and its Gluon mirror (G, every decision the CUDA kernel's, Triton's compiler) give three verdicts of the analysis
record (harness/analysis/record.py): T against C ("counterpart": the whole gap), T against G ("model") and G against C
("gluon": what the compiler makes of the same decisions). T against G is the programming model's part only where the
two forms share their design: the output tile, the K step and how data moves (the copy instructions of their SASS:
TMA, cp.async or loads through registers; warp specialisation; wgmma's A from registers). Where one of these differs
(`Split.differs`), the two forms are different programs and nothing is attributed to the model.

Beside the verdicts, the compiled quantities of all three columns, read from the run's own records: for the fp32
(SIMT) rungs FFMA per wide shared-memory load (static SASS: LDS.64, LDS.128 and LDSM; the 4-byte LDS count holds the
compilers' never-executed `@!PT LDS` padding), registers, spilled bytes and block barriers (static BAR), and, where a
`rosetta profile` file is given, the share of cycles an SM issues an instruction (issue active, ncu). A quantity moves
with the speed between Triton and Gluon where the faster of the two has the better value (more FFMA per shared load,
fewer spills, fewer barriers, more issue-active cycles) and CUDA, the control, does not contradict it: on a pair with
CUDA the rounds decide, the faster side does not have the worse value, and CUDA faster than the slower form does not
have that form's value; on a pair the rounds call a tie, the value does not differ. Registers have no better side
and are context.
Where the SIMT summit's ablation lies beside the results file (harness/analysis/ablation.py), the compiler's
part of that rung carries its cause, measured with CUDA as the control.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness.analysis import ablation
from harness.analysis.measured import Measured
from harness.analysis.record import Comparison, RowKey
from harness.analysis.relations import Relation
from harness.analysis.verdicts import LEVEL, Call, median_interval
from harness.catalog_types.gluon import GLUON_MIRROR
from harness.catalog_types.kernel import Role
from harness.problems import Problem
from harness.records.lines import Result

# quantity -> which value is better: +1 the higher, -1 the lower, 0 neither (context only)
BETTER = {"FFMA per wide shared load": 1, "registers": 0, "spilled bytes": -1, "BAR (static)": -1, "issue active %": 1}
# two values closer than this (relative) do not differ
SAME_WITHIN = 0.02


def _differ(x: float | None, y: float | None) -> bool:
    if x is None or y is None:
        return False
    top = max(abs(x), abs(y))
    return top > 0 and abs(x - y) > SAME_WITHIN * top


@dataclass(frozen=True)
class Quantity:
    name: str
    cuda: float | None
    triton: float | None
    gluon: float | None

    @property
    def moves(self) -> bool:
        """Triton's and Gluon's values differ by more than SAME_WITHIN of the larger."""
        return _differ(self.triton, self.gluon)

    def better(self, x: str, y: str) -> int:
        """+1 where column x's value is the better one, -1 the worse, 0 where they do not differ (or it has no
        better side, or a value is missing)."""
        a, b = getattr(self, x), getattr(self, y)
        if not BETTER[self.name] or not _differ(a, b):
            return 0
        return 1 if (a - b) * BETTER[self.name] > 0 else -1


@dataclass(frozen=True)
class Difference:
    """One fact of their design that Triton's and Gluon's forms of a rung do not share."""

    name: str            # "tile", "K step", "copies", "warp specialisation", "A from registers"
    triton: str
    gluon: str


@dataclass(frozen=True)
class Share:
    """The share of the CUDA-Triton gap the Gluon column closes, with its interval (None: not paired rounds) and the
    interval's coverage (below LEVEL: too few rounds for a 95% interval, their range)."""

    value: float
    lo: float | None
    hi: float | None
    coverage: float = LEVEL


@dataclass(frozen=True)
class Split:
    """One rung on one problem: the three records' keys, the three verdicts, the quantities, what differs between
    Triton's and Gluon's designs and the share closed (a finding's figures: harness/analysis/findings.py
    ModelOrCompiler keeps it in the analysis record)."""

    kernel: str
    problem: Problem
    cuda: RowKey
    triton: RowKey
    gluon: RowKey
    gap: Comparison | None        # Triton against CUDA
    model: Comparison | None      # Triton against Gluon
    compiler: Comparison | None   # Gluon against CUDA
    quantities: tuple[Quantity, ...]
    differs: tuple[Difference, ...] = ()
    closed: Share | None = None   # where the rounds call Triton SLOW against CUDA (a decided gap to close)
    cause: ablation.Cause | None = None   # why Gluon trails CUDA, by an ablation of the same device (same problem)
    cause_file: str = ""                  # the ablation's file

    @property
    def same_design(self) -> bool:
        return not self.differs

    @property
    def moving(self) -> list[Quantity]:
        """The quantities that move between Triton and Gluon with the speed, held to CUDA as the control (module
        docstring); none where the rounds do not decide between Triton and Gluon, or their designs differ."""
        if not self.same_design or self.model is None or self.model.call not in (Call.FAST, Call.SLOW):
            return []
        fast, slow = ("triton", "gluon") if self.model.call is Call.FAST else ("gluon", "triton")
        controls = {"triton": _direction(self.gap), "gluon": _direction(self.compiler)}
        return [q for q in self.quantities if q.better(fast, slow) == 1
                and not any(_refutes(q.better("cuda", other), speed, other == slow)
                            for other, speed in controls.items() if speed is not None)]


def _refutes(better: int, faster: int, against_slow: bool) -> bool:
    """Whether CUDA against one form refutes a quantity: `better` and `faster` are CUDA's side of the value and of
    the speed (+1, -1, 0: a tie); it refutes where the value differs against the speed or where the speed ties, and
    where CUDA beats the slower form with that form's value."""
    return (better != 0 and better != faster) or (against_slow and faster == 1 and better == 0)


def _direction(c: Comparison | None) -> int | None:
    """CUDA's speed against `form` on a pair: +1 CUDA faster, -1 slower, 0 a tie, None undecided or absent (the
    comparison's subject is the form, its reference CUDA)."""
    call = c.call if c is not None else None
    return {Call.SLOW: 1, Call.FAST: -1, Call.SAME: 0}.get(call) if call is not None else None  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- what each form is
def copies(r: Result) -> str | None:
    """How a compiled kernel moves operands into shared memory, from its SASS: by TMA, by cp.async, or through
    registers (neither); None without a SASS mix."""
    s = r.resources.sass if r.resources is not None else None
    if not s:
        return None
    return "TMA" if s.get("UTMALDG") else "cp.async" if s.get("LDGSTS") else "registers"


def _flag(m: Measured, r: Result, key: str) -> bool | None:
    """A compiled fact of the form (Gluon's and Triton's compiled evidence) or its launch setting, where recorded."""
    evidence = r.resources.evidence if r.resources is not None else None
    if m.config(r).get(key) is True:
        return True
    return bool(evidence[key]) if evidence and key in evidence else None


def differences(m: Measured, t: Result, g: Result) -> tuple[Difference, ...]:
    """What Triton's form and Gluon's (the CUDA kernel's decisions) do not share: the output tile, the K step, the
    copy instructions, warp specialisation, wgmma's A operand from registers. A fact unknown on either side is not
    counted as a difference."""
    out = []
    tt, tg = m.tile(t), m.tile(g)
    if tt and tg and tt[:2] != tg[:2]:
        out.append(Difference("tile", f"{tt[0]}×{tt[1]}", f"{tg[0]}×{tg[1]}"))
    if tt and tg and tt[2] != tg[2]:
        out.append(Difference("K step", str(tt[2]), str(tg[2])))
    if (ct := copies(t)) and (cg := copies(g)) and ct != cg:
        out.append(Difference("copies", ct, cg))
    for key, name in (("warp_specialize", "warp specialisation"), ("warp_group_dot_reg_a", "A from registers")):
        ft, fg = _flag(m, t, key), _flag(m, g, key)
        if ft is not None and fg is not None and ft != fg:
            out.append(Difference(name, "yes" if ft else "no", "yes" if fg else "no"))
    return tuple(out)


# ---------------------------------------------------------------------------------------------- the share closed
def share_closed(c: Result, t: Result, g: Result, gap: Comparison, compiler: Comparison) -> Share:
    """(T/C − G/C) / (T/C − 1): the verdicts' estimates' share where the three were not timed in the same rounds;
    where they were, the median over those rounds of each round's share (of its medians), with the verdicts'
    distribution-free interval of a median (its coverage: `Share.coverage`)."""
    samples = [r.timing.samples if r.timing else None for r in (c, t, g)]
    if any(s is None for s in samples) or len({s.batch for s in samples if s}) != 1:
        return Share((gap.ratio - compiler.ratio) / (gap.ratio - 1), None, None)
    n = min(s.rounds for s in samples if s)
    mc, mt, mg = (np.array([float(np.median([s.ms[i] for i in idx])) for idx in s.by_round()[:n]])
                  for s in samples if s)
    shares = (mt - mg) / (mt - mc)
    lo, hi, coverage = median_interval(shares)
    return Share(float(np.median(shares)), lo, hi, coverage)


# ---------------------------------------------------------------------------------------------- the quantities
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


def issue_active(profile: Path | Sequence[Path] | None) -> dict[tuple[str | None, str], float]:
    """(kernel id, impl) -> issue-active % of `rosetta profile` files (empty without one): several files are read as
    one (a profile taken up where an earlier one stopped, `rosetta profile --impl`), each implementation from the
    last file that has it."""
    paths = [] if profile is None else [profile] if isinstance(profile, (str, Path)) else list(profile)
    out: dict[tuple[str | None, str], float] = {}
    for path in paths:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        out.update({(row["kernel"], row["impl"]): float(row["metrics"]["issue_active_pct"])
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
    order: each with its three verdicts, its quantities, what differs between the Triton and Gluon forms, and the
    share of the gap closed."""
    issue = issue_active(profile)
    newest = ablation.newest_for(m.file.path, m.header.device) if m.file.path.suffix == ".jsonl" else None
    found, cause_file = newest if newest is not None else (None, "")
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
            gap, model = m.vs(t, Relation.COUNTERPART) or m.between(t, c), m.vs(t, Relation.MODEL) or m.between(t, g)
            compiler = m.vs(g, Relation.GLUON) or m.between(g, c)
            decided = gap is not None and compiler is not None and gap.call is Call.SLOW
            out.append(Split(kernel.id, problem, c.key, t.key, g.key, gap, model, compiler, _quantities(c, t, g, issue),
                             differences(m, t, g), share_closed(c, t, g, gap, compiler) if decided else None,
                             at.cause if at is not None else None, cause_file if at is not None else ""))
    return out
