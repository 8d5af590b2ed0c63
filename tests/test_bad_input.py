"""Every public entry point refuses bad input with a clear ValueError (or a one-line CLI error and
exit code 2) before any launch."""

from __future__ import annotations

import json
import re

import pytest
import torch

from harness.cli import main
from harness.launch import cublas, cuda, triton
from harness.measure.operands import fits_in_memory
from harness.problems import Problem, parse_shape
from harness.records.file import load
from harness.registry import KERNELS, get

TILED = get("s004.block_tiling_gemm<32>")
ROWS = get("s003.coalesced_warp_sgemv")


def _triton_gemm(A, B, C, device: str, alpha: float = 1.0, beta: float = 0.0):
    return triton.bind(TILED, TILED.counterparts[0], {"A": A, "B": B, "C": C}, alpha, beta, device_type=device)


def _gemm(device: str, m: int = 32, n: int = 32, k: int = 32, dtype=torch.float32):
    return (torch.ones(m, k, dtype=dtype, device=device), torch.ones(k, n, dtype=dtype, device=device),
            torch.zeros(m, n, dtype=dtype, device=device))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.int32])
def test_wrong_dtype_is_refused_by_every_launcher(dtype, device):
    A, B, C = _gemm(device, dtype=dtype)
    with pytest.raises(ValueError, match=r"dtype .*fp32"):
        _triton_gemm(A, B, C, device)
    with pytest.raises(ValueError, match=r"dtype .*fp32"):
        cuda.check_launch(get("s004.block_tiling_gemm<32>"), {"A": A, "B": B, "C": C}, device_type=device)
    with pytest.raises(ValueError, match=r"dtype .*fp32"):
        cublas.bind("cublas", {"A": A, "B": B, "C": C}, device_type=device)


def test_cpu_tensor_for_a_gpu_launch_is_refused():
    A, B, C = _gemm("cpu")
    with pytest.raises(ValueError, match=r"CUDA kernel s004.block_tiling_gemm<32>: A is on cpu; .*cuda"):
        cuda.check_launch(get("s004.block_tiling_gemm<32>"), {"A": A, "B": B, "C": C})


@pytest.mark.parametrize("view", ["transposed", "strided"])
def test_non_contiguous_operand_is_refused(view, device):
    A, B, C = _gemm(device)
    A = A.t() if view == "transposed" else torch.ones(32, 64, device=device)[:, ::2]
    with pytest.raises(ValueError, match="not contiguous"):
        _triton_gemm(A, B, C, device)
    with pytest.raises(ValueError, match="not contiguous"):
        cuda.check_launch(get("s000.gemm_naive"), {"A": A, "B": B, "C": C}, device_type=device)


def test_mismatched_inner_dimensions_are_refused(device):
    A, _, C = _gemm(device)
    B = torch.ones(31, 32, device=device)
    with pytest.raises(ValueError, match="inner dimensions differ: A is 32x32, B is 31x32"):
        _triton_gemm(A, B, C, device)
    with pytest.raises(ValueError, match="x has 31 elements, A has 32 columns"):
        triton.bind(ROWS, ROWS.counterparts[0], {"A": A, "x": torch.ones(31, device=device),
                                                 "y": torch.ones(32, device=device)}, device_type=device)


def test_zero_size_operand_is_refused(device):
    A, B, C = _gemm(device, m=0)
    with pytest.raises(ValueError, match="empty"):
        _triton_gemm(A, B, C, device)


@pytest.mark.parametrize("dims", [(0, 4, 4), (-1, 4, 4), (4, 4, 0)])
def test_zero_or_negative_dimension_is_not_a_problem(dims):
    with pytest.raises(ValueError, match="must be a positive integer"):
        Problem("sgemm", *dims)


def test_shape_outside_the_preconditions_is_refused_naming_kernel_and_condition(device):
    A, B, C = _gemm(device, m=48)
    with pytest.raises(ValueError, match=r"s004.block_tiling_gemm<32> cannot run .*M % 32 == 0"):
        cuda.check_launch(get("s004.block_tiling_gemm<32>"), {"A": A, "B": B, "C": C}, device_type=device)
    with pytest.raises(ValueError, match=r"alpha == 1 and beta == 0"):
        cuda.check_launch(get("s001.v1_naive"), {"A": A, "B": B, "C": C}, alpha=2.0, device_type=device)


def test_problem_too_large_for_device_memory_is_refused():
    with pytest.raises(ValueError, match=r"needs about .* GiB on the device"):
        fits_in_memory("rosetta run", Problem("sgemm", 65536, 65536, 65536), free_bytes=80 * 2**30)


@pytest.mark.parametrize("text", ["4096x4096", "4096*4096*4096", "ax4x4", "", "4x4x4x4", "0x4x4"])
def test_malformed_sgemm_shape_is_refused(text):
    with pytest.raises(ValueError, match="shape"):
        parse_shape(text, "sgemm")


