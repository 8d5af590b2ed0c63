"""The findings that open the report, each kind one typed declaration (harness/analysis/found.py): its figures, kept in
the analysis record as JSON, and its rule over the results (`find`). The page words each kind
(harness/report/findings.py).

Nothing here is about a particular kernel: every finding is a rule over the results (best per idea and model, the
widest gaps, the documents' claims, the shared Triton kernels, what Triton cannot take) that finds nothing where the
results hold nothing for it. A comparison is kept as the analysis record's own (harness/analysis/record.py), with its
call and interval: the sentence says what its call says, never more (harness/analysis/verdicts.py).
"""

from __future__ import annotations

# the kinds, registered in the order the findings are listed
from harness.analysis import model_findings, run_findings  # noqa: F401
from harness.analysis.found import KINDS, Found
from harness.analysis.measured import Measured

MAX_FINDINGS = 10


def recorded(m: Measured) -> list[Found]:
    """The findings of the record beside the file, typed once (and kept so in it); a record written before findings
    were recorded as these types (or none) gets them made now, by the same rules."""
    found = m.analysis.findings
    try:
        typed = findings(m) if found is None else [f if isinstance(f, Found) else Found.from_json(f) for f in found]
    except (KeyError, TypeError, ValueError):
        typed = findings(m)
    m.analysis.findings = typed
    return typed


def findings(m: Measured) -> list[Found]:
    numbered = [f for cls in KINDS.values() if cls.NUMBERED for f in cls.find(m)][:MAX_FINDINGS]
    return numbered + [f for cls in KINDS.values() if not cls.NUMBERED for f in cls.find(m)]
