"""What the Gluon forms of the Hopper ladder share: the grouped tile order, the swizzled shared layout both operands
take, the host's tensor descriptors and their argument types.

Every rung of kernels_cuda/rosetta_wgmma_*.cu reads A (M x K) and Bt = B^T (N x K), both K-major, in K tiles of 32
floats (one 128-byte swizzle row), and walks its tiles in groups of GROUP tile rows. The copy engine's view of an
operand is a tensor descriptor made on the host: fp32, the operand's shape and strides, a box of rows x 32 and the
128-byte swizzle, the same map the CUDA rungs encode with cuTensorMapEncodeTiled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernels_gluon.compat import TensorDescriptor, gl, gluon, mbarrier, tma_load

if TYPE_CHECKING:
    import torch

BK = 32  # one 128-byte swizzle row of fp32
# 128-byte swizzle: 16-byte chunk j of row r lies at chunk j ^ (r % 8), the layout wgmma's descriptors read
SWIZZLED = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=32, rank=2)


@gluon.jit
def tile_of(tile, grid_m, grid_n, GROUP: gl.constexpr):
    """Tile number -> (tile row, tile column): GROUP tile rows walked column by column before moving right."""
    per_group = GROUP * grid_n
    first_m = (tile // per_group) * GROUP
    rows = gl.minimum(grid_m - first_m, GROUP)
    return first_m + (tile % per_group) % rows, (tile % per_group) // rows


def descriptor(t: torch.Tensor, rows: int) -> TensorDescriptor:
    """The copy engine's view of a K-major operand in boxes of rows x 32."""
    return TensorDescriptor.from_tensor(t, [rows, BK], SWIZZLED)


def descriptor_type(rows: int) -> str:
    """The argument type a descriptor of `rows` x 32 boxes specialises a kernel to, as a launch names it (for a compile
    without a GPU; tests/test_gluon_compile.py holds it to what the launcher's own naming gives)."""
    return f"tensordesc<fp32[{rows}, {BK}],{SWIZZLED!r}>"


def tma_signature(bm: int, bn: int) -> dict[str, str]:
    return {"a_desc": descriptor_type(bm), "b_desc": descriptor_type(bn), "C": "*fp32", "M": "i32", "N": "i32",
            "K": "i32", "alpha": "fp32", "beta": "fp32"}


@gluon.jit
def store_tile(acc, C, off_m, off_n, N, alpha, beta, LAYOUT: gl.constexpr):
    """alpha * acc (+ beta * C) into C's rows off_m.., columns off_n..: the accumulator's own layout gives each thread
    pairs of neighbouring columns (8-byte stores), as the CUDA rungs' store_tile writes them."""
    rows = off_m + gl.arange(0, acc.shape[0], layout=gl.SliceLayout(1, LAYOUT))
    cols = off_n + gl.arange(0, acc.shape[1], layout=gl.SliceLayout(0, LAYOUT))
    ptrs = C + (gl.expand_dims(rows.to(gl.int64) * N, 1) + gl.expand_dims(cols, 0))
    out = acc * alpha
    if beta != 0.0:  # BLAS semantics: C is read only when beta != 0
        out += beta * gl.load(ptrs)
    gl.store(ptrs, out)


@gluon.jit
def tma_producer(a_desc, b_desc, a_s, b_s, full, empty, M, N, K, STAGES: gl.constexpr, GROUP: gl.constexpr):
    """The warp-specialised forms' producer warp (wgmma_ws and wgmma_3xtf32_rs, as their CUDA kernels share
    wgmma_ws.cuh's): each tile of the persistent walk, K step by K step, into the next stage of the ring once both
    consumers have released it."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    KB: gl.constexpr = a_desc.block_type.shape[1]
    grid_m = gl.cdiv(M, BM)
    grid_n = gl.cdiv(N, BN)
    it = 0
    for tile in range(gl.program_id(0), grid_m * grid_n, gl.num_programs(0)):
        pm, pn = tile_of(tile, grid_m, grid_n, GROUP)
        for kt in range(K // KB):
            s = it % STAGES
            # the stage's last use released by both consumers (the first round finds every stage empty)
            mbarrier.wait(empty.index(s), ((it // STAGES) & 1) ^ 1)
            mbarrier.expect(full.index(s), (BM + BN) * KB * 4)
            tma_load(a_desc, [pm * BM, kt * KB], full.index(s), a_s.index(s))
            tma_load(b_desc, [pn * BN, kt * KB], full.index(s), b_s.index(s))
            it += 1
