"""Tensor maps for the copy engine (TMA): encoded on the host through the driver API, passed by value.

A TMA rung's kernel takes `const __grid_constant__ CUtensorMap` parameters ("mapA", "mapB" in its registry args).
CuPy passes a numpy structured scalar by value as the bytes it holds, so the 128-byte, 64-byte-aligned map goes as a
scalar of 16 uint64 words. The map holds the operand's raw address: it is built from the very tensors the bound
launch keeps alive.
"""

from __future__ import annotations

import numpy as np
import torch

# One 128-byte swizzle row of fp32: the K extent of every box (the rungs' K step).
BOX_K = 32
_CU_TENSOR_MAP = np.dtype([("opaque", np.uint64, (16,))], align=True)


def tensor_map(t: torch.Tensor, box_rows: int) -> np.void:
    """A 2-D fp32 map over a row-major (rows x K) tensor, box {BOX_K, box_rows}, 128-byte swizzle."""
    from cuda.bindings import driver as drv

    rows, k = t.shape
    err, encoded = drv.cuTensorMapEncodeTiled(
        drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.data_ptr(),
        [drv.cuuint64_t(k), drv.cuuint64_t(rows)], [drv.cuuint64_t(k * 4)],
        [drv.cuuint32_t(BOX_K), drv.cuuint32_t(box_rows)], [drv.cuuint32_t(1), drv.cuuint32_t(1)],
        drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, drv.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
        drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise ValueError(f"cuTensorMapEncodeTiled refused a {rows}x{k} fp32 tensor with a {box_rows}x{BOX_K} box: "
                         f"{err.name}")
    scalar = np.zeros((), _CU_TENSOR_MAP)
    scalar["opaque"] = np.array(encoded.opaque, dtype=np.uint64)
    return scalar[()]
