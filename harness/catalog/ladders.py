"""The ladders of the suite, rung by rung: which kernels make a rung, and which Triton forms stand on it.

One definition for everything that reads a ladder: the analysis's step verdicts (each rung against the rung before,
in the same model), the report's step tables and its ladder charts. What a ladder is: harness/catalog_types/tables.py.
- The SIMT ladder: the rungs of harness/catalog/simt, each above the one it names in `after`; a rung with several
  instantiations (the summit's two tiles) is one rung. Its summit is the rung that declares itself one, wherever it
  stands. Its Triton side is each rung's plain counterpart (Role.PLAIN: the ladder's own Triton kernel, gemm_ladder
  with the rung's settings): the tuned forms and the ceiling are never a rung.
- Hopper's tensor-core chains, one per precision class (TF32, 3xTF32): the mma.sync rung (rosetta.tc_gemm with
  K-major B, its tiles one rung), then each wgmma rung of that class in registry order; no summit. Triton: each
  rung's counterparts.
A rung is represented, in each model, by its fastest timed record; forms deliberately different from their CUDA
kernel are never a rung's.
"""

from __future__ import annotations

from harness.catalog import hopper, simt, tensor_cores
from harness.catalog_types.kernel import PRECISION_CLASSES, Precision
from harness.catalog_types.tables import Ladder


def _simt() -> Ladder:
    return Ladder("SIMT", "fp32", tuple(r.kernels for r in simt.RUNGS), "plain", summit=simt.SUMMIT.kernels)


def _hopper(precision: Precision) -> Ladder:
    start = tuple(k for k in tensor_cores.KERNELS if k.precision == precision and k.b_layout == "kmajor")
    rungs = (start, *((k,) for k in hopper.KERNELS if k.precision == precision))
    return Ladder(PRECISION_CLASSES[precision].text, precision, rungs, "alike")


LADDERS: tuple[Ladder, ...] = (_simt(), _hopper("tf32"), _hopper("3xtf32"))
