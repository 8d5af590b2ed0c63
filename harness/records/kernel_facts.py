"""What a result records of its kernel, so that a file is drawn with the facts of the run that wrote it.

The registry changes between versions: a kernel is renamed, moved to another idea, retuned. A record that held only
its kernel's id was drawn with today's registry, and an id that no longer exists showed as unknown. Each record now
carries the facts the report reads of its kernel for its row; Result.kernel_facts prefers them, and falls back to
the registry for files written before records carried any.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from harness.catalog_types.kernel import Kernel

if TYPE_CHECKING:
    from harness.catalog_types.tables import Catalog


@dataclass(frozen=True)
class KernelFacts:
    id: str
    op: str
    idea: str                   # the idea's key, and its title when the record was written
    idea_title: str
    seed: str | None            # None: tile-rosetta's own kernel
    precision: str
    tile: tuple[int, int, int]  # (tile_m, tile_n, tile_k): output rows and columns per block, the K step
    threads: int                # per block
    b_layout: str
    computes_alpha_beta: bool
    reads_c_when_beta_zero: bool

    @classmethod
    def of(cls, kernel: Kernel, catalog: Catalog | None = None) -> KernelFacts:
        """The facts of a kernel of `catalog` (the run's, which holds a user's declared pairs; today's catalog where
        none is given)."""
        idea = _catalog(catalog).ideas.get(kernel.idea)
        return cls(kernel.id, kernel.op, kernel.idea, idea.title if idea else kernel.idea, kernel.seed,
                   kernel.precision, (kernel.tile_m, kernel.tile_n, kernel.tile_k), kernel.threads, kernel.b_layout,
                   kernel.computes_alpha_beta, kernel.reads_c_when_beta_zero)

    def to_json(self) -> dict:
        out = asdict(self)
        out["tile"] = list(self.tile)
        return out

    @classmethod
    def from_json(cls, data: dict) -> KernelFacts:
        missing = [n for n in ("id", "op", "idea") if n not in data]
        if missing:
            raise ValueError(f"kernel_facts lacks {', '.join(missing)}")
        tile = data.get("tile") or (0, 0, 0)
        return cls(str(data["id"]), str(data["op"]), str(data["idea"]), str(data.get("idea_title") or data["idea"]),
                   data.get("seed"), str(data.get("precision") or "fp32"), (int(tile[0]), int(tile[1]), int(tile[2])),
                   int(data.get("threads") or 0), str(data.get("b_layout") or "row"),
                   bool(data.get("computes_alpha_beta", True)), bool(data.get("reads_c_when_beta_zero", False)))


def facts_of_id(kernel_id: str | None, catalog: Catalog | None = None) -> KernelFacts | None:
    """The facts of a kernel id in `catalog` (today's where none is given: for a record written before records kept
    their kernel's); None for a baseline or an id it does not list."""
    if kernel_id is None:
        return None
    found = _catalog(catalog)
    kernel = found.by_id.get(kernel_id)
    return KernelFacts.of(kernel, found) if kernel is not None else None


def _catalog(catalog: Catalog | None) -> Catalog:
    if catalog is not None:
        return catalog
    from harness.catalog import CATALOG  # the catalog: where a record is written, not where one is read

    return CATALOG
