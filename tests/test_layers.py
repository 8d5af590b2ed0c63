"""The harness's layers, read from its sources: the analysis never imports the report that renders it, the report
imports nothing that compiles or inspects a kernel, and no two modules import each other at load time."""

from __future__ import annotations

import ast
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[1] / "harness"


def _module(path: Path) -> str:
    parts = path.relative_to(HARNESS.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, top_level_only: bool = False) -> set[str]:
    """The harness modules a file imports (`from harness.x import y` names harness.x.y where that is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m for m in out if m.split(".")[0] == "harness"}


MODULES = {_module(p): p for p in HARNESS.rglob("*.py")}


def test_the_analysis_never_imports_the_report() -> None:
    found = {name: sorted(m for m in _imports(p) if m.startswith("harness.report"))
             for name, p in MODULES.items() if name.startswith("harness.analysis")}
    assert not {k: v for k, v in found.items() if v}


def test_the_report_imports_neither_the_inspectors_nor_the_build_nor_the_launchers() -> None:
    below = ("harness.inspect", "harness.nvrtc", "harness.launch")
    found = {name: sorted(m for m in _imports(p) if m.startswith(below))
             for name, p in MODULES.items() if name.startswith("harness.report")}
    assert not {k: v for k, v in found.items() if v}


def test_the_report_reads_the_catalog_only_as_a_record_keeps_it() -> None:
    """The page is drawn with the catalog its analysis record kept (harness/catalog_types/tables.py): no report module
    imports today's catalog, registry or claims."""
    today = ("harness.catalog", "harness.registry", "harness.claims")
    found = {name: sorted(m for m in _imports(p) if m == today[0] or m.startswith(tuple(t + "." for t in today))
                          or m in today[1:])
             for name, p in MODULES.items() if name.startswith("harness.report")}
    assert not {k: v for k, v in found.items() if v}


def test_no_two_harness_modules_import_each_other_at_load_time() -> None:
    graph = {name: {m for m in _imports(p, top_level_only=True) if m in MODULES and m != name}
             for name, p in MODULES.items()}
    # a package imports what its __init__ re-exports; a module importing its own package is not a cycle of two files
    graph = {name: {m for m in deps if not name.startswith(m + ".")} for name, deps in graph.items()}
    seen: dict[str, int] = {}            # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(name: str, path: list[str]) -> None:
        seen[name] = 1
        for dep in sorted(graph[name]):
            if seen.get(dep) == 1:
                cycles.append([*path[path.index(dep):], dep] if dep in path else [name, dep])
            elif dep not in seen:
                visit(dep, [*path, dep])
        seen[name] = 2

    for name in sorted(graph):
        if name not in seen:
            visit(name, [name])
    assert not cycles, cycles[:3]


def test_the_results_format_analysis_and_report_import_nothing_that_executes_a_run() -> None:
    """A results file is read through harness.records alone: the analysis, the report and the format itself never
    import harness.run (the worker, the session, the launchers of a run)."""
    readers = ("harness.records", "harness.analysis", "harness.report")
    found = {name: sorted(m for m in _imports(p) if m == "harness.run" or m.startswith("harness.run."))
             for name, p in MODULES.items() if name.startswith(readers)}
    assert not {k: v for k, v in found.items() if v}
