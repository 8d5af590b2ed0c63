"""The SIMT summit's ablation: why its Gluon forms issue the CUDA kernel's instructions more slowly, one thing at a
time.

An experiment beside a run, as the knob study is (harness/knob_study.py): it times the CUDA summit, cuBLAS fp32 and
variants that each change one thing against the one they name as `base`, in the suite's interleaved rounds
(harness/measure/rounds.py), and keeps with every variant the static facts of the main loop of the very cubin it timed
(harness/inspect/sass_loop.py). What is changed, one at a time:

- the assembler: the CUDA kernel's PTX (NVRTC's, the suite's options) assembled by Triton's bundled ptxas with
  Triton's options, and a Gluon form's PTX assembled by the toolkit's ptxas (the version NVRTC embeds) with the same
  options: the instructions each front end hands to ptxas kept, the ptxas that schedules them swapped;
- the operand reuse, on the control: the CUDA cubin with reuse flags of its main loop cleared, each one chosen so
  that the next FFMA then reads two of its three sources from one register bank, as many as the Gluon dot form has
  more than CUDA per K tile, then all such flags (a second dose). A reuse flag decides where an operand is read
  from, never its value: nothing else in the cubin changes;
- the source: the Gluon mirror's register order (kernels_gluon/simt_general.py ORDER) and its fragment order
  (PRODUCT "prefetch"), and the Triton counterpart's dot split in two along N (kernels_triton/gemm_split.py), which
  change the PTX and so what ptxas assigns.

Every variant's output is checked against float64 first (normwise, loosely: the suite's numerics are elsewhere); a
wrong or failing one is recorded, not timed. harness/analysis/ablation.py makes the verdicts and names the cause;
this module plans and measures. The file is written as `<results>.ablation.json` beside a results file.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

KERNEL = "rosetta.sgemm_general<128,256,16,32,128,8,16,8>"
SIZES = (4096, 8192)
ROUNDS = 30
REP_MS = 400.0
# What triton 3.6's nvidia backend passes its ptxas besides the files (CUDABackend.make_cubin: line info, -v, the
# arch; --fmad=false only where fp fusion is off): both assembler swaps use these, so that only the ptxas moves.
TRITON_PTXAS_OPTIONS = ("-lineinfo", "-v")
# The PTX ISA each assembler takes at most: NVRTC 13.0's PTX (ISA 9.0) is given to ptxas 12.8 as 8.7 (it uses
# nothing past 8.7; the assembler refuses the file otherwise).
PTX_ISA = {"12.8": "8.7", "12.9": "8.8", "13.0": "9.0"}
TRITON, TOOLKIT = "triton", "toolkit"
ALL = -1   # clear_reuse: every candidate flag
EXCESS = 0  # clear_reuse: as many as the Gluon dot form's excess of same-bank FFMA over CUDA's


@dataclass(frozen=True)
class Variant:
    name: str
    model: str                          # "cublas", "cuda", "gluon" or "triton"
    moves: str                          # what it changes against `base`, in words
    base: str = ""                      # the variant it changes one thing of ("": none)
    settings: tuple = ()                # a Gluon variant's settings over the mirror's: (("PRODUCT", "dot_fma"), ...)
    assembler: str = ""                 # "": as built; TRITON or TOOLKIT: its PTX through that ptxas
    clear_reuse: int | None = None      # CUDA: main-loop reuse flags cleared, EXCESS or ALL

    def to_json(self) -> dict:
        return {k: (dict(v) if k == "settings" else v) for k, v in dataclasses.asdict(self).items()}


_DOT = (("PRODUCT", "dot_fma"),)
_PREFETCH = (("PRODUCT", "prefetch"),)
VARIANTS: tuple[Variant, ...] = (
    Variant("cublas", "cublas", "the yardstick: cuBLAS fp32"),
    Variant("cuda", "cuda", "the control: the suite's NVRTC build"),
    Variant("cuda, Triton's ptxas", "cuda", "its PTX assembled by Triton's ptxas with Triton's options", "cuda",
            assembler=TRITON),
    Variant("gluon dot", "gluon", "the dot form as built", settings=_DOT),
    Variant("gluon dot, the toolkit's ptxas", "gluon", "its PTX assembled by the toolkit's ptxas (NVRTC's version) "
            "with Triton's options", "gluon dot", settings=_DOT, assembler=TOOLKIT),
    Variant("cuda, Gluon's bank conflicts", "cuda", "reuse flags cleared so that as many more FFMAs per K tile read "
            "two sources from one register bank as the Gluon dot form has more than CUDA", "cuda",
            clear_reuse=EXCESS),
    Variant("cuda, every such flag", "cuda", "every reuse flag cleared whose next FFMA then reads two sources from "
            "one bank", "cuda", clear_reuse=ALL),
    Variant("gluon mirror", "gluon", "the mirror as built"),
    Variant("gluon mirror, B-major order", "gluon", "registers ordered so that one value of B meets the thread's "
            "values of A in turn", "gluon mirror", settings=(("ORDER", 1),)),
    Variant("gluon mirror, CUDA's order", "gluon", "registers in the CUDA kernel's acc[TM][TN] order",
            "gluon mirror", settings=(("ORDER", 2),)),
    Variant("gluon mirror, CUDA's order, no C read", "gluon", "compiled for beta == 0 without C's read (the launch's "
            "specialisation; CUDA: a branch at run time)", "gluon mirror, CUDA's order",
            settings=(("ORDER", 2), ("READ_C", "beta"))),
    Variant("gluon prefetch", "gluon", "step k + 1's fragments loaded before step k's FFMAs", "gluon mirror",
            settings=_PREFETCH),
    Variant("gluon prefetch, B-major order", "gluon", "registers ordered as the B-major mirror's", "gluon prefetch",
            settings=(*_PREFETCH, ("ORDER", 1))),
    Variant("gluon prefetch, CUDA's order", "gluon", "registers in the CUDA kernel's acc[TM][TN] order",
            "gluon prefetch", settings=(*_PREFETCH, ("ORDER", 2))),
    Variant("gluon ordered", "gluon", "compiled for beta == 0 without C's read: the CUDA kernel's fragment and FFMA "
            "order (the catalog's form 'ordered')", "gluon prefetch, CUDA's order",
            settings=(*_PREFETCH, ("ORDER", 2), ("READ_C", "beta"))),
    Variant("triton dot", "triton", "the plain Triton counterpart: tl.dot, the compiler's layouts"),
    Variant("triton dot, split along N", "triton", "the product as two dots over the halves of the tile's columns "
            "(kernels_triton/gemm_split.py)", "triton dot", settings=(("form", "gemm_split"),)),
    Variant("triton split, no C read", "triton", "compiled for beta == 0 without C's read",
            "triton dot, split along N", settings=(("form", "gemm_split"), ("read_c", "beta"))),
)


def ptxas_version(path: str | Path) -> str:
    out = subprocess.run([str(path), "--version"], capture_output=True, text=True, check=True).stdout
    return out.rsplit("release ", 1)[1].split(",")[0]


def assemble(ptx: str, ptxas: Path, folder: Path, name: str) -> Path:
    """`ptx` assembled by `ptxas` with Triton's options for sm_90a; the PTX's .version lowered to what it takes."""
    import re

    isa = PTX_ISA.get(ptxas_version(ptxas))
    if isa is not None:
        ptx = re.sub(r"^\.version \d+\.\d+", f".version {isa}", ptx, count=1, flags=re.MULTILINE)
    src, out = folder / f"{name}.ptx", folder / f"{name}.cubin"
    src.write_text(ptx)
    subprocess.run([str(ptxas), *TRITON_PTXAS_OPTIONS, "--gpu-name=sm_90a", str(src), "-o", str(out)],
                   capture_output=True, text=True, check=True)
    return out


def _assemblers() -> dict[str, Path]:
    from triton import knobs

    from harness.inspect.tools import find_tool

    return {TRITON: Path(knobs.nvidia.ptxas.path), TOOLKIT: find_tool("ptxas")}


def _gluon_swap(handle, cubin: bytes, args: list, grid: tuple) -> Callable[[], None]:
    """A launch of a compiled Gluon kernel's handle with its cubin replaced (the same metadata and launcher)."""
    import copy

    swapped = copy.copy(handle)
    swapped.kernel, swapped.module, swapped.function, swapped._run = cubin, None, None, None
    return lambda: swapped[grid](*args)


