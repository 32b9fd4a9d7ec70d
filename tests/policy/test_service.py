"""The generation service: micro-batching, back-pressure, cancellation, shutdown."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest
import torch

from burnqed.policy.config import PolicyConfig
from burnqed.policy.errors import (
    PolicyGenerationError,
    ServiceClosed,
    ServiceNotRunning,
)
from burnqed.policy.model import PolicyModel
from burnqed.policy.service import GenerationService
from burnqed.policy.types import TacticCandidate
from burnqed.search.protocols import TacticGenerator

pytestmark = pytest.mark.anyio

STATES = [f"x{i} : ℕ\nh : x{i} < {i + 2}\n⊢ x{i} + {i} < {2 * i + 3}" for i in range(8)]


@pytest.fixture(scope="module")
def greedy(tiny_model_dir: Path) -> PolicyModel:
    """The tiny model decoding greedily (deterministic answers to compare)."""
    config = PolicyConfig(device="cpu", dtype="float32", temperature=0.0, max_new_tokens=8, max_prompt_tokens=160)
    return PolicyModel.load(tiny_model_dir, config)


class Spy:
    """Forwards to a real model and records every call the model thread makes."""

    def __init__(self, inner: PolicyModel, gated: bool = False) -> None:
        self.inner = inner
        self.calls: list[tuple[str, list[str], int]] = []
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.fail = False
        if not gated:
            self.gate.set()

    @property
    def hidden_size(self) -> int:
        return self.inner.hidden_size

    def _enter(self, kind: str, states: Sequence[str], n: int) -> None:
        self.calls.append((kind, list(states), n))
        self.entered.set()
        if not self.gate.wait(10):
            raise RuntimeError("the test never opened the gate")
        if self.fail:
            raise RuntimeError("device on fire")

    def generate(self, states: Sequence[str], n: int) -> list[list[TacticCandidate]]:
        self._enter("generate", states, n)
        return self.inner.generate(states, n)

    def encode(self, states: Sequence[str]) -> torch.Tensor:
        self._enter("encode", states, 0)
        return self.inner.encode(states)


async def _entered(spy: Spy) -> None:
    """Wait (bounded) until the model thread is inside the spy."""
    await anyio.to_thread.run_sync(spy.entered.wait, 10)
    spy.entered.clear()


async def test_service_is_a_tactic_generator(greedy: PolicyModel) -> None:
    assert isinstance(GenerationService(greedy), TacticGenerator)


async def test_concurrent_requests_share_one_model_call_and_match_direct_results(greedy: PolicyModel) -> None:
    spy = Spy(greedy)
    results: dict[int, list[list[TacticCandidate]]] = {}

    async def one(i: int) -> None:
        results[i] = await service.generate([STATES[i]], 3)

    with anyio.fail_after(30):
        async with GenerationService(spy, max_batch_size=8, max_wait_s=5.0) as service:
            async with anyio.create_task_group() as tg:
                for i in range(8):
                    tg.start_soon(one, i)
    assert [len(states) for _, states, _ in spy.calls] == [8]  # a full batch does not wait out max_wait_s
    assert service.stats.batches == 1 and service.stats.largest_batch == 8
    direct = greedy.generate(STATES, 3)
    assert [results[i][0] for i in range(8)] == direct


async def test_encode_through_the_service_matches_direct_encode(greedy: PolicyModel) -> None:
    spy = Spy(greedy)
    out: dict[int, torch.Tensor] = {}

    async def one(i: int) -> None:
        out[i] = await service.encode(STATES[2 * i : 2 * i + 2])

    with anyio.fail_after(30):
        async with GenerationService(spy, max_batch_size=8, max_wait_s=5.0) as service:
            async with anyio.create_task_group() as tg:
                for i in range(4):
                    tg.start_soon(one, i)
            assert (await service.encode([])).shape == (0, greedy.hidden_size)
    assert len(spy.calls) == 1
    torch.testing.assert_close(torch.cat([out[i] for i in range(4)]), greedy.encode(STATES), atol=1e-5, rtol=0)


async def test_batches_never_mix_kinds_or_sample_counts_and_respect_max_batch_size(greedy: PolicyModel) -> None:
    spy = Spy(greedy, gated=True)

    async def call(kind: str, states: list[str], n: int) -> None:
        if kind == "encode":
            await service.encode(states)
        else:
            await service.generate(states, n)

    with anyio.fail_after(30):
        async with GenerationService(spy, max_batch_size=3, max_wait_s=0.0, max_queue=16) as service:
            async with anyio.create_task_group() as tg:
                tg.start_soon(call, "generate", STATES[:1], 2)
                await _entered(spy)  # the first batch holds the model thread; the rest queue up
                for kind, states, n in [
                    ("generate", STATES[1:3], 2),
                    ("generate", STATES[3:4], 2),
                    ("generate", STATES[4:5], 5),
                    ("encode", STATES[5:7], 0),
                    ("generate", STATES[7:8], 2),
                ]:
                    tg.start_soon(call, kind, states, n)
                await anyio.wait_all_tasks_blocked()
                spy.gate.set()
    assert all(len(states) <= 3 for _, states, _ in spy.calls)
    for kind, states, n in spy.calls:
        expected = [(k, nn) for k, st, nn in spy.calls if st == states]
        assert expected == [(kind, n)]
    assert sorted(s for _, states, _ in spy.calls for s in states) == sorted(STATES)


async def test_full_queue_holds_callers_back_until_the_model_catches_up(greedy: PolicyModel) -> None:
    spy = Spy(greedy, gated=True)
    done: list[int] = []

    async def one(i: int) -> None:
        await service.generate([STATES[i]], 1)
        done.append(i)

    with anyio.fail_after(30):
        async with GenerationService(spy, max_batch_size=1, max_wait_s=0.0, max_queue=1) as service:
            async with anyio.create_task_group() as tg:
                tg.start_soon(one, 0)
                await _entered(spy)
                tg.start_soon(one, 1)
                tg.start_soon(one, 2)
                await anyio.wait_all_tasks_blocked()
                assert service.queued == 1
                assert service.waiting_to_enqueue == 1
                assert done == []
                spy.gate.set()
    assert sorted(done) == [0, 1, 2]
    assert [states for _, states, _ in spy.calls] == [[STATES[0]], [STATES[1]], [STATES[2]]]


async def test_a_request_cancelled_in_the_queue_never_reaches_the_model(greedy: PolicyModel) -> None:
    spy = Spy(greedy, gated=True)
    answers: list[int] = []

    async def one(i: int) -> None:
        await service.generate([STATES[i]], 1)
        answers.append(i)

    with anyio.fail_after(30):
        async with GenerationService(spy, max_batch_size=1, max_wait_s=0.0) as service:
            async with anyio.create_task_group() as tg:
                tg.start_soon(one, 0)
                await _entered(spy)
                tg.start_soon(one, 1)
                victim = anyio.CancelScope()

                async def cancellable() -> None:
                    with victim:
                        await service.generate([STATES[2]], 1)
                        answers.append(2)

                tg.start_soon(cancellable)
                await anyio.wait_all_tasks_blocked()
                victim.cancel()
                await anyio.wait_all_tasks_blocked()
                spy.gate.set()
    assert sorted(answers) == [0, 1]
    assert [states for _, states, _ in spy.calls] == [[STATES[0]], [STATES[1]]]
    assert service.stats.cancelled == 1


async def test_a_caller_cancelled_mid_batch_does_not_disturb_its_batchmates(greedy: PolicyModel) -> None:
    spy = Spy(greedy, gated=True)
    kept: list[list[list[TacticCandidate]]] = []

    async def keeper() -> None:
        kept.append(await service.generate([STATES[1]], 1))

    with anyio.fail_after(30):
        async with GenerationService(spy, max_batch_size=2, max_wait_s=5.0) as service:
            async with anyio.create_task_group() as tg:
                victim = anyio.CancelScope()

                async def cancellable() -> None:
                    with victim:
                        await service.generate([STATES[0]], 1)

                tg.start_soon(cancellable)
                tg.start_soon(keeper)
                await _entered(spy)
                victim.cancel()
                await anyio.wait_all_tasks_blocked()
                spy.gate.set()
            assert await service.generate(STATES[2:4], 1) == greedy.generate(STATES[2:4], 1)  # a full batch
    assert kept == [greedy.generate([STATES[1]], 1)]


async def test_a_model_failure_reaches_every_caller_of_the_batch_and_the_service_goes_on(
    greedy: PolicyModel,
) -> None:
    spy = Spy(greedy)
    errors: list[BaseException] = []

    async def one(i: int) -> None:
        try:
            await service.generate([STATES[i]], 1)
        except PolicyGenerationError as exc:
            errors.append(exc)

    with anyio.fail_after(30):
        async with GenerationService(spy, max_batch_size=2, max_wait_s=5.0) as service:
            spy.fail = True
            async with anyio.create_task_group() as tg:
                tg.start_soon(one, 0)
                tg.start_soon(one, 1)
            spy.fail = False
            assert len(await service.generate(STATES[2:4], 1)) == 2  # a full batch: no waiting
    assert len(errors) == 2
    assert "device on fire" in str(errors[0])


async def test_using_the_service_outside_its_block_is_an_error(greedy: PolicyModel) -> None:
    service = GenerationService(greedy)
    with pytest.raises(ServiceNotRunning):
        await service.generate(STATES[:1], 1)
    with anyio.fail_after(30):
        async with service:
            pass
    with pytest.raises(ServiceClosed):
        await service.encode(STATES[:1])


async def test_requests_still_queued_at_shutdown_fail_with_service_closed(greedy: PolicyModel) -> None:
    spy = Spy(greedy, gated=True)
    outcomes: list[str] = []

    async def one(i: int) -> None:
        try:
            await service.generate([STATES[i]], 1)
            outcomes.append("answered")
        except ServiceClosed:
            outcomes.append("closed")

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            async with GenerationService(spy, max_batch_size=1, max_wait_s=0.0) as service:
                tg.start_soon(one, 0)
                await _entered(spy)
                tg.start_soon(one, 1)
                await anyio.wait_all_tasks_blocked()
                spy.gate.set()  # the running batch finishes; the queued one is refused
    assert sorted(outcomes) == ["answered", "closed"]
    assert [states for _, states, _ in spy.calls] == [[STATES[0]]]


async def test_a_request_waiting_for_batchmates_at_shutdown_is_not_lost(greedy: PolicyModel) -> None:
    spy = Spy(greedy)
    outcomes: list[str] = []

    async def one() -> None:
        try:
            await service.generate([STATES[0]], 1)
            outcomes.append("answered")
        except ServiceClosed:
            outcomes.append("closed")

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            async with GenerationService(spy, max_batch_size=8, max_wait_s=60.0) as service:
                tg.start_soon(one)
                await anyio.wait_all_tasks_blocked()  # the dispatcher waits for company
    assert outcomes in (["closed"], ["answered"])  # never left waiting: fail_after would fire


class _AsyncModel:
    """An awaited model (as a server client is): records how many batches are in flight."""

    max_concurrency = 2

    def __init__(self) -> None:
        self.in_flight = 0
        self.most = 0
        self.threads: set[int] = set()

    async def generate(self, states: Sequence[str], n: int) -> list[list[TacticCandidate]]:
        self.threads.add(threading.get_ident())
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        await anyio.sleep(0.05)
        self.in_flight -= 1
        return [[TacticCandidate(tactic=f"exact {s}", log_prob=-1.0)] for s in states]

    async def encode(self, states: Sequence[str]) -> torch.Tensor:
        return torch.ones(len(states), 3)


async def test_an_async_model_is_awaited_on_the_loop_with_its_concurrency_bound() -> None:
    model = _AsyncModel()
    answers: dict[str, str] = {}
    async with GenerationService(model, max_batch_size=1, max_wait_s=0) as service:

        async def one(state: str) -> None:
            (cands,) = await service.generate([state], 2)
            answers[state] = cands[0].tactic

        async with anyio.create_task_group() as tg:
            for i in range(6):
                tg.start_soon(one, f"s{i}")
        assert (await service.encode(["a", "b"])).shape == (2, 3)
    assert answers == {f"s{i}": f"exact s{i}" for i in range(6)}
    assert model.most == 2  # two batches overlapped, never three
    assert model.threads == {threading.get_ident()}  # no model thread


async def test_a_states_candidates_are_the_same_alone_batched_and_under_other_concurrency(
    tiny_model_dir: Path,
) -> None:
    sampled = PolicyModel.load(
        tiny_model_dir, PolicyConfig(device="cpu", dtype="float32", seed=1, max_new_tokens=8, max_prompt_tokens=160)
    )
    target = STATES[5]

    async def run(states: list[str], batch: int) -> list[TacticCandidate]:
        answers: dict[str, list[TacticCandidate]] = {}
        async with GenerationService(sampled, max_batch_size=batch, max_wait_s=0.05) as service:

            async def one(state: str) -> None:
                answers[state] = (await service.generate([state], 4))[0]

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    for state in states:
                        tg.start_soon(one, state)
        return answers[target]

    alone = await run([target], 1)
    for states, batch in (([*STATES[:5], target], 8), ([target, *STATES[6:]], 3), (STATES, 2)):
        other = await run(states, batch)
        assert [c.tactic for c in other] == [c.tactic for c in alone]
        assert [c.log_prob for c in other] == pytest.approx([c.log_prob for c in alone], abs=1e-4)
