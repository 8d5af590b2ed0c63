"""`rosetta run --profile`: the profile stage. Nsight Compute's counters of the records the analysis's causes and steps
read counters of (harness/analysis/steps.py counter_rows), each launched in the configuration its timed run chose,
stored with its record as soon as they are read (harness/records/file.py attach_profiles), then the analysis made again
with them. harness/inspect/profile.py takes the counters and returns them; writing them into the results file is this
stage's.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.analysis.build import write_beside
from harness.analysis.measured import Measured
from harness.analysis.record import Analysis
from harness.catalog_types.tables import Catalog
from harness.identity import KernelImpl, RecordKey
from harness.inspect import profile
from harness.problems import Problem
from harness.records.file import attach_profiles, autotuned_configs, load


def profile_records(results: Path, targets: list[tuple[Problem, str | None, str]], catalog: Catalog, out_dir: Path,
                    console: Any) -> list[profile.ProfileRow]:
    """ncu on the given records of a results file: (problem, kernel id, impl) each, the kernel found in the run's
    `catalog`, launched in the configuration its timed run chose (pinned, as `profile` pins it), its counters stored
    with its record as soon as they are read. Writes profile-<time>.json in out_dir; a record that cannot be profiled
    is named and the rest go on."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = out_dir / f"profile-{stamp}.json"
    configs = {p.key: autotuned_configs(results, p) for p in {t[0] for t in targets}}
    rows: list[profile.ProfileRow] = []
    for problem, kernel_id, impl in targets:
        kernel = catalog.kernel(kernel_id) if kernel_id else None
        row = profile.profile_one(kernel, impl, problem, configs[problem.key].get(KernelImpl(kernel_id, impl)))
        rows.append(row)
        if row.metrics and not row.error:
            attach_profiles(results, {RecordKey.of(kernel_id, impl, problem): row.metrics})
        console.print(f"{'ok  ' if not row.error else 'FAIL'} {kernel_id or impl} [{impl}] {problem.shape_label}"
                      + (f": {row.error}" if row.error else ""), markup=False)
        path.write_text(json.dumps({"started": stamp, "results": str(results), "metrics": profile.asked_metrics(),
                                    "rows": [asdict(r) for r in rows]}, indent=1))
    console.print(f"profile: {len(rows)} records, {sum(r.error is not None for r in rows)} without counters; {path}",
                  markup=False)
    return rows


def profile_headlines(out_path: Path, analysis: Analysis, catalog: Catalog, console: Any) -> Analysis:
    """The stage: ncu on the records the causes and steps read counters of, their counters stored with the records,
    then the analysis made again with them."""
    from harness.analysis.steps import counter_rows

    started = time.perf_counter()
    targets = counter_rows(Measured(load(out_path), analysis))
    console.print(f"profile: {len(targets)} records under Nsight Compute", markup=False)
    profile_records(out_path, targets, catalog, out_path.parent, console)
    again = write_beside(out_path, load(out_path))
    console.print(f"profile took {time.perf_counter() - started:.0f} s", markup=False)
    return again