def _facts(cubin: Path | bytes, function: str | None) -> dict:
    from harness.inspect.sass_loop import loop_facts, read_listing

    with tempfile.TemporaryDirectory(prefix="rosetta-ablation-") as tmp:
        path = Path(tmp) / "k.cubin"
        path.write_bytes(cubin if isinstance(cubin, bytes) else Path(cubin).read_bytes())
        return loop_facts(read_listing(path, function))


def measure(out_path: Path, *, sizes: tuple[int, ...] = SIZES, rounds: int = ROUNDS, rep_ms: float = REP_MS,
            seed: int = 0, say: Callable[[str], None] = print, only: set[str] | None = None) -> Path:
    """Build, check and time every variant at each size on this GPU; write the ablation to `out_path`."""
    import torch
    import triton

    from harness import nvrtc
    from harness.inspect.sass_loop import read_listing
    from harness.measure.numerics import make_operands
    from harness.measure.rounds import Entry, estimate_ms, interleave
    from harness.nvrtc.compiler import ptx as nvrtc_ptx
    from harness.problems import Problem
    from harness.registry import get, instantiations
    from kernels_cuda import source_path

    kernel = get(KERNEL)
    mirror = kernel.gluon_form("mirror")
    device = torch.device("cuda", torch.cuda.current_device())
    tools = _assemblers()
    study: dict = {"record": "simt-ablation", "kernel": KERNEL, "device": torch.cuda.get_device_name(device),
                   "rounds": rounds, "seed": seed, "variants": [v.to_json() for v in VARIANTS],
                   "tools": {"nvrtc": nvrtc.nvrtc_version(), "triton": triton.__version__,
                             **{f"ptxas {k}": ptxas_version(p) for k, p in tools.items()}},
                   "ptxas_options": list(TRITON_PTXAS_OPTIONS), "sizes": {}}
    built = nvrtc.module(kernel.source, instantiations(kernel))
    mangled = built.lowered[kernel.symbol]
    ctx = _Context(kernel, mirror, tools, Path(tempfile.mkdtemp(prefix="rosetta-ablation-")), built.cubin, mangled,
                   nvrtc_ptx(source_path(kernel.source), [kernel.symbol], nvrtc.device_arch(),
                             nvrtc.DEFAULT.options)[0], read_listing(built.cubin, mangled))
    todo = [v for v in VARIANTS if only is None or v.name in only or v.name in ("cuda", "cublas")]
    for size in sizes:
        problem = Problem("sgemm", size, size, size)
        ops = make_operands(problem, "random", seed, device)
        reference = ops.A.double() @ ops.B.double()
        scale = float((ops.A.abs().double() @ ops.B.abs().double()).max())
        rows: dict[str, dict] = {}
        entries: list[Entry] = []
        for v in todo:
            t = {"A": ops.A, "B": ops.B, "C": torch.empty(size, size, device=device)}
            row: dict = {}
            try:
                fn, cubin, function = _variant(v, t, ctx, rows)
                t["C"].fill_(float("nan"))
                fn()
                torch.cuda.synchronize(device)
                error = float((t["C"].double() - reference).abs().max()) / scale
                row["error"] = error
                if cubin is not None:
                    row["facts"] = _facts(cubin, function)
                if not error <= size * 2.0 ** -24:
                    row["failed"] = f"normwise error {error:.2e} against float64"
                else:
                    entries.append(Entry(v.name, fn, estimate_ms(fn, device)))
            except Exception as e:  # a variant that cannot be built or run here: recorded, not timed
                row["failed"] = f"{type(e).__name__}: {e}"[:400]
            rows[v.name] = row
            say(f"{size}^3 {v.name}: " + (row.get("failed") or f"error {row['error']:.1e}"))
        samples = interleave(entries, rounds=rounds, rep_ms=rep_ms, seed=seed, device=device)
        for name, s in samples.items():
            rows[name]["samples"] = s.to_json()
        study["sizes"][str(size)] = rows
        del ops, reference
        torch.cuda.empty_cache()
    out_path.write_text(json.dumps(study, separators=(",", ":")) + "\n")
    return out_path


