"""Triton's bf16 operand splits as rows of their own precision class, and the numerics that tell fp32-accurate from
not: the scaled layer, the componentwise error, the records that hold them (older files still load).

CPU tier: the registry, the labels, the layer's operands, the error measures and the records (what the splits compute
in the interpreter, rounded as on the GPU: tests/test_interpreter_precision.py). The tests marked gpu at the end run
the splits on the GPU.
"""

from __future__ import annotations

import json

import pytest
import torch

from harness.catalog_types.kernel import TRITON_INPUT_PRECISION
from harness.launch.implementations import Impl, all_impls
from harness.measure import numerics
from harness.problems import Problem
from harness.records.file import load
from harness.records.lines import Numerics
from harness.registry import KERNELS, PRECISION_CLASSES, PRECISIONS, precision_label
from tests.recorded import recorded_run_before_the_scaled_layer

SPLITS = ("bf16x3", "bf16x6")
SPLIT_IMPLS = [i for i in all_impls(models=("triton",)) if i.precision in SPLITS]


# ------------------------------------------------------------------------------------------------ precision classes
def test_the_bf16_splits_are_precision_classes_with_their_triton_input_precision():
    assert {"bf16x3", "bf16x6"} <= set(PRECISIONS)
    assert TRITON_INPUT_PRECISION["bf16x3"] == "bf16x3" and TRITON_INPUT_PRECISION["bf16x6"] == "bf16x6"
    bf16x3, bf16x6 = PRECISION_CLASSES["bf16x3"], PRECISION_CLASSES["bf16x6"]
    assert bf16x6.fp32_accurate and bf16x6.yardstick == "fp32" and bf16x6.label == "bf16x6"
    assert not bf16x3.fp32_accurate and bf16x3.yardstick == "fp32"
    assert bf16x3.caveat == "not fp32-accurate" and precision_label("bf16x3") == "bf16x3 (not fp32-accurate)"
    # TF32 is its own class, timed against cuBLAS TF32: its name says what it is, no caveat is added
    assert PRECISION_CLASSES["tf32"].label == "TF32" and PRECISION_CLASSES["3xtf32"].label == "3xTF32"


def test_the_report_names_each_class_by_its_label():
    from harness.analysis.measured import Measured
    from harness.records.lines import Result, Status
    from harness.report.metrics import PRECISION
    from harness.report.terminal import row
    from harness.report.wording import PRECISION_TEXT

    assert {p: c.label for p, c in PRECISION_CLASSES.items()} == PRECISION_TEXT
    record = Result("triton:tuned-bf16x3", "triton", Problem("sgemm", 64, 64, 64), Status.OK, precision="bf16x3")
    bf16x6 = Result("triton:tuned-bf16x6", "triton", Problem("sgemm", 64, 64, 64), Status.OK, precision="bf16x6")
    m = Measured.of([record, bf16x6])
    assert PRECISION.cell(m, record).text == "bf16x3 (not fp32-accurate)"
    # the terminal's table has no precision column: the implementation's name carries a mark, said under the table
    assert row(m, record)[1] == "Triton tuned-bf16x3*"
    assert row(m, bf16x6)[1] == "Triton tuned-bf16x6" and PRECISION.cell(m, bf16x6).text == "bf16x6"


def test_the_splits_are_rows_of_their_own_on_every_3xtf32_kernels_persistent_and_tuned_forms():
    carriers = {k.id for k in KERNELS if k.precision == "3xtf32"
                and any(c.module in ("gemm_hopper", "gemm_tc_tuned") for c in k.counterparts)}
    # the A-from-registers rung's Triton side is the same program as the rung before it, where the splits stand
    same_program = {"rosetta.wgmma_3xtf32_rs<3xtf32,128,128,32,4,kmajor>"}
    assert carriers and {i.kernel.id for i in SPLIT_IMPLS} == carriers - same_program
    for impl in SPLIT_IMPLS:
        base = impl.counterpart.name.rsplit("-", 1)[0]
        assert base in ("persistent", "tuned") and impl.counterpart.name == f"{base}-{impl.precision}"
        assert impl.counterpart.module == impl.kernel.counterpart(base).module
        # the counterpart's class overrides its kernel's: the row is labelled, bounded and compared by it
        assert impl.kernel.precision == "3xtf32" and impl.precision_class.key == impl.precision
        assert impl.counterpart.config(impl.kernel)["input_precision"] == impl.precision
        assert impl.counterpart.tf32_conversion(impl.kernel) is None and not impl.tf32
    assert {i.precision for i in SPLIT_IMPLS} == set(SPLITS)
    # only the fp32-accurate 3xTF32 kernels carry them; their CUDA rows keep the kernel's class
    assert all(c.precision is None for k in KERNELS if k.precision != "3xtf32" for c in k.counterparts)
    assert all(Impl("cuda", "sgemm", i.kernel).precision == "3xtf32" for i in SPLIT_IMPLS)


