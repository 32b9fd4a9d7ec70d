"""``burnqed blueprint show|validate`` on a real file."""

from __future__ import annotations

from pathlib import Path

import pytest

from burnqed.blueprint import BlueprintStore
from burnqed.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "blueprints" / "BLUEPRINT.md"


def test_shipped_example_blueprint_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["blueprint", "validate", str(EXAMPLE)]) == 0
    assert "ok" in capsys.readouterr().out
    assert BlueprintStore(EXAMPLE).audit_locks() == []
    assert [e.label for e in BlueprintStore(EXAMPLE).pending_iterations()] == ["iter_0"]


def test_validate_fails_on_a_broken_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "B.md"
    path.write_text("# theorem a\n## meta\n- status: nope\n## statement\nTrue\n", encoding="utf-8")
    assert main(["blueprint", "validate", str(path)]) == 1
    assert "status 'nope'" in capsys.readouterr().out
    path.write_text("# theorem a\n## meta\nbroken\n", encoding="utf-8")
    assert main(["blueprint", "validate", str(path)]) == 1
    assert "B.md:3:" in capsys.readouterr().out


def test_show_lists_entries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "B.md"
    BlueprintStore(path).register_target("theorem", "t1", statement="True")
    assert main(["blueprint", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "t1" in out and "todo" in out
