"""The Gluon column in the analysis: a Gluon record is compared with its CUDA kernel ("gluon", the compiler's part)
and each Triton counterpart with the Gluon mirror ("model", the model's part); the model-or-compiler split of a rung
names the compiled quantities that move with the speed only where the rounds decide; what each model costs to write
comes from the sources and survives the catalog's record.

The timings are made up (the committed GPU run's records with made-up interleaved rounds, tests/recorded.py
`with_rounds`, and Gluon records copied from the CUDA ones with a chosen time factor): nothing here is a measurement,
only the plumbing and the rules are tested.
"""

from __future__ import annotations

import dataclasses

import pytest

from harness.analysis.measured import Measured
from harness.analysis.model_or_compiler import Quantity, splits
from harness.analysis.record import analyse
from harness.analysis.verdicts import Call
from harness.catalog import CATALOG, cost
from harness.catalog_types.tables import Catalog
from harness.measure.timing import Samples
from harness.records.file import Results, load
from harness.registry import BY_ID, KERNELS
from tests.recorded import recorded_gpu_run, with_rounds

SUMMIT = "rosetta.sgemm_general<128,256,16,32,128,8,16,8>"


def _scaled(r, factor: float, **resources):
    """A Gluon record made from a CUDA one: its rounds' times times `factor`, its resources changed as given."""
    s = r.timing.samples
    samples = Samples([ms * factor for ms in s.ms], s.mhz, s.per_round, s.order, s.batch, s.max_mhz)
    timing = dataclasses.replace(r.timing, median_ms=r.timing.median_ms * factor, samples=samples)
    res = dataclasses.replace(r.resources, **resources) if r.resources is not None else None
    return dataclasses.replace(r, impl="gluon:mirror", model="gluon", timing=timing, resources=res)


@pytest.fixture(scope="module")
def measured():
    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    loaded = load(path)
    # the run's own Gluon rows left out: the made-up ones below stand in their place
    base = with_rounds(dataclasses.replace(loaded, results=[r for r in loaded.results if r.model != "gluon"]))
    cuda = [r for r in base.results if r.kernel == SUMMIT and r.impl == "cuda" and r.timed]
    assert cuda, "the recorded run timed the summit"
    # Gluon 1% slower than CUDA (within the SIMT margin: SAME), with the CUDA kernel's compiled facts
    gluon = [_scaled(r, 1.01) for r in cuda]
    results = Results(base.path, base.header, [*base.results, *gluon], base.end)
    return Measured(results, analyse(results.results, "made-up"))


def test_a_gluon_record_gets_its_compiler_and_model_verdicts(measured):
    an = measured.analysis
    gluon = [c for c in an.where("gluon") if c.subject[0] == SUMMIT]
    model = [c for c in an.where("model") if c.subject[0] == SUMMIT]
    assert gluon and all(c.reference == (SUMMIT, "cuda") for c in gluon)
    assert {c.subject[1] for c in model} == {f"triton:{c.name}" for c in BY_ID[SUMMIT].counterparts}
    assert all(c.reference == (SUMMIT, "gluon:mirror") for c in model)
    assert all(c.call is Call.SAME for c in gluon), [c.verdict for c in gluon]


def test_the_split_of_the_summit_closes_the_gap_as_its_ratios_say(measured):
    [split] = [s for s in splits(measured) if s.kernel == SUMMIT]
    assert split.gap.call is Call.SLOW and split.model.call is Call.SLOW
    expected = (split.gap.ratio - split.compiler.ratio) / (split.gap.ratio - 1)
    assert split.closed.lo <= split.closed.value <= split.closed.hi and 0.9 < split.closed.value < 1.0
    assert split.closed.value == pytest.approx(expected, abs=0.01)   # the rounds' shares, about the verdicts' share
    names = {q.name for q in split.moving}
    # the recorded Triton form reads shared memory less often per FFMA than the CUDA kernel's tile, which the
    # Gluon record (the CUDA kernel's compiled facts) keeps
    assert "FFMA per wide shared load" in names
    ffma = next(q for q in split.quantities if q.name == "FFMA per wide shared load")
    assert ffma.gluon > ffma.triton


