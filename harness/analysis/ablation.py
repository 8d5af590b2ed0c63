"""What the SIMT summit's ablation (harness/run/ablation.py) found: each variant's speed against the CUDA summit, cuBLAS
fp32 and the variant it changes one thing of, its main loop's static facts per K tile, and the cause it decides.

The cause is named with CUDA as the control: a quantity the Gluon form has more of than CUDA is added to CUDA's own
cubin and nothing else (its register-bank conflicts, by clearing reuse flags); where that makes CUDA SLOW, the
quantity is named, with its value on both sides, the control's verdict, and the share of the Gluon form's gap the
control reproduces (log of the control's time ratio over the log of the form's). The assembler variants rule the
assembler in or out: a swap that is SAME against the variant it swaps from changes nothing the rounds can see.
Verdicts are made as everywhere else (harness/analysis/verdicts.py), in the rounds the variants shared; the page says
the cause (harness/report/ablation.py).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from harness.analysis.verdicts import MARGIN_SIMT, Call, Verdict, compare
from harness.measure.timing import Samples

SUBJECT = "gluon dot"                           # the Gluon form the cause is decided for: the fastest, as built
CONTROL = "cuda, Gluon's bank conflicts"        # CUDA with that form's excess of same-bank FFMA added
ASSEMBLERS = ("cuda, Triton's ptxas", "gluon dot, the toolkit's ptxas")
BANKS = "loop.same_bank_ffma"
TILE_FFMA = 2048   # FFMA per K tile of the summit (128 x 256 x 16 over 256 threads)


@dataclass(frozen=True)
class Row:
    variant: str
    model: str
    facts: dict[str, float]        # the main loop's static facts per K tile (harness/inspect/sass_loop.py)
    vs_cuda: Verdict | None
    vs_cublas: Verdict | None
    vs_base: Verdict | None
    failed: str = ""


@dataclass(frozen=True)
class Cause:
    """The decided cause on one size, or what was ruled out."""

    quantity: str                  # what was added to the control
    cuda: float                    # its value per K tile on CUDA
    gluon: float                   # and on the Gluon form
    added: float                   # what the control added per K tile
    control: Verdict               # CUDA with it added, against CUDA
    gap: Verdict                   # the Gluon form against CUDA
    ruled_out: tuple[tuple[str, Verdict], ...]   # the assembler swaps that are SAME against their base

    @property
    def named(self) -> bool:
        return self.control.call is Call.SLOW

    @property
    def share(self) -> float | None:
        """The share of the form's gap the control reproduces (time, log scale); None where the form is not slower."""
        g = math.log(self.gap.time.ratio)
        return math.log(self.control.time.ratio) / g if g > 0 else None


@dataclass(frozen=True)
class SizeAblation:
    size: int
    rows: tuple[Row, ...]
    cause: Cause | None

    def row(self, name: str) -> Row | None:
        return next((r for r in self.rows if r.variant == name), None)

    @property
    def fastest_gluon(self) -> Row | None:
        """The Gluon variant the rounds put nearest CUDA (None where none was timed)."""
        timed = [r for r in self.rows if r.model == "gluon" and r.vs_cuda is not None]
        return min(timed, key=lambda r: r.vs_cuda.time.ratio) if timed else None  # type: ignore[union-attr]


@dataclass(frozen=True)
class Ablation:
    kernel: str
    device: str
    tools: dict[str, str]
    sizes: tuple[SizeAblation, ...]

    def at(self, size: int) -> SizeAblation | None:
        return next((s for s in self.sizes if s.size == size), None)


def read(path: Path) -> Ablation:
    return ablation_of(json.loads(Path(path).read_text()))


def ablation_path(results_path: Path) -> Path:
    """Where the ablation of a results file is written (`rosetta ablate`): beside it, as its analysis is."""
    return results_path.with_name(results_path.name.removesuffix(".jsonl") + ".ablation.json")


def read_beside(results_path: Path) -> Ablation | None:
    """The ablation written beside a results file, None where there is none."""
    path = ablation_path(Path(results_path))
    return read(path) if path.is_file() else None


def newest_for(results_path: Path, device: str) -> tuple[Ablation, str] | None:
    """The ablation a page of this file shows, with its file's name: the one beside it, else the newest in its folder
    measured on the same device (an ablation takes minutes of GPU time, and a later run need not repeat it; the page
    names the file it came from). None where there is none."""
    path = Path(results_path)
    candidates = [ablation_path(path), *sorted(path.parent.glob("*.ablation.json"), reverse=True)]
    for candidate in candidates:
        if not candidate.is_file():
            continue
        try:
            found = read(candidate)
        except (ValueError, KeyError):  # an unreadable or older file: not this page's evidence
            continue
        if found.device == device:
            return found, candidate.name
    return None


def per_tile(facts: dict) -> dict[str, float]:
    """Counts of the loop body per K tile of the summit (a Gluon loop body holds two tiles)."""
    ffma = facts.get("loop.ffma") or 0
    return {k: (v if k == "loop.lds_to_wait_min" else v * TILE_FFMA / ffma) for k, v in facts.items()} if ffma else {}


def ablation_of(data: dict) -> Ablation:
    if data.get("record") != "simt-ablation":
        raise ValueError("not a SIMT ablation")
    declared = {v["name"]: v for v in data["variants"]}
    sizes = []
    for size, rows in data["sizes"].items():
        samples = {n: Samples.from_json(r["samples"]) for n, r in rows.items() if "samples" in r}
        out = tuple(Row(n, declared[n]["model"], per_tile(r.get("facts", {})), _vs(samples, n, "cuda"),
                        _vs(samples, n, "cublas"), _vs(samples, n, declared[n]["base"]), r.get("failed", ""))
                    for n, r in rows.items())
        sizes.append(SizeAblation(int(size), out, _cause(out)))
    return Ablation(str(data["kernel"]), str(data.get("device", "")), dict(data.get("tools", {})), tuple(sizes))


def _vs(samples: dict[str, Samples], name: str, ref: str) -> Verdict | None:
    """`name` against `ref` in the rounds they shared; None where either was not timed, or they are one."""
    if name == ref or name not in samples or ref not in samples:
        return None
    return compare(samples[name], samples[ref], MARGIN_SIMT)


def _cause(rows: tuple[Row, ...]) -> Cause | None:
    by = {r.variant: r for r in rows}
    cuda, subject, control = by.get("cuda"), by.get(SUBJECT), by.get(CONTROL)
    if None in (cuda, subject, control) or control.vs_base is None or subject.vs_cuda is None:  # type: ignore
        return None
    ruled = tuple((n, by[n].vs_base) for n in ASSEMBLERS
                  if n in by and by[n].vs_base is not None and by[n].vs_base.call is Call.SAME)  # type: ignore
    return Cause(BANKS, cuda.facts.get(BANKS, 0.0),  # type: ignore
                 subject.facts.get(BANKS, 0.0), control.facts.get(BANKS, 0.0) - cuda.facts.get(BANKS, 0.0),  # type: ignore
                 control.vs_base, subject.vs_cuda, ruled)  # type: ignore
