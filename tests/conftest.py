"""The tiers. `pytest` with no arguments runs the default tier, the tests marked `trust`: what a user needs to trust an
install (every implementation through the numerics layers once, on the GPU where there is one; every kernel built; the
command line's front door). Any -m, -k or path chooses for itself: `pytest -m "not gpu"` is the full CPU tier, which
runs everywhere (Triton in its interpreter when there is no GPU); tests marked `gpu` need a CUDA GPU and CuPy and are
skipped, with the reason, where there is none (README, Tests; docs/tests.md)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest

from harness import env
from harness.records.file import Results, load
from tests.recorded import recorded_gpu_run


def _pin_xdist_worker_to_one_gpu() -> None:
    """`pytest -m gpu -n auto` on a multi-GPU host: worker gwN takes GPU N mod count, before CUDA starts."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or "CUDA_VISIBLE_DEVICES" in os.environ or not shutil.which("nvidia-smi"):
        return
    listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=False).stdout
    count = sum(line.startswith("GPU ") for line in listed.splitlines())
    if count > 1:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(int(worker[2:]) % count)


_pin_xdist_worker_to_one_gpu()

# Before any test module imports kernels_triton: Triton reads TRITON_INTERPRET when kernels are defined.
INTERPRETING = env.use_interpreter_without_gpu()
if INTERPRETING:
    # Before any test launches a kernel: each interpreted launch leaves triton.language as it found it, and every
    # class's dot is rounded as on the GPU whichever test ran first (harness/launch/interpreter_precision.py)
    from harness.launch import interpreter_precision

    interpreter_precision.install()


TRUST = "trust"
FULL_CPU_TIER = 'pytest -m "not gpu"'


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--every-benchmark", action="store_true",
                     help="run every pytest-benchmark case, not only the default set (tests/benchmark_cases.py)")
    parser.addoption("--test-order", default="as-written", metavar="ORDER",
                     help="as-written (the default), reversed, or shuffled-SEED: the order the tests run in, to show "
                          "that no test depends on another's process state (docs/tests.md)")


def default_tier(config: pytest.Config) -> bool:
    """Whether this session is `pytest` with no choice of its own: no path, -m or -k (then it runs the `trust` tier)."""
    return (config.args_source is pytest.Config.ArgsSource.TESTPATHS and not config.option.markexpr
            and not config.option.keyword)


def pytest_report_header(config: pytest.Config) -> str:
    if default_tier(config):
        return (f"the default tier (tests marked {TRUST}): an install checked in minutes; the full CPU tier: "
                f"{FULL_CPU_TIER}, the GPU tier: pytest -m gpu (README, Tests)")
    return ""


def reorder(items: list[pytest.Item], order: str) -> None:
    """Put the collected tests in the order asked for (in place); every process of an -n run computes the same one."""
    if order == "reversed":
        items.reverse()
    elif order.startswith("shuffled-"):
        random.Random(int(order.removeprefix("shuffled-"))).shuffle(items)
    elif order != "as-written":
        raise pytest.UsageError(f"--test-order {order}: expected as-written, reversed or shuffled-SEED")


def keep(config: pytest.Config, items: list[pytest.Item], wanted) -> None:
    """Deselect (as -m does) every item `wanted` refuses."""
    config.hook.pytest_deselected(items=[item for item in items if not wanted(item)])
    items[:] = [item for item in items if wanted(item)]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from tests.benchmark_cases import DEFAULT_SET

    if default_tier(config):
        keep(config, items, lambda item: TRUST in item.keywords)
    if not config.getoption("every_benchmark"):
        keep(config, items, lambda item: "benchmark" not in item.keywords or DEFAULT_SET in item.keywords)
    reorder(items, config.getoption("test_order"))
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # Tests that need the GPU to themselves: several test processes would each hold 8.6 GB operands at once
        # and run out of its memory, or skew a comparison of two timers. They run in a pass of their own without -n
        # (README, Tests).
        alone = pytest.mark.skip(reason="gpu_alone: run these without -n (pytest -m gpu_alone)")
        for item in items:
            if "gpu_alone" in item.keywords:
                item.add_marker(alone)
    from harness.launch.gluon import unavailable

    if (why := unavailable()) is not None:  # the Gluon column alone is skipped, with the one line that says why
        no_gluon = pytest.mark.skip(reason=why)
        for item in items:
            if "gluon:" in item.nodeid:
                item.add_marker(no_gluon)
    if env.has_gpu():
        return
    skip = pytest.mark.skip(reason=f"GPU tier: {env.gpu_reason()}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _cuda_sources_built_in_the_background() -> None:
    """On a GPU, every CUDA source starts building at once, in threads (cached on disk), as a run's worker does: the
    GPU tests then wait for their own kernel's build alone instead of building one kernel after another. Under -n
    the first test process builds them; the others find them in the cache."""
    if env.has_gpu() and os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0":
        from harness import nvrtc
        from harness.registry import KERNELS, build_units

        nvrtc.prefetch(build_units(KERNELS))


@pytest.fixture(autouse=True)
def _cached_gpu_memory_given_back(request: pytest.FixtureRequest):
    """After a GPU test, the memory torch's allocator keeps cached goes back to the GPU: test processes that each kept
    the peak of their 4096^3 checks (some 14 GB) left none for a run's worker or ncu's child (out of memory, H100)."""
    yield
    if "gpu" in request.node.keywords:
        import torch

        if torch.cuda.is_initialized():
            torch.cuda.empty_cache()


@pytest.fixture(scope="session")
def device() -> str:
    """Where Triton counterparts and baselines run in the CPU tier: the interpreter's CPU, or the GPU."""
    return "cpu" if INTERPRETING else "cuda"


def pytest_configure(config: pytest.Config) -> None:
    # Imported here, after INTERPRETING is set: the cases come from the registry and the launchers.
    from tests import benchmark_cases

    for name, line in benchmark_cases.markers().items():
        config.addinivalue_line("markers", f"{name}: {line}")
    benchmark_cases.default_sort_by_name(config)


@pytest.fixture(scope="module")
def recorded() -> Results:
    """The newest committed full GPU run, loaded; the test skips when there is none."""
    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    return load(path)
