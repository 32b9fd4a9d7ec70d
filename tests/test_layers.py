"""The floors of docs/ARCHITECTURE.md, checked on every import of burnqed (module level or
inside a function): a package imports only from floors below it, and no modules import
each other in a circle."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "burnqed"

# lowest first; packages on one line share a floor and do not import each other
FLOORS: list[set[str]] = [
    {"env", "files", "lazy", "interrupt", "paths"},  # utilities and PathsConfig: import nothing of ours
    {"lean"},
    {"data"},
    {"trajectory"},
    {"policy"},
    {"ebm"},
    {"search"},
    {"cluster"},  # Ray actors over the search: Lean actors, the policy actor, shards
    {"blueprint"},
    {"iteration"},
    {"tools"},
    {"audit", "coordination"},
    {"bench", "cli"},
]
FLOOR = {package: level for level, packages in enumerate(FLOORS) for package in packages}
# The composed config (burnqed/config.py) sits on top: each layer takes its own config model
# (IterationRunConfig, ToolsRunConfig, CoordinationRunConfig, AuditConfig, …) and only the
# entry points, the CLI and the benchmarks, import the composed BurnqedConfig.
CONFIG_IMPORTERS = {"bench", "cli"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """module → burnqed modules it imports (a ``from M import name`` of a submodule counts as it)."""
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("burnqed"):
                targets.append(node.module)
                targets += [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules]
            elif isinstance(node, ast.Import):
                targets += [a.name for a in node.names if a.name.startswith("burnqed")]
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "burnqed"


def test_every_package_is_on_a_floor() -> None:
    packages = {_package(_module_name(p)) for p in ROOT.rglob("*.py")} - {"burnqed", "config"}
    assert packages <= set(FLOOR), f"put {sorted(packages - set(FLOOR))} on a floor"


def test_no_import_goes_up_a_floor() -> None:
    upward: list[str] = []
    for module, targets in _imports().items():
        source = _package(module)
        for target in targets:
            package = _package(target)
            if package == source or source in ("burnqed", "config"):
                continue
            if package == "config":
                if source not in CONFIG_IMPORTERS:
                    upward.append(f"{module} → {target}")
            elif package == "burnqed" or FLOOR[package] >= FLOOR[source]:
                upward.append(f"{module} → {target}")
    assert not upward, "imports that go up or sideways:\n" + "\n".join(sorted(upward))


def test_no_modules_import_each_other_in_a_circle() -> None:
    graph = _imports()
    # a package's __init__ re-exports its modules: an import of the package itself from
    # inside it is not an edge of the module graph
    edges = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = 0

    def visit(root: str) -> None:
        nonlocal counter
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))

    for module in sorted(set(edges) | {t for ts in edges.values() for t in ts}):
        if module not in index:
            visit(module)
    assert not circles, f"modules in a circle: {circles}"


def test_no_module_is_over_500_lines() -> None:
    long = {str(p.relative_to(ROOT.parent)): n for p in ROOT.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert not long, f"split these modules: {long}"
