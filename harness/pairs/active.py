"""The pairs a run declares, as every process of the run finds them: the parent, its workers, the Triton
precompile pool and the ahead-of-time compile child.

A run's workers are spawned and its compile child is a fresh interpreter, so what the parent read cannot reach them
as objects. The declarations travel in the environment (ROSETTA_PAIRS, their JSON form), which every child inherits,
and each process builds the pairs from it once; the folders of the user's Python files go on the module path of the
parent (and so of every spawned worker) and on PYTHONPATH (for the compile child, which imports a kernel by its
module's name). The catalog's lookups (harness/catalog get, harness/nvrtc, harness/launch/triton.py, the records'
kernel facts) ask here for what the catalog does not hold.
"""

from __future__ import annotations

import json
import os
import sys
from functools import cache

from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Kernel
from harness.catalog_types.tables import declared_json
from harness.pairs.declaration import Declaration, environment_paths
from harness.pairs.pair import MODULE_PREFIX, Pair, build

ENV = "ROSETTA_PAIRS"


def importable(declarations: list[Declaration]) -> None:
    """Put the folders of the declarations' Python files on this process's module path (after everything already
    there: a user's file never hides an installed module) and on PYTHONPATH for the processes it starts."""
    for folder in environment_paths(declarations):
        if folder not in sys.path:
            sys.path.append(folder)
        paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        if folder not in paths:
            os.environ["PYTHONPATH"] = os.pathsep.join([*paths, folder])


def activate(declarations: list[Declaration]) -> None:
    """Declare the pairs to this process and every process it starts from now on."""
    importable(declarations)
    os.environ[ENV] = json.dumps([d.to_json() for d in declarations])


def pairs() -> tuple[Pair, ...]:
    """The pairs declared to this process (none where ROSETTA_PAIRS is unset)."""
    return _pairs(os.environ.get(ENV, ""))


@cache
def _pairs(text: str) -> tuple[Pair, ...]:
    if not text:
        return ()
    declarations = [Declaration.from_json(d) for d in json.loads(text)]
    importable(declarations)
    return tuple(build(d) for d in declarations)


def kernels() -> tuple[Kernel, ...]:
    return tuple(p.kernel for p in pairs())


def kernel(kernel_id: str) -> Kernel | None:
    return next((p.kernel for p in pairs() if p.kernel.id == kernel_id), None)


def ideas() -> dict[str, Idea]:
    return {p.idea.key: p.idea for p in pairs()}


def form(module: str):  # -> DeclaredForm | None; imports Triton only where a declared form is asked for
    """The form of a declared counterpart's module ("pair:<name>"); None for a catalog module."""
    if not module.startswith(MODULE_PREFIX):
        return None
    return _form(os.environ.get(ENV, ""), module)


@cache
def _form(text: str, module: str):
    from harness.pairs.form import DeclaredForm

    for p in _pairs(text):
        if p.counterpart.module == module:
            return DeclaredForm(p.declaration)
    raise ValueError(f"Triton form {module!r}: no pair of that name is declared to this process ({ENV})")


def header_tables(kernels: list[Kernel]) -> dict | None:
    """What a results file's header keeps of the run's declared kernels and their ideas, so that any later analysis
    and page draw them as the run measured them (harness/catalog_types/tables.py Catalog.with_declared); None for a
    run of catalog kernels only."""
    mine = [k for k in kernels if k.declared]
    if not mine:
        return None
    known = ideas()
    return declared_json(mine, [known[i] for i in dict.fromkeys(k.idea for k in mine) if i in known])