def _cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.err


@pytest.mark.parametrize("argv, message", [
    (["explain", "no_such_kernel"], "no kernel id holds 'no_such_kernel'"),
    (["run", "--only", "no_such_kernel"], "no kernel id holds 'no_such_kernel'"),
    (["run", "--shape", "12x"], "malformed shape"),
    (["run", "--op", "sgemv", "--shape", "4x4x4"], "sgemv takes MxN"),
])
@pytest.mark.trust
def test_cli_reports_bad_arguments_in_one_line_with_exit_code_2(capsys, argv, message):
    code, err = _cli(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err and err.count("\n") == 1


_HEADER = {"record": "run", "schema": 1, "started": "2026-11-22T00:00:00+00:00", "mode": "cpu", "device": "cpu"}


@pytest.mark.parametrize("content, message", [
    ("", "is empty"),
    ("this is not json\n", "not JSON"),
    ('{"record": "result"}\n', "expected the run header"),
    ('{"record": "run", "schema": 1, "star', "cut off mid-write before the run header"),
    (json.dumps({**_HEADER, "schema": 7}) + "\n", "from a newer tile-rosetta"),
    (json.dumps({**_HEADER, "schema": "one"}) + "\n", "results schema 'one'"),
    (json.dumps(_HEADER) + "\n" + json.dumps({"record": "result", "impl": "cuda"}) + "\n", "line 2: result lacks"),
    (json.dumps(_HEADER) + "\n" + json.dumps({"record": "result", "impl": "cuda", "status": "great",
                                               "problem": {"op": "sgemv", "M": 4, "N": 4}}) + "\n",
     "line 2: unknown status 'great'"),
])
def test_bad_results_file_is_refused(tmp_path, capsys, content, message):
    path = tmp_path / "r.jsonl"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        load(path)
    code, err = _cli(capsys, "report", str(path))
    assert code == 2 and message in err and "Traceback" not in err


def test_truncated_results_file_keeps_what_was_written(tmp_path):
    path = tmp_path / "r.jsonl"
    header = _HEADER
    one = {"record": "result", "kernel": "k", "impl": "cuda", "status": "ok",
           "problem": {"op": "sgemv", "M": 4, "N": 4}}
    path.write_text(json.dumps(header) + "\n" + json.dumps(one) + "\n" + json.dumps(one)[:20])
    results = load(path)
    assert len(results.results) == 1 and not results.complete
    assert any("cut off" in n for n in results.notes)


def test_missing_results_file_is_refused(tmp_path, capsys):
    code, err = _cli(capsys, "report", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "no such results file" in err


def _violating_shape(kernel) -> Problem | None:
    """A shape one short of the kernel's first dimension multiple (None when no dimension is constrained)."""
    from dataclasses import replace

    from harness.problems.preconditions import allowed_shape

    ok = allowed_shape(kernel.preconditions, Problem(kernel.op, 64, 64, 64 if kernel.op == "sgemm" else 1))
    for c in kernel.preconditions:
        if c.multiple:
            dim, m = c.multiple
            return replace(ok, **{dim: getattr(ok, dim) + m // 2 or 1})
    return None


@pytest.mark.parametrize("kernel", [k for k in KERNELS if _violating_shape(k)], ids=lambda k: k.id)
def test_every_kernel_refuses_a_shape_off_its_tile_before_launch(kernel, device):
    p = _violating_shape(kernel)
    if kernel.op == "sgemv":
        tensors = {"A": torch.ones(p.M, p.N, device=device), "x": torch.ones(p.N, device=device),
                   "y": torch.ones(p.M, device=device)}
    else:
        tensors = {"A": torch.ones(p.M, p.K, device=device), "B": torch.ones(p.K, p.N, device=device),
                   "C": torch.ones(p.M, p.N, device=device)}
    with pytest.raises(ValueError, match=re.escape(kernel.id) + r" cannot run .*% \d+ == 0"):
        cuda.check_launch(kernel, tensors, device_type=device)


def test_a_misaligned_view_is_refused_by_a_kernel_with_16_byte_loads(device):
    kernel = next(k for k in KERNELS if "A" in k.aligned16)
    p = Problem("sgemm", kernel.tile_m, kernel.tile_n, kernel.tile_k * 4)
    A = torch.ones(p.M * p.K + 1, device=device)[1:].view(p.M, p.K)  # starts 4 bytes into its storage
    tensors = {"A": A, "B": torch.ones(p.K, p.N, device=device), "C": torch.ones(p.M, p.N, device=device)}
    with pytest.raises(ValueError, match="A starts at an address that is not 16-byte aligned"):
        cuda.check_launch(kernel, tensors, device_type=device)


def test_a_grid_taller_than_the_hardware_allows_is_refused():
    kernel = get("s000.gemm_naive")
    assert any("grid's y limit" in text for text in kernel.unmet(Problem("sgemm", 16 * 65536, 16, 16)))


# One operand past 2^31 elements, the others small; every dimension fits int32. Meta tensors: shapes, no memory.
_PAST_2_31 = {"A": (65537, 16, 32768), "B": (16, 65537, 32768), "C": (65537, 32768, 16)}  # (M, N, K)
_PAIRS = [(k, c) for k in KERNELS for c in k.counterparts]


def _meta_operands(op: str, operand: str) -> dict[str, torch.Tensor]:
    if op == "sgemv":
        m, n = 65537, 32768
        return {"A": torch.empty(m, n, device="meta"), "x": torch.empty(n, device="meta"),
                "y": torch.empty(m, device="meta")}
    m, n, k = _PAST_2_31[operand]
    return {"A": torch.empty(m, k, device="meta"), "B": torch.empty(k, n, device="meta"),
            "C": torch.empty(m, n, device="meta")}


@pytest.mark.parametrize("operand", ["A", "B", "C"])
@pytest.mark.parametrize("pair", _PAIRS, ids=lambda p: f"{p[0].id} [{p[1].name}]")
def test_one_operand_past_2_31_elements_is_bound_with_64_bit_offsets_and_refused_without(pair, operand):
    from dataclasses import replace

    kernel, counterpart = pair
    if kernel.op == "sgemv" and operand != "A":
        pytest.skip("sgemv: only A can pass 2^31 elements while M and N fit int32")
    tensors = _meta_operands(kernel.op, operand)
    assert tensors[operand].numel() > 2**31 and all(t.numel() < 2**31 for n, t in tensors.items() if n != operand)
    # The compiled TTIR proves the 64-bit offsets (tests/test_counterparts.py); binding lets such a form run. A form
    # the registry declares 32-bit (the copy engine's descriptors, which that proof cannot see) is refused instead.
    if counterpart.offsets_64bit:
        assert callable(triton.bind(kernel, counterpart, tensors, device_type="meta"))
    narrow = replace(counterpart, offsets_64bit=False)
    with pytest.raises(ValueError, match=r"cannot run .*int32"):
        triton.bind(kernel, narrow, tensors, device_type="meta")
    small = {name: torch.empty(8, 8, device="meta") for name in ("A", "B", "C")} if kernel.op == "sgemm" else \
        {"A": torch.empty(8, 8, device="meta"), "x": torch.empty(8, device="meta"), "y": torch.empty(8, device="meta")}
    assert callable(triton.bind(kernel, narrow, small, device_type="meta")), "small operands are still bound"


# Each numeric option at a value it cannot take: nan, inf, a negative or zero count, a negative dimension.
NUMBER_REFUSALS = [
    (["run", "--timeout", "nan"], "--timeout: nan: expected a number of seconds"),
    (["run", "--timeout", "inf"], "--timeout: inf: expected a number of seconds"),
    (["run", "--timeout", "-1"], "--timeout: -1: expected a number of seconds"),
    (["run", "--rep-ms", "0"], "--rep-ms: 0: expected a number of milliseconds"),
    (["run", "--rounds", "2"], "--rounds: 2: expected a whole number of rounds"),
    (["run", "--seed", "-1"], "--seed: -1: expected a seed"),
    (["run", "--seed", "1.5"], "--seed: 1.5: expected a seed"),
    (["run", "--shape", "-3x2x2"], "--shape: malformed shape '-3x2x2'"),
    (["run", "--gpus", "0"], "--gpus: '0': expected 'all', a count of at least 1"),
    (["run", "--shard", "3/2"], "--shard: '3/2': need 0 <= i < n"),
    (["sanitize", "--jobs", "0"], "--jobs: 0: expected a whole number from 1"),
    (["knobs", "x.jsonl", "--rounds", "1"], "--rounds: 1: expected a whole number of rounds"),
    (["clock", "--repeats", "nan"], "--repeats: nan: expected a whole number from 1"),
]


@pytest.mark.parametrize("argv, message", NUMBER_REFUSALS, ids=[" ".join(a) for a, _ in NUMBER_REFUSALS])
def test_a_numeric_option_out_of_range_or_not_finite_is_refused_in_one_line_before_anything_is_written(
        argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = _cli(capsys, *argv)
    assert code == 2 and message in err and err.count("\n") == 1 and "usage:" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_every_numeric_option_of_every_verb_is_read_by_a_declared_number():
    import argparse

    from harness.cli import build_parser
    from harness.cli.options import NUMBERS

    verbs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    numeric = [(verb, a.dest, a.type) for verb, parser in verbs.items() for a in parser._actions
               if a.type in (int, float) or a.type in NUMBERS.values()]
    assert numeric and all(t in NUMBERS.values() for _, _, t in numeric), [n for n in numeric if n[2] in (int, float)]
