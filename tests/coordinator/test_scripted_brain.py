"""The scripted brain's reading of the previous session's handover."""

from __future__ import annotations

from burnqed.coordination.scripted_brain import _PREVIOUS_RATE


def test_previous_probe_rate_is_read_from_a_sentence() -> None:
    handover = "Session 0 (scripted brain).\nProbe j-1 on core: probe solve rate 0.500.\nScheduled iter_0."
    match = _PREVIOUS_RATE.search(handover)
    assert match is not None and float(match.group(1)) == 0.5


def test_no_previous_rate_in_a_first_handover() -> None:
    assert _PREVIOUS_RATE.search("This is the first session; nothing has been run yet.") is None
