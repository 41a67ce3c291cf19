"""The project's layers, and a static check of every import against them (docs/architecture.md).

Each top-level part of the tree may import only the parts listed for it. The check reads the source with
``ast`` (no import is executed), so an import inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Part of the tree -> the parts of ours it may import (besides itself). Most specific prefix wins.
ALLOWED: dict[str, frozenset[str]] = {
    "kingdomino": frozenset(),
    "model": frozenset({"kingdomino"}),
    "scanner": frozenset({"kingdomino", "model"}),
    "model.training": frozenset({"kingdomino", "model"}),
    "model.evaluation": frozenset({"kingdomino", "model", "model.training", "scanner"}),
    "page": frozenset({"kingdomino", "model", "scanner"}),
    "app": frozenset({"kingdomino", "model", "scanner", "page"}),
    "benchmarks": frozenset({"kingdomino", "model", "model.training", "model.evaluation", "scanner", "page"}),
}
#: Third-party libraries the pure game package must never need.
PURE_PARTS = ("kingdomino",)


@dataclass(frozen=True)
class Violation:
    module: str
    imported: str
    line: int
    why: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line} imports {self.imported}: {self.why}"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def part_of(module: str) -> str | None:
    """The most specific layer a module belongs to (None: not ours)."""
    best = None
    for part in ALLOWED:
        if module == part or module.startswith(part + "."):
            if best is None or len(part) > len(best):
                best = part
    return best


def imports_of(path: Path, module: str) -> Iterator[tuple[str, int]]:
    """Every module ``path`` imports (absolute names; relative imports resolved), with its line.

    A file that imports by name (``importlib.import_module``) imports every string in it that names one of our
    modules: a table of lazily imported commands is as much an arrow between layers as an import statement."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    by_name = any(isinstance(node, ast.Attribute) and node.attr == "import_module" for node in ast.walk(tree))
    for node in ast.walk(tree):
        if by_name and isinstance(node, ast.Constant) and names_our_module(node.value):
            yield node.value, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base, node.lineno
            for alias in node.names:  # ``from model import ensemble`` imports model.ensemble
                yield f"{base}.{alias.name}", node.lineno


def names_our_module(value: object) -> bool:
    """Whether a constant is a dotted module name in one of our parts (``"scanner.scan_cli"``)."""
    if (
        not isinstance(value, str)
        or "." not in value
        or not all(word.isidentifier() for word in value.split("."))
    ):
        return False
    return value.split(".")[0] in {part.split(".")[0] for part in ALLOWED}


def source_files(root: Path) -> Iterator[Path]:
    for part in ("kingdomino", "model", "scanner", "page", "benchmarks"):
        if (root / part).is_dir():
            yield from sorted((root / part).rglob("*.py"))
    if (root / "app.py").is_file():
        yield root / "app.py"


def project_modules(root: Path) -> set[str]:
    return {module_name(path, root) for path in source_files(root)}


def violations(root: Path = ROOT) -> list[Violation]:
    found = []
    for path in source_files(root):
        module = module_name(path, root)
        layer = part_of(module)
        for imported, line in imports_of(path, module):
            target = part_of(imported)
            if target is None:
                top = imported.split(".")[0]
                if layer in PURE_PARTS and top and top not in sys.stdlib_module_names:
                    found.append(Violation(module, imported, line, f"{layer} uses the standard library only"))
                continue
            if target != layer and target not in ALLOWED[layer]:
                found.append(Violation(module, imported, line, f"{layer} may not import {target}"))
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports (packages' own __init__ left out as targets)."""
    ours = project_modules(root)
    graph: dict[str, set[str]] = {}
    for path in source_files(root):
        module = module_name(path, root)
        targets = set()
        for imported, _ in imports_of(path, module):
            if imported in ours and imported != module and not module.startswith(imported + "."):
                targets.add(imported)
        graph[module] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found
