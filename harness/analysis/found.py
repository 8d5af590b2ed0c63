"""What a finding is: a typed declaration of a kind, its figures as fields (the comparisons, causes, problems and record
keys it rests on), its rule over the results (`find`), and its JSON, each field written by its own type. The kinds are
harness/analysis/findings.py; the page words each kind (harness/report/findings.py)."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar

from harness.analysis.measured import Measured
from harness.analysis.record import Cause


@dataclass(frozen=True)
class Found:
    """A finding: subclasses declare `KIND`, their typed figures as fields and `find` (the rule)."""

    KIND: ClassVar[str]
    # The numbered findings, at most findings.MAX_FINDINGS; a kind found once per rung or idea (ModelOrCompiler, Why)
    # is shown where that rung or idea is, every one of them.
    NUMBERED: ClassVar[bool] = True
    op: str = ""                       # the op a per-op kind is about ("" for the others)

    @property
    def kind(self) -> str:
        return f"{self.KIND}-{self.op}" if self.op else self.KIND

    @property
    def causes(self) -> tuple[Cause, ...]:
        return ()

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        raise NotImplementedError

    def to_json(self) -> dict:
        return {"kind": self.KIND, **{f.name: _encode(getattr(self, f.name)) for f in dataclasses.fields(self)}}

    @staticmethod
    def from_json(data: dict) -> Found:
        cls = KINDS.get(data.get("kind", ""))
        if cls is None:
            raise ValueError(f"not a finding kind: {data.get('kind')!r}")
        hints = typing.get_type_hints(cls)
        return cls(**{f.name: _decode(hints[f.name], data[f.name]) for f in dataclasses.fields(cls)
                      if f.name in data})


KINDS: dict[str, type[Found]] = {}


def kind(cls: type[Found]) -> type[Found]:
    """Register a finding kind (in the order the findings are listed)."""
    KINDS[cls.KIND] = cls
    return cls


def _encode(v: Any) -> Any:
    if hasattr(v, "to_json"):
        return v.to_json()
    if dataclasses.is_dataclass(v):
        return {f.name: _encode(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, (tuple, list)):
        return [_encode(x) for x in v]
    if isinstance(v, dict):
        return {k: _encode(x) for k, x in v.items()}
    return v


def _decode(tp: Any, data: Any) -> Any:
    """A field's value from its JSON, by its declared type."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if data is None:
            return None
        known = [a for a in args if a is not type(None)]
        return _decode(known[0], data) if len(known) == 1 else data
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], x) for x in data)
        return tuple(_decode(a, x) for a, x in zip(args, data, strict=True)) if args else _tuple(data)
    if tp is tuple:
        return _tuple(data)
    if isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields"):  # a NamedTuple: by its own fields
        hints = typing.get_type_hints(tp)
        return tp(*(_decode(hints[f], x) for f, x in zip(tp._fields, data, strict=True)))
    if origin is dict:
        return {k: _decode(args[1], x) for k, x in data.items()}
    if isinstance(tp, type) and hasattr(tp, "from_json"):
        return tp.from_json(data)
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{f.name: _decode(hints[f.name], data[f.name]) for f in dataclasses.fields(tp)})
    return data


def _tuple(data: Any) -> Any:
    return tuple(_tuple(x) for x in data) if isinstance(data, list) else data
