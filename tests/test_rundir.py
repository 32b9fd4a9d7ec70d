"""RunDir: a run directory's root, writer lock and logs/, and the walk up to the run a path
lies in; each layer names its own files (the tool-call log is spelled once in the library)."""

from __future__ import annotations

import ast
from pathlib import Path

from burnqed.rundir import RunDir
from burnqed.writelock import RUN_LOCK_NAME, holder, refuse_inside_locked_run

LIBRARY = Path(__file__).resolve().parents[1] / "burnqed"


def test_lock_and_logs_are_inside_the_run(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    assert run.lock == tmp_path / RUN_LOCK_NAME and run.logs == tmp_path / "logs"
    with run.hold("test writer") as held:
        assert not held.borrowed
        current = holder(run.lock)
        assert current is not None and current.role == "test writer"
    assert holder(run.lock) is None


def test_enclosing_finds_the_nearest_marked_ancestor(tmp_path: Path) -> None:
    (tmp_path / "marked").mkdir()
    deep = tmp_path / "marked" / "a" / "b"
    deep.mkdir(parents=True)
    assert RunDir.enclosing(deep / "out.parquet", ("marked_file",)) is None
    (tmp_path / "marked" / "marked_file").write_text("", encoding="utf-8")
    found = RunDir.enclosing(deep / "out.parquet", ("marked_file",))
    assert found is not None and found.root == (tmp_path / "marked").resolve()


def test_a_held_run_is_found_by_its_lock_alone(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    assert RunDir.enclosing(tmp_path / "x" / "out.json", ()) is None
    with run.hold("test writer"):
        found = RunDir.enclosing(tmp_path / "x" / "out.json", ())
        assert found is not None and found.root == tmp_path.resolve()
        refuse_inside_locked_run(tmp_path / "x" / "out.json")  # the holder itself passes


def test_the_tool_call_log_is_named_once_in_the_library() -> None:
    """Code (not docstrings or help text) spells ``tool_calls.jsonl`` in one place."""
    spelled: list[str] = []
    for path in LIBRARY.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
        }
        spelled += [
            f"{path.relative_to(LIBRARY)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value == "tool_calls.jsonl" and id(node) not in docstrings
        ]
    assert spelled == ["tools/common/run_files.py:12"]
