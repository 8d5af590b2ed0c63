"""The README's Install, Use and Tests sections hold: every verb is shown, what needs a GPU is marked so, the first
command to try on a CPU names the committed run, and the default and full CPU tiers' times are given with their
commands."""

from __future__ import annotations

import json
import re
from pathlib import Path

from harness import cli
from harness.cli.options import GPU_ONLY
from tests.recorded import full_gpu_run

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def blocks(text: str) -> list[str]:
    return re.findall(r"```\n(.*?)```", text, flags=re.S)


def commands(block: str) -> list[str]:
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.startswith("rosetta ")]


GPU_VERBS = {add.__name__.removeprefix("add_") for add in cli.verbs() if add.__module__ == "harness.cli.gpu_tools"}


def test_every_verb_is_in_the_use_section() -> None:
    shown = {c.split()[1] for b in blocks(section("Use")) for c in commands(b)}
    verbs = {add.__name__.removeprefix("add_") for add in cli.verbs()}
    assert verbs - shown == set(), "verbs the README's Use section leaves out"


def test_what_needs_a_gpu_is_shown_only_under_gpu_only() -> None:
    use = section("Use")
    anywhere, gpu = blocks(use)[0], blocks(use.split("GPU only", 1)[1])[0]
    assert GPU_VERBS and not {c.split()[1] for c in commands(anywhere)} & GPU_VERBS
    assert not [flag for flag in GPU_ONLY.values() for c in commands(anywhere) if flag in c.split()]
    assert {c.split()[1] for c in commands(gpu)} >= GPU_VERBS
    assert [flag for flag in GPU_ONLY.values() if flag not in gpu] == [], "GPU-only options not shown as such"


def test_the_first_command_on_a_cpu_is_the_report_of_the_committed_gpu_run_the_readme_shows() -> None:
    first = blocks(section("Install"))[0].splitlines()[0].split("#", 1)[0].split()
    assert first[:3] == ["python3", "bootstrap.py", "report"]
    shown = re.search(r"python -m harness\.report\.readme (\S+\.jsonl)", README)
    assert shown is not None and first[3] == shown.group(1)
    header = json.loads((ROOT / first[3]).read_text(encoding="utf-8").splitlines()[0])
    assert full_gpu_run(header), f"{first[3]} is not a full GPU run"


def test_the_tests_section_gives_the_default_and_the_full_cpu_tiers_time_with_its_command() -> None:
    block = blocks(section("Tests"))[0]
    default = block.split("\npytest -m ", 1)[0]  # `pytest` alone and its comment lines
    full = next(ln for ln in block.splitlines() if ln.startswith('pytest -m "not gpu" -n 2 '))
    assert default.startswith("pytest  ") and re.search(r"\d+(\.\d+)? min on 2 cores", default), default
    assert re.search(r"\d+(\.\d+)? min on 2 cores", full), full
