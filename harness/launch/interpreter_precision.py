"""Triton's interpreter as the CPU tier needs it: tl.dot's input precisions rounded as the compiled code rounds them,
and every interpreted launch leaving triton.language as it found it.

The interpreter computes every tl.dot as an fp32 matmul whatever its input_precision, and refuses the bf16 splits, so
on a CPU a reduced-precision row would show the fp32 row's errors. `install()` wraps the interpreter's dot so that each
class rounds its fp32 operands the way Triton's compiled code does on an H100 (what Triton 3.6, 3.8 and 3.9 emit; the
tensor-core mapping claims prove it on the compiled kernels, harness/catalog/tensor_cores.py):

- tf32: no conversion instruction; the tensor core reads each fp32 operand's upper 19 bits (truncation).
- tf32x3: big = cvt.rna.tf32.f32(x) (nearest, ties away from zero), small = x - big (exact in fp32), both read by
  the tensor core as tf32 (small truncated); small·big + big·small summed from zero, a NaN there set to 0, then
  + big·big, and that K step added to the accumulator in fp32.
- bf16x3: hi = bf16(x), mid = bf16(x - hi), rounded to nearest even (arith.truncf, cvt.rn.bf16.f32); mid·hi + hi·mid,
  the same NaN guard, + hi·hi, added in fp32.
- bf16x6: lo = bf16(x - hi - mid) too; mid·mid + lo·hi + hi·lo + mid·hi + hi·mid, the guard, + hi·hi, added in fp32.

The products of tf32 or bf16 parts are exact in fp32; each dot's sum is numpy's fp32 matmul, not the tensor core's
order of accumulation (both within fp32 summation's K*u). Dots of other dtypes, and "ieee", are left as they are.
Where the interpreter is not the one this wraps, nothing is installed and `not_checked` says which classes ran in
plain fp32.

The interpreter runs a kernel by patching triton.language (its builtins, the tensor's operators) with numpy's. Triton
3.9 undoes a launch's patches, but a @triton.jit helper called inside the kernel (tl.cdiv, tl.zeros) patches
triton.language.core again and never undoes it (older Tritons undo nothing): a Gluon or Triton compile later in the same
process then met the interpreter's objects ("'value' object has no attribute 'dtype'" at gl.cdiv) or not, depending on
which test ran first. `install()` also wraps each launch so that it restores every attribute of triton.language's
modules and of triton.language.core's classes that it changed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from harness.catalog_types.kernel import TRITON_TF32_CONVERSION

# What a row says where its class's rounding could not be reproduced on the CPU (it ran in plain fp32).
NOT_CHECKED = "not checked at this precision on a CPU"
# The input precisions this module rounds (Triton's names); "ieee" is the interpreter's own fp32 matmul.
ROUNDED = ("tf32", "tf32x3", "bf16x3", "bf16x6")

_TF32_LOW_BITS = np.uint32(0x1FFF)
_installed: tuple[str, ...] | None = None
_why_not = ""
_ABSENT = object()


def _keep_nan(x: np.ndarray, rounded: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(x), x, rounded)


def tf32_truncated(x: np.ndarray) -> np.ndarray:
    """The upper 19 bits of each fp32 value: what the tensor core reads of an fp32 operand."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    return _keep_nan(x, (x.view(np.uint32) & ~_TF32_LOW_BITS).view(np.float32))


def tf32_rna(x: np.ndarray) -> np.ndarray:
    """cvt.rna.tf32.f32: to the nearest tf32 value, ties away from zero (half a tf32 step added to the magnitude's bit
    pattern, then the low 13 bits dropped; a value past the largest tf32 becomes infinite, as the instruction's)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    bits = (x.view(np.uint32) + np.uint32(0x1000)) & ~_TF32_LOW_BITS
    return _keep_nan(x, np.where(np.isinf(x), x, bits.view(np.float32)))


def bf16_rn(x: np.ndarray) -> np.ndarray:
    """cvt.rn.bf16.f32 (arith.truncf): to the nearest bf16 value, ties to even, as an fp32 array."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    bits = x.view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return _keep_nan(x, np.where(np.isinf(x), x, rounded.view(np.float32)))


_TF32_CONVERSION: dict[str, Callable[[np.ndarray], np.ndarray]] = {"truncate": tf32_truncated, "rna": tf32_rna}
# How the tensor core reads an fp32 operand handed to a tf32 dot (TRITON_TF32_CONVERSION["tf32"]: truncation).
_tensor_core_reads = _TF32_CONVERSION[TRITON_TF32_CONVERSION["tf32"]]


def _tf32_parts(x: np.ndarray) -> list[np.ndarray]:
    big = _TF32_CONVERSION[TRITON_TF32_CONVERSION["tf32x3"]](x)
    small = (x - big).astype(np.float32)  # exact: big is x rounded to a coarser grid
    return [_tensor_core_reads(big), _tensor_core_reads(small)]


def _bf16_parts(x: np.ndarray, count: int) -> list[np.ndarray]:
    parts, rest = [], x
    for _ in range(count):
        part = bf16_rn(rest)
        parts.append(part)
        rest = (rest - part).astype(np.float32)
    return parts


