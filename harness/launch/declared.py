"""A user's Triton file as a form of the suite (kernels_triton/forms.py: KERNEL, SIGNATURE, constexprs, launch), so
that the launchers, the ahead-of-time compile and the records treat it as they treat the catalog's forms. It is built
from the declared counterpart alone (its file, kernel, launch and grid functions, constexprs: harness/pairs makes
them), in whichever process launches it.

The kernel's parameters are read by name. Runtime parameters come from the operands: A, B, C (sgemv: A, x, y; the
tutorials' a_ptr, b_ptr, c_ptr, x_ptr, y_ptr too), M, N, K, alpha, beta and the strides stride_am, stride_ak,
stride_bk, stride_bn, stride_cm, stride_cn (sgemv: stride_am). Constexpr parameters come from the pair's tile and
settings: BLOCK_M, BLOCK_N, BLOCK_K (or BLOCK_SIZE_M, ...), INPUT_PRECISION (the class's Triton input_precision),
and any the declaration names under triton.constexprs; one with a default may be left out. A kernel under
@triton.autotune keeps its tuner on a GPU (the record then holds the configuration it chose); on CPU operands (the
interpreter) it runs at the declared settings. A declared launch function takes the operands and the settings
(block_m, block_n, block_k, num_warps, num_stages, input_precision and the declared constexprs, each where its
signature names it) and returns the compiled handle; the suite then launches nothing itself. What does not fit is a
ValueError, in words a user's pair check (harness/pairs/checks.py) prefixes with the pair.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from harness.catalog_types.declared_files import declared_function, declared_module
from harness.catalog_types.kernel import Counterpart, Kernel

# Runtime parameters a kernel may take, by op: name -> (Triton type, what gives its value)
RUNTIME: dict[str, dict[str, str]] = {
    "sgemm": {"A": "*fp32", "a_ptr": "*fp32", "B": "*fp32", "b_ptr": "*fp32", "C": "*fp32", "c_ptr": "*fp32",
              "M": "i32", "N": "i32", "K": "i32", "alpha": "fp32", "beta": "fp32",
              **dict.fromkeys(("stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"), "i32")},
    "sgemv": {"A": "*fp32", "a_ptr": "*fp32", "x": "*fp32", "x_ptr": "*fp32", "y": "*fp32", "y_ptr": "*fp32",
              "M": "i32", "N": "i32", "stride_am": "i32"},
}
# Constexpr parameters the suite fills from the settings: kernel name -> setting
SETTINGS: dict[str, str] = {"BLOCK_M": "block_m", "BLOCK_SIZE_M": "block_m", "BLOCK_N": "block_n",
                            "BLOCK_SIZE_N": "block_n", "BLOCK_K": "block_k", "BLOCK_SIZE_K": "block_k",
                            "INPUT_PRECISION": "input_precision", "input_precision": "input_precision"}
LAUNCH_OPTIONS = ("num_warps", "num_stages")


def _is_jit(obj: object) -> bool:
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    return isinstance(obj, (JITFunction, InterpretedFunction)) or (
        hasattr(obj, "fn") and type(obj).__name__ in ("Autotuner", "Heuristics"))


def _python_function(kernel: Any) -> Callable:
    fn = kernel
    while not inspect.isfunction(fn) and hasattr(fn, "fn"):
        fn = fn.fn
    return fn


def _is_constexpr(annotation: object) -> bool:
    import triton.language as tl

    return annotation is tl.constexpr or (isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr")


class DeclaredForm:
    """The form of a declared counterpart's Triton file (see the module's docstring)."""

    def __init__(self, kernel: Kernel, counterpart: Counterpart) -> None:
        self.op, self.b_layout, self.declared = kernel.op, kernel.b_layout, dict(counterpart.params)
        c = counterpart
        try:
            self.module = declared_module(c.file)
        except Exception as e:  # an import error of the user's file, said in one line
            raise ValueError(f"triton.file {c.file} does not import: {type(e).__name__}: {one_line(str(e))}") from None
        if c.kernel_fn:
            jit = getattr(self.module, c.kernel_fn, None)
            if jit is None or not _is_jit(jit):
                raise ValueError(f"triton.kernel {c.kernel_fn!r}: {c.file} has no @triton.jit function of that name")
        else:
            found = {n: v for n, v in vars(self.module).items() if _is_jit(v) and getattr(
                _python_function(v), "__module__", None) == self.module.__name__}
            if len(found) != 1:
                raise ValueError(f"{c.file} defines {len(found)} @triton.jit functions"
                                 + (f" ({', '.join(found)})" if found else "") + ": name one with triton.kernel")
            jit = next(iter(found.values()))
        self.tuner = jit if type(jit).__name__ == "Autotuner" else None
        self.KERNEL = jit
        self.user_launch = _named_function(c.file, c.launch_fn, "triton.launch") if c.launch_fn else None
        # the settings the launch function takes (None: all of them), read once: a launch is timed with its call
        self.launch_takes = _takes(self.user_launch) if self.user_launch is not None else None
        self.user_grid = _named_function(*c.grid_fn.rsplit(":", 1), "triton.grid") if c.grid_fn else None
        self.params = inspect.signature(_python_function(jit)).parameters
        runtime = RUNTIME[self.op]
        self.SIGNATURE: dict[str, str] = {}
        self.constexpr_names: list[str] = []
        unknown = []
        for name, p in self.params.items():
            if _is_constexpr(p.annotation):
                self.constexpr_names.append(name)
                if name not in SETTINGS and name not in self.declared and p.default is inspect.Parameter.empty:
                    unknown.append(f"constexpr {name}")
            elif name in runtime:
                self.SIGNATURE[name] = runtime[name]
            else:
                unknown.append(name)
        if unknown and self.user_launch is None:
            raise ValueError(f"the kernel's parameter{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}: none "
                             f"the suite gives (runtime: {', '.join(runtime)}; constexpr: BLOCK_M, BLOCK_N, BLOCK_K, "
                             f"INPUT_PRECISION and triton.constexprs)")
        extra = [n for n in self.declared if n not in self.constexpr_names]
        if extra and self.user_launch is None:
            raise ValueError(f"triton.constexprs {', '.join(extra)}: the kernel has no constexpr parameter of that "
                             f"name")
        # constexprs() names the settings it reads, so that the launcher passes it exactly those (launch/triton.py)
        names = list(dict.fromkeys([SETTINGS[n] for n in self.constexpr_names if n in SETTINGS] + list(self.declared)))
        self.constexprs = _named(self._constexprs, names)

    # ------------------------------------------------------------------ the form's interface
    def _constexprs(self, **settings: Any) -> dict:
        """The kernel's constexpr arguments: the tile and the class from the settings, the declared ones, and each
        default the kernel gives (an ahead-of-time compile names every constexpr)."""
        out: dict[str, Any] = {}
        for name in self.constexpr_names:
            p = self.params[name]
            if name in self.declared:
                out[name] = settings.get(name, self.declared[name])
            elif name in SETTINGS and settings.get(SETTINGS[name]) is not None:
                out[name] = settings[SETTINGS[name]]
            elif name in SETTINGS and SETTINGS[name] == "input_precision":
                out[name] = "ieee"  # an fp32 pair: the settings carry no input_precision (Counterpart.config)
            elif p.default is not inspect.Parameter.empty:
                out[name] = p.default
        return out

    def launch(self, *operands: Any, **settings: Any) -> Any:
        if self.user_launch is not None:
            takes = self.launch_takes
            return self.user_launch(*operands, **(settings if takes is None else
                                                  {k: v for k, v in settings.items() if k in takes}))
        values = runtime_values(self.op, self.b_layout, operands)
        args = {name: values[name] for name in self.SIGNATURE}
        constexprs = self._constexprs(**settings)
        grid = self.grid(values, settings)
        # Operands on the CPU are the interpreter's, which runs the declared settings rather than a tuner's search
        if self.tuner is not None and operands[0].is_cuda:
            tuned = {k for c in self.tuner.configs for k in c.kwargs}
            return self.tuner[grid](**args, **{k: v for k, v in constexprs.items() if k not in tuned})
        kernel = self.tuner.fn if self.tuner is not None else self.KERNEL
        return kernel[grid](**args, **constexprs, **{k: settings[k] for k in LAUNCH_OPTIONS if k in settings})

    def chosen_config(self) -> dict | None:
        """The configuration an autotuned kernel's tuner chose at its last launch (None for a kernel without one)."""
        best = getattr(self.tuner, "best_config", None) if self.tuner is not None else None
        if best is None:
            return None
        return {**{SETTINGS.get(k, k): v for k, v in best.kwargs.items()}, "num_warps": best.num_warps,
                "num_stages": best.num_stages}

    # ------------------------------------------------------------------ the grid
    def grid(self, values: dict[str, Any], settings: dict[str, Any]) -> Callable[[dict], tuple[int, ...]]:
        """The launch grid as Triton takes it, a function of the kernel's arguments: the declared one, else the CUDA
        side's tile grid (column tiles along axis 0, row tiles along axis 1; sgemv: row tiles)."""
        if self.user_grid is not None:
            return self.user_grid
        names = {SETTINGS[n]: n for n in self.constexpr_names if n in SETTINGS}
        M, N = values["M"], values["N"]

        def tiles(meta: dict) -> tuple[int, ...]:
            bm = meta.get(names.get("block_m", ""), settings.get("block_m"))
            if self.op == "sgemv":
                return (-(-M // bm),)
            bn = meta.get(names.get("block_n", ""), settings.get("block_n"))
            return (-(-N // bn), -(-M // bm))

        return tiles

    def programs(self, M: int, N: int, K: int, settings: dict[str, Any]) -> tuple[int, ...] | None:
        """How many programs the grid launches on a problem (None where a launch function sets its own grid), and
        the meta dict a grid function is given: the kernel's arguments by name, pointers as None."""
        if self.user_launch is not None:
            return None
        values: dict[str, Any] = {n: None for n in self.SIGNATURE}
        values.update({"M": M, "N": N, "K": K, "alpha": 1.0, "beta": 0.0})
        meta = {**values, **self._constexprs(**settings)}
        return tuple(int(v) for v in self.grid(values, settings)(meta))


def runtime_values(op: str, b_layout: str, operands: tuple) -> dict[str, Any]:
    """Every runtime argument a kernel may take, from the operands the launcher passes (A, B, C, alpha, beta for
    sgemm, B already packed to B^T where the layout is K-major; A, x, y for sgemv)."""
    if op == "sgemv":
        A, x, y = operands[:3]
        return {"A": A, "a_ptr": A, "x": x, "x_ptr": x, "y": y, "y_ptr": y, "M": A.shape[0], "N": A.shape[1],
                "stride_am": A.stride(0)}
    A, B, C, alpha, beta = operands[:5]
    # B[k, n] sits at k*stride_bk + n*stride_bn: for the packed B^T (N x K) that is stride 1 along K
    bk, bn = (B.stride(1), B.stride(0)) if b_layout == "kmajor" else (B.stride(0), B.stride(1))
    return {"A": A, "a_ptr": A, "B": B, "b_ptr": B, "C": C, "c_ptr": C, "M": A.shape[0], "N": C.shape[1],
            "K": A.shape[1], "alpha": float(alpha), "beta": float(beta), "stride_am": A.stride(0),
            "stride_ak": A.stride(1), "stride_bk": bk, "stride_bn": bn, "stride_cm": C.stride(0),
            "stride_cn": C.stride(1)}


def _named(fn: Callable[..., dict], names: list[str]) -> Callable[..., dict]:
    """`fn` with a signature naming each setting it reads, keyword-only (launch/triton.py passes it those)."""

    def constexprs(**settings: Any) -> dict:
        return fn(**settings)

    constexprs.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None) for n in names])
    return constexprs


def _takes(fn: Callable) -> frozenset[str] | None:
    """The keyword settings a function takes (None: any, it has **settings)."""
    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return None
    return frozenset(params)


def one_line(text: str) -> str:
    """A message on one line: its first line that says something."""
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), text.strip())


def _named_function(file: str, name: str, key: str) -> Callable:
    try:
        return declared_function(f"{file}:{name}")
    except ValueError as e:
        raise ValueError(f"{key} {name!r}: {e}") from None


# One form per declared counterpart and process (a counterpart holds a dict, so it is not a key itself)
_FORMS: dict[tuple, DeclaredForm] = {}


def form_of(kernel: Kernel, counterpart: Counterpart) -> DeclaredForm:
    """The form of a declared counterpart, built once per process."""
    c = counterpart
    key = (kernel.op, kernel.b_layout, c.file, c.kernel_fn, c.launch_fn, c.grid_fn, tuple(sorted(c.params.items())))
    if key not in _FORMS:
        _FORMS[key] = DeclaredForm(kernel, counterpart)
    return _FORMS[key]
