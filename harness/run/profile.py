"""`rosetta run --profile`: the profile stage. Nsight Compute's counters of the records the analysis's causes and steps
read counters of (harness/analysis/steps.py counter_rows), each launched in the configuration its timed run chose,
stored with its record as soon as they are read (harness/records/file.py attach_profiles), then the analysis made again
with them. harness/inspect/profile.py takes the counters and returns them; writing them into the results file is this
stage's.
"""

from __future__ import annotations

import time
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
    `catalog`, launched in the configuration its timed run chose (pinned), its counters stored with its record as
    soon as they are read. Writes profile-<time>.json in out_dir; a record that cannot be profiled is named and the
    rest go on."""
    configs = {p.key: autotuned_configs(results, p) for p in {t[0] for t in targets}}

    def store(row: profile.ProfileRow) -> None:
        if row.metrics and not row.error:
            attach_profiles(results, {RecordKey.of(row.kernel, row.impl, Problem.from_json(row.problem)): row.metrics})

    return profile.profile_each([(catalog.kernel(kernel_id) if kernel_id else None, impl, problem,
                                  configs[problem.key].get(KernelImpl(kernel_id, impl)))
                                 for problem, kernel_id, impl in targets], out_dir, console, store,
                                {"results": str(results)})


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
