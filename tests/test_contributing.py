"""CONTRIBUTING.md holds: in a copy of the repository, its two rungs are added exactly as its words say (a new .cu and
its catalog module on top of the ladder; a rung that only changes the tile, one file between two rungs, the rung
above renamed its `after`), and the CPU tests a new rung touches pass there: the registry against the sources, the
catalog's order and summit, the mapping claims of both rungs on the compiled code, their Triton counterparts in the
interpreter on small shapes, `rosetta list` at 80 columns, the accuracy chart's fp32-work rows, `rosetta explain`
and `--only` as the page uses them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
RUNGS = Path("harness", "catalog", "simt", "rungs")
# the tests a new rung touches, run whole where they are cheap; of the others, only the cases naming the new rungs
WHOLE = ("tests/test_registry.py", "tests/test_catalog.py", "tests/test_accuracy_plot.py", "tests/test_fp32_class.py")
PICKED = ("tests/test_mapping_claims.py", "tests/test_counterparts.py")
LIST_TESTS = "tests/test_cli_tables.py"   # its tests of `rosetta list`


def _block_after(heading: str) -> str:
    """The first fenced block after the line of the page that holds `heading`."""
    rest = DOC[DOC.index(heading):]
    return re.search(r"```\w*\n(.*?)```", rest, re.DOTALL).group(1)


def _module_block(path: str) -> str:
    """The Python block of the module at `path` (the page names the file on the line before, or in its heading)."""
    return _block_after(f"`{path}`")


def _copy_of_the_repository(to: Path) -> Path:
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    names = tracked.stdout.decode().split("\0") if tracked.returncode == 0 else []
    if names and names[0]:
        for name in filter(None, names):
            if (ROOT / name).is_file():
                (to / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, to / name)
    else:  # not a git checkout (an unpacked archive): every file but caches and virtual environments
        shutil.copytree(ROOT, to, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
            ".git", ".venv*", "__pycache__", ".pytest_cache", ".ruff_cache", "runs"))
    return to


def _follow_the_page(repo: Path) -> dict[str, str]:
    """Add both rungs as CONTRIBUTING.md says; returns each new rung's name and the module of the rung below it."""
    # 1. the kernel: the .cu of the rung below, copied and its function renamed (the page names both)
    below_cu, below_fn, new_fn = re.search(r"`kernels_cuda/(rosetta_sgemm_\w+\.cu)`\), rename its function\s+from\s+"
                                           r"`(\w+)` to `(\w+)`", DOC).groups()
    new_cu = re.search(r"## 1\. The kernel: `kernels_cuda/(\w+\.cu)`", DOC).group(1)
    source = (repo / "kernels_cuda" / below_cu).read_text(encoding="utf-8")
    (repo / "kernels_cuda" / new_cu).write_text(source.replace(below_fn, new_fn), encoding="utf-8")
    # 2. its catalog module, as the page writes it
    step_path = re.search(r"## 2\. The catalog entry: `(harness/catalog/simt/rungs/\w+\.py)`", DOC).group(1)
    (repo / step_path).write_text(_module_block(step_path), encoding="utf-8")
    # a rung that only changes the tile: its module, and the rung that stood on the one below names it instead
    tile_path = re.search(r"goes between `\w+` and `\w+`, in `(harness/catalog/simt/rungs/\w+\.py)`", DOC).group(1)
    tile_text = _module_block(tile_path)
    (repo / tile_path).write_text(tile_text, encoding="utf-8")
    above_path, old, new = re.search(r"and in `(harness/catalog/simt/rungs/\w+\.py)`, the rung that stood on `\w+`, "
                                     r"`(after=\"\w+\")`\s+becomes `(after=\"\w+\")`", DOC).groups()
    above = (repo / above_path).read_text(encoding="utf-8")
    assert above.count(old) == 1, f"{above_path} does not say {old} once"
    (repo / above_path).write_text(above.replace(old, new), encoding="utf-8")
    assert new == f'after="{Path(tile_path).stem}"'
    return {Path(p).stem: re.search(r'after="(\w+)"', (repo / p).read_text()).group(1) for p in (step_path, tile_path)}


