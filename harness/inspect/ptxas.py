"""What the assembler reports about a kernel: the `ptxas -v` log and `cuobjdump -res-usage`.

Both are the compiler's own accounting (registers, shared and local memory, stack, spills); nothing
here runs a kernel.
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.device.occupancy import SM90_SHARED_RESERVED_PER_BLOCK
from harness.inspect.tools import find_tool, run

__all__ = ["parse_ptxas_log", "res_usage", "reserved_shared"]

_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_LMEM = re.compile(r"(\d+) bytes lmem")
_BARRIERS = re.compile(r"used (\d+) barriers")


def parse_ptxas_log(text: str) -> dict[str, dict[str, int]]:
    """Per entry function: registers, smem, lmem, stack, spill_stores, spill_loads, barriers."""
    entries: dict[str, dict[str, int]] = {}
    current: str | None = None
    props_for: str | None = None
    for line in text.splitlines():
        if m := _ENTRY.search(line):
            current = m.group(1)
            props_for = None
            entries[current] = dict.fromkeys(
                ("registers", "smem", "lmem", "stack", "spill_stores", "spill_loads", "barriers"), 0)
        elif m := _PROPS.search(line):
            # Non-inlined device functions get their own properties block; their frames are already
            # part of the caller's stack size.
            props_for = m.group(1)
        elif m := _FRAME.search(line):
            if props_for is not None and props_for in entries:
                record = entries[props_for]
                record["stack"], record["spill_stores"], record["spill_loads"] = map(int, m.groups())
        elif (m := _USED.search(line)) and current is not None and props_for in (None, current):
            record = entries[current]
            record["registers"] = int(m.group(1))
            for key, pattern in (("smem", _SMEM), ("lmem", _LMEM), ("barriers", _BARRIERS)):
                if s := pattern.search(line):
                    record[key] = int(s.group(1))
    return entries


_RES_FUNCTION = re.compile(r"^\s*Function (\S+?):\s*$")
_RES_FIELD = re.compile(r"([A-Z_]+(?:\[\d+\])?):(\d+)")


def res_usage(cubin: Path) -> dict[str, dict[str, int]]:
    """Per function: REG, STACK, SHARED, LOCAL, ... from ``cuobjdump -res-usage``."""
    proc = run([find_tool("cuobjdump"), "-res-usage", cubin])
    if proc.returncode != 0:
        raise RuntimeError(f"cuobjdump -res-usage failed on {cubin}:\n{proc.stderr.strip()}")
    usage: dict[str, dict[str, int]] = {}
    current: str | None = None
    for line in proc.stdout.splitlines():
        if m := _RES_FUNCTION.match(line):
            current = m.group(1)
            usage[current] = {}
        elif current is not None and (fields := _RES_FIELD.findall(line)):
            usage[current].update({k: int(v) for k, v in fields})
            current = None
    return usage


def reserved_shared(arch: int) -> int:
    """cuobjdump's SHARED includes the driver-reserved 1 KiB on sm_80 and newer."""
    return SM90_SHARED_RESERVED_PER_BLOCK if arch >= 80 else 0
