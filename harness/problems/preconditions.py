"""What a kernel needs of its problem, as data the registry declares and the launchers enforce."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from harness.problems import Problem

INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class Precondition:
    """A condition on the problem, with the text a user sees when it fails (and in `rosetta list`)."""

    text: str
    holds: Callable[[Problem], bool] = field(compare=False)
    # What kind of limit this is, so that shapes can be derived from it and the .cu header checked against it.
    kind: Literal["multiple", "square", "product_only", "int32_indices", "int32_dims"]
    # For shape derivation: (dimension, multiple) when the condition is "dimension % multiple == 0".
    multiple: tuple[str, int] | None = None

    @property
    def square(self) -> bool:
        return self.kind == "square"

    @property
    def product_only(self) -> bool:
        return self.kind == "product_only"

    def to_json(self) -> dict:
        return {"text": self.text, "kind": self.kind, "multiple": list(self.multiple) if self.multiple else None}

    def __reduce__(self) -> tuple:
        # Pickled as its JSON form, its test rebuilt from its kind: a run hands a user's declared kernels to the
        # processes it starts (harness/catalog/run_catalog.py), and a lambda does not pickle.
        return (Precondition.from_json, (self.to_json(),))

    @classmethod
    def from_json(cls, data: dict) -> Precondition:
        """A recorded precondition: its words as recorded, its test its kind's."""
        multiple = (str(data["multiple"][0]), int(data["multiple"][1])) if data.get("multiple") else None
        return cls(str(data["text"]), holds_of(data["kind"], multiple), data["kind"], multiple)


def holds_of(kind: str, multiple: tuple[str, int] | None = None) -> Callable[[Problem], bool]:
    """The test of a kind of precondition: the one place each is written, for the catalog and for a record."""
    if kind == "multiple" and multiple is not None:
        dim, m = multiple
        return lambda p: getattr(p, dim) % m == 0
    tests: dict[str, Callable[[Problem], bool]] = {
        "square": lambda p: p.M == p.N == p.K,
        "product_only": lambda p: p.alpha == 1.0 and p.beta == 0.0,
        "int32_indices": lambda p: max(p.M * p.K, p.K * p.N, p.M * p.N) <= INT32_MAX,
        # kernels that form row offsets in 64 bits: only each dimension must fit the int parameters
        "int32_dims": lambda p: max(p.M, p.N, p.K) <= INT32_MAX,
    }
    if kind not in tests:
        raise ValueError(f"no precondition of kind {kind!r}{' without its multiple' if kind == 'multiple' else ''}")
    return tests[kind]


def multiple_of(dim: str, m: int, why: str = "no bounds checks") -> Precondition:
    return Precondition(f"{dim} % {m} == 0 ({why})", holds_of("multiple", (dim, m)), "multiple", (dim, m))


def square(why: str = "the kernel takes one size N") -> Precondition:
    return Precondition(f"M == N == K ({why})", holds_of("square"), "square")


def product_only() -> Precondition:
    return Precondition("alpha == 1 and beta == 0 (the kernel computes C = A*B only)", holds_of("product_only"),
                        "product_only")


def indices_fit_int32() -> Precondition:
    return Precondition("every element index fits in int32 (32-bit index arithmetic)", holds_of("int32_indices"),
                        "int32_indices")


def dims_fit_int32() -> Precondition:
    return Precondition("M, N and K each fit in int32 (64-bit row offsets: any element count)",
                        holds_of("int32_dims"), "int32_dims")


def unmet(preconditions: tuple[Precondition, ...], problem: Problem) -> list[str]:
    return [c.text for c in preconditions if not c.holds(problem)]


def dimension_multiple(preconditions: tuple[Precondition, ...], dim: str) -> int:
    """The least common multiple a dimension must be of (1 when free)."""
    from math import lcm

    out = 1
    for c in preconditions:
        if c.multiple and c.multiple[0] == dim:
            out = lcm(out, c.multiple[1])
    return out


def allowed_shape(preconditions: tuple[Precondition, ...], want: Problem) -> Problem:
    """The problem nearest above `want` that the preconditions allow (rounds dimensions up to multiples)."""
    from dataclasses import replace

    def up(dim: str) -> int:
        m = dimension_multiple(preconditions, dim)
        return -(-getattr(want, dim) // m) * m

    if any(c.square for c in preconditions):
        m = max(dimension_multiple(preconditions, d) for d in ("M", "N", "K"))
        n = -(-max(want.M, want.N, want.K) // m) * m
        got = replace(want, M=n, N=n, K=n)
    else:
        got = replace(want, M=up("M"), N=up("N"), K=up("K") if want.op == "sgemm" else 1)
    if any(c.product_only for c in preconditions):
        got = replace(got, alpha=1.0, beta=0.0)
    return got
