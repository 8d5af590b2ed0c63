"""A user's pair as declared: read from a TOML file or from KEY=VALUE words, its fields checked, its paths resolved.

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

import difflib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harness.catalog_types.kernel import Precision
from harness.preconditions import (
    Precondition,
    dims_fit_int32,
    indices_fit_int32,
    multiple_of,
    product_only,
    square,
)
from harness.problems import OPS, Op


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
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_MULTIPLE = re.compile(r"^\s*([MNK])\s*%\s*(\d+)\s*==\s*0\s*$")
_TILE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*[xX×]\s*(\d+)\s*$")
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

    @classmethod
    def from_json(cls, data: dict) -> Declaration:
        cuda = CudaSide(**{**data["cuda"], "block": tuple(data["cuda"]["block"]), "args": tuple(data["cuda"]["args"]),
                           "aligned16": tuple(data["cuda"].get("aligned16") or ())})
        tri = data["triton"]
        triton = TritonSide(**{**tri, "deviations": {k: (int(v[0]), str(v[1])) for k, v in tri["deviations"].items()},
                               "preconditions": None if tri.get("preconditions") is None
                               else tuple(tri["preconditions"])})
        return cls(**{**data, "tile": tuple(data["tile"]), "preconditions": tuple(data["preconditions"]),
                      "cuda": cuda, "triton": triton})


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


def read(words: list[str]) -> Declaration:
    """A declaration from `--pair`'s words: a .toml file and/or KEY=VALUE words (words after a file override it)."""
    if not words:
        raise PairError("--pair: give a declaration file (.toml) or KEY=VALUE words")
    base: dict = {}
    where, folder = COMMAND_LINE, Path.cwd()
    rest = list(words)
    if "=" not in rest[0]:
        given = rest.pop(0)
        path = Path(given)
        where = _shown(path)
        if path.is_dir():
            raise PairError(f"pair declaration {given}: a folder is there, where a declaration file is needed")
        if not path.is_file():
            raise PairError(f"pair declaration {given}: no such file")
        base, folder = load_toml(path), path.resolve().parent
    for word in rest:
        key, eq, value = word.partition("=")
        if not eq or not key:
            raise PairError(f"--pair {word!r}: expected KEY=VALUE (keys: {', '.join(KEYS)})")
        _put(base, key.strip(), _value(value), where)
    return declaration(base, where, folder)


