"""Kernel ids as a user types them: the one resolver of `explain`, `profile`, `knobs` and every --only.

An id as `rosetta list` shows it names its kernel. Otherwise any part of an id does, in any case, and "…" (or "...")
stands for anything, so that an id shortened by a table (harness/term_table.py `shorten`, which reads ids by the same
rule, `reads_as`) can be copied back: `gemm_naive`, `s000.gemm_block_tiling_v4`, `tc_gemm<tf32,128,…,row>`.
Where one kernel is needed, a part that several ids hold is refused with the list of them; --only takes every
kernel each part names.
"""

from __future__ import annotations

import difflib

from harness.cli.options import UserError
from harness.registry import KERNELS, Kernel
from harness.term_table import reads_as

# How many matching ids a refusal lists before it counts the rest.
LISTED = 8


def matches(part: str, kernels: list[Kernel] | tuple[Kernel, ...] = KERNELS) -> list[Kernel]:
    """The kernels `part` names: the one whose id it is, else every one whose id holds it."""
    exact = [k for k in kernels if k.id == part]
    return exact or [k for k in kernels if part.strip() and reads_as(part.strip(), k.id)]


def _listed(kernels: list[Kernel]) -> str:
    ids = [k.id for k in kernels]
    return ", ".join(ids[:LISTED]) + (f" and {len(ids) - LISTED} more" if len(ids) > LISTED else "")


def _unknown(part: str, among: list[Kernel] | tuple[Kernel, ...], what: str = "kernel") -> UserError:
    close = difflib.get_close_matches(part, [k.id for k in among], n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `rosetta list` shows them all"
    return UserError(f"no {what} id holds {part!r}{hint}")


def resolve(part: str) -> Kernel:
    """The one kernel `part` names; a UserError that lists the matches where several do, or says none does."""
    found = matches(part)
    if not found:
        raise _unknown(part, KERNELS)
    if len(found) > 1:
        raise UserError(f"{part!r} is part of {len(found)} kernel ids: {_listed(found)}; give more of the one you mean")
    return found[0]


def choose(parts: list[str] | None, op: str | None = None) -> list[Kernel]:
    """--only: every kernel (of `op`, when given) that any of `parts` names, in catalog order; all of them when no
    part is given. A part that names no kernel is refused (a typo among several parts is never ignored)."""
    kernels = [k for k in KERNELS if op is None or k.op == op]
    if not parts:
        return kernels
    chosen: set[str] = set()
    for part in parts:
        found = matches(part, kernels)
        if not found:
            raise _unknown(part, kernels, f"{op} kernel" if op else "kernel")
        chosen.update(k.id for k in found)
    return [k for k in kernels if k.id in chosen]
