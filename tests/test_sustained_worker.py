"""The sustained regime's worker entry (harness/run/sustained_work.py), the glue between a worker's checked
implementations and the steady-state loop, run on the CPU with the loop faked: each record takes its steady windows as
its timing, its bursts and rounds as its regime, the A/A twin where asked, and the rounds' order is drawn from the
problem's own seed, as the bursts' rounds are."""

from __future__ import annotations

import pytest
import torch

from harness.identity import ImplId
from harness.measure import sustained
from harness.measure.regime import SteadyRound
from harness.measure.timing import Samples
from harness.problems import Problem
from harness.records.lines import Result, Status
from harness.run import sustained_work
from harness.run.runner import Pending, RunOptions
from harness.run.work import ResourceCache, WorkerState


def _samples(ms: float) -> Samples:
    return Samples([ms] * 3, [1500.0] * 3, [1, 1, 1], [0, 0, 0], "steady", 1980.0, launches=20)


@pytest.mark.parametrize("aa", [False, True])
def test_each_checked_implementation_gets_its_steady_timing_and_its_regime(monkeypatch, aa: bool) -> None:
    problem = Problem("sgemm", 17, 19, 23)
    opts = RunOptions(time=False, device_type="cpu", seed=7, rounds=3, aa=aa)
    state = WorkerState(opts, torch.device("cpu"), "made up", ResourceCache(gpu=False))
    impls = [ImplId.from_json(s) for s in ("cublas", "cublas-tf32")]
    pending = [Pending(None, Result.of(impl, problem, Status.OK), lambda: None, 1.0)  # type: ignore[arg-type]
               for impl in impls]
    seen: dict = {}

    def fake_sustain(entries, *, rounds, seed, twins, device, on_turn):
        seen.update(rounds=rounds, seed=seed, twins=twins, device=device, keys=[e.key for e in entries])
        one = SteadyRound(2.0, True, [[1500.0, 690.0]], 1.0, 1500.0, 690.0)
        out = {e.key: sustained.Sustained(_samples(9.0), _samples(1.0 + e.key), [one] * rounds) for e in entries}
        if twins:
            out.update({(e.key, "aa"): sustained.Sustained(_samples(9.0), _samples(1.0 + e.key), [one] * rounds)
                        for e in entries})
        return out

    monkeypatch.setattr(sustained, "sustain", fake_sustain)
    import harness.run.runner as runner

    monkeypatch.setattr(runner, "figures", lambda impl, problem, ms, peaks: {"ms": ms})
    out = sustained_work.time_pending(state, problem, pending, None, lambda key, r: None)

    assert seen == {"rounds": 3, "seed": problem.seed(7), "twins": aa, "device": torch.device("cpu"), "keys": [0, 1]}
    assert [r.timing.median_ms for r in out] == [1.0, 2.0]
    assert all(r.regime.name == "sustained" and len(r.regime.rounds) == 3 for r in out)
    assert all((r.regime.aa_burst is not None) == aa and (r.timing.aa is not None) == aa for r in out)
