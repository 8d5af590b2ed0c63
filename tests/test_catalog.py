"""The catalog finds a SIMT rung by its module alone: a new rung is its .cu file and one module of
harness/catalog/simt/rungs (CONTRIBUTING.md), with no list to edit anywhere else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from harness.catalog import simt
from harness.catalog.ladders import LADDERS
from harness.registry import IDEAS, KERNELS

ROOT = Path(__file__).resolve().parents[1]

# A rung as CONTRIBUTING.md writes one. Its module name sorts first and its number is the highest: the ladder follows
# the number a rung declares, not the file's name.
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
RUNG = Rung(99, IDEA, KERNELS, CLAIMS)
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
    (folder / "a_throwaway_step.py").write_text(textwrap.dedent(_THROWAWAY), encoding="utf-8")
    # The suite's tree first (the harness package itself); the temporary folder adds only its rungs module.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(tmp_path)))}
    done = subprocess.run([sys.executable, "-c", _READ_BACK], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["in_kernels"]
    assert seen["top_rung"] == ["rosetta.sgemm_throwaway<128,128,32,8,8>"]
    assert seen["rungs"] == len(simt.RUNGS) + 1
    assert seen["triton_on_rung"] == ["dot"]
    assert seen["lesson"] == "A lesson written once, here."
    assert seen["claims"] == ["a decision", "synchronisation"]


def test_the_simt_ladder_is_the_rung_modules_in_the_order_of_their_numbers() -> None:
    numbers = [r.number for r in simt.RUNGS]
    assert numbers == sorted(numbers) == list(range(1, len(numbers) + 1))
    ladder = next(ladder for ladder in LADDERS if ladder.name == "SIMT")
    assert ladder.rungs == tuple(r.kernels for r in simt.RUNGS)
    assert [k for k in KERNELS if k.id.startswith("rosetta.sgemm_")] == list(simt.KERNELS)


def test_a_rung_teaches_its_own_idea_with_claims_or_borrows_one_with_none() -> None:
    for rung in simt.RUNGS:
        if isinstance(rung.idea, str):
            assert not rung.claims and rung.idea in IDEAS and rung.idea not in simt.IDEAS
        else:
            assert rung.claims and IDEAS[rung.idea.key] is rung.idea
