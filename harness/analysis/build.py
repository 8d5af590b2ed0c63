"""A results file's analysis record, built and written beside it: its comparisons (record.py), its findings
(findings.py) and its proven mapping (mapping.py)."""

from __future__ import annotations

from pathlib import Path

from harness.analysis.findings import findings
from harness.analysis.mapping import prove
from harness.analysis.measured import Measured
from harness.analysis.record import Analysis, analyse, analysis_path, catalog_of
from harness.records.file import Results


def build(results: Results, prove_mapping: bool = True) -> Analysis:
    """Every comparison within the file, the findings they support and, with `prove_mapping`, the mapping claims
    proven (on the file's recorded evidence, compiling only what it lacks)."""
    an = analyse(results.results, results.path.name, catalog_of(results.header))
    an.findings = findings(Measured(results, an))
    if prove_mapping:
        an.mapping = prove(results.results, results.header.versions)
    return an


def write_beside(results_path: Path, results: Results, prove_mapping: bool = True) -> Analysis:
    """Analyse a results file (as loaded) and write the record beside it (`<stem>.analysis.json`)."""
    an = build(results, prove_mapping)
    an.source_bytes = results_path.stat().st_size
    an.write(analysis_path(results_path))
    return an
