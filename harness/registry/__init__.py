"""The table of kernels: the single source of truth, as the catalog (harness/catalog) assembles it.

Each entry is one CUDA function with fixed template arguments, its launch geometry, what it needs of a
problem, whether it honours BLAS beta == 0 semantics, its Triton counterparts and what its document
published. Tests, the CLI and the report iterate over KERNELS; nothing else lists kernels. The entries are declared
in the catalog, each family's beside its ideas and claims; this package hands them on, with the default problems of
a kernel (shapes). The ladders are the catalog's (harness/catalog/ladders.py).
"""

from __future__ import annotations

from harness.catalog import BY_ID, IDEAS, KERNELS, build_units, get, instantiations, select
from harness.catalog.seeds import SECTION_EN, SEEDS, UNROLL_CLAIM
from harness.catalog_types.kernel import (
    DERIVED,
    PRECISION_CLASSES,
    PRECISIONS,
    Counterpart,
    Deviation,
    Kernel,
    Precision,
    PrecisionClass,
    Published,
    PublishedRatio,
    Role,
    Seed,
    precision_caveat,
    precision_label,
)

__all__ = ["BY_ID", "DERIVED", "IDEAS", "KERNELS", "PRECISIONS", "PRECISION_CLASSES", "SECTION_EN", "SEEDS",
           "UNROLL_CLAIM", "Counterpart", "Deviation", "Kernel", "Precision", "PrecisionClass", "Published",
           "PublishedRatio", "Role", "Seed", "build_units", "get", "instantiations", "precision_caveat",
           "precision_label", "select"]
