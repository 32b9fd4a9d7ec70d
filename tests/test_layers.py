"""The floors of docs/ARCHITECTURE.md, checked on every import of burnqed (module level or
inside a function): a package imports only from floors below it, and no modules import
each other in a circle."""

from __future__ import annotations

import ast
import functools
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "burnqed"

# lowest first; packages on one line share a floor and do not import each other
FLOORS: list[set[str]] = [
    # utilities and PathsConfig: import nothing of ours
    {"child", "env", "files", "lazy", "interrupt", "paths", "collector", "writelock"},
    {"rundir"},  # a run directory: root, writer lock, logs/; each layer above names its own files in it
    {"lean"},  # the Lean client: protocol, worker, pool, handles, final check
    {"embedded"},  # the embedded checker, its kernel and soundness campaign: speaks lean's protocol
    {"data"},
    {"trajectory"},
    {"policy"},
    {"ebm"},
    {"search"},
    {"cluster"},  # Ray actors over the search: Lean actors, the policy actor, the campaign
    {"runs"},  # running a set of statements, locally or on Ray: the one call and its spec
    {"blueprint"},
    {"iteration"},
    {"tools"},
    {"audit", "coordination"},
    {"bench", "doctor"},  # every benchmark; the set-up check (burnqed doctor); the CLI dispatches to them
    {"cli"},
]
FLOOR = {package: level for level, packages in enumerate(FLOORS) for package in packages}
# The composed config (burnqed/config.py) sits on top: each layer takes its own config model
# (IterationRunConfig, ToolsRunConfig, CoordinationRunConfig, AuditConfig, …) and only the
# entry points, the CLI and the benchmarks, import the composed BurnqedConfig.
CONFIG_IMPORTERS = {"bench", "cli"}


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# a string that names a module (``importlib.import_module("burnqed.tools.common.jobs")``, a lazy
# facade's table, ``"burnqed.tools.lean.tools:build"``) is an import like any other
_MODULE_STRING = re.compile(r"burnqed(\.[A-Za-z_][A-Za-z0-9_]*)+(:[A-Za-z_][A-Za-z0-9_]*)?")


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str | None:
    """The absolute module an ``ImportFrom`` names (``from ..search import engine`` too)."""
    if node.level == 0:
        return node.module
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    if node.level - 1 > len(package) - 1:
        return None  # beyond the top package: Python refuses it as well
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(root: Path = ROOT) -> dict[str, set[str]]:
    """module → burnqed modules it imports: absolute, relative and string imports (a ``from M
    import name`` of a submodule counts as it). A fresh copy: callers may change it."""
    return defaultdict(set, {module: set(targets) for module, targets in _read_imports(root).items()})


@functools.cache
def _read_imports(root: Path) -> dict[str, frozenset[str]]:
    """The import graph read once per root (parsing the library is the costly part)."""
    modules = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        launched: set[int] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                source = _absolute(name, path, node)
                if source and source.split(".")[0] == "burnqed":
                    targets.append(source)
                    targets += [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in modules]
            elif isinstance(node, ast.Import):
                targets += [a.name for a in node.names if a.name.split(".")[0] == "burnqed"]
            elif isinstance(node, (ast.List, ast.Tuple)):
                # ``[python, "-m", "burnqed.cli", ...]`` runs a command in a child process: no import
                after_m = {id(b) for a, b in zip(node.elts, node.elts[1:]) if isinstance(a, ast.Constant) and a.value == "-m"}
                launched.update(after_m)
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in launched
                and _MODULE_STRING.fullmatch(node.value)
                and node.value.split(":")[0] in modules
            ):
                targets.append(node.value.split(":")[0])
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules and target != name:
                    graph[name].add(target)
    return {module: frozenset(targets) for module, targets in graph.items()}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "burnqed"


def test_relative_string_and_child_process_imports_are_read(tmp_path: Path) -> None:
    """The graph the floor tests read sees ``from ..x import y`` and module-name strings, and
    not ``-m burnqed.cli`` (a command run in a child process)."""
    root = tmp_path / "burnqed"
    for module in ("search/engine", "tools/jobs", "cli/__init__", "lean/__init__", "search/__init__", "tools/__init__"):
        (root / f"{module}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / f"{module}.py").touch()
    (root / "__init__.py").touch()
    (root / "lean" / "mod.py").write_text(
        "from ..search import engine\n"
        "from . import other\n"
        "import importlib\n"
        "importlib.import_module('burnqed.tools.jobs')\n"
        "ARGS = ['-m', 'burnqed.cli']\n"
        "NOT_A_MODULE = 'burnqed.nothing'\n",
        encoding="utf-8",
    )
    assert _imports(root)["burnqed.lean.mod"] == {"burnqed.search.engine", "burnqed.search", "burnqed.tools.jobs", "burnqed.lean"}


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


TOOLS_WINGS = ("lean", "search", "stats", "blueprint", "common")


def test_each_tools_wing_imports_the_common_wing_and_no_other() -> None:
    """burnqed/tools is one wing per server over a common wing: a server's wing never reaches into another's."""
    wrong = []
    for module, imported in _imports().items():
        parts = module.split(".")
        if parts[:2] != ["burnqed", "tools"] or len(parts) < 4:
            continue
        wing = parts[2]
        for target in imported:
            tparts = target.split(".")
            if tparts[:2] == ["burnqed", "tools"] and len(tparts) > 2 and tparts[2] != wing:
                if wing == "common" or tparts[2] != "common":
                    wrong.append(f"{module} -> {target}")
    assert {p.name for p in (ROOT / "tools").iterdir() if p.is_dir() and p.name != "__pycache__"} == set(TOOLS_WINGS)
    assert wrong == []


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


# burnqed/embedded/ in wings along its pipeline, lowest first (docs/ARCHITECTURE.md, docs/embedded.md
# "Wings"): a wing imports only from wings below it and the package's config.py; at its top only
# the package's entry point and settings
EMBEDDED_WINGS: list[str] = ["kernel", "syntax", "elab", "decide", "bridge", "tactics", "repl", "soundness"]
EMBEDDED_TOP = {"__init__.py", "__main__.py", "config.py"}


def _wing(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[:2] == ["burnqed", "embedded"] else None


def test_no_embedded_module_sits_outside_its_wing() -> None:
    """issue 43: a new module of the embedded checker goes into the wing of its stage."""
    top = ROOT / "embedded"
    loose = {p.name for p in top.glob("*.py")} - EMBEDDED_TOP
    assert not loose, f"move these into a wing of burnqed/embedded/: {sorted(loose)}"
    wings = {p.name for p in top.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert wings == set(EMBEDDED_WINGS), f"wings {sorted(wings)}: draw a new wing in docs/ARCHITECTURE.md and here"


def test_no_embedded_import_goes_up_a_wing() -> None:
    level = {wing: n for n, wing in enumerate(EMBEDDED_WINGS)}
    upward = [
        f"{module} → {target}"
        for module, targets in _imports().items()
        if (source := _wing(module)) is not None
        for target in targets
        if (wing := _wing(target)) is not None and wing != source and level[wing] > level[source]
    ]
    assert not upward, "embedded imports that go up a wing:\n" + "\n".join(sorted(upward))
