"""What a catalog entry is: a kernel, its Triton counterparts, its seed and what the seed published.

A counterpart's launch settings are derived from its kernel (same output tile per program as per CUDA
block, same K step, threads / 32 warps) and written down only where they deviate, with the reason
beside the value: `Counterpart.config(kernel)` is the one place the derivation happens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Literal

from harness.catalog_types.declared_files import declared_function
from harness.catalog_types.gluon import GluonCounterpart
from harness.problems import Op, Problem
from harness.problems.preconditions import Precondition, indices_fit_int32, unmet

# fp32: FFMA (Triton input_precision="ieee"); tf32: tensor cores, inputs cut to 10 mantissa bits (rounded or
# truncated, per implementation: TF32_CONVERSION_TEXT);
# 3xtf32: tensor cores, each operand split into a tf32 high part and a tf32 remainder (fp32-accurate);
# bf16x3 / bf16x6: tensor cores, each operand split into two / three bf16 parts, three / six bf16 products per term
# (Triton's split forms: bf16x6 is fp32-accurate, bf16x3 is not).
Precision = Literal["fp32", "tf32", "3xtf32", "bf16x3", "bf16x6"]


@dataclass(frozen=True)
class PrecisionClass:
    """A precision class as every table, plot and check names it."""

    key: Precision
    text: str                 # its short name: "fp32", "TF32", "3xTF32", "bf16x3", "bf16x6"
    input_precision: str      # Triton's tl.dot(input_precision=...) for the class
    # the cuBLAS row it is timed against: "fp32" for every class used in place of fp32 math, "tf32" for TF32
    yardstick: Literal["fp32", "tf32"]
    # held to the fp32 checks (the fp32 bound and a multiple of cuBLAS fp32's own error on the same inputs)
    fp32_accurate: bool
    tensor_cores: bool

    @property
    def caveat(self) -> str:
        """What a reader must be told beside the name: a class used in place of fp32 that is not as accurate."""
        return "not fp32-accurate" if self.yardstick == "fp32" and not self.fp32_accurate else ""

    @property
    def label(self) -> str:
        """The name with its caveat: "bf16x3 (not fp32-accurate)"."""
        return f"{self.text} ({self.caveat})" if self.caveat else self.text


PRECISION_CLASSES: dict[Precision, PrecisionClass] = {c.key: c for c in (
    PrecisionClass("fp32", "fp32", "ieee", "fp32", fp32_accurate=True, tensor_cores=False),
    PrecisionClass("tf32", "TF32", "tf32", "tf32", fp32_accurate=False, tensor_cores=True),
    PrecisionClass("3xtf32", "3xTF32", "tf32x3", "fp32", fp32_accurate=True, tensor_cores=True),
    # bf16x3 drops about 2^-16 of each product (harness/measure/numerics.py PRODUCT_ERROR derives its bound); its
    # measured error beside cuBLAS fp32's, layer by layer, is in the report's fp32-class table
    # (harness/report/overview.py)
    PrecisionClass("bf16x3", "bf16x3", "bf16x3", "fp32", fp32_accurate=False, tensor_cores=True),
    PrecisionClass("bf16x6", "bf16x6", "bf16x6", "fp32", fp32_accurate=True, tensor_cores=True),
)}
PRECISIONS: tuple[Precision, ...] = tuple(PRECISION_CLASSES)
TRITON_INPUT_PRECISION: dict[Precision, str] = {p: c.input_precision for p, c in PRECISION_CLASSES.items()}


def precision_label(precision: str) -> str:
    """The label of a precision class by key (the key itself for one this registry does not know)."""
    found = PRECISION_CLASSES.get(precision)  # type: ignore[call-overload]
    return found.label if found else precision


def precision_caveat(precision: str) -> str:
    """What a reader must be told beside a class by key ("not fp32-accurate"); "" for none or an unknown key."""
    found = PRECISION_CLASSES.get(precision)  # type: ignore[call-overload]
    return found.caveat if found else ""


# How B reaches the kernel: "row" is the suite's K x N row-major B; "kmajor" is B^T (N x K contiguous),
# packed once before the run (the packing is timed on its own, never inside the kernel's time).
BLayout = Literal["row", "kmajor"]

# How fp32 operands become TF32 on the way into the tensor cores, by the instruction that does it: "rn" and "rna"
# round (cvt.rn / cvt.rna .tf32.f32: to nearest, ties to even / away from zero); "truncate" has no conversion
# instruction: the MMA reads the fp32 bits and ignores the low 13 mantissa bits. Each is proven on the compiled code
# by the tensor-core mapping claim "fp32 to TF32 conversion".
TF32Conversion = Literal["rn", "rna", "truncate", "truncate_rna"]
TF32_CONVERSION_TEXT: dict[TF32Conversion, str] = {
    "rn": "rounds to nearest even (cvt.rn.tf32.f32)",
    "rna": "rounds to nearest, ties away (cvt.rna.tf32.f32)",
    "truncate": "truncates (no conversion; the MMA drops the low 13 bits)",
    # 3xTF32 whose high part is the raw fp32 operand: the MMA's truncation is the split, the remainder is rounded
    "truncate_rna": "truncates the high part (the raw operand: the MMA drops its low 13 bits) and rounds the "
                    "remainder to nearest, ties away (cvt.rna.tf32.f32)",
}
# What Triton's compiler emits for each input_precision (the PTX of gemm_tc shows it): "tf32" hands the fp32 tiles to
# wgmma as they are; "tf32x3" splits each operand with cvt.rna into a tf32 high part and a remainder. The bf16 splits
# convert to bf16 (cvt.rn.bf16.f32) and have no TF32 conversion.
TRITON_TF32_CONVERSION: dict[str, TF32Conversion] = {"tf32": "truncate", "tf32x3": "rna"}
# A counterpart whose `design` starts with this moves data differently from its CUDA kernel on purpose: it is shown,
# labelled, and never an idea's best Triton.
DELIBERATELY_DIFFERENT = "deliberately different: "

GRID_Y_MAX = 65535
# Settings a counterpart derives from its kernel; a deviation names one of these.
DERIVED = ("block_m", "block_n", "block_k", "num_warps")


@dataclass(frozen=True)
class Seed:
    key: str
    file: str
    title: str
    title_en: str             # the title in English (seed 001 is written in Chinese)
    gpu: str
    cublas: Published | None = None   # the document's own cuBLAS figure on its GPU
    peak_tflops: float | None = None  # the GPU's fp32 peak as the document states it


@dataclass(frozen=True)
class Published:
    """Figures a document published for one kernel (or its cuBLAS run), on the document's own GPU."""

    pct_cublas: float | None = None
    tflops: float | None = None
    ms: float | None = None
    pct_bandwidth: float | None = None
    # Seed 001's stride sweep also publishes the kernel's stride, registers and theoretical occupancy.
    stride: int | None = None
    registers: int | None = None
    occupancy_pct: float | None = None
    intensity: float | None = None      # FLOP per byte, as the document computed it