_READ_BACK = '''
import json
import harness
from harness.analysis.fp32_work import summit
from harness.catalog import CATALOG, simt
from harness.registry import IDEAS, KERNELS, select

class Measured:
    catalog = CATALOG

order = [r.name for r in simt.RUNGS]
print(json.dumps({
    "harness": harness.__file__,
    "order": order,
    "summit": simt.SUMMIT.name,
    "fp32_work_summit": sorted(summit(Measured())),
    "new_kernels": {r.name: [k.id for k in r.kernels] for r in simt.RUNGS},
    "lessons": {key: IDEAS[key].lesson for key in IDEAS},
    "only": [k.id for k in select(["sgemm_my_step", "sgemm_general"])],
}))
'''


def _run(repo: Path, args: list[str], timeout: int = 1500, columns: int = 80) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(repo), "COLUMNS": str(columns)}
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.mark.slow
def test_two_rungs_added_by_the_words_of_contributing_pass_the_tests_a_new_rung_touches(tmp_path: Path) -> None:
    repo = _copy_of_the_repository(tmp_path / "repo")
    below = _follow_the_page(repo)
    assert below == {"my_step": "general_shape", "warptile_bk16": "warptile"}

    done = _run(repo, [sys.executable, "-c", _READ_BACK], timeout=300)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert Path(seen["harness"]).is_relative_to(repo), "the copy's harness must be the one imported"
    order = seen["order"]
    # the new step on top, the tile step between warptile and async_copy, the summit where it was declared
    assert order[-2:] == ["general_shape", "my_step"]
    assert order[order.index("warptile") + 1:order.index("warptile") + 3] == ["warptile_bk16", "async_copy"]
    assert seen["summit"] == "general_shape"
    assert seen["fp32_work_summit"] == sorted(seen["new_kernels"]["general_shape"])
    step_id, = seen["new_kernels"]["my_step"]
    tile_id, = seen["new_kernels"]["warptile_bk16"]
    assert tile_id.startswith("rosetta.sgemm_warptile<") and not (repo / "kernels_cuda" /
                                                                  "rosetta_sgemm_warptile_bk16.cu").exists()
    assert set(seen["only"]) == {step_id, *seen["new_kernels"]["general_shape"]}, "--only as the page uses it"
    assert f"'{step_id}'" in DOC, "the page's explain command names the new rung's id"

    # the tests a new rung touches: whole files where they are cheap, the new rungs' cases of the others
    collected = _run(repo, [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                            *PICKED, LIST_TESTS], timeout=600)
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    names = ("my_step", "warptile_bk16", step_id, tile_id)
    lines = [line for line in collected.stdout.splitlines() if "::" in line]
    picked = [line for line in lines if any(n in line for n in names)]
    listing = [line for line in lines if line.startswith(LIST_TESTS) and "::test_list_" in line]
    assert listing
    claims = [n for n in picked if "test_claim_holds_on_the_compiled_kernels" in n]
    assert {n for n in ("my_step", "warptile_bk16") if any(n in c for c in claims)} == {"my_step", "warptile_bk16"}
    assert any("test_counterpart_is_exact_and_within_bounds" in n and step_id in n for n in picked)
    assert any("test_counterpart_is_exact_and_within_bounds" in n and tile_id in n for n in picked)
    tests = _run(repo, [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *WHOLE, *picked, *listing])
    assert tests.returncode == 0, tests.stdout[-6000:] + tests.stderr[-3000:]
    assert " passed" in tests.stdout and " failed" not in tests.stdout

    # rosetta explain with the id as the page gives it: the lesson, the .cu and the claims
    explained = _run(repo, [sys.executable, "-m", "harness.cli", "explain", step_id], timeout=600, columns=250)
    assert explained.returncode == 0, explained.stdout[-2000:] + explained.stderr[-2000:]
    assert "rosetta_sgemm_my_step.cu" in explained.stdout and "the decision the step is about" in explained.stdout
