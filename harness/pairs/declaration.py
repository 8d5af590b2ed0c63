"""A user's pair as declared: what a declaration holds, every key it may have (KEYS), and its preconditions as the
catalog's. harness/pairs/read.py reads one from a TOML file or KEY=VALUE words, its fields checked, its paths resolved.

One schema, two spellings. A file:

    name = "blocked"                      # optional: the pair's name (default: the CUDA function's name)
    op = "sgemm"                          # sgemm | sgemv
    precision = "fp32"                    # fp32 | tf32 | 3xtf32: the class both sides compute in
    tile = [32, 64, 16]                   # outputs per block (rows, columns) and the K step ("32x64x16" too)
    preconditions = ["K % 16 == 0"]       # optional: "D % n == 0", "square", "product_only", "int32_indices"
    beside = "rosetta.sgemm_general<...>" # optional: a catalog kernel to run in the same rounds
    [cuda]
    file = "sgemm_blocked.cu"             # relative to the declaration file
    symbol = "sgemm_blocked<32, 64, 16>"  # the name expression NVRTC instantiates (template arguments allowed)
    block = [128, 1, 1]
    [triton]
    file = "sgemm_blocked.py"

and the same on the command line, a dotted key per table: `op=sgemm cuda.file=k.cu cuda.symbol=k tile=32x64x16 ...`
(paths then relative to the working directory), or a file followed by words that override its keys. Every key is in
KEYS with what it means; the values a word gives are read as JSON where they parse (numbers, true/false, lists) and
as text otherwise.

Why TOML and not a Python file: a declaration is data. It is read and checked before any code of the user's is
imported, so that a wrong one is refused before anything runs, and it is recorded as it was read; Python 3.11 reads
it with tomllib, 3.10 with tomli (the same parser, a dependency there). The one thing that is code, a grid function,
lives in the user's Python file and is named here.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from harness.catalog_types.kernel import Precision
from harness.problems import Op
from harness.problems.preconditions import (
    Precondition,
    dims_fit_int32,
    indices_fit_int32,
    multiple_of,
    product_only,
    square,
)


class PairError(ValueError):
    """A declaration that cannot run: said in one line, before anything is launched (`rosetta run` exits with 2)."""


# Every key a declaration may hold, with what it means (`rosetta run --help` and docs/pairs.md say the same).
KEYS: dict[str, str] = {
    "name": "the pair's name: letters, digits, '-', '_' (default: the CUDA function's name)",
    "op": "sgemm (C = alpha*A@B + beta*C) or sgemv (y = A@x), fp32 row-major operands",
    "precision": "the class both sides compute in: fp32 (FFMA), tf32 or 3xtf32 (tensor cores)",
    "title": "one line naming the pair on the page (default: 'Your pair: <name>')",
    "about": "what the pair is about, shown under its title",
    "tile": "output rows and columns per CUDA block / Triton program and the K step: [m, n, k] or 'MxNxK' "
            "(sgemv: rows per block, 0, columns per step)",
    "preconditions": "what the pair needs of a problem: 'M % 64 == 0' (any of M, N, K), 'square', 'product_only', "
                     "'int32_indices', 'int32_dims'",
    "beside": "a catalog kernel id to run in the same rounds (`rosetta list` names them)",
    "b_layout": "row (B is K x N) or kmajor (B^T, N x K, is what both kernels read)",
    "cuda.file": "the .cu file (headers it #includes \"...\" are read beside it)",
    "cuda.symbol": "the __global__ function as NVRTC names it, template arguments included",
    "cuda.block": "threads per block: [x, y, z] or a count",
    "cuda.args": "the kernel's parameters in order, named from A, B, C, M, N, K, alpha, beta (sgemv: A, x, y, M, N)",
    "cuda.grid": "a grid function, 'name' in triton.file or 'file.py:name', given {M, N, K, BLOCK_M, BLOCK_N, "
                 "BLOCK_K} (default: column tiles along x, row tiles along y; sgemv: row tiles along x)",
    "cuda.dynamic_smem": "bytes of dynamic shared memory per block",
    "cuda.reads_c_when_beta_zero": "true where the kernel computes beta*C even when beta is 0 (the run checks it)",
    "cuda.aligned16": "operands the kernel reads with 16-byte vector accesses (their alignment is checked)",
    "triton.file": "the Python file with the @triton.jit kernel",
    "triton.kernel": "the kernel's name (default: the file's one @triton.jit function)",
    "triton.launch": "a launch function launch(A, B, C, alpha, beta, **settings) returning the compiled handle "
                     "(default: the suite launches the kernel, its parameters named as triton.kernel says)",
    "triton.grid": "a grid function of Triton's meta dict, 'name' in triton.file or 'file.py:name' (default: the "
                   "CUDA side's tile grid)",
    "triton.form": "the Triton row's name, triton:<form> (default: port)",
    "triton.num_stages": "Triton's num_stages (default 1)",
    "triton.constexprs": "further constexpr arguments of the kernel, by name: {GROUP_M = 8}",
    "triton.deviations": "a setting that departs from the CUDA side's (block_m, block_n, block_k, num_warps), and "
                         "why: {block_k = {value = 16, why = \"tl.dot needs K >= 16\"}}",
    "triton.offsets_64bit": "true where the kernel forms offsets in 64 bits (else operands past 2^31 elements are "
                            "refused)",
    "triton.preconditions": "what the Triton side needs of a problem (default: the pair's preconditions)",
}
REQUIRED = ("op", "tile", "cuda.file", "cuda.symbol", "cuda.block", "triton.file")
# The classes a pair may declare: those the suite has a cuBLAS yardstick and a Triton tutorial row for.
PRECISIONS: tuple[Precision, ...] = ("fp32", "tf32", "3xtf32")
DEFAULT_ARGS: dict[str, tuple[str, ...]] = {"sgemm": ("A", "B", "C", "M", "N", "K", "alpha", "beta"),
                                            "sgemv": ("A", "x", "y", "M", "N")}
POINTERS: dict[str, tuple[str, ...]] = {"sgemm": ("A", "B", "C"), "sgemv": ("A", "x", "y")}
SIZES: dict[str, tuple[str, ...]] = {"sgemm": ("M", "N", "K", "alpha", "beta"), "sgemv": ("M", "N")}
_MULTIPLE = re.compile(r"^\s*([MNK])\s*%\s*(\d+)\s*==\s*0\s*$")
COMMAND_LINE = "the command line"


@dataclass(frozen=True)
class CudaSide:
    file: str                                     # as the run names it: relative to its working directory, or absolute
    symbol: str
    block: tuple[int, int, int]
    args: tuple[str, ...]
    grid: str = ""                                # "file.py:function" ("" for the tile grid)
    dynamic_smem: int = 0
    reads_c_when_beta_zero: bool = False
    aligned16: tuple[str, ...] = ()


@dataclass(frozen=True)
class TritonSide:
    file: str
    kernel: str = ""
    launch: str = ""
    grid: str = ""                                # "file.py:function" ("" for the CUDA side's tile grid)
    form: str = "port"
    num_stages: int = 1
    constexprs: dict[str, int | bool | str | float] = field(default_factory=dict)
    deviations: dict[str, tuple[int, str]] = field(default_factory=dict)
    offsets_64bit: bool = False
    preconditions: tuple[str, ...] | None = None  # None: the pair's


@dataclass(frozen=True)
class Declaration:
    name: str
    op: Op
    precision: Precision
    tile: tuple[int, int, int]
    cuda: CudaSide
    triton: TritonSide
    where: str = COMMAND_LINE                     # the declaration file, as the run names it
    title: str = ""
    about: str = ""
    preconditions: tuple[str, ...] = ()
    beside: str = ""
    b_layout: str = "row"

    @property
    def who(self) -> str:
        """How an error names the pair: 'pair blocked (examples/sgemm_pair/pair.toml)'."""
        return f"pair {self.name} ({self.where})"

    def conditions(self, texts: tuple[str, ...] | None = None) -> tuple[Precondition, ...]:
        """The declared preconditions (the pair's unless other texts are given) as the catalog's."""
        return tuple(precondition(t, self.who) for t in (self.preconditions if texts is None else texts))

    def to_json(self) -> dict:
        return asdict(self)


def precondition(text: str, who: str = "pair") -> Precondition:
    """A declared precondition as the catalog writes it."""
    named = {"square": square("declared"), "product_only": product_only(), "int32_indices": indices_fit_int32(),
             "int32_dims": dims_fit_int32()}
    if text.strip() in named:
        return named[text.strip()]
    m = _MULTIPLE.match(text)
    if m is None or int(m.group(2)) < 1:
        raise PairError(f"{who}: precondition {text!r} is none of 'M % n == 0' (or N, K), "
                        f"{', '.join(repr(n) for n in named)}")
    return multiple_of(m.group(1), int(m.group(2)), "declared")


def markdown() -> str:
    """The table of keys as docs/pairs.md shows it (a test holds the page to this)."""
    lines = ["| key | required | what it declares |", "|---|---|---|"]
    lines += [f"| `{k}` | {'yes' if k in REQUIRED else ''} | {v} |" for k, v in KEYS.items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
