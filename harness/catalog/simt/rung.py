"""What a rung of tile-rosetta's fp32 SIMT SGEMM ladder is, and how its kernels are built: the steps from seed 004's
kernel 03 to cuBLAS, one module each in harness/catalog/simt/rungs.

Seed 004 names "Kernel 03: 2D thread coarsening" and "Kernel 04: Vectorization" but never writes them; seed 000
ends naming vectorisation and "data prefetching". A rung adds one measured step to the rung it stands on (`after`):
one module of harness/catalog/simt/rungs that declares its kernels, its idea and its mapping claims, and, where the
step is one of code, its own .cu file (rosetta_sgemm_<step>.cu); a rung that only changes the tile instantiates the
.cu of another rung with other template arguments (CONTRIBUTING.md walks through both). All compute
C = alpha*A*B + beta*C with FFMA only (no tensor cores) and leave C unread when beta == 0. The summit, declared by its
rung (`summit=True`), is rosetta.sgemm_general: it runs any M, N, K >= 1 at any 4-byte alignment; the rungs below it
need whole tiles. It is registered twice: 128x256 tiles (at or above cuBLAS fp32 on large aligned squares) and
128x128 tiles (shape-robust: 4097^3 within 4 points of its 4096^3 ratio).
No single tile met both targets on the H100.

Every rung's Triton counterpart ("dot") is the same kernel, kernels_triton.gemm_ladder, configured from the rung's
tile: in Triton the ladder is one kernel with different launch settings (num_stages for the prefetching rungs,
group_m for the grouped order). Beside it, "tuned" (kernels_triton.gemm_ladder_tuned) keeps the rung's tile and order
and lets the autotuner pick warps and stages, so that "Triton has no handle for this decision" and "this tile does
not suit Triton" are told apart. The summit also carries the Triton ceiling, kernels_triton.gemm_autotuned, whose
tile is the autotuner's choice (its derived settings are passed and ignored): `kernel(..., ceiling=True)` declares it.

16-byte alignment (the float4 rungs' `aligned16`: A, B or C) is not a Precondition kind: those rungs rely on the
harness's freshly allocated operands, and their .cu headers state it.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from harness.catalog import gluon
from harness.catalog.seeds.kernels import GEMM_ALPHA_BETA
from harness.catalog_types.claim import Claim
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Counterpart, Deviation, Kernel, Role
from harness.problems.preconditions import Precondition, dims_fit_int32, multiple_of

LADDER = "gemm_ladder"
LADDER_TUNED = "gemm_ladder_tuned"
ABC = ("A", "B", "C")  # the float4 rungs read A and B and write C 16 bytes at a time
_BK16 = Deviation(16, "tl.dot needs every dimension >= 16; the CUDA kernel steps K by 8")
_SECTION = "tile-rosetta's step past seed 004's kernel 04 / seed 000's last section"


def _tiles(bm: int, bn: int, bk: int) -> tuple[Precondition, ...]:
    why = "no bounds checks"
    return (multiple_of("M", bm, why), multiple_of("N", bn, why), multiple_of("K", bk, why), dims_fit_int32())


def kernel(name: str, args: tuple[int, ...], idea: str, threads: int, stages: int = 1,
           params: dict[str, int] | None = None, notes: str = "", general: bool = False,
           ceiling: bool = False, aligned16: tuple[str, ...] = ()) -> Kernel:
    """A rung's kernel, rosetta.sgemm_<name><args>, built from kernels_cuda/rosetta_sgemm_<name>.cu (args: its
    template arguments, the tile first: BM, BN, BK): the Triton counterpart takes the rung's tile, K step (16 at
    least), warps and stages, the tuned one searches warps and stages around them; `ceiling` adds the autotuned Triton
    ceiling (whose derived settings the tuner ignores), which only the summit's kernels carry."""
    bm, bn, bk = args[:3]
    targs = ",".join(map(str, args))
    deviations = {"block_k": _BK16} if bk < 16 else {}
    dot = Counterpart("dot", LADDER, params=params or {}, deviations=deviations, num_stages=stages)
    # The same settings name the tuned row's search space (kernels_triton.gemm_ladder_tuned.configs): the rung's tile
    # and order kept, its warps and twice them, 1 to 4 stages.
    tuned = Counterpart("tuned", LADDER_TUNED, params=params or {}, deviations=deviations, num_stages=stages,
                        role=Role.TUNED)
    autotuned = Counterpart("autotuned", "gemm_autotuned", role=Role.CEILING)
    counterparts = (dot, tuned, autotuned) if ceiling else (dot, tuned)
    kernel_id = f"rosetta.sgemm_{name}<{targs}>"
    return Kernel(
        id=kernel_id, op="sgemm", idea=idea, seed=None, section=_SECTION,
        symbol=f"sgemm_{name}<{', '.join(map(str, args))}>", args=GEMM_ALPHA_BETA, block=(threads, 1, 1),
        tile_m=bm, tile_n=bn, tile_k=bk,
        preconditions=(dims_fit_int32(),) if general else _tiles(bm, bn, bk),
        reads_c_when_beta_zero=False, counterparts=counterparts, notes=notes, aligned16=aligned16,
        gluon=gluon.forms(kernel_id))


@dataclass(frozen=True)
class Rung:
    """One rung: the idea it adds, its kernels (one, or several instantiations of one .cu), the idea's mapping claims,
    and its place, stated as the rung it stands on. harness/catalog/simt finds every rung module, names each rung by
    its module and orders the ladder by `after`, so that a rung goes between two by naming the one below, and the one
    above names it in turn: no rung is numbered."""

    # the idea it teaches; or the key of an idea another family teaches (the first rung instantiates seed 004's
    # kernel 03, whose idea and claims are the seeds'), in which case the rung states no claims of its own
    idea: Idea | str
    kernels: tuple[Kernel, ...]
    claims: tuple[Claim, ...] = ()
    _: KW_ONLY
    # the name of the rung it stands on: that rung's module in harness/catalog/simt/rungs; None for the first rung
    after: str | None
    # the ladder's summit: its kernels are the SIMT rows of fp32 work (the accuracy chart, the fp32-class table);
    # exactly one rung declares it, wherever it stands, and only its kernels may carry the Triton ceiling
    summit: bool = False
    name: str = ""      # its module's name, given where the rung is found (harness/catalog/simt)

    @property
    def idea_key(self) -> str:
        return self.idea if isinstance(self.idea, str) else self.idea.key

    def __post_init__(self) -> None:
        who = self.name or self.idea_key
        if isinstance(self.idea, Idea) != bool(self.claims):
            raise ValueError(f"rung {who}: an idea a rung teaches comes with its claims, and a borrowed one with none")
        stray = [k.id for k in self.kernels if k.idea != self.idea_key]
        if not self.kernels or stray:
            raise ValueError(f"rung {who}: needs kernels of its own idea, not {stray}")
