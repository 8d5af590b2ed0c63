"""The verdict design on a GPU: the A/A control (one implementation timed as two entries of the same rounds must be
called SAME), the SM clock read on the device, and the suite's timer held to NVIDIA's nvbench on the same closures.
Each needs the GPU to itself (two timers compared, or rounds whose calls other processes would skew)."""

from __future__ import annotations

import pytest
import torch

from harness.analysis.verdicts import Call, compare, margin_for
from harness.launch.implementations import Impl, baselines
from harness.measure.rounds import Entry, estimate_ms, interleave
from harness.problems import DEFAULT_SGEMM
from harness.registry import get
from harness.run import referee
from harness.run.runner import ProblemContext

pytestmark = [pytest.mark.gpu, pytest.mark.gpu_alone]
P = DEFAULT_SGEMM[0]
# cuBLAS in both classes, a SIMT rung in each model, the TF32 and 3xTF32 top rungs: both regimes of the clock
IMPLS = [*(b for b in baselines("sgemm") if b.vendor),
         Impl("cuda", "sgemm", get("rosetta.sgemm_general<128,256,16,32,128,8,16,8>")),
         *(Impl(f"triton:{c.name}", "sgemm", k, c) for k in [get("rosetta.sgemm_general<128,256,16,32,128,8,16,8>")]
           for c in k.counterparts if c.name == "autotuned"),
         Impl("cuda", "sgemm", get("rosetta.wgmma_persistent<tf32,128,256,32,4,kmajor>")),
         Impl("cuda", "sgemm", get("rosetta.wgmma_3xtf32<3xtf32,128,128,32,3,kmajor>"))]


def _launches() -> list[tuple[Impl, object]]:
    device = torch.device("cuda", torch.cuda.current_device())
    ops = ProblemContext(P, device, seed=11).operands(P, "random")
    return [(i, i.bind(ops.tensors(ops.fresh_output(0.0)), P.alpha, P.beta)) for i in IMPLS]


def test_an_implementation_timed_as_two_entries_is_called_same():
    device = torch.device("cuda", torch.cuda.current_device())
    launches = _launches()
    got = interleave([Entry(i.label, fn, estimate_ms(fn, device)) for i, fn in launches], twins=True, device=device)
    calls = {i.label: compare(got[(i.label, "aa")], got[i.label], margin_for(i.precision)) for i, _ in launches}
    wrong = {k: v.time for k, v in calls.items() if v.call in (Call.FAST, Call.SLOW)}
    assert not wrong, f"the A/A control called a difference: {wrong}"
    same = sum(v.call is Call.SAME for v in calls.values())
    assert same >= len(calls) - 1, {k: v.time for k, v in calls.items()}


def test_every_run_of_the_rounds_has_an_sm_clock_read_on_the_device():
    device = torch.device("cuda", torch.cuda.current_device())
    launches = _launches()[:2]
    got = interleave([Entry(i.label, fn, estimate_ms(fn, device)) for i, fn in launches], rounds=3, device=device)
    for s in got.values():
        assert all(m is not None and 200 < m < 3000 for m in s.mhz), s.mhz
        assert s.max_mhz is None or max(s.mhz) <= 1.02 * s.max_mhz


def test_the_suite_timer_agrees_with_nvbench_on_the_simt_rows():
    why = referee.missing()
    if why:
        pytest.skip(why)
    simt = [i for i in IMPLS if i.precision == "fp32"]
    rows = referee.referee(simt, P)
    off = {r.label: r.ratio for r in rows if r.ratio is None or abs(r.ratio - 1) > 0.03}
    assert not off, f"nvbench / suite beyond 3%: {off}"
