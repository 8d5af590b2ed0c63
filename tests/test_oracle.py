"""The independent oracle (tests/oracle.py) on the committed run: the page rendered from it, the README and the docs
that quote it agree digit for digit with what plain Python recomputes from the raw JSONL; and the oracle can fail."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness.report.render import render
from tests import oracle
from tests.recorded import H100_RUN, REPO

RUN = H100_RUN
SUSTAINED = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T230158Z-sustained.jsonl"   # the README's regime table
DOCUMENTS = ("README.md", "docs/results.md", "docs/regimes.md")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    return render(RUN, tmp_path_factory.mktemp("oracle"))[0].read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def documents() -> dict[str, str]:
    return {name: (REPO / name).read_text(encoding="utf-8") for name in DOCUMENTS}


def test_the_page_readme_and_docs_hold_the_numbers_the_raw_jsonl_gives(page: str, documents: dict[str, str]) -> None:
    checks = oracle.check(RUN, page, documents, SUSTAINED)
    print(f"oracle: {checks.numbers} numbers checked against {RUN.name} (page, {', '.join(DOCUMENTS)})")
    assert checks.wrong == []
    # the headline of the page and of the README (4 rows: % of cuBLAS, interval, rate of each best; each ratio and
    # its call), the clock readings, the peak's clock, the roof per cycle, the regime table's watts and joules (in
    # docs/regimes.md: the README keeps the study's findings and links its table)
    assert checks.numbers >= 240, checks.numbers


def test_the_oracle_fails_on_a_digit_changed_or_a_range_labelled_as_an_interval(page: str,
                                                                                documents: dict[str, str]) -> None:
    wrong = page.replace("102.1% [102.0–102.7]", "102.2% [102.0–102.7]", 1)
    assert wrong != page
    assert any("best CUDA, % of cuBLAS" in w for w in oracle.check(RUN, wrong, {}, None).wrong)
    # the committed docs before: cuBLAS fp32's 691 W [688-697], the min and max of 4 rounds, printed as a 95% interval
    regimes = documents["docs/regimes.md"]
    assert "691 (range 688–697 of 4 rounds)" in regimes
    bracketed = {"docs/regimes.md": regimes.replace("691 (range 688–697 of 4 rounds)", "691 [688–697]")}
    said = oracle.check(RUN, page, bracketed, SUSTAINED).wrong
    assert any("cuBLAS fp32, W, said as" in w and "a range" in w for w in said), said


def test_the_oracle_is_independent_code() -> None:
    """Plain Python over the JSONL: it imports nothing from the harness (the analysis, the page or anything else)."""
    tree = ast.parse((Path(oracle.__file__)).read_text(encoding="utf-8"))
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + [
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if m and m.split(".")[0] == "harness"], imported
