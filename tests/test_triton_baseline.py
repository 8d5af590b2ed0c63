"""The Triton baseline (kernels_triton/gemm_tutorial.py): the tutorial-03 GEMM beside cuBLAS in every sgemm problem,
in each precision class, judged like any Triton row and never taken for the cuBLAS yardstick.

The CPU tier runs all three classes in Triton's interpreter, rounded as on the GPU (harness/launch/
interpreter_precision.py); the tests marked `gpu` run them through the numerics layers on the GPU.
"""

from __future__ import annotations

import pytest
import torch

from harness.baselines import BASELINE_ORDER, TRITON_BASELINES
from harness.identity import ImplId
from harness.launch import triton_tutorial
from harness.launch.implementations import Impl, baselines
from harness.measure.numerics import error_bound
from harness.measure.timing import Timing
from harness.problems import DEFAULT_SGEMM, Problem
from harness.records.lines import Result, RunHeader, Status
from harness.records.order import record_order
from harness.registry import KERNELS
from harness.run.messages import ImplKey
from harness.run.plan import cpu_plan, gpu_plan
from harness.run.runner import ProblemContext, check_numerics
from tests.contexts import shared_context

NAMES = tuple(TRITON_BASELINES)
CLASSES = {"triton-tutorial": ("fp32", "ieee", "Triton tutorial (ieee)"),
           "triton-tutorial-tf32": ("tf32", "tf32", "Triton tutorial (TF32)"),
           "triton-tutorial-3xtf32": ("3xtf32", "tf32x3", "Triton tutorial (3xTF32)")}
