"""What the compilers chose: resource and SASS tables, and the measured differences between two kernels.

`contrast` is where a finding's "why" comes from: it names only differences the compiled kernels show
(spills, registers, load widths in the SASS, theoretical occupancy), each with its numbers, strongest
first. It never guesses beyond them.
"""

from __future__ import annotations

from harness.report import fmt
from harness.report.measured import Measured
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


def contrast(m: Measured, fast: Result, slow: Result, fast_name: str, slow_name: str) -> list[str]:
    """The differences between two compiled kernels that bear on speed, strongest first, with numbers."""
    a, b = fast.resources, slow.resources
    if a is None or b is None or a.registers is None or b.registers is None:
        return []
    out: list[str] = []
    for x, y, xn, yn in ((slow, fast, slow_name, fast_name), (fast, slow, fast_name, slow_name)):
        if _spills(x) and not _spills(y):
            out.append(f"{xn} spills {_spills(x)} B to local memory at {x.resources.registers} registers, "
                       f"{yn} holds {y.resources.registers} with no spills")
            break
    if _sass(fast, "LDG.128") and not _sass(slow, "LDG.128", "LDG.64") and _sass(slow, "LDG.32"):
        out.append(f"{fast_name} loads global memory with {_sass(fast, 'LDG.128')} LDG.128 while {slow_name} "
                   f"uses LDG.32 only")
    vec = [(_sass(r, "LDS.64", "LDS.128", "LDSM"), _sass(r, "LDS.32")) for r in (fast, slow)]
    if vec[0][0] and vec[1][1] and vec[0][0] / max(1, sum(vec[0])) >= 2 * vec[1][0] / max(1, sum(vec[1])):
        out.append(f"{vec[0][0]} of {fast_name}'s {sum(vec[0])} shared-memory loads are 64 or 128 bits wide "
                   f"while {vec[1][1]} of {slow_name}'s {sum(vec[1])} are LDS.32")
    occ_f, occ_s = m.occupancy(fast), m.occupancy(slow)
    if occ_f and occ_s and occ_f.fraction > 0 and occ_s.fraction > 0:
        hi, lo = max(occ_f.fraction, occ_s.fraction), min(occ_f.fraction, occ_s.fraction)
        if hi / lo >= 1.5:
            low = occ_s if occ_s.fraction == lo else occ_f
            out.append(f"theoretical occupancy is {fmt.pct_round(occ_f.fraction)} for {fast_name} against "
                       f"{fmt.pct_round(occ_s.fraction)} for {slow_name} (the lower one limited by {low.limiter})")
    ldg = (_sass(fast, "LDG.32", "LDG.64", "LDG.128"), _sass(slow, "LDG.32", "LDG.64", "LDG.128"))
    if min(ldg) and max(ldg) / min(ldg) >= 3:
        out.append(f"{fast_name} has {ldg[0]} global load instructions against {ldg[1]} in {slow_name} "
                   f"(static counts)")
    if not out and a.registers != b.registers:
        out.append(f"{fast_name} uses {a.registers} registers against {b.registers} in {slow_name}")
    return out


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