@dataclass(frozen=True)
class _Context:
    kernel: object
    mirror: object
    tools: dict[str, Path]
    tmp: Path
    cubin: Path          # the suite's build of the CUDA kernel
    mangled: str
    ptx: str             # NVRTC's PTX of it
    code: list           # its SASS (harness/inspect/sass_loop.Instruction)


def _variant(v: Variant, t: dict, ctx: _Context, rows: dict) -> tuple[Callable[[], object], Path | bytes | None,
                                                                       str | None]:
    """One variant's launch on tensors `t`, the cubin it runs (None: not read) and its function's name."""
    from harness.inspect.sass_loop import clear_reuse, reuse_candidates
    from harness.launch import cuda as launch_cuda
    from harness.launch.implementations import Impl, ImplId

    kernel = ctx.kernel
    if v.model == "cublas":
        return Impl(ImplId.from_json("cublas"), "sgemm").bind(t), None, None
    if v.model == "triton":
        from harness.launch import triton as launch_triton

        dot = kernel.counterpart("dot")
        settings = dict(v.settings)
        fn = launch_triton.bind_settings(kernel, settings.pop("form", dot.module),
                                         {**launch_triton.config(kernel, dot), **settings}, t)
        return fn, fn().asm["cubin"], None
    if v.model == "cuda":
        if not v.assembler and v.clear_reuse is None:
            return launch_cuda.bind(kernel, t), ctx.cubin, ctx.mangled
        if v.assembler:
            cubin = assemble(ctx.ptx, ctx.tools[v.assembler], ctx.tmp, "cuda-" + v.assembler)
        else:
            split = reuse_candidates(ctx.code)["split"]
            n = len(split)
            if v.clear_reuse == EXCESS:  # the Gluon dot form's excess, scaled to CUDA's loop (one K tile)
                dot, own = rows["gluon dot"]["facts"], rows["cuda"]["facts"]
                n = round(dot["loop.same_bank_ffma"] / dot["loop.ffma"] * own["loop.ffma"]) - own["loop.same_bank_ffma"]
            chosen = [split[i * len(split) // n] for i in range(n)] if n > 0 else []  # spread over the loop
            cubin = ctx.tmp / f"cuda-reuse-{n}.cubin"
            cubin.write_bytes(clear_reuse(ctx.cubin.read_bytes(), ctx.mangled, chosen))
        return launch_cuda.bind(kernel, t, cubin=(str(cubin), ctx.mangled)), cubin, ctx.mangled
    form = dataclasses.replace(ctx.mirror, name=v.name, params={**ctx.mirror.params, **dict(v.settings)})
    fn = Impl(ImplId.from_json(f"gluon:{ctx.mirror.name}"), "sgemm", kernel, gluon=form).bind(t)
    handle = fn()
    if not v.assembler:
        return fn, handle.asm["cubin"], None
    from kernels_gluon import simt_general

    settings = form.config(kernel)
    n = t["A"].shape[0]
    values = {"A": t["A"], "B": t["B"], "C": t["C"], "M": n, "N": n, "K": n, "alpha": 1.0, "beta": 0.0,
              **simt_general.constexprs(**settings)}
    grid = (-(-n // settings["BM"]) * -(-n // settings["BN"]), 1, 1)  # a compiled handle takes all three
    cubin = assemble(handle.asm["ptx"], ctx.tools[v.assembler], ctx.tmp, "gluon-" + v.assembler).read_bytes()
    return _gluon_swap(handle, cubin, [values[a] for a in simt_general.KERNEL.arg_names], grid), cubin, None
