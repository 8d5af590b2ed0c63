"""The pre-split 3xTF32 form: tf32x3's split written by hand and done once per operand element before the product."""

from __future__ import annotations

import pytest
import torch

from harness import env
from harness.registry import BY_ID

RS = "rosetta.wgmma_3xtf32_rs<3xtf32,128,128,32,4,kmajor>"


def _split(values: list[float]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    if not env.interpreting():
        pytest.skip("runs Triton's interpreter on the CPU")
    from kernels_triton.gemm_presplit import _split as split

    x = torch.tensor(values, dtype=torch.float32)
    big, small = split(x)
    return x, big, small


def test_the_big_part_is_the_nearest_tf32_with_ties_away_from_zero_and_big_plus_small_is_exact() -> None:
    halfway = 1.0 + 2.0 ** -11            # halfway between the tf32 values 1 and 1 + 2^-10
    x, big, small = _split([halfway, -halfway, 1.0 + 2.0 ** -12, 3.0e-39, 123.456, -7.5e-3])
    bits = big.view(torch.int32)
    assert torch.all(bits & 0x1FFF == 0)                       # a tf32 value: the low 13 bits are zero
    assert big[0].item() == 1.0 + 2.0 ** -10 and big[1].item() == -(1.0 + 2.0 ** -10)   # ties away from zero
    assert big[2].item() == 1.0                                # below halfway: down
    assert torch.equal(big + small, x)                         # the remainder is exact in fp32
    # at most half a tf32 step: 2^-11 of |x| (of the smallest normal, 2^-126, where x is subnormal)
    assert torch.all(small.abs() <= x.abs().clamp(min=2.0 ** -126) * 2.0 ** -11)


def test_an_infinite_element_keeps_its_big_part_and_a_zero_remainder() -> None:
    _, big, small = _split([float("inf"), float("-inf")])
    assert big.tolist() == [float("inf"), float("-inf")] and small.tolist() == [0.0, 0.0]


def test_the_presplit_form_is_declared_deliberately_different_and_presplit_on_the_a_from_registers_rung() -> None:
    forms = {c.name: c for c in BY_ID[RS].counterparts}
    assert forms["presplit"].presplit and forms["presplit"].deliberately_different
    assert not forms["persistent"].presplit and not forms["persistent"].deliberately_different
