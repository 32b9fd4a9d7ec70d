"""The previous session's probe rate reaches the scripted brain as data (the daemon's session
record), not as a sentence to parse."""

from __future__ import annotations

from pathlib import Path

from burnqed.config import BurnqedConfig
from burnqed.coordination.control import DaemonPaths
from burnqed.coordination.daemon import Daemon, SessionRecord, prepare_run_config
from burnqed.coordination.log import append_jsonl


def test_the_previous_probe_rate_comes_from_the_last_session_record(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    daemon = Daemon(prepare_run_config(BurnqedConfig(), run_dir), run_dir)
    assert daemon._previous_probe_rate() is None  # first session
    sessions = DaemonPaths(run_dir=run_dir.resolve()).sessions_file
    append_jsonl(sessions, SessionRecord(session=0, brain="scripted", started=0.0, seconds=1.0,
                                         probe_solve_rate=0.5).model_dump())
    append_jsonl(sessions, {"not": "a session record"})
    assert daemon._previous_probe_rate() == 0.5
    append_jsonl(sessions, SessionRecord(session=1, brain="scripted", started=0.0, seconds=1.0).model_dump())
    assert daemon._previous_probe_rate() is None  # the last session ran no probe
