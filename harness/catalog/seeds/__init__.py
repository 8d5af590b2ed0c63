"""The seed documents' family: every kernel they publish (kernels), the SGEMM ideas they teach with their mapping
claims (sgemm). Seed 003's SGEMV ideas are with tile-rosetta's in harness/catalog/gemv.py."""

from __future__ import annotations

from harness.catalog.seeds.kernels import KERNELS, SECTION_EN, SEEDS, UNROLL_CLAIM
from harness.catalog.seeds.sgemm import CLAIMS, IDEAS

__all__ = ["CLAIMS", "IDEAS", "KERNELS", "SECTION_EN", "SEEDS", "UNROLL_CLAIM"]
