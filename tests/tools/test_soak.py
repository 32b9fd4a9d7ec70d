"""``burnqed bench soak --quick``: a hostile token against a good one on one shared pool over HTTP.
Speed is the bench's to report; the test asserts what must hold whatever the speed: the good
token loses nothing, the hostile token is refused, and no held-out text reaches either."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from burnqed.bench.soak import bench
from burnqed.config import load_config

pytestmark = pytest.mark.anyio


async def test_a_hostile_token_takes_nothing_from_a_good_one(tools_overrides: dict[str, Any]) -> None:
    overrides = {k: v for k, v in tools_overrides.items() if not k.startswith("lean.") and k != "paths.run_dir"}
    config = load_config(None, {**overrides, "lean.backend": "embedded", "lean.num_workers": 2,
                                "lean.startup_timeout_s": 60.0})
    with anyio.fail_after(300):
        result = await bench(config, quick=True)
    assert result["nothing_lost"] is True and result["good_failures"] == []
    assert result["held_out_leaks"] == 0 and result["tokens_in_log"] == 0
    assert result["verify_idle"]["calls"] == 30 and result["verify_loaded"]["calls"] > 0
    refused = result["hostile_refusals"]
    assert refused.get("held_out", 0) > 0 and refused.get("unknown_argument", 0) > 0 and refused.get("policy", 0) > 0
    # sessions opened and never ended: each ends the token's own least recently used idle one
    # (issue 41: they were refused 503 once the cap was reached, locking the token out)
    assert result["hostile_garbage"].get("initialize_http_503", 0) == 0
    assert result["hostile_garbage"]["initialize_http_200"] > 0
    assert result["hostile_flood"]["concurrent"] == 32 and result["hostile_flood"]["calls"] > 0
    # its handle cap held (8); with the flood queued in front of it, the token's share of requests
    # in flight may leave it short of the cap in 15 s (the cap itself: tests/servers/test_http_trust.py)
    assert 0 < result["hostile_deep"]["handles"] <= 8
    assert isinstance(result["meets_target"], bool)
