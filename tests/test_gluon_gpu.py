"""GPU tier for the Gluon column (with tests/test_gpu.py, whose numerics and repeatability tests take every Gluon form
too: `pytest -m gpu -k gluon` runs them all): each claim's Gluon column holds on the kernels a GPU launch compiled,
and the SIMT summit's Gluon forms are right where its CUDA kernel promises to be, on any shape and any 4-byte
alignment, with no tile-multiple precondition.
"""

from __future__ import annotations

import pytest
import torch

from harness.analysis import mapping
from harness.claims import CLAIMS
from harness.launch.implementations import Impl
from harness.measure import numerics
from harness.registry import BY_ID, KERNELS

pytestmark = pytest.mark.gpu

WITH_GLUON = [k.id for k in KERNELS if k.gluon and k.idea in CLAIMS]
GENERAL = [(k.id, g.name) for k in KERNELS if k.id.startswith("rosetta.sgemm_general") for g in k.gluon]


@pytest.mark.parametrize("kernel_id", WITH_GLUON, ids=lambda k: f"{k} [gluon:mirror]")
def test_each_claims_gluon_column_holds_on_the_gpus_kernels(kernel_id):
    from harness.inspect.evidence import on_gpu

    kernel = BY_ID[kernel_id]
    verdicts = [v for v in mapping.evaluate(kernel, on_gpu(kernel)) if v.side == "gluon"]
    assert verdicts, f"{kernel_id}: no Gluon verdict"
    failed = [f"{v.label}: {v.check or v.error} ({v.evidence})" for v in verdicts if not v.holds]
    assert not failed, "\n".join(failed)


def _offset_view(rows: int, cols: int, offset: int) -> torch.Tensor:
    """A rows x cols view that starts `offset` floats into a fresh buffer: 4-byte aligned, not 16."""
    buf = torch.empty(rows * cols + offset, device="cuda")
    return buf[offset:].view(rows, cols)


@pytest.mark.parametrize("shape", [(1, 1, 1), (17, 33, 5), (129, 257, 17), (300, 130, 1000)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("offset", [0, 1], ids=["aligned", "4-byte"])
@pytest.mark.parametrize(("kernel_id", "form"), GENERAL, ids=lambda k: k if "<" in k else f"[gluon:{k}]")
def test_the_general_gluon_forms_are_right_on_any_shape_and_alignment(kernel_id, form, shape, offset):
    m, n, k = shape
    kernel = BY_ID[kernel_id]
    impl = Impl(f"gluon:{form}", "sgemm", kernel, gluon=kernel.gluon_form(form))
    gen = torch.Generator(device="cuda").manual_seed(m * 131 + n * 7 + k)
    A, B, C = _offset_view(m, k, offset), _offset_view(k, n, offset), _offset_view(m, n, offset)
    A.copy_(torch.randint(-3, 4, (m, k), device="cuda", generator=gen).float())
    B.copy_(torch.randint(-3, 4, (k, n), device="cuda", generator=gen).float())
    C.fill_(float("nan"))  # beta == 0: C must not be read, and every element must be written
    impl.bind({"A": A, "B": B, "C": C}, 1.0, 0.0)()
    torch.cuda.synchronize()
    # small integers: every partial sum is exact in fp32, so the result is exactly the float64 one
    assert torch.equal(C.double(), A.double() @ B.double()), f"{int((C.double() != A.double() @ B.double()).sum())}"


@pytest.mark.parametrize("kernel_id", [k.id for k in KERNELS if k.gluon and k.precision == "3xtf32"],
                         ids=lambda k: f"{k} [gluon:mirror]")
def test_the_gluon_3xtf32_form_is_fp32_accurate_on_the_scaled_layer(kernel_id):
    """The fp32 running sum outside the tensor core is what keeps 3xTF32 fp32-accurate: the layer where split forms
    lose most (elements over many binades) is held to the fp32 bound."""
    from harness.problems import Problem

    kernel = BY_ID[kernel_id]
    impl = Impl("gluon:mirror", "sgemm", kernel, gluon=kernel.gluon_form("mirror"))
    p = Problem("sgemm", 1024, 1024, 2048)
    ops = numerics.make_operands(p, "scaled", 5, "cuda")
    out = ops.fresh_output(float("nan"))
    impl.bind(ops.tensors(out), p.alpha, p.beta)()
    torch.cuda.synchronize()
    ref = numerics.reference(ops)
    forward, _ = numerics.errors(out, ops, ref)
    assert forward <= numerics.error_bound(p, precision="3xtf32"), forward