# ------------------------------------------------------------------------------------------------ the scaled layer
def test_the_scaled_layer_multiplies_every_element_by_a_power_of_two_in_its_range():
    p = Problem("sgemm", 61, 47, 83)
    ops = numerics.make_operands(p, "scaled", seed=5, device="cpu")
    again = numerics.make_operands(p, "scaled", seed=5, device="cpu")
    other = numerics.make_operands(p, "scaled", seed=6, device="cpu")
    assert torch.equal(ops.A, again.A) and torch.equal(ops.B, again.B)   # seeded
    assert not torch.equal(ops.A, other.A)                              # fresh per check
    random = numerics.make_operands(p, "random", seed=5, device="cpu")
    for scaled in (ops.A, ops.B):
        nonzero = scaled[scaled != 0]
        exponents = torch.frexp(nonzero).exponent
        # values in [-1, 1) times 2^e, e in [-20, 20]: binary exponents from about -44 up to 20
        assert int(exponents.max()) <= 20 and int(exponents.min()) >= -20 - 24
        spread = int(exponents.max()) - int(exponents.min())
        assert spread > 40, "the elements span many binades, unlike the random layer's"
    assert float(random.A.abs().max()) < 1.0 < float(ops.A.abs().max())


def test_componentwise_error_is_per_output_and_guards_zero_denominators():
    ref = torch.tensor([[1.0, 100.0], [0.0, 2.0]], dtype=torch.float64)
    den = torch.tensor([[1.0, 100.0], [0.0, 2.0]], dtype=torch.float64)
    out = torch.tensor([[1.0, 101.0], [0.0, 2.5]])
    assert numerics.componentwise_error(out, ref, den) == pytest.approx(0.25)  # the small output's error counts
    assert numerics.forward_error(out, ref, float(den.max())) == pytest.approx(0.01)
    wrong_at_zero = torch.tensor([[1.0, 100.0], [1e-30, 2.0]])
    assert numerics.componentwise_error(wrong_at_zero, ref, den) == float("inf")


def test_every_layer_records_both_errors_and_the_librarys():
    p = Problem("sgemm", 33, 35, 40, alpha=1.25, beta=-0.75)
    for layer in ("random", "subnormal", "scaled"):
        ops = numerics.make_operands(p, layer, seed=2, device="cpu")
        ref = numerics.reference(ops)
        vendor = numerics.errors((p.alpha * (ops.A @ ops.B) + p.beta * ops.C_in), ops, ref)
        v = numerics.check(ref.float(), ops, ref, poison=float("nan"), vendor_error=vendor[0],
                           vendor_componentwise=vendor[1])
        assert v.passed and v.componentwise is not None and v.componentwise >= v.error
        assert (v.vendor_error, v.vendor_componentwise) == vendor and v.worst == v.componentwise


def test_a_row_that_is_not_fp32_accurate_is_held_to_its_bound_and_not_the_librarys_error():
    """bf16x3's error is recorded beside the library's but judged by its own bound; the same output on a row that is
    fp32-accurate fails the multiple of the library's error."""
    p = Problem("sgemm", 40, 40, 64)
    ops = numerics.make_operands(p, "scaled", seed=3, device="cpu")
    ref = numerics.reference(ops)
    out = (ref * (1 + 1e-5)).float()   # 1e-5 of every output: within 3 * 2^-16, far past fp32
    split = numerics.check(out, ops, ref, poison=float("nan"), vendor_error=1e-7, vendor_componentwise=1e-7,
                           precision="bf16x3", fp32_accurate=False)
    assert split.passed and split.vendor_componentwise == 1e-7, split
    as_fp32 = numerics.check(out, ops, ref, poison=float("nan"), vendor_error=1e-7, vendor_componentwise=1e-7)
    assert not as_fp32.passed and "scaled layer" in as_fp32.reason


