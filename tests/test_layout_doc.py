"""docs/layout.md names the tree as it is: every module and folder it names exists, and every module and package at
the top of harness/ is named (a module renamed or gone fails here, not in a reader's hands)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / "docs" / "layout.md"


def _tree_block() -> str:
    text = LAYOUT.read_text(encoding="utf-8")
    return text.split("```", 2)[1]


def _named(block: str) -> tuple[set[str], set[str]]:
    """The file names (`x.py`, `x.cu`, ...) and the folder names (`x/`) the block names."""
    files = set(re.findall(r"\b([\w.]+\.(?:py|css|cuh|cu))\b", block))
    folders = set(re.findall(r"(?<![\w/.])(\w+)/", block))
    return files, folders


def test_every_module_and_folder_the_layout_names_exists() -> None:
    files, folders = _named(_tree_block())
    tracked = [p for p in ROOT.rglob("*") if ".venv" not in p.parts and not any(s.startswith(".") for s in p.parts)]
    file_names = {p.name for p in tracked if p.is_file()}
    folder_names = {p.name for p in tracked if p.is_dir()}
    assert not sorted(files - file_names), "docs/layout.md names files that do not exist"
    assert not sorted(folders - folder_names), "docs/layout.md names folders that do not exist"


def test_every_module_and_package_at_the_top_of_the_harness_is_named() -> None:
    files, folders = _named(_tree_block())
    harness = ROOT / "harness"
    modules = {p.name for p in harness.glob("*.py") if p.name != "__init__.py"}
    packages = {p.name for p in harness.iterdir() if (p / "__init__.py").is_file() or
                (p.is_dir() and any(p.glob("*.py")))}
    assert not sorted(modules - files), "harness modules docs/layout.md does not name"
    assert not sorted(packages - folders), "harness packages docs/layout.md does not name"
