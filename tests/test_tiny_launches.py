"""Every Triton counterpart of every kernel, on the smallest and oddest problems, either fits an H100 or is refused
before launch: what its launch would compile there (the copy path, the grid, the pipeline depth the shape picks; an
autotuner's configurations) is compiled for sm_90a with the Triton this runs with, and the shared memory each kernel
asks for is held to an H100's limit, the check Triton's launcher makes before it raises OutOfResources.

Compiles only (tests/launch_compiles.py): a fresh machine takes a few minutes of both cores; Triton's cache makes a
second run quick. Under pytest-xdist every test process that runs these needs the same compiles: one makes them while
the others wait for it, then each finds them in Triton's cache (they compiled all of them each, at once, before).
"""

from __future__ import annotations

import fcntl
import tempfile
from pathlib import Path

import pytest

from harness.registry import KERNELS
from tests.launch_compiles import H100_SHARED_BYTES, Launch, launches

# 1x1x1 as an H100 failed it (alpha 1, beta 0 and alpha -2.5, beta 0.75: C read or not), 1x1x17 (K a constant no
# more, no 16-byte rows), and an odd shape of several K steps and partial tiles; sgemv's three likewise.
SGEMM_SHAPES = (("1x1x1", 1.0, 0.0), ("1x1x1", -2.5, 0.75), ("1x1x17", 1.0, 0.0), ("37x45x67", 1.0, 0.0))
SGEMV_SHAPES = (("1x1", 1.0, 0.0), ("1x17", 1.0, 0.0), ("37x45", 1.0, 0.0))
PAIRS = [(k, c) for k in KERNELS for c in k.counterparts]


@pytest.fixture(scope="module")
def launched() -> dict[tuple[str, str], list[Launch]]:
    cases = [(k.id, c.name, shape, alpha, beta) for k, c in PAIRS
             for shape, alpha, beta in (SGEMM_SHAPES if k.op == "sgemm" else SGEMV_SHAPES)]
    out: dict[tuple[str, str], list[Launch]] = {}
    with (Path(tempfile.gettempdir()) / "rosetta-launch-compiles.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one test process compiles at a time: the next loads what it compiled
        found = launches(cases)
    for launch in found:
        out.setdefault((launch.kernel_id, launch.form), []).append(launch)
    return out


def _fits(launch: Launch) -> str:
    """"" where the launch runs on an H100 (or is refused before it), else what does not fit."""
    if launch.refused:
        return ""
    if not launch.compiled:
        return f"{launch.label}: compiled nothing"
    plain = [c for c in launch.compiled if not c.tuned]
    tuned = [c for c in launch.compiled if c.tuned]
    over = [c for c in plain if c.shared > H100_SHARED_BYTES]
    if tuned and all(c.shared > H100_SHARED_BYTES for c in tuned):  # the tuner skips a config that does not fit
        over += tuned
    return "; ".join(f"{launch.label}: {c.kernel} ({c.settings}) asks for {c.shared} bytes of shared memory, past an "
                     f"H100's {H100_SHARED_BYTES}" for c in over)


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0].id} [{p[1].name}]")
def test_a_tiny_or_odd_problem_fits_an_h100_or_is_refused_before_launch(pair, launched):
    kernel, counterpart = pair
    found = launched[(kernel.id, counterpart.name)]
    assert len(found) == len(SGEMM_SHAPES if kernel.op == "sgemm" else SGEMV_SHAPES)
    for launch in found:
        assert not launch.refused or "cannot run" in launch.refused, launch.refused
    failures = [why for launch in found if (why := _fits(launch))]
    assert not failures, "\n".join(failures)


@pytest.mark.slow
def test_the_check_sees_a_launch_that_does_not_fit():
    """The persistent Hopper form at 1x1x1 with its three stages kept (the depth before a single K step took one):
    the compile asks for more than an H100 has, as the H100 said (OutOfResources: 278528 > 232448)."""
    from harness.registry import BY_ID

    kernel = BY_ID["rosetta.wgmma_ws<tf32,128,256,32,4,kmajor>"]
    (launch,) = launches([(kernel.id, "persistent", "1x1x1", 1.0, 0.0)], keep_stages=True)
    assert _fits(launch) and max(c.shared for c in launch.compiled) > H100_SHARED_BYTES, launch