def test_the_bf16x3_bound_is_k_u_plus_three_times_2_to_the_minus_16():
    p = Problem("sgemm", 8, 8, 1000)
    extra = numerics.error_bound(p, precision="bf16x3") - numerics.error_bound(p)
    assert extra == pytest.approx(3 * 2.0**-16, rel=0.02) and extra > 3 * 2.0**-16
    # fp32-accurate splits are held to fp32's own bound
    assert numerics.error_bound(p, precision="bf16x6") == numerics.error_bound(p, precision="3xtf32") == 1000 * 2**-24
    # TF32 allows truncation's 2^-10 of each input (the tensor core reading the top 19 bits)
    assert numerics.error_bound(p, tf32=True) == numerics.error_bound(p, precision="tf32") > 2 * 2.0**-10


# ------------------------------------------------------------------------------------------------ records
def test_old_results_files_load_without_the_scaled_layer():
    path = recorded_run_before_the_scaled_layer()
    if path is None:
        pytest.skip("no committed GPU run from before the scaled layer")
    checked = [r for r in load(path).results if r.numerics is not None]
    assert checked and all(r.numerics.scaled is None for r in checked)
    assert all(v.componentwise is None for r in checked for v in r.numerics.layers.values())
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[1])
    assert "scaled" not in (first.get("numerics") or {})


def test_numerics_round_trip_with_the_scaled_layer_and_name_its_failure():
    scaled = numerics.Verdict(False, "scaled", 2e-5, 1e-5, 1e-7, "scaled layer: componentwise error 3e-05 exceeds "
                              "the bound 1e-05", 9, componentwise=3e-5, vendor_componentwise=2e-7)
    n = Numerics(False, numerics.Verdict(True, "exact", 0.0, 0.0), scaled=scaled)
    data = json.loads(json.dumps(n.to_json()))
    back = Numerics.from_json(data)
    assert back.scaled == scaled and back.failure_reasons() == [scaled.reason]
    assert set(back.layers) == {"exact", "scaled"}
    old = {k: v for k, v in data.items() if k != "scaled"}
    assert Numerics.from_json(old).scaled is None
    assert "componentwise" not in numerics.Verdict(True, "random", 1e-7, 1e-6).to_json()


# ------------------------------------------------------------------------------------------------ GPU tier
# A problem where cuBLAS fp32's componentwise error on the scaled layer is far below bf16x3's 2^-16 per product (see
# tests/test_checker_can_fail.py SPLIT_PROBLEM).
GPU_SPLIT_PROBLEM = Problem("sgemm", 256, 192, 256, alpha=2.0, beta=-0.5)


@pytest.mark.gpu
@pytest.mark.parametrize("impl", SPLIT_IMPLS, ids=lambda i: i.label)
def test_the_splits_pass_the_checks_of_their_class_on_the_gpu(impl):
    """bf16x6 passes the fp32 checks (bound and 16x cuBLAS fp32's error, normwise and componentwise, every layer);
    bf16x3 meets its own bound, with cuBLAS fp32's error recorded beside its own."""
    from harness.run.runner import ProblemContext, check_numerics

    # a Triton row has none of its CUDA kernel's whole-tile preconditions: any shape runs
    result = check_numerics(impl, ProblemContext(GPU_SPLIT_PROBLEM, torch.device("cuda"), seed=77), "cuda")
    assert result.passed, result
    for layer in ("random", "subnormal", "scaled"):
        v = result.layers[layer]
        assert v.vendor_error is not None and v.vendor_componentwise is not None, v
        assert v.bound == numerics.error_bound(GPU_SPLIT_PROBLEM, precision=impl.precision)


@pytest.mark.gpu
def test_triton_bf16x3_declared_fp32_fails_the_scaled_layer_on_the_gpu():
    """Triton's own bf16x3 (not the hand-written split) on a row that claims fp32: the scaled layer rejects it."""
    from harness.run.runner import ProblemContext, check_numerics
    from tests import wrong_kernels

    ctx = ProblemContext(GPU_SPLIT_PROBLEM, torch.device("cuda"), seed=11)
    result = check_numerics(wrong_kernels.WrongImpl("bf16x3_dot"), ctx, "cuda")
    assert result.exact.passed and not result.scaled.passed, result
    assert "scaled layer" in result.scaled.reason


