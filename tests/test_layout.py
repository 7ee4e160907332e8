"""The project's shape (design §1, issue 10): pure packages stay pure, no import cycles, short functions."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

PACKAGES = ("ingest", "query", "worker")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_imports(path: Path, known: set[str]) -> set[str]:
    """The project modules a module imports, anywhere in it (in functions and for type checking too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(name for name in names if name in known)
    return found


def import_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for package in PACKAGES for p in (REPO / package).rglob("*.py")}
    return {name: project_imports(path, set(files)) - {name} for name, path in files.items()}


def test_pure_packages_import_nothing_from_the_worker() -> None:
    graph = import_graph()
    leaks = {m: sorted(i for i in imports if i.split(".")[0] == "worker") for m, imports in graph.items()}
    assert {m: i for m, i in leaks.items() if i and m.split(".")[0] in ("ingest", "query")} == {}


def test_no_import_cycles() -> None:
    graph = import_graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_no_function_in_the_worker_is_over_sixty_lines() -> None:
    long: list[str] = []
    for path in (REPO / "worker").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno + 1 > 60:
                long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}")
    assert long == []
