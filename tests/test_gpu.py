"""GPU tier: every CUDA kernel, counterpart and baseline on the GPU through every numerics layer and
the beta == 0 test, at the seed's problem and at another shape each kernel's preconditions allow. At the seed's problem
(the default run's, which it times) an autotuned implementation tunes, as a run does; at the other shape, which no run
times, it runs its declared configuration. The other shape is the default tier's (`trust`): every implementation
once."""

from __future__ import annotations

import pytest
import torch

from harness.launch.implementations import Impl, all_impls, baselines
from harness.measure.numerics import poison_for
from harness.problems import DEFAULT_SGEMM, DEFAULT_SGEMV, Problem
from harness.problems.preconditions import allowed_shape
from harness.run.runner import check_numerics
from tests.contexts import shared_context

pytestmark = pytest.mark.gpu

# Non-square, odd where allowed; rounded up to each kernel's multiples (and squared for square-only kernels).
OTHER = {"sgemm": Problem("sgemm", 1000, 1531, 771), "sgemv": Problem("sgemv", 3001, 1537)}
SEED = {"sgemm": DEFAULT_SGEMM[0], "sgemv": DEFAULT_SGEMV[1]}
IMPLS = all_impls()


def _shape(impl: Impl, which: str) -> Problem:
    want = SEED[impl.op] if which == "seed" else OTHER[impl.op]
    # a Gluon counterpart takes its CUDA kernel's decisions, whole tiles included
    return allowed_shape(impl.kernel.preconditions, want) if impl.model in ("cuda", "gluon") else want


_ctx = shared_context  # operands and references shared by every implementation of a problem


@pytest.mark.parametrize("which", ["seed", pytest.param("other", marks=pytest.mark.trust)])
@pytest.mark.parametrize("impl", IMPLS, ids=lambda i: i.label)
def test_implementation_passes_numerics_on_the_gpu(impl, which):
    result = check_numerics(impl, _ctx(_shape(impl, which), tune=which == "seed"), "cuda")
    assert result.passed, result


# the Triton baseline's classes pass the same check at the same problem in tests/test_triton_baseline.py
@pytest.mark.trust
@pytest.mark.parametrize("impl", [i for i in (*baselines("sgemm"), *baselines("sgemv")) if not i.id.is_triton_baseline],
                         ids=lambda i: i.name)
def test_baseline_passes_numerics_and_tf32_is_only_where_labelled(impl):
    result = check_numerics(impl, _ctx(SEED[impl.op]), "cuda")
    assert result.passed, result
    if impl.name == "cublas":
        assert not torch.backends.cuda.matmul.allow_tf32


@pytest.mark.parametrize("impl", IMPLS, ids=lambda i: i.label)
def test_same_inputs_give_bit_identical_outputs(impl):
    p = _shape(impl, "other")
    ctx = _ctx(p, tune=False)
    ops = ctx.operands(ctx.numerics_problem("random", impl), "random")
    outs = []
    for _ in range(2):
        out = ops.fresh_output(0.0)
        impl.bind(ops.tensors(out), ops.problem.alpha, ops.problem.beta, tune=False)()
        torch.cuda.synchronize()
        outs.append(out)
    assert torch.equal(outs[0], outs[1])


@pytest.mark.gpu_alone  # two timers compared on one kernel: other test processes on the GPU would skew one of them
def test_a_cupy_launch_is_enclosed_by_the_timer_events():
    """The timer's events and CuPy's own events agree on a CUDA kernel: both see the same launch."""
    import cupy as cp

    from harness.measure.timing import time_gpu
    from harness.registry import get

    impl = Impl("cuda", "sgemm", get("s000.gemm_block_tiling_v3<64,64,16,16,16>"))
    ctx = _ctx(DEFAULT_SGEMM[0])
    ops = ctx.operands(DEFAULT_SGEMM[0], "random")
    out = ops.fresh_output(0.0)
    fn = impl.bind(ops.tensors(out))
    ours = time_gpu(fn).median_ms
    start, end = cp.cuda.Event(), cp.cuda.Event()
    samples = []
    for _ in range(10):
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, end))
    theirs = sorted(samples)[5]
    assert abs(ours - theirs) / theirs < 0.10, (ours, theirs)


# Past 2^31 elements: A of 65,536 x 32,800 floats (2.15e9 elements, 8.6 GB).
BIG = {"sgemv": Problem("sgemv", 65536, 32800), "sgemm": Problem("sgemm", 65536, 64, 32800)}
_big: dict = {}


def _big_operands(op: str) -> tuple[dict, torch.Tensor]:
    """Small exact integers whose value depends on the row and column, so an index that wraps at 2^31
    reads a different value; the float64 reference is computed a block of rows at a time."""
    if op not in _big:
        _big.clear()
        torch.cuda.empty_cache()
        p = BIG[op]
        depth = p.N if op == "sgemv" else p.K
        rows = torch.arange(p.M, device="cuda", dtype=torch.int64)[:, None]
        A = torch.empty(p.M, depth, device="cuda")
        for r0 in range(0, p.M, 4096):
            cols = torch.arange(depth, device="cuda", dtype=torch.int64)[None, :]
            A[r0:r0 + 4096] = ((rows[r0:r0 + 4096] * 7 + cols * 3) % 5 - 2).float()
        B = (torch.arange(depth * (1 if op == "sgemv" else p.N), device="cuda") % 3 - 1).float()
        B = B if op == "sgemv" else B.reshape(depth, p.N)
        ref = torch.cat([A[r0:r0 + 4096].double() @ B.double() for r0 in range(0, p.M, 4096)])
        _big[op] = ({"A": A, ("x" if op == "sgemv" else "B"): B}, ref)
    return _big[op]


@pytest.mark.gpu_alone
@pytest.mark.parametrize("impl", [*baselines("sgemv")[:1], *(i for i in IMPLS if i.op == "sgemv"),
                                  *baselines("sgemm")[:1], Impl("triton-tutorial", "sgemm"),
                                  *(i for i in IMPLS if i.op == "sgemm")],
                         ids=lambda i: i.label)
def test_past_2_31_elements_every_implementation_is_right_or_refused_before_launch(impl):
    problem = BIG[impl.op]
    operands, ref = _big_operands(impl.op)
    # NaN, or the finite sentinel for seed kernels that compute beta*C even when beta == 0 (0*NaN is NaN).
    poison = poison_for(impl.reads_c_when_beta_zero)
    out = torch.full((problem.M,) if impl.op == "sgemv" else (problem.M, problem.N), poison, device="cuda")
    tensors_ = {**operands, ("y" if impl.op == "sgemv" else "C"): out}
    if impl.unmet(problem):
        with pytest.raises(ValueError, match="cannot run"):
            impl.bind(tensors_)
        return
    impl.bind(tensors_, tune=False)()  # untuned: the addressing is checked here, not the tuner (test_counterparts.py)
    torch.cuda.synchronize()
    assert torch.equal(out.double(), ref), f"{int((out.double() != ref).sum())} wrong outputs"
