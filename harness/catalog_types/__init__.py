"""The words the catalog is written in: a kernel and its Triton counterparts (kernel), an idea and its lesson (idea),
a mapping claim and its checks (claim), and the evidence numbers a check reads (evidence).

They sit below harness/catalog, so that a family's module can declare its kernels, ideas and claims side by side,
and below every reader of the catalog (registry, claims, inspect, analysis, report), which name them by these
modules.
"""

from __future__ import annotations

from importlib import import_module

# Each name from the module that holds it, loaded on first use: a reader of one module (the report reads kernel, idea
# and tables of a recorded catalog) does not load the claims' checks and evidence with it.
_HOME = {"COMPILER": "idea", "PROGRAMMER": "idea", "Idea": "idea", "ByForm": "claim", "ByKernel": "claim",
         "Check": "claim", "Claim": "claim", "Side": "claim", "Counterpart": "kernel", "Deviation": "kernel",
         "Kernel": "kernel", "Role": "kernel"}
__all__ = sorted(_HOME)


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOME[name]}"), name)
