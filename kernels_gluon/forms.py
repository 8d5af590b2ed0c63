"""The interface every Gluon form in this package declares, as a Protocol the harness checks it against.

A form is a module: its @gluon.jit kernel, the names of its CUDA kernel's template arguments (the settings it takes
from the catalog entry, by those names), the types of its runtime arguments, its constexprs, its warps and a launch
that returns the compiled handle. The harness launches (harness/launch/gluon.py) and compiles ahead of time
(harness/inspect/compile_gluon.py) through these names only.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class GluonForm(Protocol):
    """One Gluon form of a CUDA kernel."""

    KERNEL: Any                 # the @gluon.jit function (a module with several names `kernel(**settings)`)
    TEMPLATE: tuple[str, ...]   # the CUDA kernel's template arguments this form takes, by name

    def signature(self, **settings: Any) -> dict[str, str]:
        """Runtime argument name -> type ("*fp32", "i32", a tensor descriptor's "tensordesc<...>")."""
        ...

    def num_warps(self, **settings: Any) -> int:
        """The warps of the launch (of a warp-specialised kernel: its default partition's)."""
        ...

    def constexprs(self, **settings: Any) -> dict:
        """The kernel's constexpr arguments for a set of settings."""
        ...

    def launch(self, *operands: Any, **settings: Any) -> Any:
        """Start the kernel on the operands with the settings; return the compiled handle. It checks nothing."""
        ...


# A form may also define `options(**settings) -> dict`: compile options its launch passes (e.g. maxnreg, a CUDA
# kernel's launch bounds), which the ahead-of-time compile passes too; and `kernel(**settings)`, where one module
# holds several kernels.