# input precision -> (parts per operand, the products summed from zero before the guard as (a part, b part) pairs,
# in the order the compiler issues them; the last product, hi·hi, comes after the guard)
_SPLITS: dict[str, tuple[Callable[[np.ndarray], list[np.ndarray]], tuple[tuple[int, int], ...]]] = {
    "tf32x3": (_tf32_parts, ((1, 0), (0, 1))),
    "bf16x3": (lambda x: _bf16_parts(x, 2), ((1, 0), (0, 1))),
    "bf16x6": (lambda x: _bf16_parts(x, 3), ((1, 1), (2, 0), (0, 2), (1, 0), (0, 1))),
}


def _matmul(a: np.ndarray, b: np.ndarray, acc: np.ndarray) -> np.ndarray:
    return (np.matmul(a, b, dtype=np.float32) + acc).astype(np.float32)


def rounded_dot(a: np.ndarray, b: np.ndarray, acc: np.ndarray, precision: str) -> np.ndarray:
    """acc + a @ b as tl.dot(input_precision=precision) computes it on the GPU (the module's list; "ieee" is plain
    fp32), in fp32."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    acc = np.asarray(acc, dtype=np.float32)
    if precision == "ieee":
        return _matmul(a, b, acc)
    if precision == "tf32":
        return _matmul(_tensor_core_reads(a), _tensor_core_reads(b), acc)
    split, before_guard = _SPLITS[precision]
    with np.errstate(invalid="ignore"):  # an infinite x leaves inf - inf in its parts: the guard's business
        pa, pb = split(a), split(b)
        part = np.zeros(np.broadcast_shapes(acc.shape, (*a.shape[:-1], b.shape[-1])), dtype=np.float32)
        for i, j in before_guard:
            part = _matmul(pa[i], pb[j], part)
    part = np.where(np.isnan(part), np.float32(0), part).astype(np.float32)
    return (_matmul(pa[0], pb[0], part) + acc).astype(np.float32)


def _language() -> list[object]:
    """What the interpreter patches: triton.language's modules and the classes of triton.language.core."""
    import sys

    import triton.language as tl

    modules = [m for name, m in list(sys.modules.items()) if name.startswith("triton.language") and m is not None]
    return [*modules, *(c for c in vars(tl.core).values() if isinstance(c, type) and c.__module__ == tl.core.__name__)]


def _restore(before: list[tuple[object, dict]]) -> None:
    """Every attribute put back as it was; one added to a class removed. A name added to a module stays: the
    interpreter gives the modules of the helpers it rewrites the names their rewritten code reads."""
    for obj, names in before:
        now = dict(vars(obj))
        for name, value in names.items():
            if now.get(name, _ABSENT) is not value:
                setattr(obj, name, value)
        if isinstance(obj, type):
            for name in now.keys() - names.keys():
                delattr(obj, name)


def _contain_launches() -> None:
    """Every interpreted launch leaves triton.language as it found it (the module's docstring says why)."""
    from triton.runtime.interpreter import GridExecutor

    launch = GridExecutor.__call__
    if getattr(launch, "contained", False):
        return

    def contained(self, *args, **kwargs):
        before = [(obj, dict(vars(obj))) for obj in _language()]
        try:
            return launch(self, *args, **kwargs)
        finally:
            _restore(before)

    contained.contained = True
    GridExecutor.__call__ = contained


def install() -> tuple[str, ...]:
    """Wrap the interpreter (once per process): each launch contained, the dot rounded by class; the input precisions
    now rounded, () where the dot cannot be."""
    global _installed, _why_not
    if _installed is not None:
        return _installed
    try:
        _contain_launches()
        from triton.runtime import interpreter
        from triton.runtime.interpreter import InterpreterBuilder, TensorHandle

        builder = interpreter.interpreter_builder
        original = InterpreterBuilder.create_dot
        allowed = tuple(builder.options.allowed_dot_input_precisions)
    except (ImportError, AttributeError) as e:  # an interpreter laid out otherwise: its dots stay fp32
        _installed, _why_not = (), f"Triton's interpreter is not laid out as this wrapper expects: {e}"
        return _installed

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        name = getattr(input_precision, "name", str(input_precision)).lower()
        if name in ROUNDED and a.data.dtype == np.float32 and b.data.dtype == np.float32:
            out = rounded_dot(a.data, b.data, d.data, name)
            return TensorHandle(out.astype(d.data.dtype), d.dtype.scalar)
        return original(self, a, b, d, input_precision, max_num_imprecise_acc)

    InterpreterBuilder.create_dot = create_dot
    # the bf16 splits are refused by the interpreter's own list of precisions: now it rounds them, it takes them
    builder.options = dataclasses.replace(builder.options, allowed_dot_input_precisions=tuple(
        dict.fromkeys((*allowed, *ROUNDED))))
    _installed = ROUNDED
    return _installed


def not_checked(input_precision: str) -> str:
    """"" where the interpreter computes this input precision as the GPU does (fp32's "ieee" always; the others once
    installed), else NOT_CHECKED with the reason."""
    if input_precision == "ieee" or input_precision in install():
        return ""
    return f"{NOT_CHECKED} ({_why_not})" if _why_not else NOT_CHECKED
