"""Every Triton counterpart and the vendor baseline through every numerics layer and the beta == 0 test:
in the interpreter on small, odd shapes in the CPU tier (on the GPU where there is one)."""

from __future__ import annotations

import pytest
import torch

from harness.launch.implementations import Impl, all_impls, baselines
from harness.launch.triton import config
from harness.problems import Problem
from harness.records.lines import Numerics
from harness.registry import KERNELS, Kernel
from harness.registry.shapes import cpu_problem
from harness.run.runner import ProblemContext, check_numerics

SGEMV_SHAPES = (Problem("sgemv", 37, 45), Problem("sgemv", 5, 1031))
TRITON = all_impls(models=("triton",))


def _shapes(impl: Impl) -> tuple[Problem, ...]:
    """An odd shape with partial tiles on every edge, and a tile-aligned one; sized from the program's
    tile, since the interpreter's cost grows with programs x K steps."""
    if impl.op == "sgemv":
        return SGEMV_SHAPES
    cfg = config(impl.kernel, impl.counterpart)
    return (cpu_problem(impl.kernel, impl.counterpart), Problem("sgemm", 2 * cfg["block_m"], 2 * cfg["block_n"], 48))


def _check(impl: Impl, problem: Problem, device: str) -> Numerics:
    # shapes no run times: an autotuned form runs its declared configuration (on a GPU it would tune on each)
    ctx = ProblemContext(problem, torch.device(device), seed=2024, tune=False)
    return check_numerics(impl, ctx, device)


@pytest.mark.parametrize("shape", [pytest.param(0, id="odd", marks=pytest.mark.trust), pytest.param(1, id="aligned")])
@pytest.mark.parametrize("impl", TRITON, ids=lambda i: i.label)
def test_counterpart_is_exact_and_within_bounds(impl, shape, device):
    result = _check(impl, _shapes(impl)[shape], device)
    assert result.passed, result
    assert result.exact.passed and result.random.error <= result.random.bound


@pytest.mark.parametrize("impl", [i for i in TRITON if i.op == "sgemm"], ids=lambda i: i.label)
def test_counterpart_honours_beta_zero_even_where_the_seed_does_not(impl, device):
    result = _check(impl, Problem("sgemm", 19, 21, 16), device)
    assert result.beta0.observed == "honours"


@pytest.mark.trust
@pytest.mark.parametrize("op", ["sgemm", "sgemv"])
def test_vendor_baseline_passes_the_same_checks(op, device):
    for impl in (b for b in baselines(op) if b.vendor):  # the Triton baseline: tests/test_triton_baseline.py
        if impl.tf32 and device == "cpu":
            continue  # TF32 exists only on the GPU
        shape = SGEMV_SHAPES[0] if op == "sgemv" else Problem("sgemm", 37, 45, 29)
        assert _check(impl, shape, device).passed


# ------------------------------------------------------------------------------------------------ past 2^31 elements
_PAIRS = [(k, c) for k in KERNELS for c in k.counterparts]


@pytest.fixture(scope="module")
def compiled_facts() -> dict[tuple[str, str], dict[str, int]]:
    """Every counterpart compiled ahead of time for sm_90 (cached on disk), its facts by (kernel id, form)."""
    from harness.inspect.resources import counterpart_resources

    return {(k.id, c.name): r.facts for (k, c), r in zip(_PAIRS, counterpart_resources(_PAIRS), strict=True)}


def _operands(kernel: Kernel) -> tuple[str, ...]:
    return ("A", "x", "y") if kernel.op == "sgemv" else ("A", "B", "C")


# operand A: the default tier's check that every counterpart compiles for sm_90a (the compiles are shared by all three)
@pytest.mark.parametrize("operand", [pytest.param(0, id="A", marks=pytest.mark.trust), pytest.param(1, id="B or x"),
                                     pytest.param(2, id="C or y")])
