"""The pytest-benchmark cases, their ids and their markers, all derived from the registry.

tests/test_benchmarks.py parametrises over CASES; tests/conftest.py registers MARKERS and makes `name` the
default `--benchmark-sort`. Nothing here needs a GPU: collection runs everywhere.

- An id is the kernel id and the implementation's name (a baseline: its name and the op), every run of other
  characters than letters, digits, `_` and `-` turned into one `-`: `s000.gemm_block_tiling_v3<64,64,16,16,16>`
  through CUDA is `s000-gemm_block_tiling_v3-64-64-16-16-16-cuda`, so `-k "v3 and 64-64"` selects it.
- Each case carries a marker per op, model and idea (`-m "sgemv and triton"`, `-m coarsen_1d`), and the cases of the
  default set the marker `default_set`: every baseline, every sgemv implementation and every implementation of each
  ladder's top rung (the SIMT summit, the last rung of each tensor-core chain), the suite's question (CUDA, Triton,
  Gluon and cuBLAS at their best) in minutes; `--every-benchmark` runs the others too (tests/conftest.py).
- pytest-benchmark sorts each group by `--benchmark-sort`, then shows it; sorted by name, cuBLAS's `cublas-...` ids
  come before every kernel's (`rosetta-...`, `s0NN-...`), so cuBLAS heads each problem's group (the Triton
  baseline's `triton-tutorial-...` ids close it), and with `--benchmark-compare` a benchmark's saved and current rows
  sit together.
"""

from __future__ import annotations

import os
import re
import shlex

import pytest

from harness.catalog.ladders import LADDERS
from harness.launch.implementations import Impl, all_impls, baselines
from harness.problems import OPS
from harness.registry import IDEAS

CASES: list[Impl] = [*(b for op in OPS for b in baselines(op)), *all_impls()]

_NOT_A_WORD = re.compile(r"[^A-Za-z0-9_-]+")


def case_id(impl: Impl) -> str:
    """The test id: plain words, so that `-k` can name any part of it."""
    text = f"{impl.kernel.id} {impl.name}" if impl.kernel else f"{impl.name} {impl.op}"
    return _NOT_A_WORD.sub("-", text).strip("-")


def model_of(impl: Impl) -> str:
    """cuda, triton, gluon or cublas: a baseline is cuBLAS (its fp32 and TF32 rows are two names of one model) or the
    Triton baseline (a Triton kernel, in three classes)."""
    if impl.kernel:
        return impl.model
    return "cublas" if impl.vendor else "triton"


# the top rung of each ladder: its declared summit, else its last rung
LADDER_TOPS = frozenset(k.id for ladder in LADDERS for k in (ladder.summit or ladder.rungs[-1]))
DEFAULT_SET = "default_set"


def in_default_set(impl: Impl) -> bool:
    """Whether a case is in the default set (the module's docstring)."""
    return impl.kernel is None or impl.op == "sgemv" or impl.kernel.id in LADDER_TOPS


def case_marks(impl: Impl) -> list[str]:
    """The markers of a case: its op, its model, for a kernel its idea, and `default_set` where it is in it."""
    return [impl.op, model_of(impl), *([impl.kernel.idea] if impl.kernel else []),
            *([DEFAULT_SET] if in_default_set(impl) else [])]


def param(impl: Impl) -> pytest.param:
    return pytest.param(impl, id=case_id(impl), marks=[getattr(pytest.mark, m) for m in case_marks(impl)])


def markers() -> dict[str, str]:
    """Every marker a case carries, with the line `pytest --markers` shows for it."""
    out = {op: f"benchmarks of {op}" for op in OPS}
    out |= {model_of(impl): f"benchmarks of the {model_of(impl)} implementations" for impl in CASES}
    out |= {impl.kernel.idea: f"benchmarks of the idea '{IDEAS[impl.kernel.idea].title}'" for impl in CASES
            if impl.kernel}
    out[DEFAULT_SET] = ("the benchmarks run by default: every baseline, every sgemv implementation, every "
                        "implementation of each ladder's top rung (--every-benchmark: all of them)")
    return out


def sort_chosen(invocation_args: list[str], ini_addopts: list[str], env_addopts: str) -> bool:
    """Whether the user chose a --benchmark-sort (pytest takes no abbreviated options, so a prefix test holds)."""
    given = [*invocation_args, *ini_addopts, *shlex.split(env_addopts)]
    return any(arg.startswith("--benchmark-sort") for arg in given)


def default_sort_by_name(config: pytest.Config) -> None:
    """Before pytest-benchmark reads its options (its pytest_configure runs last): sort by name unless chosen."""
    if not hasattr(config.option, "benchmark_sort"):
        return
    if not sort_chosen(list(config.invocation_params.args), list(config.getini("addopts")),
                       os.environ.get("PYTEST_ADDOPTS", "")):
        config.option.benchmark_sort = "name"
