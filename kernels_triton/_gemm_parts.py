"""Pieces every GEMM counterpart shares: the rank-1 step and the alpha/beta epilogue."""

import triton
import triton.language as tl


@triton.jit
def rank1_update(acc, A, B, rows, cols, k, M, N, K):
    """acc += A[rows, k] (x) B[k, cols]: one column of A and one row of B, straight from global memory."""
    # k is broadcast to the index vectors' shape: the CPU interpreter rejects a scalar term in a mask.
    a = tl.load(A + rows * K + k, mask=(rows < M) & (rows * 0 + k < K), other=0.0)
    b = tl.load(B + k * N + cols, mask=(cols < N) & (cols * 0 + k < K), other=0.0)
    return acc + a[:, None] * b[None, :]


@triton.jit
def store_c_tile(C, acc, rows, cols, M, N, alpha, beta):
    """C = alpha*acc + beta*C with BLAS semantics: C is not read when beta == 0, so NaN in C cannot leak."""
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    ptrs = C + rows[:, None] * N + cols[None, :]
    out = alpha * acc
    if beta != 0.0:
        out += beta * tl.load(ptrs, mask=mask, other=0.0)
    tl.store(ptrs, out, mask=mask)
