"""A rung of the SIMT ladder: seed 004's kernel 03, 2D thread coarsening, as its author's repository configures it."""

from __future__ import annotations

from harness.catalog.simt.rung import Rung, kernel

# Seed 004's kernel 03: the seeds teach its idea and state its claims (harness/catalog/seeds/sgemm.py).
KEY = "coarsen_2d"

KERNELS = (
    kernel("coarsen_2d", (128, 128, 32, 8, 8), KEY, 256,
           notes="Seed 004's kernel 03 as its author's repository configures it (BM = BN = 128, BK = 32, "
                 "TM = TN = 8); the text names the kernel but never writes it."),
)
RUNG = Rung(KEY, KERNELS, after=None)
