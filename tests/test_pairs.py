"""A user's own CUDA/Triton pair (`rosetta run --pair`): declared in a file or in words, built as a catalog kernel,
refused in one line before anything runs when it cannot run, run through the CPU tier, and carried in the records so
that its page needs none of its files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness import cli, env
from harness.pairs.declaration import PairError
from harness.pairs.pair import build
from harness.pairs.read import read
from harness.problems import Problem

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "sgemm_pair"
TOML = str(EXAMPLE / "pair.toml")


@pytest.fixture
def clean_process(monkeypatch):
    """Importing a declared file puts its folder on the module path: keep that to this test (run from the checkout,
    as the README's command is)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))


def nvrtc() -> bool:
    from harness.nvrtc.compiler import available

    return available()


# ---------------------------------------------------------------------------------------------------- declaring
def test_a_declaration_file_and_the_same_keys_as_words_declare_the_same_pair(monkeypatch) -> None:
    monkeypatch.chdir(EXAMPLE)
    from_file = read(["pair.toml"])
    words = read(["name=blocked", "op=sgemm", "precision=fp32", "tile=32x64x16", 'preconditions=["int32_dims"]',
                  "beside=s004.block_tiling_gemm<32>", "cuda.file=sgemm_blocked.cu",
                  "cuda.symbol=sgemm_blocked<32, 64, 16, 4, 4>", "cuda.block=128",
                  "triton.file=sgemm_blocked_port.py", "triton.offsets_64bit=true",
                  f"title={from_file.title}", f"about={from_file.about}"])
    assert words.to_json() == {**from_file.to_json(), "where": "the command line"}


def test_words_after_a_file_override_its_keys(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    d = read([TOML, "tile=[64,64,16]", "cuda.block=[256,1,1]", "beside="])
    assert (d.tile, d.cuda.block, d.beside) == ((64, 64, 16), (256, 1, 1), "")
    assert Path(d.cuda.file).resolve() == EXAMPLE / "sgemm_blocked.cu"


@pytest.mark.parametrize("words,said", [
    (["tiel=3"], "unknown key 'tiel'"),
    (["cuda.blok=3"], "did you mean cuda.block"),
    (["op=dgemm"], "op 'dgemm' is none of sgemm, sgemv"),
    (["precision=fp64"], "precision 'fp64' is none of fp32, tf32, 3xtf32"),
    (["tile=32x64"], "tile '32x64'"),
    (["cuda.block=[2048]"], "more than a block's 1024"),
    (['cuda.args=["A","B","C","M","N","K","alpha","gamma"]'], "gamma is not"),
    (['preconditions=["M % 7 = 0"]'], "precondition 'M % 7 = 0'"),
    (["cuda.file=nowhere.cu"], "cuda.file examples/sgemm_pair/nowhere.cu: no such file"),
    (["triton.deviations={\"block_k\": 16}"], "triton.deviations.block_k"),
])
def test_a_declaration_that_says_something_wrong_is_named_field_by_field(words, said, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    with pytest.raises(PairError) as e:
        read([TOML, *words])
    assert said in str(e.value) and "\n" not in str(e.value)


def test_the_declared_pair_is_a_catalog_kernel_with_one_counterpart_configured_from_its_tile() -> None:
    pair = build(read([TOML]))
    k, c = pair.kernel, pair.counterpart
    assert k.id == "user.sgemm_blocked<32,64,16,4,4>" and k.declared and k.idea == pair.idea.key == "pair-blocked"
    assert (k.tile_m, k.tile_n, k.tile_k, k.threads) == (32, 64, 16, 128)
    # like for like: the Triton program's tile and warps are the CUDA block's (harness/catalog_types Counterpart)
    assert c.config(k) == {"block_m": 32, "block_n": 64, "block_k": 16, "num_warps": 4, "num_stages": 1}
    assert k.source == str(EXAMPLE / "sgemm_blocked.cu") and "__global__ void sgemm_blocked" in k.code
    assert "@triton.jit" in c.code and c.path.endswith("sgemm_blocked_port.py")
    assert [p.text for p in k.preconditions] == [p.text for p in c.preconditions]


def test_a_declared_kernel_travels_in_the_catalog_a_record_keeps_code_and_all() -> None:
    from harness.analysis.record import today
    from harness.catalog_types.tables import Catalog, declared_json

    pair = build(read([TOML, 'triton.preconditions=["K % 16 == 0"]']))
    data = json.loads(json.dumps(declared_json([pair.kernel], [pair.idea])))
    catalog = Catalog.from_json(json.loads(json.dumps(today().with_declared(data).to_json())))
    k = catalog.by_id[pair.kernel.id]
    assert k == pair.kernel and k.code == pair.kernel.code and k.counterparts[0].code == pair.counterpart.code
    assert catalog.ideas["pair-blocked"] == pair.idea
    assert k.counterparts[0].unmet(Problem("sgemm", 64, 64, 30)) == ["K % 16 == 0 (declared)"]
    assert today().with_declared({"kernels": [], "ideas": []}) is today()


def test_a_page_shows_a_declared_kernels_code_as_the_record_keeps_it_without_its_files() -> None:
    from dataclasses import replace

    from harness.report.sources import SourcePlanner

    pair = build(read([TOML]))
    port = replace(pair.counterpart, file="nowhere/moved.py", code="# the port as it was run\n")
    gone = replace(pair.kernel, file="nowhere/moved.cu", code="// the code as it was run\n__global__ void k() {}\n",
                   counterparts=(port,))
    from harness.analysis.measured import Measured

    planner = SourcePlanner(Measured.of([]))
    (cuda,) = planner.cuda([gone], "a", "t")
    (port,) = planner.triton([gone], "a", "t")
    assert cuda.path == "nowhere/moved.cu" and "the code as it was run" in cuda.code
    assert port.path == "nowhere/moved.py" and port.code == "# the port as it was run\n"


def test_the_cpu_tier_shape_of_a_form_with_preconditions_is_one_it_allows() -> None:
    from harness.registry.shapes import cpu_problem

    pair = build(read([TOML, 'triton.preconditions=["M % 32 == 0", "K % 16 == 0"]']))
    p = cpu_problem(pair.kernel, pair.counterpart)
    assert p.M % 32 == 0 and p.K % 16 == 0 and not pair.counterpart.unmet(p)


def test_a_declared_grid_function_gives_the_cuda_grid_in_a_process_told_nothing_of_its_file(tmp_path,
                                                                                            monkeypatch) -> None:
    name = f"grids_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text("def rows_first(meta):\n    return (-(-meta['M'] // meta['BLOCK_M']), "
                                         "-(-meta['N'] // meta['BLOCK_N']))\n")
    monkeypatch.setattr(sys, "path", list(sys.path))
    pair = build(read([TOML, f"cuda.grid={tmp_path / name}.py:rows_first"]))
    assert pair.kernel.grid_fn == f"{tmp_path / name}.py:rows_first"   # the entry names the file, not a module
    assert str(tmp_path) not in sys.path
    assert pair.kernel.grid(Problem("sgemm", 100, 300, 8)) == (4, 5, 1)


def test_the_parameters_of_a_cuda_function_are_read_past_comments_templates_and_other_functions() -> None:
    from harness.pairs.checks import parameters

    code = """
    // __global__ void k(int no);
    template <int T> __device__ void k_helper(float* p) {}
    /* __global__ void k(float* wrong) */
    template <int BM, int BN>
    __global__ void __launch_bounds__(128) k(const float* __restrict__ A, Pair<int, float> p, int M) { }
    """
    assert parameters(code, "k") == ["const float* __restrict__ A", "Pair<int, float> p", "int M"]
    assert parameters(code, "k_helper") is None and parameters(code, "absent") is None


# ---------------------------------------------------------------------------------------------------- refusing
# A user's Python file is imported by its name, once per process: each test's files get names of their own.
def _port_copy(tmp_path: Path, old: str, new: str, name: str) -> str:
    text = (EXAMPLE / "sgemm_blocked_port.py").read_text()
    assert old in text
    path = tmp_path / f"{name}_{tmp_path.name}.py"
    path.write_text(text.replace(old, new))
    return f"triton.file={path}"


def _grids(tmp_path: Path) -> Path:
    path = tmp_path / f"half_grids_{tmp_path.name}.py"
    path.write_text("def half(meta):\n    return (max(1, -(-meta['N'] // meta['BLOCK_N']) // 2), "
                    "-(-meta['M'] // meta['BLOCK_M']))\n")
    return path


REFUSALS = {
    "a missing file": (lambda t: ["triton.file=gone.py"], "triton.file examples/sgemm_pair/gone.py: no such file"),
    "no such symbol": (lambda t: ["cuda.symbol=sgemm_blockd<32, 64, 16, 4, 4>"],
                       "has no __global__ function sgemm_blockd (it has sgemm_blocked)"),
    "parameters that are not the kernel's": (lambda t: ['cuda.args=["A","B","C","M","N","K","alpha"]'],
                                             "sgemm_blocked takes 8"),
    "an operand where a size is": (lambda t: ['cuda.args=["M","B","C","A","N","K","alpha","beta"]'],
                                   "cuda.args puts M where sgemm_blocked takes `const float* __restrict__ A`"),
    "a Triton grid that does not cover the output": (lambda t: [f"triton.grid={_grids(t)}:half"],
                                                     "the Triton grid (32, 128) on sgemm 4096x4096x4096"),
    "a CUDA grid that does not cover the output": (lambda t: [f"cuda.grid={_grids(t)}:half"],
                                                   "so it does not cover the output"),
    "a grid function that is not there": (lambda t: [f"cuda.grid={_grids(t)}:whole"], "defines no function whole"),
    "a Triton parameter the suite does not give": (
        lambda t: [_port_copy(t, "K, alpha, beta,", "K, alpha, beta, lda,", "port_lda")],
        "the kernel's parameter lda: none the suite gives"),
    "a catalog kernel that is not there": (lambda t: ["beside=s004.no_such_kernel"], "no kernel id"),
    "a Python file named like an installed module": (
        lambda t: [f"triton.file={shutil.copy(EXAMPLE / 'sgemm_blocked_port.py', t / 'json.py')}"],
        "is imported by its name, 'json', which is already"),
    "an unknown key": (lambda t: ["tiel=3"], "unknown key 'tiel'"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_pair_that_cannot_run_is_refused_in_one_line_before_anything_runs(case, clean_process, tmp_path,
                                                                            capsys) -> None:
    words, said = REFUSALS[case]
    out = tmp_path / "out"
    assert cli.main(["run", "--pair", TOML, *words(tmp_path), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and said in err[0], err
    assert not out.exists()   # nothing written


NVRTC_REFUSALS = {
    "template arguments that do not instantiate": (["cuda.symbol=sgemm_blocked<32, 64, 16, 4>"],
                                                   "does not build (NVRTC, sm_90a)"),
    "a tensor-core class the CUDA kernel does not compute in": (
        ["precision=tf32"], "precision tf32 is declared, and the CUDA kernel's SASS (NVRTC, sm_90a) has no "
                            "tensor-core instruction"),
}


@pytest.mark.parametrize("case", sorted(NVRTC_REFUSALS))
def test_what_the_cuda_build_says_is_refused_in_one_line_before_anything_runs(case, clean_process, tmp_path,
                                                                             capsys) -> None:
    if not nvrtc():
        pytest.skip("NVRTC is not installed here")
    words, said = NVRTC_REFUSALS[case]
    assert cli.main(["run", "--pair", TOML, *words, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0], err


def test_a_triton_kernel_that_computes_on_tensor_cores_is_refused_as_fp32(clean_process, tmp_path, capsys) -> None:
    if not nvrtc():
        pytest.skip("NVRTC is not installed here: the CUDA side cannot be checked first")
    port = _port_copy(tmp_path, 'input_precision="ieee"', 'input_precision="tf32"', "port_tf32")
    assert cli.main(["run", "--pair", TOML, port, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "precision fp32 is declared, and the Triton kernel's SASS" in err[0], err
    assert "tensor-core instructions" in err[0]


# ---------------------------------------------------------------------------------------------------- running
@pytest.mark.skipif(env.has_gpu(), reason="the CPU tier's run; the GPU run is the README's command on a GPU")
def test_the_example_pair_runs_on_the_cpu_tier_and_its_page_needs_none_of_its_files(tmp_path) -> None:
    from harness.analysis.record import read_beside
    from harness.records.file import load
    from harness.records.lines import Status
    from harness.report import render

    proc = subprocess.run([sys.executable, "-m", "harness.cli", "run", "--pair", TOML, "--out", str(tmp_path)],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=600)
    path = next(tmp_path.glob("*.jsonl"))
    kernel = "user.sgemm_blocked<32,64,16,4,4>"
    # its CUDA side did not run: the run says so where its numerics would stand, counts it, and does not pass it
    assert proc.returncode == 3, proc.stdout[-3000:] + proc.stderr[-3000:]
    said = " ".join(proc.stdout.split())
    assert f"not checked: the CUDA side of {kernel} did not run (no GPU)" in said
    assert "numerics not checked: no GPU" in said and "7 ok, " in said
    results = load(path)
    mine = {r.impl: r for r in results.results if r.kernel == kernel}
    port = mine["triton:port"]
    assert port.status is Status.OK and port.numerics.passed and port.numerics.exact.passed
    assert port.resources.registers and port.resources.sass.get("FFMA")  # compiled ahead of time for sm_90
    if nvrtc():
        assert mine["cuda"].status is Status.COMPILED and mine["cuda"].resources.registers > 0
        assert mine["cuda"].resources.sass.get("HMMA", 0) == 0 < mine["cuda"].resources.sass["FFMA"]
    impls = {r.impl for r in results.results}
    assert {"cublas", "triton-tutorial"} <= impls          # beside the baselines
    assert any(r.kernel == "s004.block_tiling_gemm<32>" for r in results.results)   # and the kernel it names
    assert [k["id"] for k in results.header.pairs["kernels"]] == [kernel]
    record = read_beside(path)
    assert record is not None and record.catalog.by_id[kernel].code == build(read([TOML])).kernel.code

    # The page from a copy of the two files elsewhere, with no process told of the pair: the code is the record's.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for f in (path, path.with_name(path.stem + ".analysis.json")):
        shutil.copy(f, elsewhere / f.name)
    _, md = render(elsewhere / path.name, elsewhere / "page")
    page = md.read_text(encoding="utf-8")
    assert "Your GEMM pairs" in page and "A 32x64 block tile, 4x4 outputs per thread" in page
    assert "__global__ void sgemm_blocked" in page and "def sgemm_blocked_port" in page
    assert "its user's own" in page and "yours · A 32x64 block tile" in page

    # and the CSV of the run says which rows are the user's
    assert cli.main(["export", str(path), "--csv", str(tmp_path / "rows.csv")]) == 0
    import csv

    with open(tmp_path / "rows.csv", newline="", encoding="utf-8") as fh:
        declared = {(r["kernel"], r["impl"]) for r in csv.DictReader(fh) if r["declared"] == "True"}
    assert declared == {(kernel, "triton:port"), (kernel, "cuda")}


@pytest.mark.skipif(env.has_gpu(), reason="the CPU tier's run; the GPU run is the README's command on a GPU")
def test_a_run_hands_its_pairs_to_its_workers_and_tells_no_process_through_the_environment(clean_process,
                                                                                           tmp_path) -> None:
    """The run's catalog, pairs and all, is a value the command makes and hands down: the worker that measured the
    pair was sent it, and the command's process ends with the environment it started with."""
    from harness.cli.run_lines import UNCHECKED
    from harness.records.file import load

    before = dict(os.environ)  # its CUDA side built, not run: the exit code says it was not checked
    assert cli.main(["run", "--pair", TOML, "--out", str(tmp_path), "--no-report"]) == UNCHECKED
    assert dict(os.environ) == before
    port = next(r for r in load(next(tmp_path.glob("*.jsonl"))).results if r.impl == "triton:port")
    assert port.numerics.passed and port.kernel_facts.idea_title == build(read([TOML])).idea.title


def test_a_pair_is_compared_with_the_catalog_kernel_it_stands_beside_model_by_model() -> None:
    from harness.analysis.record import analyse, today
    from harness.catalog_types.tables import declared_json
    from harness.identity import ImplId
    from harness.measure.timing import Samples, Timing
    from harness.records.lines import Result, Status
    from harness.registry import get

    pair = build(read([TOML]))
    other = get(pair.kernel.beside)
    catalog = today().with_declared(declared_json([pair.kernel], [pair.idea]))
    problem = Problem("sgemm", 4096, 4096, 4096)

    def timed(kernel: str | None, impl: str, ms: float) -> Result:
        runs = [ms * (1 + 0.001 * (i % 3)) for i in range(20)]
        samples = Samples(runs, [1980.0] * 20, [2] * 10, list(range(10)), "one batch", 1980.0)
        return Result.of(ImplId.from_json(impl), problem, Status.OK, kernel=kernel, timing=Timing.of(samples))

    form = other.counterparts[0].name
    rows = [timed(None, "cublas", 2.6), timed(pair.kernel.id, "cuda", 3.0), timed(pair.kernel.id, "triton:port", 3.3),
            timed(other.id, "cuda", 6.0), timed(other.id, f"triton:{form}", 6.6)]
    beside = analyse(rows, "made-up rounds", catalog).where("beside")
    assert {(c.subject, c.reference) for c in beside} == {
        ((pair.kernel.id, "cuda"), (other.id, "cuda")), ((pair.kernel.id, "triton:port"), (other.id, f"triton:{form}"))}
    assert all(c.call.value == "FAST" and c.ratio == pytest.approx(0.5, rel=0.01) for c in beside)


def test_the_keys_are_documented_as_the_reader_knows_them() -> None:
    from harness.pairs.declaration import markdown

    page = (ROOT / "docs" / "pairs.md").read_text(encoding="utf-8")
    block = page.split("<!-- keys:begin -->\n", 1)[1].split("<!-- keys:end -->", 1)[0]
    assert block == markdown(), "regenerate the table with `python -m harness.pairs.declaration`"


AUTOTUNED = '''
import triton
import triton.language as tl

from {base} import sgemm_blocked_port


@triton.autotune(configs=[triton.Config({{"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 16}}, num_warps=4)],
                 key=["M", "N", "K"])
@triton.jit
def tuned_port(A, B, C, M, N, K, alpha, beta, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    sgemm_blocked_port(A, B, C, M, N, K, alpha, beta, BLOCK_M, BLOCK_N, BLOCK_K)
'''
LAUNCHED = '''
import triton

from {base} import sgemm_blocked_port


def launch(A, B, C, alpha, beta, *, block_m, block_n, block_k, num_warps):
    M, K = A.shape
    N = B.shape[1]
    grid = (triton.cdiv(N, block_n), triton.cdiv(M, block_m))
    return sgemm_blocked_port[grid](A, B, C, M, N, K, alpha, beta, BLOCK_M=block_m, BLOCK_N=block_n,
                                    BLOCK_K=block_k, num_warps=num_warps)
'''


@pytest.mark.parametrize("kind", ["an autotuned kernel", "a launch function"])
def test_the_triton_side_may_be_an_autotuned_kernel_or_a_launch_function(kind, clean_process, monkeypatch, tmp_path,
                                                                         device) -> None:
    import torch

    from harness.identity import ImplId
    from harness.launch.implementations import Impl
    from harness.measure.numerics import make_operands

    if device == "cuda" and kind == "an autotuned kernel":
        pytest.skip("on a GPU the tuner times its configurations: the GPU tier's run covers it")
    base, name = f"base_{tmp_path.name}", f"side_{tmp_path.name}"
    shutil.copy(EXAMPLE / "sgemm_blocked_port.py", tmp_path / f"{base}.py")
    (tmp_path / f"{name}.py").write_text((AUTOTUNED if kind == "an autotuned kernel" else LAUNCHED).format(base=base))
    how = (["triton.kernel=tuned_port"] if kind == "an autotuned kernel"
           else ["triton.kernel=sgemm_blocked_port", "triton.launch=launch"])
    d = read([TOML, f"triton.file={tmp_path / name}.py", *how, "beside="])
    kernel = build(d).kernel   # the catalog entry a worker is handed: it names the file and how it is launched
    impl = Impl(ImplId.from_json("triton:port"), "sgemm", kernel, kernel.counterparts[0])
    problem = Problem("sgemm", 37, 45, 29, 2.0, 0.0)
    ops = make_operands(problem, "random", 1, torch.device(device))
    out = ops.fresh_output(float("nan"))
    impl.bind(ops.tensors(out), problem.alpha, problem.beta, device)()
    A, B = ops.tensors(out)["A"], ops.tensors(out)["B"]
    assert torch.allclose(out.double(), 2.0 * (A.double() @ B.double()), rtol=1e-5, atol=1e-5)
