"""The interface every Triton form in this package declares, as Protocols the harness checks it against.

A form is a module: its @triton.jit kernel, the types of its runtime arguments, the constexprs a set of launch
settings makes, and a launch that returns the compiled handle. An autotuned form also reports the configuration its
tuner chose. The harness launches (harness/launch/triton.py), compiles ahead of time and reads the compiled code
(harness/inspect/) through these names only.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class TritonForm(Protocol):
    """One Triton form of a kernel."""

    # the @triton.jit function (under an autotuner, the function it tunes): what an ahead-of-time compile and ncu's
    # kernel filter name
    KERNEL: Any
    # runtime argument name -> Triton type ("*fp32", "i32", "fp32"): the ahead-of-time compile's signature
    SIGNATURE: dict[str, str]

    def constexprs(self, *args: Any, **settings: Any) -> dict:
        """The kernel's constexpr arguments for a set of launch settings (block sizes, group size, precision)."""
        ...

    def launch(self, *operands: Any, **settings: Any) -> Any:
        """Start the kernel on the operands with the settings; return the compiled handle. It checks nothing."""
        ...


@runtime_checkable
class AutotunedForm(TritonForm, Protocol):
    """A form whose tile and stages @triton.autotune picks at its first launch on a shape. Its launch takes
    ``tune``: with ``tune=False`` (a launch that is not timed: the tests' numerics on shapes no run times) and under
    the interpreter (nothing to time) it runs one declared configuration instead of tuning."""

    def chosen_config(self) -> dict | None:
        """The configuration the tuner chose for the last shape launched (block sizes, warps, stages); None before
        any launch."""
        ...


@runtime_checkable
class TunedAroundForm(AutotunedForm, Protocol):
    """An autotuned form whose tuner times configurations of another form's kernel: PLAIN names that form
    (a module of this package), whose launch runs the kernel at one configuration. What the tuner chose can so be
    launched again, and changed one setting at a time (harness/run/knob_study.py)."""

    PLAIN: str
