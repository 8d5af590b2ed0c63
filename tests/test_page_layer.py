"""One layer words the page: harness/analysis computes typed values and holds no word of the page (no import of the
page layer at the top of a module or inside a function, no HTML, no anchor, no sentence), and the page renders a
finished analysis record, comparing nothing while it renders."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from harness.analysis import verdicts
from harness.analysis.build import build
from harness.analysis.measured import Measured
from harness.records.file import load
from tests.recorded import H100_RUN, REPO

ANALYSIS = REPO / "harness" / "analysis"
RUN = H100_RUN
# The CSV's column texts, which `rosetta export` is to take from the page's metric declarations (harness/report)
# in place of declaring its own; until it does they are the one place analysis holds a description.
COLUMN_TEXTS = {"export.py"}
SENTENCE = 6     # a string of this many words or more is a sentence


def _imports(tree: ast.AST) -> list[str]:
    """Every module a file imports, at its top and inside its functions."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out += [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom) and n.module:
            out += [n.module, *(f"{n.module}.{a.name}" for a in n.names)]
    return out


def _text(tree: ast.AST) -> list[tuple[int, str]]:
    """The string constants of a module that are not a docstring, the message of an exception it raises or a
    method's name."""
    skip = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    skip |= {id(c) for n in ast.walk(tree) if isinstance(n, ast.Raise) for c in ast.walk(n)}
    # the name a record keeps of the verdicts' method that made it (verdicts.METHOD): an identifier, not page text
    skip |= {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)
             and any(isinstance(x, ast.Name) and x.id == "METHOD" for x in n.targets)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip]


@pytest.mark.parametrize("path", sorted(ANALYSIS.glob("*.py")), ids=lambda p: p.name)
def test_the_analysis_imports_nothing_of_the_page_and_holds_none_of_its_words(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert not [m for m in _imports(tree) if m.startswith("harness.report") or m == "html"], path.name
    for line, text in _text(tree) if path.name not in COLUMN_TEXTS else []:
        assert not re.search(r"</?[a-z]+[ >]", text), (path.name, line, text)     # no markup
        assert not re.match(r"#[a-z]", text), (path.name, line, text)              # no anchor
        assert len(text.split()) < SENTENCE, (path.name, line, text)             # no sentence


def test_a_finished_record_renders_without_a_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    """The record `rosetta run` and `rosetta analyse` write holds every comparison the page shows: rendering the page
    of the committed run from it compares nothing and resamples nothing."""
    from harness.report.plots import all_plots
    from harness.report.regimes import regime_plots
    from harness.report.render import document

    results = load(RUN)
    m = Measured(results, build(results, prove_mapping=False))

    def refused(*args, **kwargs):
        raise AssertionError("the page compared two results while rendering")

    monkeypatch.setattr(verdicts, "compare", refused)
    for module in ("record", "regimes", "knobs"):
        monkeypatch.setattr(f"harness.analysis.{module}.compare", refused)
    doc = document(m, all_plots(m), regime_plots(m))
    assert doc.sections and not any(c.relation == "between" and c.verdict is None for c in m.analysis.comparisons)
