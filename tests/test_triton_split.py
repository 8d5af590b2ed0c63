"""The SIMT summit's tile with its Triton product split in two along N (kernels_triton/gemm_split.py): the same result
as one dot, C never read where beta == 0, in Triton's interpreter on an odd shape (the CPU tier; its speed is the
ablation's, harness/run/ablation.py)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("read_c", [1, "beta"], ids=["C's read behind a branch", "compiled without C's read"])
def test_the_triton_dot_split_along_n_computes_the_product_on_an_odd_shape(device, read_c):
    import torch

    from kernels_triton import gemm_split

    g = torch.Generator().manual_seed(3)
    M, N, K = 37, 45, 29
    A, B = torch.rand(M, K, generator=g).to(device), torch.rand(K, N, generator=g).to(device)
    C = torch.full((M, N), float("nan"), device=device)
    gemm_split.launch(A, B, C, 2.0, 0.0, block_m=16, block_n=32, block_k=16, num_warps=1, num_stages=1, group_m=2,
                      read_c=read_c)
    ref = 2.0 * (A.double() @ B.double())
    assert not torch.isnan(C).any() and float((C.double() - ref).abs().max() / ref.abs().max()) < 1e-6
