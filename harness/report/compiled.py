"""What the compilers chose: the resource and SASS tables of each idea's kernels.

Why one kernel is faster than another is not read off these tables here: causes.py weighs their facts beside the
counters and states only those that point the way the speed does.
"""

from __future__ import annotations

from harness.analysis.measured import Measured
from harness.report import fmt
from harness.report.tables import Cell, Table
from harness.run.records import Result

# The SASS classes every table shows, even at zero: a zero is the finding (no LDG.128, no HMMA), so these
# columns never disappear. Other classes appear only where some kernel emits them.
SASS_ALWAYS = ("FFMA", "LDG.32", "LDG.64", "LDG.128", "LDS.32", "LDS.64", "LDS.128", "BAR", "SHFL", "HMMA",
               "HGMMA")
SASS_WHEN_PRESENT = ("FMUL", "FADD", "LDSM", "STS", "STSM", "LDGSTS", "UTMALDG", "STG", "LDL", "STL")


def _sass(r: Result, *keys: str) -> int:
    mix = r.resources.sass if r.resources else {}
    return sum(int(mix.get(k, 0)) for k in keys)


def _spills(r: Result) -> int:
    return int(r.resources.spills or 0) if r.resources else 0


def resources_table(m: Measured, records: list[Result]) -> Table:
    table = Table([("kernel", False), ("implementation", False), ("registers", True), ("shared / block", True),
                   ("spills", True), ("threads", True), ("occupancy (sm_90)", True), ("limited by", False),
                   ("compiled by", False)], cls="resources")
    drivers = False
    for r in records:
        res = r.resources
        assert res is not None and res.registers is not None
        occ = m.occupancy(r)
        regs = str(res.registers)
        if res.driver and res.driver.get("registers") not in (None, res.registers):
            regs += f" ({res.driver['registers']}*)"
            drivers = True
        spills = _spills(r)
        threads = m.threads(r)
        table.add([Cell(r.kernel or "", code=True), Cell(r.label), Cell(regs, num=True),
                   Cell(fmt.nbytes(res.shared_bytes), num=True),
                   Cell(f"{spills} B" if spills else "0", num=True, cls="bad" if spills else ""),
                   Cell(str(threads) if threads else "—", num=True),
                   Cell(fmt.pct_round(occ.fraction) if occ else "—", num=True),
                   Cell(f"{occ.blocks_per_sm} blocks/SM; {occ.limiter}" if occ else "", cls="muted"),
                   Cell(res.source or "?", cls="muted")])
    table.notes.append("registers per thread and spill bytes as ptxas reports them; occupancy is theoretical "
                       "(sm_90 limits: 64 warps, 64K registers, 228 KiB shared memory per SM) from those "
                       "registers, the shared memory and the launch's threads (Triton: num_warps x 32).")
    if drivers:
        table.notes.append("* what the driver reports for the loaded function, where it differs from the "
                           "compile-time count.")
    return table


def sass_table(records: list[Result]) -> Table | None:
    mixes = [(r, r.resources.sass) for r in records if r.resources and r.resources.sass]
    if not mixes:
        return None
    extra = [k for k in SASS_WHEN_PRESENT if any(mix.get(k) for _, mix in mixes)]
    cols = [*SASS_ALWAYS, *extra, "total"]
    table = Table([("kernel", False), ("implementation", False), *((c, True) for c in cols)], cls="sass")
    for r, mix in mixes:
        table.add([Cell(r.kernel or "", code=True), Cell(r.label),
                   *(Cell(str(mix.get(c, 0)), num=True, cls="" if mix.get(c) else "zero") for c in cols)])
    table.notes.append("static instruction counts in the compiled kernel (not executed counts). LDG/LDS.32, .64, "
                       ".128: global / shared loads by width in bits; LDSM: matrix loads from shared memory; "
                       "LDGSTS: asynchronous global-to-shared copies; HMMA/HGMMA: tensor-core instructions; "
                       "LDL/STL: local memory (spills).")
    return table


def compiled_records(m: Measured, kernel_ids: list[str]) -> tuple[list[Result], list[str]]:
    """One record with resources per (kernel, implementation), and a sentence for each that has none."""
    rows, missing = [], []
    for kid, impl in m.implementations:
        if kid not in kernel_ids:
            continue
        r = m.compiled(kid, impl)
        if r is not None:
            rows.append(r)
            continue
        any_rec = m.of_kernel(kid, impl)[0]
        error = any_rec.resources.error if any_rec.resources else None
        reason = fmt.first_line(any_rec.reason, 200)
        why = (f" (the compile failed: {fmt.first_line(error, 200)})" if error else
               f" ({any_rec.status.value}: {reason})" if reason else " in this run")
        missing.append(f"{kid} [{any_rec.label}]: no resource report{why}")
    return rows, missing
