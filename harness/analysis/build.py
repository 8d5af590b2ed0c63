"""A results file's analysis record, built and written beside it: its comparisons (record.py), its findings
(findings.py), every further comparison the page reads (`finish`) and its proven mapping (mapping.py)."""

from __future__ import annotations

from pathlib import Path

from harness.analysis.claims import claims_table, unroll_check
from harness.analysis.compiled import build_pairs
from harness.analysis.findings import findings
from harness.analysis.mapping import prove
from harness.analysis.measured import Measured
from harness.analysis.overview import headline_rows, idea_rows
from harness.analysis.record import Analysis, analyse, analysis_path, catalog_of
from harness.analysis.steps import hopper_steps, ladder_steps
from harness.records.file import Results


def finish(m: Measured) -> Analysis:
    """The record with every comparison the page reads made and kept in it (Measured.between keeps each one it
    makes): the headline's and each idea's best against best, the ladders' steps, the documents' orders, the unroll
    claim and the build study, so that rendering the record compares nothing."""
    for made in (headline_rows, idea_rows, ladder_steps, hopper_steps, claims_table, unroll_check, build_pairs):
        made(m)
    return m.analysis


def build(results: Results, prove_mapping: bool = True) -> Analysis:
    """Every comparison within the file, the findings they support and, with `prove_mapping`, the mapping claims
    proven (on the file's recorded evidence, compiling only what it lacks)."""
    an = analyse(results.results, results.path.name, catalog_of(results.header))
    m = Measured(results, an)
    an.findings = findings(m)
    finish(m)
    if prove_mapping:
        an.mapping = prove(results.results, results.header.versions)
    return an


def write_beside(results_path: Path, results: Results, prove_mapping: bool = True) -> Analysis:
    """Analyse a results file (as loaded) and write the record beside it (`<stem>.analysis.json`)."""
    an = build(results, prove_mapping)
    an.source_bytes = results_path.stat().st_size
    an.write(analysis_path(results_path))
    return an
