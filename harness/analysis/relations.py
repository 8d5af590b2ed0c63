"""What one comparison sets against what: its relation, the one name every maker and reader of a comparison uses.

The analysis record keeps one list of comparisons per relation (harness/analysis/record.py); tables, findings, the
CSV export, `rosetta compare` and the knob study ask for them by these names. A relation's value is the name a
record's JSON keeps, so records written before the type existed read as they were. The subject is the first named,
the reference the second; a ratio is subject time / reference time.
"""

from __future__ import annotations

from enum import Enum


class Relation(str, Enum):
    # Kept in the analysis record
    CUBLAS = "cublas"                    # every timed row against cuBLAS of its precision class (fp32 and the
    #                                      fp32-accurate split forms against cuBLAS fp32, TF32 against cuBLAS TF32)
    CUBLAS_LAYOUT = "cublas-layout"      # a row that reads B K-major against cuBLAS of its class given B^T (TN)
    CUBLAS_PACKED = "cublas-packed"      # the same row with B's pack time added, against cuBLAS on row-major B (NN)
    CUBLAS_ALONE = "cublas-alone"        # the same row's kernel time alone against cuBLAS on row-major B (NN)
    TRITON_BASELINE = "triton-baseline"  # a Triton row against the Triton tutorial GEMM of its class
    COUNTERPART = "counterpart"          # a Triton counterpart against its CUDA kernel, in the same class
    GLUON = "gluon"                      # a Gluon counterpart against its CUDA kernel: the compiler's part of a gap
    MODEL = "model"                      # a Triton counterpart against its kernel's Gluon mirror: the model's part
    STEP = "step"                        # a ladder's rung against the rung before, in the same model
    AA = "aa"                            # an implementation against itself timed as a second entry (A/A control)
    BESIDE = "beside"                    # a user's pair against the catalog kernel it was declared beside
    RUNS = "runs"                        # one file's row against the same row of another (`across`, compare)
    # Made where a table or finding needs them, not kept
    BETWEEN = "between"                  # any two rows of one problem (Measured.between)
    TRITON_VS_CUDA = "triton-vs-cuda"    # a regime's best Triton against its best CUDA

    # Equal to its name and hashed as it, so that a record's plain string finds its comparisons
    __hash__ = str.__hash__

    def __str__(self) -> str:
        return self.value
