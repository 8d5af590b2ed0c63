"""The Triton port of sgemm_blocked.cu (examples/sgemm_pair/pair.toml declares the pair): the same 32 x 64 output
tile per program and 16-wide K step, four warps for the CUDA block's 128 threads. Triton stages the tiles and splits
the outputs among the threads itself; tl.dot with input_precision="ieee" multiplies in fp32 (FFMA, no tensor cores).
Offsets are formed in 64 bits (the row index is cast before it meets a stride), as the CUDA kernel's are.
"""

import triton
import triton.language as tl


@triton.jit
def sgemm_blocked_port(A, B, C, M, N, K, alpha, beta,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0)            # column tiles along the grid's first axis, as blockIdx.x in the CUDA kernel
    pid_m = tl.program_id(1)
    rows = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + ks
        a = tl.load(A + rows[:, None] * K + kk[None, :], mask=(rows[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(B + kk[:, None].to(tl.int64) * N + cols[None, :], mask=(kk[:, None] < K) & (cols[None, :] < N),
                    other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_ptrs = C + rows[:, None] * N + cols[None, :]
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    out = alpha * acc
    if beta != 0.0:                     # C is not read when beta == 0, as in the CUDA kernel
        out += beta * tl.load(c_ptrs, mask=mask, other=0.0)
    tl.store(c_ptrs, out, mask=mask)
