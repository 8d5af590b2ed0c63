"""The harness's layers, read from its sources with every import counted: at the top of a file, inside a function and
under TYPE_CHECKING. Each module is in one part of the house (PARTS, from the top down: docs/layout.md draws them);
a part imports only what ARROWS lets it, which runs down and never back up; what must NEVER reach what is not reached
through any chain of arrows; no modules import each other in a circle; the page reads the catalog only as a record
keeps it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("harness", "kernels_cuda", "kernels_triton", "kernels_gluon")

# The parts, from the top down, each by the modules (and packages) it holds: the longest name that holds a module
# places it.
PARTS: dict[str, tuple[str, ...]] = {
    "Verbs": ("harness.cli",),
    "Page": ("harness.report",),
    "Run": ("harness.run",),
    "Analysis": ("harness.analysis",),
    "Pairs": ("harness.pairs",),
    "Records": ("harness.records",),
    "Inspect": ("harness.inspect",),
    "Launch": ("harness.launch",),
    "Measure": ("harness.measure",),
    "Catalog": ("harness.catalog", "harness.registry", "harness.catalog_types", "harness.claims", "harness.identity",
                "harness.baselines"),
    "Build": ("harness.nvrtc", "harness.env"),
    "Device": ("harness.device",),
    "Basics": ("harness.problems", "harness.term_table"),
    "Kernels": ("kernels_cuda", "kernels_triton", "kernels_gluon"),
}
# What each part may import. The house's drawing names the arrows between the parts it draws; what it leaves on no
# part (measuring, device facts, problems and their preconditions, terminal tables) is FOUNDATION, which any part
# above it may import.
ARROWS: dict[str, tuple[str, ...]] = {
    "Verbs": ("Page", "Run", "Pairs", "Analysis", "Records", "Catalog", "Inspect", "Build", "Launch"),
    "Page": ("Analysis", "Records", "Catalog", "Kernels"),
    "Run": ("Records", "Launch", "Analysis", "Inspect", "Catalog", "Build", "Pairs", "Kernels"),
    "Analysis": ("Records", "Catalog", "Inspect"),
    "Pairs": ("Catalog", "Build", "Launch", "Inspect", "Kernels"),
    "Records": ("Catalog",),
    "Inspect": ("Catalog", "Launch", "Kernels", "Build"),
    "Launch": ("Build", "Catalog", "Kernels"),
    "Catalog": ("Kernels", "Build"),
    "Build": ("Kernels",),
}
FOUNDATION = ("Measure", "Device", "Basics")
NEVER = (
    ("Analysis", "Page", "analysis computes; the page words"),
    ("Catalog", "Pairs", "pairs are handed to the run, not read by the catalog"),
    ("Build", "Pairs", "the build compiles what it is given"),
    ("Launch", "Pairs", "a launch binds what it is given"),
    ("Build", "Catalog", "the build knows sources, not the catalog"),
    ("Inspect", "Records", "facts are returned, not written into results files"),
    ("Analysis", "Run", "analysis reads records, not run code"),
    ("Page", "Run", "the page reads the analysis record only"),
    ("Kernels", "Catalog", "kernels import nothing from the harness"),
    ("Records", "Pairs", "the file format knows no user's pair"),
    ("Catalog", "Analysis", "the catalog states claims; analysis proves them"),
)
ORDER = list(PARTS)


def allowed(part: str) -> set[str]:
    return {*ARROWS.get(part, ()), *(f for f in FOUNDATION if ORDER.index(f) > ORDER.index(part))}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _imports(name: str, path: Path) -> set[str]:
    """Every module of the tree a file imports, anywhere in it (`from harness.x import y` names harness.x.y where
    that is a module, else harness.x); a relative import is resolved against the file's package."""
    out: set[str] = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = ".".join([*package[:len(package) - node.level + 1], *([node.module] if node.module else [])]) \
                if node.level else node.module
            for alias in node.names:
                found = f"{base}.{alias.name}"
                out.add(found if found in MODULES else base)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m for m in out if m in MODULES and m != name and m not in PACKAGES[:1]}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def part_of(module: str) -> str | None:
    holders = [(len(p), part) for part, prefixes in PARTS.items() for p in prefixes
               if module == p or module.startswith(p + ".")]
    return max(holders)[1] if holders else None


def test_every_module_is_in_one_part_of_the_house() -> None:
    assert not sorted(m for m in MODULES if m not in PACKAGES[:1] and part_of(m) is None)


def test_the_arrows_run_down_the_parts_and_never_back_up() -> None:
    up = [(a, b) for a in ORDER for b in allowed(a) if ORDER.index(b) <= ORDER.index(a)]
    assert not up


def test_each_part_imports_only_what_its_arrows_let_it_at_the_top_of_a_file_or_inside_a_function() -> None:
    found = sorted(f"{a} -> {b} ({part_of(a)} -> {part_of(b)})" for a, deps in GRAPH.items() for b in deps
                   if part_of(a) and part_of(b) and part_of(a) != part_of(b) and part_of(b) not in allowed(part_of(a)))
    assert not found


def test_what_must_never_reach_what_is_reached_through_no_chain_of_arrows() -> None:
    def reach(part: str) -> set[str]:
        seen, todo = set(), [part]
        while todo:
            for b in allowed(todo.pop()) - seen:
                seen.add(b)
                todo.append(b)
        return seen

    assert not [f"{a} reaches {b}: {why}" for a, b, why in NEVER if b in reach(a)]


def test_no_modules_import_each_other_in_a_circle() -> None:
    # a package's __init__ that hands on what a module of its own defines is not a circle of two files
    graph = {name: {m for m in deps if not m.startswith(name + ".") and not name.startswith(m + ".")}
             for name, deps in GRAPH.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while component[-1:] != [v]:
                component.append(stack.pop())
            if len(component) > 1:
                circles.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    assert not circles


def test_the_page_reads_the_catalog_only_as_a_record_keeps_it() -> None:
    """The page is drawn with the catalog its analysis record kept (harness/catalog_types/tables.py): no report module
    imports today's catalog, registry or claims."""
    today = ("harness.catalog", "harness.registry", "harness.claims")
    assert not sorted(f"{a} -> {b}" for a, deps in GRAPH.items() if part_of(a) == "Page" for b in deps
                      if b in today or b.startswith(tuple(t + "." for t in today)))
