"""The CPU tier at each class's precision: Triton's interpreter made to round tl.dot's operands as the compiled code
does on an H100 (harness/launch/interpreter_precision.py), so that TF32's truncation, tf32x3's and the bf16 splits'
parts, the pre-split form's split and bf16x3's inaccuracy are checked without a GPU; where a class cannot be rounded,
its rows say it was not checked at its precision.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import torch
import triton
import triton.language as tl

from harness.launch import interpreter_precision as ip
from harness.launch.implementations import Impl, all_impls
from harness.measure import numerics
from harness.problems import Problem
from harness.records.lines import Numerics, Result, Status
from harness.registry import BY_ID
from harness.run.runner import ProblemContext, check_numerics

F32 = np.float32
X3 = "rosetta.wgmma_3xtf32<3xtf32,128,128,32,3,kmajor>"
RS = "rosetta.wgmma_3xtf32_rs<3xtf32,128,128,32,4,kmajor>"
TF32 = "rosetta.tc_gemm<tf32,128,128,32,2,4,3,kmajor>"


def _dot(a: float, b: float, precision: str, acc: float = 0.0) -> float:
    return float(ip.rounded_dot(np.array([[a]], F32), np.array([[b]], F32), np.array([[acc]], F32), precision)[0, 0])


def _bf16(x: float) -> float:
    return float(torch.tensor(x, dtype=torch.float32).to(torch.bfloat16).float())  # nearest, ties to even


# ------------------------------------------------------------------------------------------------ one product
def test_tf32_reads_each_operand_truncated_to_its_upper_19_bits():
    x = 1.0 + 2.0**-11 + 2.0**-12   # nearer 1 + 2^-10 than 1: rounding would go up, the tensor core cuts it
    assert _dot(x, 1.0, "tf32") == 1.0 and _dot(-x, 1.0, "tf32") == -1.0
    assert _dot(x, 1.0, "ieee") == F32(x)  # fp32's own dot is the interpreter's, untouched
    assert _dot(1.5, 3.0, "tf32", acc=0.25) == 4.75  # tf32 values and the accumulator pass as they are


def test_tf32x3_rounds_the_big_part_to_nearest_and_the_tensor_core_truncates_the_remainder():
    # big = rna(x) = 1 + 2^-10; small = x - big = -(2^-11 - 2^-23), whose 11 significant bits lose the last when read
    # as tf32: the sum is 1 + 2^-11 + 2^-22, 2^-23 off x, where plain fp32 is exact
    x = 1.0 + 2.0**-11 + 2.0**-23
    assert _dot(x, 1.0, "tf32x3") == 1.0 + 2.0**-11 + 2.0**-22
    assert _dot(x, 1.0, "ieee") == x
    halfway = 1.0 + 2.0**-11   # ties away from zero: big = 1 + 2^-10, small = -2^-11, both tf32: exact
    assert _dot(halfway, 1.0, "tf32x3") == halfway and _dot(-halfway, 1.0, "tf32x3") == -halfway
    assert float(ip.tf32_rna(np.array([halfway], F32))[0]) == 1.0 + 2.0**-10


@pytest.mark.parametrize("precision, parts, products", [
    ("bf16x3", 2, [(1, 0), (0, 1), (0, 0)]),
    ("bf16x6", 3, [(1, 1), (2, 0), (0, 2), (1, 0), (0, 1), (0, 0)])])
def test_a_bf16_split_sums_its_parts_products_in_the_compilers_order(precision, parts, products):
    """Parts rounded to nearest bf16 one after the other (hi, then the remainder's, ...); the products Triton issues,
    each exact in fp32, summed from zero in its order, the last (hi·hi) after the NaN guard, then the accumulator."""
    rng = np.random.default_rng(3)
    for a, b in rng.standard_normal((20, 2)).astype(F32) * F32(7.3):
        pa, pb, ra, rb = [], [], float(a), float(b)
        for _ in range(parts):
            pa.append(_bf16(ra))
            pb.append(_bf16(rb))
            ra, rb = float(F32(ra - pa[-1])), float(F32(rb - pb[-1]))
        want = F32(0.0)
        for i, j in products:
            want = F32(want + F32(pa[i] * pb[j]))
        assert _dot(float(a), float(b), precision, acc=0.5) == float(F32(want + F32(0.5))), (a, b)


@pytest.mark.parametrize("precision", ["tf32x3", "bf16x3", "bf16x6"])
def test_an_infinite_operand_gives_an_infinite_product_not_nan(precision):
    """x - big is inf - inf = NaN for an infinite x: the compiler's guard sets the split's partial sum to 0 before
    big·big, so the product is infinite, as fp32's would be."""
    assert _dot(float("inf"), 2.0, precision) == float("inf")
    assert np.isnan(_dot(float("nan"), 2.0, precision))


def test_rounding_keeps_nan_inf_and_subnormal_values():
    x = np.array([np.nan, np.inf, -np.inf, 3e-39, -3e-39, 1e-45], F32)
    for f in (ip.tf32_truncated, ip.tf32_rna, ip.bf16_rn):
        y = f(x)
        assert np.isnan(y[0]) and y[1] == np.inf and y[2] == -np.inf, f
        assert np.all(np.sign(y[3:]) == np.sign(x[3:]) * (y[3:] != 0)), f
    assert np.array_equal(ip.bf16_rn(x[3:5]), torch.from_numpy(x[3:5]).to(torch.bfloat16).float().numpy())


# ------------------------------------------------------------------------------------------------ the counterparts
def _impl(kernel_id: str, form: str) -> Impl:
    return next(i for i in all_impls([BY_ID[kernel_id]], ("triton",)) if i.counterpart.name == form)


def _out(impl: Impl, ops: numerics.Operands) -> torch.Tensor:
    out = ops.fresh_output(float("nan"))
    impl.bind(ops.tensors(out), ops.problem.alpha, ops.problem.beta, "cpu")()
    return out


@pytest.fixture(scope="module")
def interpreting(device):
    if device != "cpu":
        pytest.skip("Triton's interpreter: the CPU tier")
    assert ip.install() == ip.ROUNDED, "this Triton's interpreter is not the one the rounding wraps"


@triton.jit
def _one_dot(A, B, C, PRECISION: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(A + r[:, None] * 16 + r[None, :])
    b = tl.load(B + r[:, None] * 16 + r[None, :])
    tl.store(C + r[:, None] * 16 + r[None, :], tl.dot(a, b, input_precision=PRECISION))


@pytest.mark.parametrize("precision", ["ieee", *ip.ROUNDED])
def test_the_interpreters_tl_dot_is_the_rounded_dot_of_its_precision(precision, interpreting):
    """Through Triton's own interpreter (a kernel of one dot, no loop: it runs on every tested Triton), the dot of
    each input precision is the module's rounding of it, bit for bit; every class but ieee differs from fp32's."""
    g = torch.Generator().manual_seed(0)
    A, B = (torch.ldexp(torch.rand(16, 16, generator=g) * 2 - 1,
                        torch.randint(-20, 21, (16, 16), generator=g).float()) for _ in range(2))
    C = torch.full((16, 16), float("nan"))
    _one_dot[(1,)](A, B, C, PRECISION=precision)
    want = ip.rounded_dot(A.numpy(), B.numpy(), np.zeros((16, 16), F32), precision)
    assert torch.equal(C, torch.from_numpy(want))
    fp32 = ip.rounded_dot(A.numpy(), B.numpy(), np.zeros((16, 16), F32), "ieee")
    assert np.array_equal(want, fp32) == (precision == "ieee")


# K deep enough for bf16x3's 2^-16 per product to stand out of fp32's summation error on scaled elements
SPLIT_PROBLEM = Problem("sgemm", 37, 45, 256, alpha=2.0, beta=-0.5)
# shallow enough that fp32's worst-case bound K*u (2^-19 at K = 32) is below bf16x3's 2^-16 per product
SHALLOW = Problem("sgemm", 37, 45, 32)


@pytest.mark.parametrize("problem, why", [(SPLIT_PROBLEM, "library's"), (SHALLOW, "exceeds the bound")],
                         ids=["library", "bound"])
def test_bf16x3_fails_the_fp32_checks_and_meets_its_own_bound(problem, why, interpreting):
    """On elements scaled over 2^-20..2^20 an output is set by a few products, each off by up to about 2^-16: past
    16x the library's error at any depth, and past fp32's bound K*u itself where K is small."""
    impl = _impl(X3, "persistent-bf16x3")
    ops = numerics.make_operands(problem, "scaled", seed=11, device="cpu")
    ref = numerics.reference(ops)
    out = _out(impl, ops)
    fp32 = (ops.A @ ops.B) * problem.alpha + (problem.beta * ops.C_in if ops.C_in is not None else 0.0)
    library = numerics.errors(fp32, ops, ref)
    as_fp32 = numerics.check(out, ops, ref, poison=float("nan"), vendor_error=library[0],
                             vendor_componentwise=library[1])
    assert not as_fp32.passed and as_fp32.reason.startswith("scaled layer") and why in as_fp32.reason, as_fp32
    own = numerics.check(out, ops, ref, poison=float("nan"), vendor_error=library[0], vendor_componentwise=library[1],
                         precision="bf16x3", fp32_accurate=False)
    assert own.passed, own


@pytest.mark.parametrize("kernel_id, form", [(X3, "persistent"), (X3, "persistent-bf16x6"), (RS, "presplit"),
                                             (TF32, "dot"), (X3, "persistent-bf16x3")])
def test_every_split_passes_its_classs_checks_at_its_precision(kernel_id, form, interpreting):
    impl = _impl(kernel_id, form)
    result = check_numerics(impl, ProblemContext(SPLIT_PROBLEM, torch.device("cpu"), seed=5), "cpu")
    assert result.passed and not result.not_checked, result


def test_tf32_shows_its_reduced_precision_on_a_cpu(interpreting):
    """The TF32 row's error is TF32's (about 2^-11 a product, truncated), far past the fp32 rows' on the same inputs."""
    p = Problem("sgemm", 37, 45, 64)
    ctx = ProblemContext(p, torch.device("cpu"), seed=5)
    tf32 = check_numerics(_impl(TF32, "dot"), ctx, "cpu")
    x3 = check_numerics(_impl(X3, "persistent"), ctx, "cpu")
    assert tf32.passed and x3.passed
    assert tf32.random.error > 100 * x3.random.error and tf32.random.error > 2.0**-14, (tf32.random, x3.random)


def test_the_presplit_form_computes_what_tf32x3_computes(interpreting):
    """The pre-pass's split written by hand (big = rna(x) on the bit pattern, small = x - big) and three TF32 dots
    give the compiler's tf32x3 to the last bit, on every layer's operands (the same tile and K step: the same sums)."""
    presplit, compiled = _impl(RS, "presplit"), _impl(RS, "persistent")
    for layer in ("random", "subnormal", "scaled"):
        ops = numerics.make_operands(Problem("sgemm", 37, 45, 67, alpha=1.25, beta=-0.75), layer, 9, "cpu")
        a, b = _out(presplit, ops), _out(compiled, ops)
        assert torch.equal(a, b), (layer, float((a - b).abs().max()))
        if layer != "subnormal":  # and not fp32's (subnormal products keep too few bits for the split to show)
            assert not torch.equal(a, (ops.A @ ops.B) * 1.25 - 0.75 * ops.C_in), layer


# ------------------------------------------------------------------------------------------------ where it cannot
@pytest.fixture
def without_bf16_rounding(monkeypatch):
    """This process's interpreter as one that rounds only TF32 (as an interpreter the wrapper does not fit would
    round nothing)."""
    monkeypatch.setattr(ip, "_installed", ("tf32", "tf32x3"))
    monkeypatch.setattr(ip, "_why_not", "")


def test_a_class_that_cannot_be_rounded_says_it_was_not_checked_at_its_precision(interpreting,
                                                                                 without_bf16_rounding):
    from harness.run.runner import not_checked

    impl = _impl(X3, "persistent-bf16x3")
    assert not_checked(impl, "cpu") == ip.NOT_CHECKED
    assert not_checked(impl, "cuda") == "" and not_checked(_impl(X3, "persistent"), "cpu") == ""
    result = check_numerics(impl, ProblemContext(Problem("sgemm", 19, 21, 40), torch.device("cpu"), seed=1), "cpu")
    assert result.not_checked == ip.NOT_CHECKED
    back = Numerics.from_json(json.loads(json.dumps(result.to_json())))
    assert back.not_checked == ip.NOT_CHECKED
    assert "not_checked" not in Numerics(True).to_json()  # files where every class was checked are as before
    # torch's CPU matmul has no TF32: a vendor TF32 row on a CPU would say so too
    assert not_checked(Impl("cublas-tf32", "sgemm"), "cpu") == ip.NOT_CHECKED


def test_the_terminal_and_the_page_name_the_class_beside_ok_and_say_what_was_not_checked():
    from rich.console import Console

    from harness.analysis.measured import Measured
    from harness.report.metrics import NUMERICS
    from harness.report.terminal import print_summary

    p = Problem("sgemm", 37, 45, 29)
    layer = numerics.Verdict(True, "random", 2.3e-6, 1e-5)

    def record(form: str, precision: str, note: str = "") -> Result:
        return Result(f"triton:{form}", "triton", p, Status.OK, kernel=X3, precision=precision,
                      numerics=Numerics(True, numerics.Verdict(True, "exact", 0.0, 0.0), layer, not_checked=note))

    rows = [record("persistent-bf16x3", "bf16x3"), record("dot", "tf32"), record("persistent", "3xtf32"),
            record("persistent-bf16x6", "bf16x6"), record("persistent-bf16x3", "bf16x3", ip.NOT_CHECKED)]
    m = Measured.of(rows)
    said = [NUMERICS.text(m, r) for r in rows]   # the terminal's cell and the page's are one declaration
    assert said[0] == "✓ exact · ✓ 2.3e-06 as bf16x3, not fp32-accurate"
    assert said[1] == "✓ exact · ✓ 2.3e-06 as TF32"
    assert said[2] == said[3] == "✓ exact · ✓ 2.3e-06"
    assert said[4] == f"✓ exact · ✓ 2.3e-06 ({ip.NOT_CHECKED})"
    assert ip.NOT_CHECKED in NUMERICS.cell(m, rows[4]).text
    assert ip.NOT_CHECKED not in NUMERICS.cell(m, rows[0]).text
    buf = io.StringIO()
    print_summary(Measured.of([rows[4]]), Console(file=buf, width=100, force_terminal=False, color_system=None))
    assert "not checked at this" in " ".join(buf.getvalue().split())


def test_a_cuda_kernel_built_without_a_gpu_says_its_numerics_were_not_checked_where_they_would_stand():
    from harness.analysis.measured import Measured
    from harness.report.metrics import NUMERICS

    built = Result("cuda", "cuda", Problem("sgemm", 4096, 4096, 4096), Status.COMPILED, kernel=X3,
                   reason="no GPU: built by NVRTC for sm_90a, not run")
    m = Measured.of([built])
    assert NUMERICS.text(m, built) == numerics.NOT_CHECKED_NO_GPU == "numerics not checked: no GPU"
    assert NUMERICS.cell(m, built).text == numerics.NOT_CHECKED_NO_GPU and NUMERICS.cell(m, built).cls == "warn"
