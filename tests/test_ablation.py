"""The SIMT summit's ablation: the static facts of a main loop read from SASS (control bits, operand reuse, register
banks, shared-memory load distances), the reuse-flag patch that adds bank conflicts to a cubin and nothing else, the
declared variants (each changes one thing of the one it names), and the analysis that names a cause only where the
control (CUDA) moves with it.

The timings are made up: nothing here is a measurement, only the plumbing and the rules are tested.
"""

from __future__ import annotations

import inspect
import json
import struct
from pathlib import Path

import pytest

from harness.analysis import ablation as found
from harness.analysis.verdicts import Call
from harness.inspect.sass_loop import Instruction, clear_reuse, loop_facts, main_loop, parse_listing, reuse_candidates
from harness.report import ablation as said
from harness.run import ablation


def _hi(stall: int = 1, wait: int = 0, write_sb: int = 7, reuse: tuple[int, ...] = ()) -> int:
    return (stall << 41) | (1 << 45) | (write_sb << 46) | (7 << 49) | (wait << 52) | sum(1 << (58 + s) for s in reuse)


def _listing(body: list[tuple[str, int]]) -> str:
    """A cuobjdump-style listing of one function from (text, upper 64 bits) pairs, 16 bytes an instruction."""
    lines = ["\tFunction : k"]
    for i, (text, hi) in enumerate(body):
        lines.append(f"        /*{16 * i:04x}*/                   {text} ;   /* 0x{0:016x} */")
        lines.append(f"                                                    /* 0x{hi:016x} */")
    return "\n".join(lines)


# a loop: an LDS.128 into R8..R11 waited on 3 cycles later, and FFMAs whose reuse and banks are known
LOOP = [
    ("MOV R0, RZ", _hi()),
    ("LDS.128 R8, [R2]", _hi(write_sb=1)),
    ("FFMA R20, R4.reuse, R6, R20", _hi(reuse=(0,))),      # R4, R6, R20 all in bank 0
    ("FFMA R21, R4, R7, R21", _hi(stall=2)),               # R4 from the cache; R7, R21 bank 1: same bank
    ("FFMA R22, R8, R9, R23", _hi(wait=0b10)),             # waits on the LDS; R8, R9, R23: banks 0, 1, 1
    ("@!PT LDS R30, [R2]", _hi()),                         # padding that never runs: not counted
    ("@P0 BRA 0x10", _hi()),
]


def test_the_main_loop_and_its_control_bits_are_read_from_the_listing():
    code = parse_listing(_listing(LOOP))["k"]
    assert [i.stall for i in code[:4]] == [1, 1, 1, 2] and code[1].write_sb == 1 and code[4].wait_mask == 0b10
    body = main_loop(code)
    assert body[0].address == 0x10 and body[-1].text == "@P0 BRA 0x10"
    f = loop_facts(code)
    assert f["loop.ffma"] == 3 and f["loop.lds"] == 1  # the @!PT padding is not counted
    assert f["loop.reuse_flags"] == 1 and f["loop.reuse_served"] == 1
    assert f["loop.file_reads"] == 8 and f["loop.same_bank_ffma"] == 3 and f["loop.same_bank3_ffma"] == 1
    # the LDS's result is waited on after its own stall and two FFMAs': 1 + 1 + 2 cycles
    assert f["loop.lds_to_wait_min"] == 4 and f["loop.lds_under_30"] == 1
    assert f["loop.issue_cycles"] == sum(i.stall for i in body if not i.text.startswith("@!PT"))


def test_a_reuse_flag_whose_removal_leaves_three_file_reads_is_a_split_candidate():
    code = parse_listing(_listing(LOOP))["k"]
    assert reuse_candidates(code) == {"split": [(0x20, 0)], "one bank": []}


