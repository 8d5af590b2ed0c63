"""The main loop of a compiled kernel, read statically from its SASS: what ptxas decided inside the loop that does
the work, so that two compilers' code for one tile can be compared where their instruction counts agree.

The loop is the backward branch whose body holds the most FFMA. Inside it, per instruction, the 128-bit encoding's
control bits (Volta onwards: stall cycles, the scoreboards an instruction sets and waits on, the operand reuse
flags; the layout published by Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking",
arXiv:1804.06826, section 2, and unchanged through Hopper's encoding as cuobjdump prints it) give:

- issue cycles: the stall counts summed over the body, the fewest cycles one warp takes to issue it when nothing it
  waits on is late (an FFMA issued back to back has a stall of 1);
- operand reuse: FFMA source operands flagged `.reuse`, and the source reads the reuse cache serves (an operand
  whose slot in the previous instruction held the same register with the flag set);
- register-bank pressure: FFMAs whose sources read from the register file (neither served by the reuse cache nor
  RZ) fall two or three into one bank. The rule is the published one for Volta and Turing (two banks of 64-bit
  width, bank = register number % 2: Jia et al. 2018 above, and the Turing report, arXiv:1903.07486); Hopper's is
  not published, and Ampere's was found to depend on the operand's role too (Huerta et al., "Analyzing Modern
  NVIDIA GPU cores", arXiv:2503.20481, section 5.3). On an H100 the summit's ablation (harness/run/ablation.py) measured
  it: FFMAs with two file reads in one bank added to the CUDA kernel's own cubin, nothing else changed, slow it;
  three in one bank occur in none of the summit's Gluon or CUDA loops;
- shared-memory loads: how far, in issue cycles, the first instruction that waits on an LDS's scoreboard comes
  after it (an LDS takes about 30 cycles to return on Hopper; with two warps a scheduler, what one warp's distance
  leaves short the other warp must cover).

All static: counts of code in the body, not of what ran (executed counts come from the ncu profile).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Instruction", "loop_facts", "main_loop", "parse_listing", "read_listing"]

_LINE = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/\s+(.*?)\s*;\s*/\*\s*0x([0-9a-fA-F]{16})\s*\*/")
_HI = re.compile(r"^\s*/\*\s*0x([0-9a-fA-F]{16})\s*\*/\s*$")
_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
_REG = re.compile(r"\bR(\d+)(\.reuse)?\b")
_BRA = re.compile(r"\bBRA\b[^0-9]*?(0x[0-9a-fA-F]+)\s*$")
NO_BARRIER = 7


@dataclass(frozen=True)
class Instruction:
    address: int
    text: str        # as cuobjdump prints it, without the trailing ';'
    stall: int       # cycles before the warp's next instruction may issue
    write_sb: int    # scoreboard set when the result lands (7: none)
    wait_mask: int   # scoreboards waited on before issue

    @property
    def opcode(self) -> str:
        body = self.text.split(None, 1) if not self.text.startswith("@") else self.text.split(None, 2)[1:]
        return body[0] if body else ""

    @property
    def operands(self) -> list[str]:
        head = self.text.split(None, 2) if self.text.startswith("@") else [None, *self.text.split(None, 1)]
        return [o.strip() for o in head[2].split(",")] if len(head) > 2 else []


def parse_listing(text: str) -> dict[str, list[Instruction]]:
    """Every function's instructions, with the control bits of each (cuobjdump -sass output)."""
    out: dict[str, list[Instruction]] = {}
    current: list[Instruction] | None = None
    pending: tuple[int, str] | None = None
    for line in text.splitlines():
        if m := _FUNCTION.match(line):
            current = out.setdefault(m.group(1), [])
            pending = None
        elif (m := _LINE.match(line)) and current is not None:
            pending = (int(m.group(1), 16), m.group(2))
        elif (m := _HI.match(line)) and pending is not None and current is not None:
            hi = int(m.group(1), 16)
            current.append(Instruction(pending[0], pending[1], (hi >> 41) & 0xF, (hi >> 46) & 7, (hi >> 52) & 0x3F))
            pending = None
    return out


def read_listing(cubin: Path | str, function: str | None = None) -> list[Instruction]:
    """One function's instructions (the only one, or the named one) from a cubin."""
    from harness.inspect.tools import find_tool, run

    proc = run([find_tool("cuobjdump"), "-sass", cubin])
    if proc.returncode != 0:
        raise RuntimeError(f"cuobjdump -sass {cubin}: {proc.stderr.strip()}")
    functions = parse_listing(proc.stdout)
    if function is None and len(functions) == 1:
        return next(iter(functions.values()))
    if function not in functions:
        raise RuntimeError(f"function {function!r} not in {cubin}; it holds {sorted(functions)}")
    return functions[function]


def main_loop(code: Sequence[Instruction]) -> list[Instruction]:
    """The innermost loop (a backward branch whose body holds no other) with the most FFMA, the shorter body where
    two tie (a kernel with a 16-byte and a 4-byte path has two such loops); empty where there is none."""
    at = {ins.address: i for i, ins in enumerate(code)}
    edges = [(at[t], i) for i, ins in enumerate(code) if (m := _BRA.search(ins.text))
             and (t := int(m.group(1), 16)) <= ins.address and t in at]
    inner = [(a, b) for a, b in edges if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in edges)]
    if not inner:
        return []
    a, b = max(inner, key=lambda e: (_count(code[e[0]:e[1] + 1], "FFMA"), -(e[1] - e[0])))
    return list(code[a:b + 1])


def _count(body: Sequence[Instruction], opcode: str) -> int:
    return sum(1 for ins in body if ins.opcode.split(".")[0] == opcode)