@pytest.mark.parametrize("pair", _PAIRS, ids=lambda p: f"{p[0].id} [{p[1].name}]")
def test_a_64_bit_counterpart_multiplies_no_size_in_32_bits_on_any_operand(pair, operand, compiled_facts):
    """Any one operand past 2^31 elements is addressed right: in the TTIR, every product of a size argument (M, N,
    K) on the operand's address path is 64-bit, and each 2-D operand's row offset is one such product."""
    kernel, counterpart = pair
    if not counterpart.offsets_64bit:
        pytest.skip("the registry says 32-bit offsets: binding refuses such operands (tests/test_bad_input.py)")
    name = _operands(kernel)[operand]
    facts = compiled_facts[(kernel.id, counterpart.name)]
    assert facts[f"ttir.size_mul_i32.{name}"] == 0, f"{name} is indexed with a 32-bit product of a size"
    if kernel.op == "sgemm" or name == "A":
        assert facts[f"ttir.size_mul_i64.{name}"] >= 1, f"{name}'s row offset is not a 64-bit product"


def test_the_offset_check_sees_a_32_bit_index():
    from harness.inspect.compile_triton import triton_resources
    from tests import offset_kernels

    facts = triton_resources(offset_kernels.b_index_32bit_kernel, offset_kernels.SIGNATURE, {"BLOCK": 16},
                             num_warps=4, num_stages=1).facts
    assert facts["ttir.size_mul_i32.B"] >= 1 and facts["ttir.size_mul_i64.B"] == 0
    assert facts["ttir.size_mul_i32.A"] == 0 and facts["ttir.size_mul_i64.A"] >= 1


def _one_per_code_path() -> list[Impl]:
    """One sgemm counterpart per distinct kernel text and addressing (module, unroll form, B layout), and the Triton
    baseline (kernels_triton/gemm_tutorial.py)."""
    seen: dict[tuple, Impl] = {}
    for impl in TRITON:
        if impl.op == "sgemm":
            c = impl.counterpart
            seen.setdefault((c.module, c.params.get("unroll"), impl.kernel.b_layout), impl)
    return [*seen.values(), Impl("triton-tutorial", "sgemm")]


# B alone or C alone past 2^31 elements (A alone: tests/test_gpu.py); every dimension fits int32.
_BIG_ONE = {"B": Problem("sgemm", 64, 65536, 32800), "C": Problem("sgemm", 65536, 32800, 16)}
_big_operands: dict = {}


def _big(operand: str) -> dict[str, torch.Tensor]:
    """Small exact integers that depend on row and column, so a wrapped index reads a different value."""
    if operand not in _big_operands:
        _big_operands.clear()
        torch.cuda.empty_cache()
        p = _BIG_ONE[operand]

        def pattern(rows: int, cols: int, mult: int) -> torch.Tensor:
            out = torch.empty(rows, cols, device="cuda")
            c = torch.arange(cols, device="cuda", dtype=torch.int64)[None, :]
            for r0 in range(0, rows, 4096):
                r = torch.arange(r0, min(rows, r0 + 4096), device="cuda", dtype=torch.int64)[:, None]
                out[r0:r0 + 4096] = ((r * mult + c * 3) % 5 - 2).float()
            return out

        _big_operands[operand] = {"A": pattern(p.M, p.K, 7), "B": pattern(p.K, p.N, 11)}
    return _big_operands[operand]


@pytest.mark.gpu
@pytest.mark.gpu_alone
@pytest.mark.parametrize("operand", ["B", "C"])
@pytest.mark.parametrize("impl", _one_per_code_path(), ids=lambda i: i.label)
def test_past_2_31_elements_in_b_or_c_alone_the_counterpart_is_right_or_refused(impl, operand):
    p = _BIG_ONE[operand]
    ops = _big(operand)
    out = torch.full((p.M, p.N), float("nan"), device="cuda")
    if impl.unmet(p):  # a form the registry declares 32-bit is refused before launch
        with pytest.raises(ValueError, match="cannot run"):
            impl.bind({**ops, "C": out})
        return
    # untuned (an autotuned form at its declared configuration): tuning would compile a whole list in the 64-bit form
    # for one check of addressing, which the compiled facts above hold for every form
    impl.bind({**ops, "C": out}, tune=False)()
    torch.cuda.synchronize()
    A, B = ops["A"].double(), ops["B"].double()
    step = 4096
    if operand == "B":  # the reference a block of columns at a time (a whole float64 B would be 17 GB)
        for n0 in range(0, p.N, step):
            assert torch.equal(out[:, n0:n0 + step].double(), A @ B[:, n0:n0 + step]), f"columns {n0}+ wrong"
    else:
        for m0 in range(0, p.M, step):
            assert torch.equal(out[m0:m0 + step].double(), A[m0:m0 + step] @ B), f"rows {m0}+ wrong"