def test_a_kernel_that_sums_one_term_after_another_is_not_failed_for_its_order_on_the_scaled_layer():
    """Recursive summation in fp32 (seed 003's naive sgemv: one row, one term at a time) against a library whose
    per-output error is that of one rounding: past 16x the library's componentwise error on scaled elements, yet
    within recursive summation's own floor, so it passes; the same output 30x further off does not."""
    import numpy as np

    # the seed's depth on a quarter of its rows; seeded with a draw whose worst row goes past 16x the library's, as
    # the seed's full 16384 rows did on an H100 (1.5e-6 against cuBLAS fp32's 7.7e-8); the first assert says so
    p = Problem("sgemv", 4096, 16384, 1)
    ops = numerics.make_operands(p, "scaled", seed=1, device="cpu")
    ref = numerics.reference(ops)
    A, x = ops.A.numpy(), ops.B.numpy()
    acc = np.zeros(p.M, dtype=np.float32)
    for j in range(p.N):
        acc = (acc + A[:, j] * x[j]).astype(np.float32)
    out = torch.from_numpy(acc)
    library = numerics.errors(ref.float(), ops, ref)          # the float64 sum rounded once
    v = numerics.check(out, ops, ref, poison=float("nan"), vendor_error=library[0],
                       vendor_componentwise=library[1])
    assert v.componentwise > numerics.VENDOR_MULTIPLE * max(library[1], numerics.U_FP32), v
    assert v.passed, v
    off = ref + (out.double() - ref) * 30
    worse = numerics.check(off.float(), ops, ref, poison=float("nan"), vendor_error=library[0],
                           vendor_componentwise=library[1])
    assert v.componentwise < numerics.summation_floor(p) < worse.componentwise
    assert not worse.passed and "is over 16x the library's" in worse.reason, worse


@pytest.mark.parametrize("layer, passes", [("scaled", True), ("random", False)])
def test_the_worst_outputs_error_is_held_to_the_summation_floor_on_the_scaled_layer_only(layer, passes):
    """An output off by 4x fp32's one rounding of its largest |A||x| term, normwise, against a library that rounds
    once: on scaled elements the worst output's error is set by the order of summation (seed 003's naive sgemv at
    16384x16384, seed 99, went past 16x cuBLAS fp32's there), so it passes under recursive summation's floor; on
    uniform magnitudes the same error is over 16x one rounding, the mark of a reduced-precision product."""
    p = Problem("sgemv", 256, 4096, 1)
    ops = numerics.make_operands(p, layer, seed=3, device="cpu")
    ref = numerics.reference(ops)
    den = numerics.magnitudes(ops)
    worst = int(den.argmax())
    off = ref.clone()
    off[worst] += 64 * numerics.U_FP32 * float(den[worst])
    library = numerics.errors(ref.float(), ops, ref)
    v = numerics.check(off.float(), ops, ref, poison=float("nan"), vendor_error=library[0],
                       vendor_componentwise=library[1])
    assert numerics.VENDOR_MULTIPLE * max(library[0], numerics.U_FP32) < v.error < numerics.summation_floor(p), v
    assert v.passed is passes, v
    if not passes:
        assert "forward error" in v.reason and "is over 16x the library's" in v.reason, v


def test_the_terminal_table_says_under_it_which_marked_class_is_not_fp32_accurate():
    import io

    from rich.console import Console

    from harness.analysis.measured import Measured
    from harness.measure import numerics
    from harness.records.lines import Numerics, Result, Status
    from harness.report.terminal import print_summary

    p = Problem("sgemm", 64, 64, 64)
    passed = Numerics(True, numerics.Verdict(True, "exact", 0.0, 0.0), numerics.Verdict(True, "random", 2e-6, 1e-5))
    rows = [Result("triton:tuned-bf16x3", "triton", p, Status.OK, kernel="rosetta.k", precision="bf16x3",
                   numerics=passed),
            Result("triton:tuned-bf16x6", "triton", p, Status.OK, kernel="rosetta.k", precision="bf16x6",
                   numerics=passed)]
    buf = io.StringIO()
    print_summary(Measured.of(rows), Console(file=buf, width=80, force_terminal=False, color_system=None))
    lines = buf.getvalue().splitlines()
    assert any("Triton tuned-bf16x3*" in ln for ln in lines) and not any("bf16x6*" in ln for ln in lines)
    assert "* bf16x3: not fp32-accurate" in lines
    # the row's numerics name the class it passed as, beside the mark
    assert any("Triton tuned-bf16x3*" in ln and "✓ 2.0e-06 as bf16x3" in ln for ln in lines), lines
