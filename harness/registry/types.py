"""What a registry entry is: a kernel, its Triton counterparts, its seed and what the seed published.

A counterpart's launch settings are derived from its kernel (same output tile per program as per CUDA
block, same K step, threads / 32 warps) and written down only where they deviate, with the reason
beside the value: `Counterpart.config(kernel)` is the one place the derivation happens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from harness.preconditions import Precondition, unmet
from harness.problems import Op, Problem

# fp32: FFMA (Triton input_precision="ieee"); tf32: tensor cores, inputs rounded to 10 mantissa bits;
# 3xtf32: tensor cores, each operand split into a tf32 high part and a tf32 remainder (fp32-accurate).
Precision = Literal["fp32", "tf32", "3xtf32"]
PRECISIONS: tuple[Precision, ...] = ("fp32", "tf32", "3xtf32")
TRITON_INPUT_PRECISION: dict[Precision, str] = {"fp32": "ieee", "tf32": "tf32", "3xtf32": "tf32x3"}
# How B reaches the kernel: "row" is the suite's K x N row-major B; "kmajor" is B^T (N x K contiguous),
# packed once before the run (the packing is timed on its own, never inside the kernel's time).
BLayout = Literal["row", "kmajor"]

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


@dataclass(frozen=True)
class Counterpart:
    """A Triton kernel expressing the same idea; its tile and warps come from the CUDA kernel."""

    name: str                 # the Triton form, unique within the kernel: "naive", "dot", "rank1", "rows", ...
    module: str               # kernels_triton.<module>
    params: Mapping[str, int | bool | str] = field(default_factory=dict)   # further constexprs (unroll, group_m)
    deviations: Mapping[str, Deviation] = field(default_factory=dict)       # keys from DERIVED
    num_stages: int = 1

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
        if kernel.precision != "fp32":
            out["input_precision"] = TRITON_INPUT_PRECISION[kernel.precision]
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

    @property
    def source(self) -> str:
        """The .cu file: the id without template arguments, '.' -> '_' (a test holds the files to it)."""
        return self.id.split("<")[0].replace(".", "_") + ".cu"

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

    def counterpart(self, name: str) -> Counterpart:
        for c in self.counterparts:
            if c.name == name:
                return c
        raise ValueError(f"{self.id} has no Triton counterpart {name!r}: "
                         f"{', '.join(c.name for c in self.counterparts)}")