def _registers(operand: str) -> list[tuple[int, bool]]:
    return [(int(n), bool(r)) for n, r in _REG.findall(operand)]


def _lds_registers(ins: Instruction) -> set[int]:
    width = {"64": 2, "128": 4}.get(ins.opcode.rsplit(".", 1)[-1], 1)
    dest = _registers(ins.operands[0])
    return set(range(dest[0][0], dest[0][0] + width)) if dest else set()


def loop_facts(code: Sequence[Instruction]) -> dict[str, float]:
    """The main loop's static facts (the module's docstring), keyed `loop.*`; empty where there is no loop."""
    body = [ins for ins in main_loop(code) if not ins.text.startswith("@!PT ")]  # never-executed padding
    if not body:
        return {}
    ffma = [ins for ins in body if ins.opcode.split(".")[0] == "FFMA"]
    lds = [i for i, ins in enumerate(body) if ins.opcode.split(".")[0] == "LDS"]
    facts: dict[str, float] = {
        "loop.instructions": len(body), "loop.ffma": len(ffma), "loop.lds": len(lds),
        "loop.bar": _count(body, "BAR"), "loop.issue_cycles": sum(ins.stall for ins in body)}
    # operand reuse and register banks over the FFMAs' three sources (slots 0-2)
    cache: dict[int, int | None] = {}
    flagged = served = file_reads = pairs = triples = 0
    for ins in body:
        sources = [(_registers(o) or [(-1, False)])[0] for o in ins.operands[1:4]]
        is_ffma = ins.opcode.split(".")[0] == "FFMA"
        banks: list[int] = []
        for slot, (reg, reuse) in enumerate(sources):
            if is_ffma and reg >= 0:
                flagged += reuse
                if cache.get(slot) == reg:
                    served += 1
                elif reg != 255:  # RZ reads no bank
                    file_reads += 1
                    banks.append(reg % 2)
            cache[slot] = reg if reuse else None
        if is_ffma:
            worst = max((banks.count(b) for b in (0, 1)), default=0)
            pairs += worst >= 2
            triples += worst >= 3
    facts.update({"loop.reuse_flags": flagged, "loop.reuse_served": served, "loop.file_reads": file_reads,
                  "loop.same_bank_ffma": pairs, "loop.same_bank3_ffma": triples})
    # each LDS: issue cycles until the first instruction that waits on its scoreboard, or reads what it loads
    gaps = []
    for i in lds:
        regs, sb = _lds_registers(body[i]), body[i].write_sb
        cycles = body[i].stall
        for ins in body[i + 1:]:
            waits = sb != NO_BARRIER and ins.wait_mask >> sb & 1
            reads = any(r in regs for o in ins.operands[1:] for r, _ in _registers(o))
            if waits or reads:
                break
            cycles += ins.stall
        gaps.append(cycles)
    if gaps:
        facts.update({"loop.lds_to_wait_min": min(gaps), "loop.lds_under_30": sum(1 for g in gaps if g < 30)})
    return facts


# ------------------------------------------------------------------------------------------------- reuse ablation
def reuse_candidates(code: Sequence[Instruction]) -> dict[str, list[tuple[int, int]]]:
    """In the main loop, the reuse flags (address, operand slot) whose removal would make the next FFMA read all three
    sources from the register file, by where they would fall: "split" (two in one bank, one in the other: a conflict
    under a rule of one read per bank and cycle, none under the published two-reads rule) and "one bank" (all three
    in one bank: a conflict under either rule)."""
    body = main_loop(code)
    out: dict[str, list[tuple[int, int]]] = {"split": [], "one bank": []}
    for ins, nxt in itertools.pairwise(body):
        if ins.opcode.split(".")[0] != "FFMA" or nxt.opcode.split(".")[0] != "FFMA":
            continue
        here = [(_registers(o) or [(-1, False)])[0] for o in ins.operands[1:4]]
        after = [(_registers(o) or [(-1, False)])[0][0] for o in nxt.operands[1:4]]
        flagged = [s for s, (reg, reuse) in enumerate(here) if reuse and after[s] == reg]
        if len(flagged) != 1 or -1 in after or 255 in after:
            continue  # the next FFMA would still have a cached operand, or reads RZ or an immediate
        banks = [r % 2 for r in after]
        out["one bank" if len(set(banks)) == 1 else "split"].append((ins.address, flagged[0]))
    return out


def _text_section(elf: bytes, function: str) -> int:
    """The file offset of a cubin's `.text.<function>` section (ELF64, little-endian)."""
    import struct

    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    def header(i: int) -> tuple[int, int]:
        name, _, _, _, offset = struct.unpack_from("<IIQQQ", elf, shoff + i * shentsize)
        return name, offset
    strings = header(shstrndx)[1]
    for i in range(shnum):
        name, offset = header(i)
        end = elf.index(b"\0", strings + name)
        if elf[strings + name:end].decode() == f".text.{function}":
            return offset
    raise ValueError(f"no .text.{function} section in the cubin")


def clear_reuse(cubin: bytes, function: str, flags: Sequence[tuple[int, int]]) -> bytes:
    """The cubin with the reuse flag of each (address, operand slot) cleared: bit 58 + slot of an instruction's upper
    64 bits (the layout of the module's docstring). A reuse flag only lets the next instruction take an operand from
    the operand cache instead of the register file, so clearing one changes where a value is read, never the value."""
    out = bytearray(cubin)
    base = _text_section(cubin, function)
    for address, slot in flags:
        at = base + address + 8
        hi = int.from_bytes(out[at:at + 8], "little")
        if not hi >> (58 + slot) & 1:
            raise ValueError(f"no reuse flag at {address:#x} slot {slot}")
        out[at:at + 8] = (hi & ~(1 << (58 + slot))).to_bytes(8, "little")
    return bytes(out)