@dataclass(frozen=True)
class PublishedRatio:
    """A document's claim that one kernel is `ratio` times faster than another."""

    seed: str
    fast: str                 # kernel ids
    slow: str
    ratio: float
    words: str                # the document's own words


@dataclass(frozen=True)
class Deviation:
    """A counterpart setting that departs from what its kernel implies, and why."""

    value: int
    why: str


class Role(Enum):
    """What a Triton form is to its CUDA kernel, declared where the counterpart is. The mapping claims state one check
    per role (harness/catalog_types/claim.ByForm), not per name, so a form is checked by what it declares."""

    # the kernel's own settings (derived, deviations stated): it moves data as the CUDA kernel does
    PLAIN = "plain"
    # the plain form's kernel with warps and stages (on tensor cores, the tile too) chosen by @triton.autotune
    TUNED = "tuned"
    # a tuner's design of its own tile, beside a summit: the Triton ceiling, never a rung
    CEILING = "ceiling"
    # deliberately different: rank-1 updates from global memory, no shared tile (its design says so)
    RANK1 = "rank1"


@dataclass(frozen=True)
class Counterpart:
    """A Triton kernel expressing the same idea; its tile and warps come from the CUDA kernel."""

    name: str                 # the Triton form, unique within the kernel: "naive", "dot", "rank1", "rows", ...
    module: str               # kernels_triton.<module>
    params: Mapping[str, int | bool | str] = field(default_factory=dict)   # further constexprs (unroll, group_m)
    deviations: Mapping[str, Deviation] = field(default_factory=dict)       # keys from DERIVED
    num_stages: int = 1
    # "" where the form moves data the way the CUDA kernel does; else DELIBERATELY_DIFFERENT + how it departs.
    design: str = ""
    # Offsets formed in 64 bits (an index cast to tl.int64 before it meets a stride): right when any one operand has
    # more than 2^31 elements. Where False, binding refuses such operands before launch. The CPU tier proves the
    # True case on the compiled TTIR of every counterpart (no 32-bit multiplication by a size on any operand's path).
    offsets_64bit: bool = True
    # A precision class of its own (one of Triton's split forms on a 3xTF32 kernel's counterpart): it overrides the
    # kernel's where set, and the row is labelled and compared by it. None: the kernel's precision.
    precision: Precision | None = None
    role: Role = Role.PLAIN
    # The form splits its operands in a pre-pass before the product, writing the parts to global memory: its KERNEL
    # is the product alone, which splits nothing (the mapping claims hold its compiled code to that).
    presplit: bool = False
    # What the form needs of a problem beyond its offsets (a user's port without masks: harness/pairs); the catalog's
    # forms mask every edge and need nothing.
    preconditions: tuple[Precondition, ...] = ()
    # A user's own Triton file (harness/pairs): its path as declared and its text as the run read it, so that a page
    # drawn from a record shows the code without the file. "" for the catalog's forms, kernels_triton/<module>.py.
    file: str = ""
    code: str = ""
    # How a user's file is launched (harness/launch/declared.py builds its form from these): its @triton.jit function
    # ("" where the file has one), a launch function of the file that launches it instead of the suite, and a grid
    # function, "file:name" ("" for the CUDA side's tile grid).
    kernel_fn: str = ""
    launch_fn: str = ""
    grid_fn: str = ""

    def __post_init__(self) -> None:
        if self.design and not self.design.startswith(DELIBERATELY_DIFFERENT):
            raise ValueError(f"counterpart {self.name!r}: a design text starts {DELIBERATELY_DIFFERENT!r}")

    @property
    def deliberately_different(self) -> bool:
        return self.design.startswith(DELIBERATELY_DIFFERENT)

    @property
    def autotuned(self) -> bool:
        """Launched through @triton.autotune: its role says so (a tuned form, or a tuner's ceiling)."""
        return self.role in (Role.TUNED, Role.CEILING)

    def unmet(self, problem: Problem) -> list[str]:
        """What this counterpart cannot run (checked when it is bound): an operand past 2^31 elements for a form with
        32-bit offsets, and what it declares it needs."""
        return unmet((*self.preconditions, *(() if self.offsets_64bit else (indices_fit_int32(),))), problem)

    @property
    def path(self) -> str:
        """The file a page names: kernels_triton/<module>.py, or a user's file as declared."""
        return self.file or f"kernels_triton/{self.module}.py"

    def precision_of(self, kernel: Kernel) -> Precision:
        """The precision class this counterpart runs in: its own where set, else its kernel's."""
        return self.precision or kernel.precision

    def tf32_conversion(self, kernel: Kernel) -> TF32Conversion | None:
        """How this counterpart turns fp32 operands into TF32 (None for fp32 SIMT and the bf16 splits)."""
        return TRITON_TF32_CONVERSION.get(TRITON_INPUT_PRECISION[self.precision_of(kernel)])

    def tf32_rounding(self, kernel: Kernel) -> str:
        """The conversion in words, for captions ("" for fp32 SIMT)."""
        conversion = self.tf32_conversion(kernel)
        return TF32_CONVERSION_TEXT[conversion] if conversion else ""

    def config(self, kernel: Kernel) -> dict[str, int | bool | str]:
        """The launch settings: derived from the kernel, deviations applied, further params added."""
        warps = kernel.threads // 32
        derived: dict[str, int] = {"block_m": kernel.tile_m, "block_n": kernel.tile_n, "block_k": kernel.tile_k,
                                   "num_warps": warps}
        if kernel.op == "sgemv":
            # A GEMV program owns tile_m rows and walks each row tile_k columns at a time.
            derived["block_n"] = kernel.tile_k
            del derived["block_k"]
        for key, dev in self.deviations.items():
            derived[key] = dev.value
        if derived["num_warps"] < 1:
            raise ValueError(f"{kernel.id} [{self.name}]: {kernel.threads} threads is less than a warp: "
                             f"state a num_warps deviation and why")
        out: dict[str, int | bool | str] = {**derived, "num_stages": self.num_stages, **self.params}
        if self.precision_of(kernel) != "fp32":
            out["input_precision"] = TRITON_INPUT_PRECISION[self.precision_of(kernel)]
        return out

    def deviation_notes(self) -> list[str]:
        return [f"{key} = {dev.value}: {dev.why}" for key, dev in self.deviations.items()]