def test_a_quantity_moves_with_the_speed_only_when_the_faster_side_has_the_better_value():
    q = Quantity("spilled bytes", 0, 40, 0)
    assert q.moves and q.better("gluon", "triton") == 1 and q.better("triton", "gluon") == -1
    assert Quantity("registers", 128, 255, 128).better("gluon", "triton") == 0  # no better side
    assert not Quantity("BAR (static)", 2, 2, 2).moves


def test_no_direction_is_said_where_the_rounds_tie(measured):
    for s in splits(measured):
        if s.model is not None and s.model.call not in (Call.FAST, Call.SLOW):
            assert s.moving == []
        if s.gap is None or s.gap.call is not Call.SLOW:
            assert s.closed is None


def test_every_rung_written_in_three_models_has_its_cost_from_the_sources():
    costs = cost.costs(KERNELS)
    assert set(costs) == {k.id for k in KERNELS if any(g.name == "mirror" for g in k.gluon)}
    for kernel_id, by in costs.items():
        assert set(by) == {"cuda", "triton", "gluon"}, kernel_id
        assert all(lines > 20 for lines, _ in by.values()), (kernel_id, by)
        # Gluon writes what CUDA writes and Triton leaves to its compiler: the threads' layout, shared memory,
        # barriers, the product instruction
        assert by["gluon"][1] > by["triton"][1], (kernel_id, by)
    summit = cost.code(BY_ID[SUMMIT], "triton")
    assert "threads' layout" not in cost.decisions(summit, "triton")
    assert {"threads' layout", "shared memory", "synchronisation"} <= set(
        cost.decisions(cost.code(BY_ID[SUMMIT], "gluon"), "gluon"))


def test_the_costs_survive_the_catalogs_record():
    import json

    again = Catalog.from_json(json.loads(json.dumps(CATALOG.to_json())))
    assert again.costs == CATALOG.costs and again.costs
    assert [k for k in again.kernels if k.gluon] == [k for k in CATALOG.kernels if k.gluon]


def test_rosetta_gluon_prints_the_split_and_the_costs(measured, tmp_path, capsys):
    import json

    from harness.cli import main

    path = tmp_path / "made-up.jsonl"
    f = measured.file
    lines = [json.dumps(f.header.to_json()), *(json.dumps(r.to_json()) for r in f.results)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["gluon", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{SUMMIT} sgemm 4096x4096x4096\n    Triton / CUDA: the gap: " in out and "the model's part" in out
    assert "what each model costs to write" in out and f"{SUMMIT}:" in out


def test_profile_files_are_read_as_one_each_implementation_from_the_last_file_that_has_it(tmp_path):
    """A profile cut short is taken up with `rosetta profile --impl`: the split reads both files' issue-active."""
    import json

    from harness.analysis.model_or_compiler import issue_active

    def write(name: str, rows: dict[str, float | None]) -> object:
        path = tmp_path / name
        path.write_text(json.dumps({"rows": [
            {"kernel": SUMMIT, "impl": impl, "metrics": {} if pct is None else {"issue_active_pct": pct}}
            for impl, pct in rows.items()]}))
        return path

    first = write("a.json", {"cuda": 87.7, "triton:dot": 69.0, "gluon:mirror": None})
    second = write("b.json", {"gluon:mirror": 80.5, "triton:dot": 70.0})
    got = issue_active([first, second])
    assert got == {(SUMMIT, "cuda"): 87.7, (SUMMIT, "triton:dot"): 70.0, (SUMMIT, "gluon:mirror"): 80.5}
    assert issue_active(first) == {(SUMMIT, "cuda"): 87.7, (SUMMIT, "triton:dot"): 69.0}
    assert issue_active(None) == {}
