"""A declaration read from a TOML file or from KEY=VALUE words (harness/pairs/declaration.py says what it holds): every
field checked and said in one line where it is wrong (PairError), every path resolved."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

from harness.pairs.declaration import (
    COMMAND_LINE,
    DEFAULT_ARGS,
    KEYS,
    POINTERS,
    PRECISIONS,
    REQUIRED,
    SIZES,
    CudaSide,
    Declaration,
    PairError,
    TritonSide,
)
from harness.problems import OPS

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_TILE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


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