@dataclass(frozen=True)
class Kernel:
    id: str                   # "<seed>.<name>[<template args>]"; the .cu file is the name part, '.' -> '_'
    op: Op
    idea: str
    seed: str | None          # None: tile-rosetta's own kernel (rosetta.*)
    section: str
    symbol: str               # C++ name expression, template arguments included
    args: tuple[str, ...]
    block: tuple[int, int, int]
    tile_m: int               # output rows per block
    tile_n: int               # output columns per block (sgemv: 0, the block spans the row)
    tile_k: int               # K step (sgemv: columns a row's threads consume per step)
    preconditions: tuple[Precondition, ...]
    reads_c_when_beta_zero: bool
    counterparts: tuple[Counterpart, ...]
    published: Published | None = None
    notes: str = ""
    precision: Precision = "fp32"
    b_layout: BLayout = "row"
    # Bytes of dynamic shared memory per block: over 48 KB the launcher must raise the function's limit first.
    dynamic_smem: int = 0
    # Operands the kernel reads or writes with 16-byte vector accesses: their base must be 16-byte aligned
    # (checked at bind, before any launch; a view into a larger tensor may start anywhere).
    aligned16: tuple[str, ...] = ()
    # Tensor-core kernels: the instruction that turns fp32 operands into TF32 (see TF32_CONVERSION_TEXT).
    tf32_conversion: TF32Conversion | None = None
    # A persistent kernel walks its tiles itself: it is launched on min(SMs, tiles) blocks of a 1-D grid
    # (the SM count is the device's, known at launch), and `grid` gives the tiles it walks.
    persistent: bool = False
    # A user's own kernel (harness/pairs): its .cu as declared (relative to where the run started, or absolute) and
    # the file's text as the run read it, so that a page drawn from a record shows the code without the file. ""
    # for the catalog's kernels, whose file is kernels_cuda/<source>.
    file: str = ""
    code: str = ""
    # A declared grid function, "file:function", called with {M, N, K, BLOCK_M, BLOCK_N, BLOCK_K} and returning
    # the grid (1 to 3 sizes); "" for the tile grid below.
    grid_fn: str = ""
    # A user's pair: the catalog kernel it was declared to stand beside, which the analysis compares it with, model by
    # model (harness/analysis/record.py, relation "beside").
    beside: str = ""
    # The kernel's own decisions written in Gluon (harness/catalog_types/gluon.py): the third column.
    gluon: tuple[GluonCounterpart, ...] = ()

    def __post_init__(self) -> None:
        if self.counterparts and all(c.deliberately_different for c in self.counterparts):
            raise ValueError(f"{self.id}: every counterpart is deliberately different; one must move data as it does")

    @property
    def tf32_rounding(self) -> str:
        """How the kernel turns fp32 into TF32, in words for captions ("" for fp32 SIMT)."""
        return TF32_CONVERSION_TEXT[self.tf32_conversion] if self.tf32_conversion else ""

    @property
    def source(self) -> str:
        """The .cu file: the id without template arguments, '.' -> '_' (a test holds the files to it); a user's kernel
        its file's absolute path (kernels_cuda.source_path leaves an absolute path as it is)."""
        if self.file:
            return str(Path(self.file).resolve())
        return self.id.split("<")[0].replace(".", "_") + ".cu"

    @property
    def path(self) -> str:
        """The file a page names: kernels_cuda/<source>, or a user's file as declared."""
        return self.file or f"kernels_cuda/{self.source}"

    @property
    def declared(self) -> bool:
        """A user's own kernel, declared for a run (harness/pairs), not one of the catalog's."""
        return bool(self.file)

    @property
    def threads(self) -> int:
        x, y, z = self.block
        return x * y * z

    @property
    def computes_alpha_beta(self) -> bool:
        return "alpha" in self.args

    @property
    def ours(self) -> bool:
        return self.seed is None

    def grid(self, problem: Problem) -> tuple[int, int, int]:
        if self.grid_fn:
            sizes = declared_function(self.grid_fn)(
                {"M": problem.M, "N": problem.N, "K": problem.K, "BLOCK_M": self.tile_m, "BLOCK_N": self.tile_n,
                 "BLOCK_K": self.tile_k})
            x, y, z = (*(int(v) for v in sizes), 1, 1)[:3]
            return (x, y, z)
        if self.op == "sgemv":
            return (-(-problem.M // self.tile_m), 1, 1)
        return (-(-problem.N // self.tile_n), -(-problem.M // self.tile_m), 1)

    def unmet(self, problem: Problem) -> list[str]:
        if problem.op != self.op:
            return [f"{self.id} is an {self.op} kernel, the problem is {problem.op}"]
        out = unmet(self.preconditions, problem)
        # Every kernel here walks rows of blocks along the grid's y (x for sgemv): a hardware limit, not a choice.
        _, gy, _ = self.grid(problem)
        if gy > GRID_Y_MAX:
            out.append(f"cdiv(M, {self.tile_m}) = {gy} blocks exceed the grid's y limit of {GRID_Y_MAX}")
        return out

    def supports(self, problem: Problem) -> bool:
        return not self.unmet(problem)

    def gluon_form(self, name: str) -> GluonCounterpart:
        for g in self.gluon:
            if g.name == name:
                return g
        names = ", ".join(g.name for g in self.gluon) or "none"
        raise ValueError(f"{self.id} has no Gluon counterpart {name!r}: {names}")

    def counterpart(self, name: str) -> Counterpart:
        for c in self.counterparts:
            if c.name == name:
                return c
        raise ValueError(f"{self.id} has no Triton counterpart {name!r}: "
                         f"{', '.join(c.name for c in self.counterparts)}")