def _elf(text: bytes, name: str = "k") -> bytes:
    """A minimal ELF64 with a null section, .shstrtab and .text.<name> (enough for the section lookup)."""
    strtab = b"\0.shstrtab\0.text." + name.encode() + b"\0"
    body_at = 64
    strtab_at = body_at + len(text)
    shoff = strtab_at + len(strtab)
    header = bytearray(64)
    header[:4] = b"\x7fELF"
    struct.pack_into("<Q", header, 0x28, shoff)
    struct.pack_into("<HHH", header, 0x3A, 64, 3, 1)
    sections = b"".join(struct.pack("<IIQQQQIIQQ", nm, 1, 0, 0, off, size, 0, 0, 1, 0)
                        for nm, off, size in ((0, 0, 0), (1, strtab_at, len(strtab)), (11, body_at, len(text))))
    return bytes(header) + text + strtab + sections


def test_clearing_a_reuse_flag_changes_that_bit_and_nothing_else():
    words = [(0x1234, _hi(reuse=(0, 1))), (0x5678, _hi())]
    cubin = _elf(b"".join(struct.pack("<QQ", lo, hi) for lo, hi in words))
    patched = clear_reuse(cubin, "k", [(0x0, 1)])
    diff = [i for i, (a, b) in enumerate(zip(cubin, patched, strict=True)) if a != b]
    assert len(diff) == 1 and diff[0] == 64 + 8 + 7  # bit 59 of the first instruction's upper word
    lo, hi = struct.unpack_from("<QQ", patched, 64)
    assert hi == _hi(reuse=(0,)) and lo == 0x1234
    with pytest.raises(ValueError, match="no reuse flag"):
        clear_reuse(patched, "k", [(0x0, 1)])


def test_every_variant_changes_one_thing_of_a_declared_base():
    names = [v.name for v in ablation.VARIANTS]
    assert len(set(names)) == len(names) and {"cuda", "cublas", found.SUBJECT, found.CONTROL} <= set(names)
    for v in ablation.VARIANTS:
        if v.base:
            assert names.index(v.base) < names.index(v.name), f"{v.name}: its base is built first"
            base = next(b for b in ablation.VARIANTS if b.name == v.base)
            changed = [v.assembler != base.assembler, v.clear_reuse != base.clear_reuse,
                       dict(v.settings) != dict(base.settings)]
            assert sum(changed) == 1, f"{v.name} changes {sum(changed)} things of {v.base}"
    assert set(found.ASSEMBLERS) <= {v.name for v in ablation.VARIANTS if v.assembler}


def test_the_assembler_swaps_pass_what_tritons_backend_passes():
    pytest.importorskip("triton")
    from triton.backends.nvidia.compiler import CUDABackend

    source = inspect.getsource(CUDABackend.make_cubin)
    assert all(f"'{o}'" in source or f'"{o}"' in source for o in ablation.TRITON_PTXAS_OPTIONS)


def _samples(factor: float, rounds: int = 12, batch: str = "b") -> dict:
    ms = [2.5 * factor * (1 + 0.002 * ((r * 7) % 5 - 2)) for r in range(rounds)]
    return {"ms": ms, "mhz": [1980.0] * rounds, "per_round": [1] * rounds, "order": list(range(rounds)),
            "batch": batch, "max_mhz": 1980.0}


def _study(times: dict[str, float]) -> dict:
    facts = {"cuda": 293, found.SUBJECT: 629, found.CONTROL: 629}
    rows = {n: {"samples": _samples(f), "error": 1e-7,
                **({"facts": {"loop.ffma": 2048, found.BANKS: facts[n]}} if n in facts else {})}
            for n, f in times.items()}
    return {"record": "simt-ablation", "kernel": ablation.KERNEL, "device": "made up",
            "variants": [v.to_json() for v in ablation.VARIANTS], "sizes": {"4096": rows}}


