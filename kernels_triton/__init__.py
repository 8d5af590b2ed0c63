"""Triton counterparts of the seed kernels: one module per idea, each with a checking wrapper.

Modules are looked up by name from the registry (harness.registry.Counterpart.module), so importing
the registry never imports Triton kernels: TRITON_INTERPRET must be decided before they are defined.
"""

import os


def interpreting() -> bool:
    """True when Triton runs kernels in its CPU interpreter (operands are then CPU tensors)."""
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def device_type() -> str:
    return "cpu" if interpreting() else "cuda"
