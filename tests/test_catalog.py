"""The catalog finds a SIMT rung by its module alone: a new rung is its .cu file and one module of
harness/catalog/simt/rungs (CONTRIBUTING.md), with no list to edit anywhere else; the ladder's order is the rungs'
`after`, and its summit the rung that declares itself one."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from harness.catalog import CATALOG, simt
from harness.catalog.ladders import LADDERS
from harness.catalog.simt import Rung
from harness.catalog_types.tables import Catalog
from harness.registry import IDEAS, KERNELS

ROOT = Path(__file__).resolve().parents[1]

# A rung as CONTRIBUTING.md writes one. Its module name sorts first and it stands on the top rung (today the summit's):
# the ladder follows `after`, not the file's name, and a rung above the summit does not become it.
_THROWAWAY = '''
from __future__ import annotations

from harness.catalog.checks import synchronisation
from harness.catalog.simt.rung import Rung, kernel
from harness.catalog_types import COMPILER, Check, Claim, Idea

IDEA = Idea("throwaway_step", "A throwaway step", "A lesson written once, here.")
KERNELS = (kernel("throwaway", (128, 128, 32, 8, 8), IDEA.key, 256),)
CLAIMS = (
    Claim("a decision", "what the CUDA kernel does", "what the Triton counterpart does", COMPILER,
          Check("some FFMA", lambda ev: ev.cuda["FFMA"] > 0, ("FFMA",)),
          Check("some FFMA", lambda ev: ev.triton["FFMA"] > 0, ("FFMA",))),
    synchronisation(),
)
RUNG = Rung(IDEA, KERNELS, CLAIMS, after="{top}")
'''

_READ_BACK = '''
import json
from harness.claims import CLAIMS
from harness.registry import BY_ID, IDEAS, KERNELS
from harness.catalog.ladders import LADDERS

simt = next(ladder for ladder in LADDERS if ladder.name == "SIMT")
kernel = BY_ID["rosetta.sgemm_throwaway<128,128,32,8,8>"]
print(json.dumps({
    "in_kernels": kernel in KERNELS,
    "top_rung": [k.id for k in simt.rungs[-1]],
    "summit": [k.id for k in simt.summit],
    "rungs": len(simt.rungs),
    "triton_on_rung": [c.name for c in kernel.counterparts if simt.stands(c)],
    "lesson": IDEAS[kernel.idea].lesson,
    "claims": [c.decision for c in CLAIMS[kernel.idea]],
}))
'''


def test_a_rung_module_dropped_on_the_rungs_search_path_is_a_kernel_a_rung_an_idea_and_its_claims(
        tmp_path: Path) -> None:
    folder = tmp_path / "harness" / "catalog" / "simt" / "rungs"
    folder.mkdir(parents=True)
    (folder / "a_throwaway_step.py").write_text(textwrap.dedent(_THROWAWAY).replace("{top}", simt.RUNGS[-1].name),
                                                encoding="utf-8")
    # The suite's tree first (the harness package itself); the temporary folder adds only its rungs module.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(tmp_path)))}
    done = subprocess.run([sys.executable, "-c", _READ_BACK], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["in_kernels"]
    assert seen["top_rung"] == ["rosetta.sgemm_throwaway<128,128,32,8,8>"]
    assert seen["summit"] == [k.id for k in simt.SUMMIT.kernels]
    assert seen["rungs"] == len(simt.RUNGS) + 1
    assert seen["triton_on_rung"] == ["dot"]
    assert seen["lesson"] == "A lesson written once, here."
    assert seen["claims"] == ["a decision", "synchronisation"]


def test_the_simt_ladder_is_the_rung_modules_each_above_the_one_it_names() -> None:
    assert simt.RUNGS[0].after is None
    assert [r.after for r in simt.RUNGS[1:]] == [r.name for r in simt.RUNGS[:-1]]
    ladder = next(ladder for ladder in LADDERS if ladder.name == "SIMT")
    assert ladder.rungs == tuple(r.kernels for r in simt.RUNGS)
    assert ladder.summit == simt.SUMMIT.kernels and simt.SUMMIT.summit
    assert [k for k in KERNELS if k.id.startswith("rosetta.sgemm_")] == list(simt.KERNELS)


def _rung(name: str, after: str | None, summit: bool = False, ceiling: bool = False) -> Rung:
    """A rung of rung 2's kernel and claims under another name; with the summit's counterparts (its ceiling among
    them) where asked."""
    kernel = replace(simt.RUNGS[1].kernels[0], idea=name,
                     counterparts=simt.SUMMIT.kernels[0].counterparts if ceiling else ())
    return Rung(replace(simt.RUNGS[1].idea, key=name), (kernel,), simt.RUNGS[1].claims, after=after, summit=summit,
                name=name)


def test_a_rung_goes_between_two_by_naming_the_one_below_while_the_one_above_names_it() -> None:
    rungs = {"a": _rung("a", None), "b": _rung("b", "a"), "c": _rung("c", "b")}
    assert [r.name for r in simt.in_order(rungs)] == ["a", "b", "c"]
    rungs |= {"between": _rung("between", "a"), "b": _rung("b", "between")}
    assert [r.name for r in simt.in_order(rungs)] == ["a", "between", "b", "c"]


@pytest.mark.parametrize(("rungs", "says"), [
    ({"a": _rung("a", None), "b": _rung("b", "a"), "c": _rung("c", "a")}, "b and c all stand after a"),
    ({"a": _rung("a", None), "b": _rung("b", None)}, "a and b all stand first"),
    ({"a": _rung("a", None), "b": _rung("b", "nowhere")}, "b stands after 'nowhere', which is no rung"),
    ({"a": _rung("a", None), "b": _rung("b", "c"), "c": _rung("c", "b")}, "b, c are not on the ladder"),
], ids=["two on one", "two first", "unknown", "a loop"])
def test_a_ladder_whose_order_is_unsaid_is_refused_naming_the_rungs(rungs: dict[str, Rung], says: str) -> None:
    with pytest.raises(RuntimeError, match=re.escape(says)):
        simt.in_order(rungs)


def test_the_summit_is_the_one_rung_that_declares_it_and_alone_carries_the_ceiling() -> None:
    declared = (_rung("a", None), _rung("b", "a", summit=True), _rung("c", "b"))
    assert simt.summit(declared).name == "b"
    with pytest.raises(RuntimeError, match="declares 0 summits"):
        simt.summit((_rung("a", None), _rung("b", "a")))
    with pytest.raises(RuntimeError, match="declares 2 summits"):
        simt.summit((_rung("a", None, summit=True), _rung("b", "a", summit=True)))
    with pytest.raises(RuntimeError, match="Triton ceiling stands beside the summit only"):
        simt.summit((_rung("a", None, ceiling=True), _rung("b", "a", summit=True)))


def test_a_recorded_catalog_keeps_the_declared_summit_and_an_older_one_finds_it_by_its_ceiling() -> None:
    data = CATALOG.to_json()
    assert Catalog.from_json(data).ladder("fp32").summit == simt.SUMMIT.kernels
    for lad in data["ladders"]:
        del lad["summit"]  # as a record written before ladders kept it
    assert Catalog.from_json(data).ladder("fp32").summit == simt.SUMMIT.kernels
    assert Catalog.from_json(data).ladder("tf32").summit == ()


def test_a_rung_teaches_its_own_idea_with_claims_or_borrows_one_with_none() -> None:
    for rung in simt.RUNGS:
        if isinstance(rung.idea, str):
            assert not rung.claims and rung.idea in IDEAS and rung.idea not in simt.IDEAS
        else:
            assert rung.claims and IDEAS[rung.idea.key] is rung.idea