def load_toml(path: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the same parser, backported (pyproject.toml installs it there)
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise PairError(f"pair declaration {_shown(path)}: reading TOML needs Python 3.11 or the tomli package; "
                            f"or declare the pair with KEY=VALUE words") from None
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise PairError(f"pair declaration {_shown(path)}: not TOML ({e})") from None


def _value(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _put(data: dict, dotted: str, value: object, where: str) -> None:
    """One KEY=VALUE word into the declaration's tables (unknown keys are refused with the others: _flat)."""
    table, _, key = dotted.rpartition(".")
    target = data.setdefault(table, {}) if table else data
    if not isinstance(target, dict):
        raise PairError(f"pair ({where}): {table!r} is a table of keys, not a value")
    target[key] = value


def _flat(data: dict, where: str) -> dict[str, object]:
    """Every key of the declaration, dotted; unknown ones refused."""
    out: dict[str, object] = {}
    for key, value in data.items():
        if key in ("cuda", "triton"):
            if not isinstance(value, dict):
                raise PairError(f"pair ({where}): {key!r} is a table ([{key}] in a file, {key}.KEY=VALUE on the "
                                f"command line)")
            out.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            out[key] = value
    unknown = [k for k in out if k not in KEYS]
    if unknown:
        close = {k: difflib.get_close_matches(k, KEYS, n=2, cutoff=0.75) for k in unknown}
        hints = "; ".join(f"{k!r} (did you mean {', '.join(c)}?)" if c else repr(k) for k, c in close.items())
        raise PairError(f"pair ({where}): unknown key{'s' if len(unknown) > 1 else ''} {hints}")
    return out


def declaration(data: dict, where: str = COMMAND_LINE, folder: Path | None = None) -> Declaration:
    """Check every field's type and value; resolve the files against `folder` (a file's folder, else the working
    directory). Raises PairError naming the pair and the field."""
    folder = folder or Path.cwd()
    flat = _flat(data, where)
    missing = [k for k in REQUIRED if k not in flat]
    if missing:
        meanings = "; ".join(f"{k}: {KEYS[k]}" for k in missing)
        raise PairError(f"pair ({where}): missing {', '.join(missing)} ({meanings})")
    symbol = _text(flat, "cuda.symbol", f"pair ({where})")
    name = str(flat.get("name") or symbol.split("<")[0].strip().split("::")[-1])
    if not _NAME.match(name):
        raise PairError(f"pair ({where}): name {name!r}: letters, digits, '-' and '_' only")
    who = f"pair {name} ({where})"
    op = str(flat["op"])
    if op not in OPS:
        raise PairError(f"{who}: op {op!r} is none of {', '.join(OPS)}")
    precision = str(flat.get("precision", "fp32"))
    if precision not in PRECISIONS:
        raise PairError(f"{who}: precision {precision!r} is none of {', '.join(PRECISIONS)}")
    if op == "sgemv" and precision != "fp32":
        raise PairError(f"{who}: an sgemv pair computes in fp32 (precision {precision!r})")
    b_layout = str(flat.get("b_layout", "row"))
    if b_layout not in ("row", "kmajor") or (b_layout == "kmajor" and op != "sgemm"):
        raise PairError(f"{who}: b_layout {b_layout!r} is none of row, kmajor (sgemm only)")
    tile = _tile(flat["tile"], who, op)
    block = _block(flat["cuda.block"], who)
    args = tuple(_texts(flat, "cuda.args", who)) if "cuda.args" in flat else DEFAULT_ARGS[op]
    allowed = (*POINTERS[op], *SIZES[op])
    wrong = [a for a in args if a not in allowed]
    if wrong or len(set(args)) != len(args):
        raise PairError(f"{who}: cuda.args {list(args)}: each once, named from {', '.join(allowed)}"
                        + (f" ({', '.join(wrong)} is not)" if wrong else ""))
    lacking = [p for p in POINTERS[op] if p not in args]
    if lacking:
        raise PairError(f"{who}: cuda.args {list(args)} lack the operand{'s' if len(lacking) > 1 else ''} "
                        f"{', '.join(lacking)}")
    cuda_file = _file(flat, "cuda.file", folder, who, (".cu", ".cuh"))
    triton_file = _file(flat, "triton.file", folder, who, (".py",))
    preconditions = tuple(_texts(flat, "preconditions", who)) if "preconditions" in flat else ()
    triton_conditions = tuple(_texts(flat, "triton.preconditions", who)) if "triton.preconditions" in flat else None
    out = Declaration(
        name=name, op=op, precision=precision, tile=tile, where=where,  # type: ignore[arg-type]
        title=str(flat.get("title", "")), about=str(flat.get("about", "")), preconditions=preconditions,
        beside=str(flat.get("beside", "")), b_layout=b_layout,
        cuda=CudaSide(file=cuda_file, symbol=symbol, block=block, args=args,
                      grid=_function(flat, "cuda.grid", folder, triton_file, who),
                      dynamic_smem=_int(flat, "cuda.dynamic_smem", who, 0, 0),
                      reads_c_when_beta_zero=_bool(flat, "cuda.reads_c_when_beta_zero", who),
                      aligned16=tuple(_texts(flat, "cuda.aligned16", who)) if "cuda.aligned16" in flat else ()),
        triton=TritonSide(file=triton_file, kernel=str(flat.get("triton.kernel", "")),
                          launch=str(flat.get("triton.launch", "")),
                          grid=_function(flat, "triton.grid", folder, triton_file, who),
                          form=str(flat.get("triton.form", "port")),
                          num_stages=_int(flat, "triton.num_stages", who, 1, 1),
                          constexprs=_constexprs(flat, who), deviations=_deviations(flat, who),
                          offsets_64bit=_bool(flat, "triton.offsets_64bit", who), preconditions=triton_conditions))
    if not _NAME.match(out.triton.form):
        raise PairError(f"{who}: triton.form {out.triton.form!r}: letters, digits, '-' and '_' only")
    wrong16 = [a for a in out.cuda.aligned16 if a not in POINTERS[op]]
    if wrong16:
        raise PairError(f"{who}: cuda.aligned16 names {', '.join(wrong16)}, not among the operands "
                        f"{', '.join(POINTERS[op])}")
    out.conditions()  # each precondition's text understood
    out.conditions(triton_conditions)
    return out


def _shown(path: Path) -> str:
    """A path as the run names it: relative to the working directory where it lies under it, else absolute."""
    resolved = path.resolve()
    try:
        return str(resolved.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(resolved)


def _file(flat: dict, key: str, folder: Path, who: str, suffixes: tuple[str, ...]) -> str:
    path = folder / _text(flat, key, who)
    if not path.is_file():
        raise PairError(f"{who}: {key} {_shown(path)}: no such file")
    if path.suffix not in suffixes:
        raise PairError(f"{who}: {key} {_shown(path)}: expected a {' or '.join(suffixes)} file")
    return _shown(path)


def _function(flat: dict, key: str, folder: Path, default_file: str, who: str) -> str:
    """A function named by 'name' (in triton.file) or 'file.py:name', as 'file:name' with the file as the run names
    it ("" where not declared)."""
    if key not in flat:
        return ""
    text = _text(flat, key, who)
    file, colon, name = text.rpartition(":")
    if not name.isidentifier():
        raise PairError(f"{who}: {key} {text!r}: a function name, or file.py:name")
    if not colon:
        return f"{default_file}:{name}"
    path = folder / file
    if not path.is_file() or path.suffix != ".py":
        raise PairError(f"{who}: {key} {text!r}: {_shown(path)} is no Python file")
    return f"{_shown(path)}:{name}"


def _text(flat: dict, key: str, who: str) -> str:
    value = flat[key]
    if not isinstance(value, str) or not value.strip():
        raise PairError(f"{who}: {key} must be text ({KEYS[key]})")
    return value.strip()


def _texts(flat: dict, key: str, who: str) -> list[str]:
    value = flat[key]
    if isinstance(value, str):
        value = [v for v in (s.strip() for s in value.split(",")) if v]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PairError(f"{who}: {key} must be a list of text ({KEYS[key]})")
    return [v.strip() for v in value]


def _int(flat: dict, key: str, who: str, default: int, least: int) -> int:
    value = flat.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise PairError(f"{who}: {key} {value!r}: an integer of at least {least}")
    return value


def _bool(flat: dict, key: str, who: str) -> bool:
    value = flat.get(key, False)
    if not isinstance(value, bool):
        raise PairError(f"{who}: {key} {value!r}: true or false")
    return value


def _tile(value: object, who: str, op: str) -> tuple[int, int, int]:
    if isinstance(value, str) and (m := _TILE.match(value)):
        value = [int(g) for g in m.groups()]
    if (not isinstance(value, list) or len(value) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)):
        raise PairError(f"{who}: tile {value!r}: [m, n, k] or 'MxNxK' ({KEYS['tile']})")
    m, n, k = value
    if m < 1 or k < 1 or (op == "sgemm" and n < 1):
        raise PairError(f"{who}: tile {value!r}: rows, K step{' and columns' if op == 'sgemm' else ''} at least 1")
    return (m, n, k)


def _block(value: object, who: str) -> tuple[int, int, int]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if (not isinstance(value, list) or not 1 <= len(value) <= 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)):
        raise PairError(f"{who}: cuda.block {value!r}: [x, y, z] or a count of threads, each at least 1")
    x, y, z = (*value, 1, 1)[:3]
    if x * y * z > 1024:
        raise PairError(f"{who}: cuda.block {value!r}: {x * y * z} threads, more than a block's 1024")
    if x * y * z < 32:
        raise PairError(f"{who}: cuda.block {value!r}: {x * y * z} threads, less than a warp (Triton's num_warps "
                        f"is derived from it)")
    return (x, y, z)


def _constexprs(flat: dict, who: str) -> dict[str, int | bool | str | float]:
    value = flat.get("triton.constexprs", {})
    if not isinstance(value, dict) or not all(k.isidentifier() and isinstance(v, (int, bool, str, float))
                                              for k, v in value.items()):
        raise PairError(f"{who}: triton.constexprs {value!r}: a table of names and values "
                        f"({KEYS['triton.constexprs']})")
    return dict(value)


def _deviations(flat: dict, who: str) -> dict[str, tuple[int, str]]:
    from harness.catalog_types.kernel import DERIVED

    value = flat.get("triton.deviations", {})
    out: dict[str, tuple[int, str]] = {}
    if not isinstance(value, dict):
        raise PairError(f"{who}: triton.deviations {value!r}: {KEYS['triton.deviations']}")
    for key, dev in value.items():
        ok = (isinstance(dev, dict) and set(dev) == {"value", "why"} and isinstance(dev["value"], int)
              and not isinstance(dev["value"], bool) and dev["value"] >= 1 and isinstance(dev["why"], str)
              and dev["why"].strip())
        if key not in DERIVED or not ok:
            raise PairError(f"{who}: triton.deviations.{key} {dev!r}: one of {', '.join(DERIVED)} with a value and "
                            f"why (value = 16, why = \"...\")")
        out[key] = (dev["value"], dev["why"].strip())
    return out


def markdown() -> str:
    """The table of keys as docs/pairs.md shows it (a test holds the page to this)."""
    lines = ["| key | required | what it declares |", "|---|---|---|"]
    lines += [f"| `{k}` | {'yes' if k in REQUIRED else ''} | {v} |" for k, v in KEYS.items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