def test_a_control_that_reproduces_the_gap_names_register_banks_and_the_same_assembler_swaps_are_ruled_out():
    times = {"cublas": 1.02, "cuda": 1.0, found.SUBJECT: 1.087, found.CONTROL: 1.08, "cuda, Triton's ptxas": 1.001,
             "gluon dot, the toolkit's ptxas": 1.086}
    a = found.ablation_of(json.loads(json.dumps(_study(times))))
    c = a.at(4096).cause
    assert c is not None and c.named and c.added == 336 and c.gluon == 629
    assert c.control.call is Call.SLOW and 0.85 < c.share < 1.0
    assert [n for n, _ in c.ruled_out] == list(found.ASSEMBLERS)
    text = said.cause_sentence(c, 4096)
    assert "registers ptxas assigns" in text and "Ruled out, the assembler" in text
    assert any("cuda, Triton's ptxas" in line for line in said.lines(a))


def test_a_control_that_stays_the_same_names_no_cause():
    times = {"cublas": 1.02, "cuda": 1.0, found.SUBJECT: 1.087, found.CONTROL: 1.001}
    c = found.ablation_of(_study(times)).at(4096).cause
    assert c is not None and not c.named and c.control.call is Call.SAME
    assert "do not explain" in said.cause_sentence(c, 4096)


def test_instruction_operands_are_read_past_a_guard_predicate():
    ins = Instruction(0, "@!P0 FFMA R1, R2.reuse, R3, R1", 1, 7, 0)
    assert ins.opcode == "FFMA" and ins.operands == ["R1", "R2.reuse", "R3", "R1"]


# the catalog's forms (mirror, dot, ordered: tests/test_gluon_compile.py) hold every setting the variants use but the
# B-major register order
@pytest.mark.parametrize("variant", [v for v in ablation.VARIANTS if ("ORDER", 1) in v.settings][:1],
                         ids=lambda v: v.name)
def test_the_b_major_gluon_variant_compiles_for_sm90a_without_spilling(variant):
    pytest.importorskip("triton")
    import dataclasses

    from harness.inspect.compile_gluon import gluon_resources
    from harness.launch.gluon import unavailable
    from harness.registry import get

    if (why := unavailable()) is not None:
        pytest.skip(why)
    kernel = get(ablation.KERNEL)
    mirror = kernel.gluon_form("mirror")
    form = dataclasses.replace(mirror, name=variant.name, params={**mirror.params, **dict(variant.settings)})
    r = gluon_resources([(kernel, form)])[0]
    assert r.spill_stores == 0 and r.local_bytes == 0 and r.sass["FFMA"] >= 2 * 2048


def test_a_page_takes_the_newest_ablation_of_its_own_device_and_names_its_file(tmp_path):
    committed = next(p for p in sorted((Path(__file__).parents[1] / "results").glob("*.ablation.json")))
    data = json.loads(committed.read_text())
    run = tmp_path / "nvidia-x-20990101T000000Z.jsonl"
    (tmp_path / "nvidia-x-20990101T000001Z.ablation.json").write_text(json.dumps({**data, "device": "another GPU"}))
    assert found.newest_for(run, data["device"]) is None   # another device's ablation is not this run's evidence
    (tmp_path / "nvidia-x-20980101T000000Z.ablation.json").write_text(json.dumps(data))
    taken, name = found.newest_for(run, data["device"])
    assert name == "nvidia-x-20980101T000000Z.ablation.json" and taken.device == data["device"]
    (tmp_path / run.name.replace(".jsonl", ".ablation.json")).write_text(json.dumps(data))
    assert found.newest_for(run, data["device"])[1] == run.name.replace(".jsonl", ".ablation.json")  # its own first


def test_ablate_show_prints_a_written_ablation_without_a_gpu(capsys):
    # `rosetta ablate RESULTS --show`, as README's users read a committed ablation: the variants, then the cause
    from harness.cli import main

    committed = next(p for p in sorted((Path(__file__).parents[1] / "results").glob("*.ablation.json")))
    results = committed.with_name(committed.name.replace(".ablation.json", ".jsonl"))
    assert main(["ablate", str(results), "--show"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == said.lines(found.read(committed)) and out[0].endswith("):")
    assert "With CUDA as the control" in "\n".join(out)
