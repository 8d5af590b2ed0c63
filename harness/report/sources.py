"""Sources on the page: each file once, and a step shown as what it changed.

A .cu file appears in full the first time the page needs it; a later idea that uses it again links
back. Where a kernel is a step from an earlier one of the same document (or of tile-rosetta's own
series: the rungs of the ladder), the page shows the diff against the step before in its lineage
(harness/analysis/steps.py lineage_before, the kernel its step is measured against) instead of the
whole kernel. A .cu file is read with the .cuh headers it
includes expanded in place (the Hopper rungs share theirs), so the first rung shows every helper it
calls and each later one's diff shows what it adds, in a header or in its own file. Triton modules are
self-contained and shown whole, once. Nothing is imported:
files are read from disk, so rendering never defines a Triton kernel or needs a GPU.
"""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

from harness.analysis.measured import Measured
from harness.analysis.steps import lineage_file
from harness.catalog_types.kernel import Counterpart, Kernel
from harness.report.doc import Inline, Mono, Source
from harness.report.metrics import launch_text
from kernels_cuda import expanded, source_path


def cuda_text(name: str) -> str:
    """The .cu file with its headers expanded: the code its kernel is compiled from, as one text."""
    try:
        return expanded(source_path(name))
    except OSError as e:
        return f"// {name}: cannot read the source ({e})"


def triton_text(module: str) -> str:
    # find_spec of the package locates it without importing it (nor Triton).
    spec = importlib.util.find_spec("kernels_triton")
    try:
        if spec is None or not spec.submodule_search_locations:
            raise OSError("kernels_triton is not importable")
        return (Path(next(iter(spec.submodule_search_locations))) / f"{module}.py").read_text(encoding="utf-8")
    except OSError as e:
        return f"# kernels_triton/{module}.py: cannot read the source ({e})"


def _threads(k: Kernel) -> str:
    return "×".join(str(d) for d in k.block if d > 1) or "1"


class SourcePlanner:
    """Decides, section by section in page order, how each file is shown; remembers where."""

    def __init__(self, m: Measured) -> None:
        self.m = m                                    # the run: a Triton launch is named as it ran
        self.shown: dict[str, tuple[str, str]] = {}   # path -> (anchor, title) of the section that shows it
        self._kernels = m.catalog.kernels             # registry order: the order of the steps

    def cuda(self, kernels: list[Kernel], anchor: str, title: str) -> list[Source]:
        out = []
        files: dict[str, list[Kernel]] = {}
        for k in kernels:
            files.setdefault(k.source, []).append(k)
        for name, users in files.items():
            path = users[0].path
            used: list[Inline] = []
            for i, k in enumerate(users):
                used += ["; " if i else "", Mono(k.id), f" ({_threads(k)} threads)"]
            if path in self.shown:
                out.append(Source(path, "cuda", "", used, shown_at=self.shown[path][0], shown_in=self.shown[path][1]))
                continue
            text = users[0].code or cuda_text(name)  # a user's own kernel as the record keeps it
            # The step before is the file of the kernel the step is measured against (steps.lineage_before), where
            # the page shows it already; the diff includes the header comment, so the edits and the section it cites
            # are part of what changed. A diff even where a step rewrote much: what changed is the point.
            before = lineage_file(users, self._kernels)
            prev = f"kernels_cuda/{before}" if before else None
            source = Source(path, "cuda", text, used)
            if prev in self.shown:
                old = cuda_text(prev.removeprefix("kernels_cuda/"))
                diff = "".join(difflib.unified_diff(old.splitlines(keepends=True), text.splitlines(keepends=True),
                                                    fromfile=prev, tofile=path, n=3))
                source = Source(path, "cuda", diff, used, diff_against=prev, against_at=self.shown[prev][0],
                                shown_in=self.shown[prev][1])
            out.append(source)
            self.shown[path] = (anchor, title)
        return out

    def triton(self, kernels: list[Kernel], anchor: str, title: str) -> list[Source]:
        out = []
        modules: dict[str, list[Inline]] = {}
        forms: dict[str, Counterpart] = {}
        for k in kernels:
            for c in k.counterparts:
                used = modules.setdefault(c.module, [])
                forms.setdefault(c.module, c)
                used += ["; " if used else "", Mono(k.id), f" [{c.name}]: {launch_text(self.m, k, c)}"]
        for module, used in modules.items():
            path = forms[module].path
            if path in self.shown:
                out.append(Source(path, "python", "", used, shown_at=self.shown[path][0],
                                  shown_in=self.shown[path][1]))
                continue
            out.append(Source(path, "python", forms[module].code or triton_text(module), used))
            self.shown[path] = (anchor, title)
        return out
