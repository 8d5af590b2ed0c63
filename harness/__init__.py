"""tile-rosetta: published CUDA GEMM/GEMV kernels beside Triton counterparts and cuBLAS."""

__version__ = "0.1.0"
