"""The certificate searches and z3 calls are bounded by counts, never by the clock: the same
proof gets the same verdict whatever the machine load; a search that needs more than its
bound is refused naming the bound; the request's deadline is only a safety net whose firing
answers the timeout (interrupt) answer."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import pytest

from burnqed.embedded import Checker
from burnqed.embedded import kernel as k
from burnqed.embedded.repl.answers import INTERRUPT
from burnqed.embedded.decide.certify import Budget, refutation
from burnqed.embedded.config import EmbeddedConfig
from burnqed.embedded.tactics.interpreter import Interrupted, TacticContext
from tests.embedded.util import Session

# omega needs a certificate with integer cuts here (the rational relaxation is satisfiable)
MOD_GOAL = "∀ (x y : Int), x % 4 = 3 → y % 4 = 1 → (x + y) % 4 = 0"
# nlinarith: a product of two hypotheses
NL_GOAL = "∀ (a b : Int), 0 ≤ a → 0 ≤ b → 0 ≤ a * b + a"


def _verdict(config: EmbeddedConfig, goal: str, tactic: str, timeout_ms: int = 0) -> dict[str, object]:
    """Run ``intros; tactic`` on ``goal`` in a fresh checker: closed, the error text, or the answer."""
    s = Session(Checker(config))
    s.start(goal)
    assert "nextStateId" in s.tac("intros")
    if timeout_ms:
        s.call("options.set", timeout=timeout_ms)
    ans = s.tac(tactic)
    if ans == INTERRUPT.wire():
        return {"interrupt": True}
    return {"closed": ans.get("goals") == [], "error": s.error_text()}


@pytest.fixture
def racing_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``time.monotonic`` advancing 10 s a call: a machine so loaded that every wall-clock
    bound would have run out before the first step."""
    now = [time.monotonic()]

    def fast() -> float:
        now[0] += 10.0
        return now[0]

    monkeypatch.setattr(time, "monotonic", fast)
    yield


@pytest.mark.parametrize(
    ("config", "bound"),
    [
        (EmbeddedConfig(cert_nodes=1), "cert_nodes = 1"),
        (EmbeddedConfig(cert_cuts=0), "cert_cuts = 0"),
        (EmbeddedConfig(cert_rlimit=1), "cert_rlimit = 1"),
        (EmbeddedConfig(z3_rlimit=1), "z3_rlimit = 1"),
    ],
)
def test_a_search_over_its_bound_is_refused_naming_the_bound_every_time(
    config: EmbeddedConfig, bound: str
) -> None:
    first = _verdict(config, MOD_GOAL, "omega")
    assert first["closed"] is False and bound in str(first["error"])
    assert _verdict(config, MOD_GOAL, "omega") == first
    # with the default bounds the same goal is proved: it is the bound that refused it
    assert _verdict(EmbeddedConfig(), MOD_GOAL, "omega") == {"closed": True, "error": ""}


def test_nlinarith_over_the_decision_bound_names_it() -> None:
    got = _verdict(EmbeddedConfig(z3_rlimit=1), NL_GOAL, "nlinarith")
    assert got["closed"] is False and "z3_rlimit = 1" in str(got["error"])
    assert _verdict(EmbeddedConfig(), NL_GOAL, "nlinarith") == {"closed": True, "error": ""}


@pytest.mark.parametrize(
    ("config", "goal", "tactic"),
    [
        (EmbeddedConfig(), MOD_GOAL, "omega"),
        (EmbeddedConfig(), NL_GOAL, "nlinarith"),
        (EmbeddedConfig(cert_nodes=1), MOD_GOAL, "omega"),
        (EmbeddedConfig(cert_rlimit=1), MOD_GOAL, "omega"),
    ],
)
def test_a_racing_clock_changes_no_verdict(
    config: EmbeddedConfig, goal: str, tactic: str, request: pytest.FixtureRequest
) -> None:
    calm = _verdict(config, goal, tactic)
    request.getfixturevalue("racing_clock")
    assert _verdict(config, goal, tactic) == calm


def test_past_the_request_deadline_the_answer_is_the_timeout_answer(racing_clock: None) -> None:
    # the safety net: a request whose deadline passes answers the interrupt, never a refusal
    # (a retry on a calmer machine may differ, and the answer says so)
    assert _verdict(EmbeddedConfig(), MOD_GOAL, "omega", timeout_ms=5000) == {"interrupt": True}


def test_a_certificate_search_past_its_deadline_raises_the_interrupt(racing_clock: None) -> None:
    # below the tactic layer too: without a deadline the racing clock changes nothing (the
    # search finds its cuts), and with one, crossing it is the timeout (Interrupted), never
    # a quiet "no certificate"
    x = k.Free(1)
    twice = k.App("=", (k.App("*", (k.Lit(2, "Int"), x), "Int"), k.Lit(1, "Int")), "Prop")
    seq = k.Sequent((k.Entry(1, "Int"),), k.App("False", (), "Prop"))
    assert refutation(seq, [twice], budget=Budget()) is not None
    ctx = TacticContext(itertools.count(1).__next__, EmbeddedConfig(), deadline=time.monotonic() + 5.0)
    with pytest.raises(Interrupted):
        refutation(seq, [twice], budget=Budget.of(ctx))
