"""A declaration as the catalog's words: a Kernel with one Counterpart, under an Idea of its own.

Everything downstream (the run plan, the build, the launchers, the numerics, the rounds, the records, the analysis
and the page) reads these exactly as it reads a catalog kernel, handed them in the run's catalog; what sets a user's
kernel apart is only where its files are (Kernel.file, Counterpart.file), how its Triton file is launched
(Counterpart.kernel_fn, launch_fn, grid_fn: harness/launch/declared.py) and their text as the run read it
(Kernel.code, Counterpart.code), so that a record carries the code and a page renders without the files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Counterpart, Deviation, Kernel
from harness.pairs.declaration import COMMAND_LINE, Declaration

# A declared kernel's id: this prefix and the name expression without blanks. No catalog id starts with it (the
# catalog's are a seed's key or "rosetta").
ID_PREFIX = "user."
# A declared counterpart's `module`: not a module of kernels_triton (harness/launch/triton.py launches a declared
# counterpart from its file: harness/launch/declared.py).
MODULE_PREFIX = "pair:"
IDEA_PREFIX = "pair-"


@dataclass(frozen=True)
class Pair:
    declaration: Declaration
    kernel: Kernel
    idea: Idea

    @property
    def counterpart(self) -> Counterpart:
        return self.kernel.counterparts[0]


def kernel_id(declaration: Declaration) -> str:
    return ID_PREFIX + re.sub(r"\s+", "", declaration.cuda.symbol)


def module_of(declaration: Declaration) -> str:
    return MODULE_PREFIX + declaration.name


def build(d: Declaration) -> Pair:
    """The pair's Kernel, Counterpart and Idea; the files' text read now (the record keeps what was run)."""
    idea = Idea(IDEA_PREFIX + d.name, d.title or f"Your pair: {d.name}",
                d.about or f"A CUDA kernel and its Triton port, declared in {d.where}.")
    tri = d.triton
    counterpart = Counterpart(
        name=tri.form, module=module_of(d), params=dict(tri.constexprs),
        deviations={k: Deviation(v, why) for k, (v, why) in tri.deviations.items()}, num_stages=tri.num_stages,
        offsets_64bit=tri.offsets_64bit, preconditions=d.conditions(tri.preconditions), file=tri.file,
        code=_text(tri.file), kernel_fn=tri.kernel, launch_fn=tri.launch, grid_fn=tri.grid)
    kernel = Kernel(
        id=kernel_id(d), op=d.op, idea=idea.key, seed=None,
        section=f"declared {'on ' if d.where == COMMAND_LINE else 'in '}{d.where}", symbol=d.cuda.symbol,
        args=d.cuda.args, block=d.cuda.block, tile_m=d.tile[0], tile_n=d.tile[1], tile_k=d.tile[2],
        preconditions=d.conditions(), reads_c_when_beta_zero=d.cuda.reads_c_when_beta_zero,
        counterparts=(counterpart,), precision=d.precision, b_layout=d.b_layout,  # type: ignore[arg-type]
        dynamic_smem=d.cuda.dynamic_smem, aligned16=d.cuda.aligned16, file=d.cuda.file, code=_cuda_text(d.cuda.file),
        grid_fn=d.cuda.grid, beside=d.beside)
    counterpart.config(kernel)  # raises where a derived setting is impossible and no deviation says why
    return Pair(d, kernel, idea)


def _text(file: str) -> str:
    return Path(file).read_text(encoding="utf-8", errors="replace")


def _cuda_text(file: str) -> str:
    """The .cu file as its compiler reads it: the headers it includes expanded in place, as the page shows a catalog
    kernel's."""
    from kernels_cuda import expanded

    try:
        return expanded(Path(file))
    except OSError:  # a header that is not there: the build says so; the page shows the file as it is
        return _text(file)
