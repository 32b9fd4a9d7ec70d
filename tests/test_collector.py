"""burnqed.collector: the entry points freeze the heap on the way out (library calls never do); a
model load and a server build run with the collector paused."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _freeze_count_after(code: str, stdin: str = "") -> list[str]:
    program = f"import gc, sys\n{code}\nprint(gc.get_freeze_count() > 0, file=sys.stderr)"
    out = subprocess.run([sys.executable, "-c", program], input=stdin, capture_output=True, text=True, timeout=120)
    return out.stderr.split()


def test_the_console_entry_point_freezes_the_heap_and_keeps_the_exit_status() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["burnqed"] == "burnqed.cli:run"
    # no command: the help and exit status 2, as main gives it
    assert _freeze_count_after("from burnqed.cli import run\nsys.argv = ['burnqed']\nprint(run(), file=sys.stderr)")[-2:] == ["2", "True"]


def test_main_called_in_process_freezes_nothing() -> None:
    # tests and the thin entry points call main: the caller's collector keeps working
    assert _freeze_count_after("from burnqed.cli import main\nprint(main([]), file=sys.stderr)")[-2:] == ["2", "False"]


def test_the_embedded_checker_and_the_policy_worker_exit_through_it() -> None:
    run_as_main = (
        "import runpy\n"
        "sys.argv = ['x', '--version']\n"
        "try:\n"
        "    runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n"
        "except SystemExit as exc:\n"
        "    print(exc.code, file=sys.stderr)"
    )
    # the embedded checker answers --version; the policy worker refuses an unreadable start line
    assert _freeze_count_after(run_as_main.format(module="burnqed.embedded"))[-2:] == ["0", "True"]
    worker = _freeze_count_after(run_as_main.format(module="burnqed.policy.worker"), stdin="not a start line\n")
    assert worker[-1] == "True" and worker[-2] != "0"


def test_paused_turns_the_collector_off_for_the_block_and_back_as_it_was() -> None:
    import gc

    from burnqed.collector import paused

    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        gc.enable()


def test_a_model_load_and_a_server_build_run_with_the_collector_paused(
    tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from burnqed.config import load_config
    from burnqed.policy.config import PolicyConfig
    from burnqed.policy.model import PolicyModel
    from burnqed.tools import servers

    loads: list[bool] = []
    imports: list[bool] = []
    real = PolicyModel._load.__func__  # type: ignore[attr-defined]

    def spy(cls: type[PolicyModel], path: Any, config: Any) -> PolicyModel:
        loads.append(gc.isenabled())
        return real(cls, path, config)

    monkeypatch.setattr(PolicyModel, "_load", classmethod(spy))
    PolicyModel.load(tiny_model_dir, PolicyConfig(device="cpu", dtype="float32"))
    real_import = servers.importlib.import_module

    def import_spy(name: str, package: str | None = None) -> Any:
        imports.append(gc.isenabled())  # the server module and what it imports in turn
        return real_import(name, package)

    monkeypatch.setattr(servers.importlib, "import_module", import_spy)
    servers.build_named_server("stats", load_config(None, []))
    assert loads == [False] and imports and not any(imports) and gc.isenabled()