# The tutorial's CUDA list for fp16 and fp32 operands: (BLOCK_M, BLOCK_N, BLOCK_K, stages, warps), GROUP_M = 8.
TUTORIAL = ((128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
            (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2))
# ... and the entries it adds for fp8 inputs; its list for CUDA returns both.
TUTORIAL_FP8 = ((128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (256, 64, 128, 4, 4), (64, 256, 128, 4, 4),
                (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (128, 32, 64, 4, 4))


def _tiles(configs) -> list[tuple[int, ...]]:
    return [(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"], c.num_stages, c.num_warps)
            for c in configs]


# ---------------------------------------------------------------------------------------------------- registration
def test_the_three_triton_baselines_are_in_every_sgemm_problems_gpu_plan():
    problems = [*DEFAULT_SGEMM, Problem("sgemm", 1000, 1531, 771), Problem("sgemv", 4096, 4096)]
    for problem, keys in gpu_plan(list(KERNELS), problems):
        names = [k.impl.to_json() for k in keys if k.kernel is None]
        if problem.op == "sgemv":
            assert names == ["cublas"]
            continue
        assert names == list(BASELINE_ORDER), problem.label
        # measured with the baselines, before any kernel, each once
        first_kernel = next(i for i, k in enumerate(keys) if k.kernel is not None)
        assert all(keys.index(ImplKey(None, ImplId.from_json(n), "sgemm")) < first_kernel for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_triton_baseline_is_labelled_and_classed(name):
    precision, input_precision, label = CLASSES[name]
    impl = Impl(name, "sgemm")
    assert impl.kernel is None and not impl.vendor
    assert impl.precision == precision and impl.tf32 == (precision == "tf32")
    assert impl.computes_alpha_beta and not impl.reads_c_when_beta_zero
    assert triton_tutorial.input_precision(name) == input_precision
    assert impl.id.label() == impl.id.label("cpu (Triton interpreter)") == label
    rec = Result(name, impl.model, DEFAULT_SGEMM[0], Status.OK, precision=impl.precision, tf32=impl.tf32)
    assert rec.baseline and not rec.vendor and rec.label == label
    assert Result.from_json(rec.to_json()).precision == precision


def test_cublas_stays_the_yardstick():
    assert [b.name for b in baselines("sgemm") if b.vendor] == ["cublas", "cublas-tf32", "cublas-tn", "cublas-tf32-tn"]
    assert [b.name for b in baselines("sgemm") if not b.vendor] == list(NAMES)
    assert [b.name for b in baselines("sgemv")] == ["cublas"]


def test_records_list_cublas_then_the_triton_baseline_then_the_kernels():
    p = DEFAULT_SGEMM[0]
    kernel = next(k for k in KERNELS if k.op == "sgemm")
    recs = [Result("cuda", "cuda", p, Status.OK, kernel=kernel.id),
            *(Result(n, n, p, Status.OK) for n in reversed(BASELINE_ORDER))]
    assert [r.impl for r in sorted(recs, key=record_order)] == [*BASELINE_ORDER, "cuda"]


def test_a_faster_triton_baseline_never_becomes_the_cublas_a_row_is_measured_against():
    from harness.analysis.measured import Measured
    from harness.records.file import Results

    p = DEFAULT_SGEMM[0]

    def timed(impl: str, ms: float, precision: str) -> Result:
        return Result(impl, impl, p, Status.OK, precision=precision, tf32=precision == "tf32",
                      timing=Timing(ms, ms, ms, ms, ms, 10))

    recs = [timed("triton-tutorial", 1.0, "fp32"), timed("triton-tutorial-tf32", 0.1, "tf32"),
            timed("triton-tutorial-3xtf32", 0.5, "3xtf32"), timed("cublas", 2.0, "fp32"),
            timed("cublas-tf32", 0.2, "tf32")]
    m = Measured(Results(None, RunHeader("synthetic", "gpu", "synthetic", {}, [], 0, [p], 100.0), recs, None))
    assert m.baseline(p, "fp32").impl == "cublas" and m.baseline(p, "3xtf32").impl == "cublas"
    assert m.baseline(p, "tf32").impl == "cublas-tf32"
    assert [m.pct(r) for r in recs[:3]] == [200.0, 200.0, 400.0]


def test_the_report_draws_the_triton_baseline_in_tritons_colour():
    from harness.report.plots.common import CUBLAS, CUDA, TRITON, model_colour

    assert [model_colour(Impl(n, "sgemm").id) for n in NAMES] == [TRITON] * 3
    assert model_colour(ImplId.from_json("cublas")) == model_colour(ImplId.from_json("cublas-tf32")) == CUBLAS
    assert (model_colour(ImplId("cuda")), model_colour(ImplId("triton", "dot"))) == (CUDA, TRITON)


def test_the_kernel_takes_the_tutorials_cuda_list_and_the_interpreter_one_of_it():
    from kernels_triton import gemm_tutorial

    assert _tiles(gemm_tutorial.CONFIGS) == [*TUTORIAL, *TUTORIAL_FP8]   # the published list, all of it, in order
    assert all(c.kwargs["GROUP_M"] == 8 for c in gemm_tutorial.CONFIGS)
    (only,) = gemm_tutorial.INTERPRETER_CONFIGS
    assert _tiles([only])[0] == min(TUTORIAL, key=lambda t: (t[0] * t[1] * t[2], t[0]))


def test_the_suites_autotuned_ceiling_searches_every_configuration_the_tutorial_does():
    from kernels_triton import gemm_autotuned

    searched = _tiles(gemm_autotuned.sgemm_autotuned.configs)
    assert set(TUTORIAL) <= set(searched)
    folds = [c.kwargs["FOLD"] for c in gemm_autotuned.sgemm_autotuned.configs]
    assert len(set(zip(searched, folds, strict=True))) == len(searched), "a configuration is searched twice"
    assert {True, False} == set(folds), "the tuner is given both ways of keeping loads in bounds"
    assert _tiles(gemm_autotuned.CONFIGS[:1]) == [(64, 128, 64, 3, 8)]  # the interpreter's is still the first


@pytest.mark.parametrize("fold", [False, True], ids=["masked", "folded"])
def test_the_autotuned_ceiling_is_right_on_an_odd_shape_with_loads_masked_or_folded(fold, device):
    """Folded loads read rows and columns mod M and N past the edge; the store's mask must throw those away and the
    K mask keep the partial last step: every output checked against float64, C poisoned with NaN (beta = 0)."""
    import triton

    from kernels_triton.gemm_autotuned import sgemm_autotuned_kernel

    p = triton_tutorial.CPU_PROBLEM
    g = torch.Generator().manual_seed(7)
    A = torch.rand(p.M, p.K, generator=g).to(device)
    B = torch.rand(p.K, p.N, generator=g).to(device)
    C = torch.full((p.M, p.N), float("nan"), device=device)
    grid = (triton.cdiv(p.M, 32) * triton.cdiv(p.N, 64),)
    sgemm_autotuned_kernel[grid](A, B, C, p.M, p.N, p.K, 1.0, 0.0, BLOCK_M=32, BLOCK_N=64, BLOCK_K=32, GROUP_M=8,
                                 FOLD=fold)
    ref = A.double() @ B.double()
    assert not torch.isnan(C).any()
    assert float((C.double() - ref).abs().max() / ref.abs().max()) < error_bound(p)


def test_binding_refuses_what_is_not_an_sgemm_of_fp32_operands(device):
    impl = Impl("triton-tutorial", "sgemm")
    x = torch.zeros(4, device=device)
    with pytest.raises(ValueError, match="sgemm implementation"):
        impl.bind({"A": torch.zeros(4, 4, device=device), "x": x, "y": x}, device_type=device)
    with pytest.raises(ValueError, match="fp32"):
        impl.bind({n: torch.zeros(4, 4, dtype=torch.float64, device=device) for n in "ABC"}, device_type=device)
    with pytest.raises(ValueError, match="unknown Triton baseline"):
        triton_tutorial.bind("triton-tutorial-bf16", {n: torch.zeros(4, 4, device=device) for n in "ABC"})


# ------------------------------------------------------------------------------------------------------ CPU tier
def test_the_cpu_plan_runs_the_triton_baseline_of_each_class_on_a_small_odd_shape():
    from kernels_triton.gemm_tutorial import INTERPRETER_CONFIGS

    plan = dict(cpu_plan(list(KERNELS), [*DEFAULT_SGEMM]))
    p = triton_tutorial.CPU_PROBLEM
    assert [(k.kernel, k.impl.to_json(), k.op) for k in plan[p][:4]] == [(None, "cublas", "sgemm"),
                                                                       *((None, n, "sgemm") for n in NAMES)]
    assert sum(k.impl.is_triton_baseline for keys in plan.values() for k in keys) == len(NAMES)
    assert p.M % 2 and p.N % 2 and p.K % 2
    cfg = INTERPRETER_CONFIGS[0].kwargs
    # two full programs a side and a partial one; two full K steps and a partial one
    for size, block in ((p.M, "BLOCK_M"), (p.N, "BLOCK_N"), (p.K, "BLOCK_K")):
        full, rest = divmod(size, cfg[block])
        assert full >= 2 and rest, (size, block)
    sgemv_only = cpu_plan(list(KERNELS), [Problem("sgemv", 4096, 4096)])
    assert not any(k.impl.is_triton_baseline for _, keys in sgemv_only for k in keys)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [pytest.param(triton_tutorial.CPU_PROBLEM, id="odd", marks=pytest.mark.trust),
                                   pytest.param(Problem("sgemm", 64, 128, 64), id="aligned")])
def test_the_triton_baseline_passes_the_numerics_layers_of_its_class(shape, name, device):
    impl = Impl(name, "sgemm")
    result = check_numerics(impl, ProblemContext(shape, torch.device(device), seed=2024, tune=False), device)
    assert result.passed and not result.not_checked, result
    assert result.exact.passed and result.exact.error == 0.0
    # judged like a Triton row of its class: its bound, and where fp32-accurate the vendor's error on the same inputs
    assert result.random.bound == error_bound(shape, precision=impl.precision)
    assert (result.random.vendor_error is not None) == (not impl.tf32)
    assert result.beta0.observed == "honours"


def test_the_chosen_configuration_lands_in_the_record(device):
    from harness.run.runner import RunOptions, measure
    from harness.run.work import ResourceCache
    from kernels_triton import gemm_tutorial

    impl = Impl("triton-tutorial", "sgemm")
    ctx = ProblemContext(triton_tutorial.CPU_PROBLEM, torch.device(device), seed=7)
    rec = measure(impl, ctx, RunOptions(time=False, device_type=device), resources=ResourceCache(gpu=False).of)
    assert isinstance(rec, Result) and rec.ok, rec.reason
    chosen = rec.resources.config["autotuned"]
    tiles = gemm_tutorial.CONFIGS + gemm_tutorial.INTERPRETER_CONFIGS
    assert chosen == gemm_tutorial.chosen_config() and chosen in [gemm_tutorial.config_dict(c) for c in tiles]
    assert rec.resources.config["input_precision"] == "ieee"
    assert rec.resources.config["form"] == "as published"   # the last launch: the beta == 0 test, alpha = 1
    assert Result.from_json(rec.to_json()).resources.config == rec.resources.config


def test_the_published_form_offsets_in_32_bits_and_reads_no_c_where_the_variant_offsets_in_64_bits():
    """As published, every offset is a 32-bit product of an index and a stride and C is only written; with
    WIDE_OFFSETS no 32-bit product of a size is left on any operand's path (the proof the counterparts get,
    tests/test_counterparts.py), so an operand past 2^31 elements is addressed right; every precision class, compiled
    with the unit strides a row-major launch specialises to the constant 1."""
    from harness.inspect.compile_triton import TritonRequest, triton_resources_many
    from kernels_triton import gemm_tutorial as g

    # as Triton's launch specialises row-major operands: a stride of 1 arrives as the constant, not an i32
    unit = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1}
    aligned = tuple(n for n, t in g.SIGNATURE.items() if (t.startswith("*") or t == "i32") and n not in unit)
    forms = [(p, wide, epilogue) for p in g.INPUT_PRECISIONS for wide in (False, True) for epilogue in (False, True)]
    requests = []
    for precision, wide, epilogue in forms:
        cx = {**unit, **g.constexprs(64, 128, 32, input_precision=precision, wide_offsets=wide, epilogue=epilogue)}
        requests.append(TritonRequest(g.KERNEL, {**g.SIGNATURE, **dict.fromkeys(cx, "constexpr")}, cx, 4, 4, 90,
                                      aligned))
    for (precision, wide, epilogue), r in zip(forms, triton_resources_many(requests), strict=True):
        for name in "ABC":
            if wide:
                assert r.facts[f"ttir.size_mul_i32.{name}"] == 0, (precision, epilogue, name)
                assert r.facts[f"ttir.size_mul_i64.{name}"] >= 1, (precision, epilogue, name)
            else:
                assert r.facts[f"ttir.size_mul_i32.{name}"] >= 1, (precision, epilogue, name)
                assert r.facts[f"ttir.size_mul_i64.{name}"] == 0, (precision, epilogue, name)


def test_the_problem_picks_the_published_form_wherever_it_allows():
    from kernels_triton import gemm_tutorial as g

    assert g.form_of(4096, 4096, 4096, 1.0, 0.0) == (False, False)
    assert g.FORMS[g.form_of(8192, 8192, 8192, 1.0, 0.0)] == "as published"
    assert g.form_of(4096, 4096, 4096, 2.0, 0.0) == (False, True)         # alpha != 1: the epilogue
    assert g.form_of(4096, 4096, 4096, 1.0, 0.5) == (False, True)         # beta != 0: the epilogue, C read
    assert g.form_of(2**16, 2**15 + 1, 8, 1.0, 0.0) == (True, False)      # C past 2^31 elements
    assert g.form_of(8, 2**24 + 1, 8, 1.0, 0.0) == (True, False)          # a K step of B past 2^31 elements
    assert not g.needs_wide_offsets(46340, 46340, 46340)                    # every index under 2^31


@pytest.mark.parametrize(("alpha", "beta", "form"), [(1.0, 0.0, "as published"), (2.0, 0.5, "alpha/beta epilogue")])
def test_each_form_is_right_in_the_interpreter_and_named_in_the_record(alpha, beta, form, device):
    """Every element against float64 on the odd CPU problem, C poisoned with NaN where the form must not read it."""
    p = triton_tutorial.CPU_PROBLEM
    g = torch.Generator().manual_seed(11)
    A, B = torch.rand(p.M, p.K, generator=g).to(device), torch.rand(p.K, p.N, generator=g).to(device)
    C = torch.full((p.M, p.N), float("nan"), device=device) if beta == 0.0 else torch.rand(p.M, p.N).to(device)
    ref = alpha * (A.double() @ B.double()) + (beta * C.double() if beta else 0.0)
    triton_tutorial.bind("triton-tutorial", {"A": A, "B": B, "C": C}, alpha, beta, device)()
    assert not torch.isnan(C).any()
    assert float((C.double() - ref).abs().max() / ref.abs().max()) < error_bound(p)
    assert triton_tutorial.chosen_config("triton-tutorial")["form"] == form


# ------------------------------------------------------------------------------------------------------- GPU tier
_ctx = shared_context  # operands and references shared by every implementation of a problem


GPU_SHAPES = (DEFAULT_SGEMM[0], Problem("sgemm", 1000, 1531, 771))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [GPU_SHAPES[0], pytest.param(GPU_SHAPES[1], marks=pytest.mark.trust)],
                         ids=lambda p: p.shape_label)
@pytest.mark.parametrize("name", NAMES)
def test_the_triton_baselines_pass_the_numerics_layers_on_the_gpu_and_only_tf32_computes_in_tf32(name, shape):
    """Tuned at the default problem as a run tunes it (the record keeping the tuner's choice); at the odd shape no
    run times, the declared configuration."""
    impl = Impl(name, "sgemm")
    ctx = _ctx(shape, tune=shape == GPU_SHAPES[0])
    if ctx.tune:
        _tuned_as_a_run_tunes(impl, ctx)
    result = check_numerics(impl, ctx, "cuda")
    assert result.passed, result
    assert result.exact.error == 0.0 and result.beta0.observed == "honours"
    # the class reaches the dot: on the same inputs the TF32 row's error is far above cuBLAS fp32's, the ieee and
    # 3xTF32 rows' are not
    vendor = ctx.vendor_error(ctx.numerics_problem("random", impl), "cuda")
    assert (result.random.error > 10 * vendor) == impl.tf32, (result.random.error, vendor)
    if impl.tf32:  # the tf32 bound, never measured against cuBLAS fp32's error
        assert result.random.vendor_error is None and result.random.bound == error_bound(shape, tf32=True)
    else:  # ieee and 3xTF32: the fp32 checks, the vendor's error included
        assert result.random.vendor_error is not None and result.random.bound == error_bound(shape)


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_on_the_gpu_the_published_form_passes_the_exact_and_random_layers(name):
    """The form the timed problem runs (alpha = 1, beta = 0: the tutorial's as published) checked on its own: the
    numerics layers give the row alpha and beta of their own, which run the epilogue variant."""
    from harness.measure import numerics

    impl = Impl(name, "sgemm")
    shape = GPU_SHAPES[1]
    for layer in ("exact", "random"):
        ops = numerics.make_operands(shape, layer, 2024, "cuda")
        out = ops.fresh_output(float("nan"))
        # its declared configuration: the tuned one is checked where a run tunes (the test above)
        impl.bind(ops.tensors(out), 1.0, 0.0, "cuda", False)()
        torch.cuda.synchronize()
        assert triton_tutorial.chosen_config(name)["form"] == "as published"
        verdict = numerics.check(out, ops, numerics.reference(ops), poison=float("nan"), tf32=impl.tf32,
                                 precision=impl.precision)
        assert verdict.passed, (layer, verdict)
        if layer == "exact":
            assert verdict.error == 0.0


def _tuned_as_a_run_tunes(impl: Impl, ctx) -> None:
    """As a run: the pool compiles the configurations (harness/run/precompile.py), the timed problem (alpha = 1,
    beta = 0: the published form) is launched first and tuned; its record keeps the tuner's choice and the compiled
    kernel. One tuning per class in the tier: it compiles every configuration of the list, the tier's slowest part."""
    from concurrent.futures import wait

    from harness.run.precompile import Precompiler
    from harness.run.work import ResourceCache, key_of
    from kernels_triton import gemm_tutorial

    pre = Precompiler([(ctx.problem, [key_of(impl)])], None, processes=4)
    wait(pre.futures)
    pre.close()
    ops = ctx.operands(ctx.problem, "random")
    handle = impl.bind(ops.tensors(ops.fresh_output(0.0)))()
    res = ResourceCache(gpu=True).of(impl, handle)
    assert res.registers and res.registers > 0
    assert res.config["input_precision"] == triton_tutorial.input_precision(impl.name)
    assert res.config["autotuned"] in [gemm_tutorial.config_dict(c) for c in gemm_tutorial.CONFIGS]
    assert res.config["form"] == "as published"


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_the_triton_baselines_give_bit_identical_outputs_on_the_same_inputs(name):
    impl = Impl(name, "sgemm")
    ctx = _ctx(GPU_SHAPES[1], tune=False)
    ops = ctx.operands(ctx.numerics_problem("random", impl), "random")
    outs = []
    for _ in range(2):
        out = ops.fresh_output(0.0)
        impl.bind(ops.tensors(out), ops.problem.alpha, ops.problem.beta, tune=False)()
        torch.cuda.synchronize()
        outs.append(out)
    assert torch.equal(outs[0], outs[1])
