"""The openai policy backend against a stand-in vLLM server.

The stand-in is a real HTTP server (a starlette app under uvicorn, in a child process,
listening on a socket this test bound on 127.0.0.1 with an ephemeral port). It plays the
OpenAI-compatible API: ``GET /v1/models`` and ``POST /v1/completions`` answering ``n``
scripted samples per prompt with token log-probs, choices sent in reverse order (a client
must group them by ``index``). ``POST /control`` scripts it (served models, replies by
prompt text, error answers to give first, a delay, which server it plays); ``GET /control``
returns what it was sent, the token ids each prompt became, and the most requests it had
in flight at once.

It plays vLLM or SGLang where they differ (read from their protocol and serving code):
- a prompt is text or token ids; token ids are taken as they are on both. Text is
  tokenized with special tokens, so with BOS first: on vLLM unless the request says
  ``add_special_tokens: false`` (vLLM's CompletionRequest extra, default true); on SGLang
  always (its CompletionRequest has no such field, and unknown fields are ignored). The
  stand-in's tokenizer is the tiny model's when scripted, else one id per character with
  DeepSeek's BOS text as id 0.
- with a ``seed``, a request's samples are drawn from it: on vLLM sample ``j`` of ``n``
  from ``seed + j`` (its parallel sampling gives each child request its own seed), on
  SGLang every sample from ``seed`` itself (the ``n`` copies share the sampling params), so
  they come back identical; the pick depends on the seed and the prompt only. Without a
  seed, sample ``j`` is the rule's reply ``j`` (distinct draws).
"""

from __future__ import annotations

import hashlib
import json
import math
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from burnqed.cli import main
from burnqed.data.theorems import Theorem, save_theorems
from burnqed.paths import PathsConfig
from burnqed.policy.config import PolicyConfig, ServiceConfig
from burnqed.policy.errors import (
    PolicyEmbeddingsUnavailable,
    PolicyModelNotServed,
    PolicyServerError,
    PolicyServerUnavailable,
)
from burnqed.policy.openai_api import OpenAIPolicy
from burnqed.policy.prompts import format_prompt
from burnqed.policy.service import GenerationService
from burnqed.policy.types import TacticCandidate
from burnqed.search.components import open_components

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 30.0  # the stand-in's child process imports starlette and uvicorn
QUICK = {"retry_backoff_s": 0.01}  # retries without the production back-off
DEEPSEEK_START = "<｜begin▁of▁sentence｜><｜User｜>"

Rules = list[tuple[str, list[tuple[str, list[float]]]]]  # (prompt contains, replies as (text, token log-probs))


# ---------------------------------------------------------------- the stand-in server (child process)


@dataclass
class _Script:
    models: list[dict[str, Any]] = field(default_factory=lambda: [{"id": "prover", "max_model_len": 4096}])
    rules: Rules = field(default_factory=lambda: [("", [("rfl", [-0.5])])])
    fail: list[tuple[int, str]] = field(default_factory=list)
    fail_when: list[tuple[str, int, str]] = field(default_factory=list)  # (prompt contains, status, message)
    delay_s: float = 0.0
    server: str = "vllm"  # or "sglang"
    tokenizer_dir: str | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    token_prompts: list[list[int]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0


BOS_TEXT = DEEPSEEK_START[: DEEPSEEK_START.index("><") + 1]  # "<｜begin▁of▁sentence｜>"
BOS_ID = 0


class _Tokens:
    """The stand-in server's tokenizer: the tiny model's, or characters with BOS as id 0."""

    def __init__(self, directory: str | None) -> None:
        self.hf: Any = None
        if directory is not None:
            from transformers import AutoTokenizer

            self.hf = AutoTokenizer.from_pretrained(directory, local_files_only=True)

    def encode(self, text: str, special: bool) -> list[int]:
        if self.hf is not None:
            return list(self.hf(text, add_special_tokens=special)["input_ids"])
        ids = [BOS_ID] if special else []
        while text.startswith(BOS_TEXT):  # a special token written in the text is that token
            ids.append(BOS_ID)
            text = text[len(BOS_TEXT) :]
        return ids + [ord(c) for c in text]

    def decode(self, ids: list[int]) -> str:
        if self.hf is not None:
            return str(self.hf.decode(ids, skip_special_tokens=True))
        return "".join(chr(i) for i in ids if i != BOS_ID)


def _token_prompts(body: dict[str, Any], script: _Script, tokens: _Tokens) -> list[list[int]]:
    """What each prompt becomes on the server played: token ids as they are, text tokenized."""
    prompt = body["prompt"]
    if isinstance(prompt, str) or (prompt and isinstance(prompt[0], int)):
        prompt = [prompt]
    special = True if script.server == "sglang" else body.get("add_special_tokens", True)
    return [list(p) if isinstance(p, list) else tokens.encode(p, special) for p in prompt]


def _pick(seed: int, ids: list[int], count: int) -> int:
    digest = hashlib.blake2b(f"{seed}:{ids}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % count


def _choices(body: dict[str, Any], script: _Script, tokenizer: _Tokens) -> list[dict[str, Any]]:
    """``n`` scripted samples per prompt (see the module docstring for which reply is drawn)."""
    choices = []
    n = body["n"]
    prompts = _token_prompts(body, script, tokenizer)
    script.token_prompts.extend(prompts)
    for i, ids in enumerate(prompts):
        prompt = tokenizer.decode(ids)
        replies = next(r for contains, r in script.rules if contains in prompt)
        for j in range(n):
            seed = body.get("seed")
            if seed is None:
                k = j % len(replies)
            else:
                k = _pick(seed + j if script.server == "vllm" else seed, ids, len(replies))
            text, logprobs = replies[k]
            tokens = [f"t{k}" for k in range(len(logprobs))]
            choices.append(
                {
                    "index": i * n + j,
                    "text": text,
                    "logprobs": {"tokens": tokens, "token_logprobs": logprobs, "top_logprobs": [], "text_offset": []},
                    "finish_reason": "stop",
                }
            )
    return choices[::-1]  # out of order on purpose


def build_app() -> Any:
    """The stand-in OpenAI-compatible server (starlette)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    state = _Script()
    tokens = _Tokens(None)

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"object": "error", "message": message, "type": "Error", "param": None, "code": status}, status)

    async def models(request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"object": "model", **m} for m in state.models]})

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        state.requests.append({"body": body, "authorization": request.headers.get("authorization")})
        state.in_flight += 1
        state.max_in_flight = max(state.max_in_flight, state.in_flight)
        try:
            await anyio.sleep(state.delay_s)
            if state.fail:
                return error(*state.fail.pop(0))
            texts = [tokens.decode(ids) for ids in _token_prompts(body, state, tokens)]
            for contains, status, message in state.fail_when:
                if any(contains in text for text in texts):
                    return error(status, message)
            if body["model"] not in {m["id"] for m in state.models}:
                return error(404, f"The model `{body['model']}` does not exist.")
            return JSONResponse({"id": "cmpl-1", "object": "text_completion", "model": body["model"],
                                 "choices": _choices(body, state, tokens), "usage": {}})
        finally:
            state.in_flight -= 1

    async def control(request: Request) -> JSONResponse:
        nonlocal state, tokens
        if request.method == "POST":
            given = await request.json()
            state = _Script(**{k: [tuple(x) for x in v] if k in ("rules", "fail", "fail_when") else v for k, v in given.items()})
            tokens = _Tokens(state.tokenizer_dir)
        return JSONResponse(
            {"requests": state.requests, "token_prompts": state.token_prompts, "max_in_flight": state.max_in_flight}
        )

    return Starlette(routes=[
        Route("/v1/models", models),
        Route("/v1/completions", completions, methods=["POST"]),
        Route("/control", control, methods=["GET", "POST"]),
    ])


def serve(fd: int) -> None:
    """Run the stand-in on the listening socket ``fd`` (the child process's entry point)."""
    import uvicorn

    config = uvicorn.Config(build_app(), log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[socket.socket(fileno=fd)])


@dataclass
class StandIn:
    """The running stand-in: its URL and sync helpers to script it and read what it was sent."""

    url: str

    @property
    def api(self) -> str:
        """The API root to give policy.base_url."""
        return f"{self.url}/v1"

    def script(self, **given: Any) -> None:
        """Reset the stand-in with these settings (models, rules, fail, delay_s)."""
        httpx2.post(f"{self.url}/control", json=given, timeout=60).raise_for_status()  # may load a tokenizer

    def log(self) -> dict[str, Any]:
        """The completions requests received and the most in flight at once."""
        answer: dict[str, Any] = httpx2.get(f"{self.url}/control", timeout=5).json()
        return answer


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandIn]:
    """The stand-in vLLM server in a child process, on an ephemeral port of 127.0.0.1."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    log = tmp_path_factory.mktemp("stand_in") / "stderr.txt"
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", f"from tests.policy.test_openai_api import serve; serve({listener.fileno()})"],
            pass_fds=[listener.fileno()], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err,
        )
    listener.close()  # the child holds its own copy; connections wait in the backlog until it serves
    server = StandIn(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert proc.poll() is None, log.read_text(encoding="utf-8")
            try:
                server.log()
                break
            except httpx2.HTTPError:
                assert time.monotonic() < deadline, "the stand-in server did not start in time"
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as s:
        return int(s.getsockname()[1])


def _config(stand_in: StandIn, **kw: Any) -> PolicyConfig:
    return PolicyConfig(backend="openai", base_url=stand_in.api, **kw)


STATES = [f"x{i} : ℕ\nh : x{i} < {i + 2}\n⊢ x{i} + {i} < {2 * i + 3}" for i in range(16)]


# ---------------------------------------------------------------- generation


@pytest.mark.anyio
async def test_candidates_are_first_tactics_with_summed_log_probs_deduplicated_best_first(stand_in: StandIn) -> None:
    rfl_a, rfl_b, simp = [-0.5, -0.25], [-0.1, -0.2, -0.3], [-1.0, -0.125, -0.0625]
    stand_in.script(rules=[
        ("x0 :", [("rfl\n", rfl_a), ("simp", simp), ("rfl", rfl_b)]),
        ("", [("omega -- done", [-0.75]), ("", [-0.01]), ("sorry", [-0.02])]),
    ])
    config = _config(stand_in, temperature=0.7, top_p=0.9, top_k=0, max_new_tokens=32, seed=None)
    async with OpenAIPolicy.connect(config) as policy:
        result = await policy.generate(STATES[:2], 3)
    assert result == [
        [TacticCandidate(tactic="rfl", log_prob=math.fsum(rfl_b)), TacticCandidate(tactic="simp", log_prob=math.fsum(simp))],
        [TacticCandidate(tactic="omega", log_prob=-0.75)],  # empty and `sorry` answers are no tactics
    ]
    (request,) = stand_in.log()["requests"]
    body = request["body"]
    assert body["prompt"] == [f"[GOAL]{s}[PROOFSTEP]" for s in STATES[:2]]  # many states, one request
    assert (body["n"], body["logprobs"], body["temperature"], body["top_p"]) == (3, 1, 0.7, 0.9)
    assert (body["top_k"], body["max_tokens"], body["model"]) == (-1, 32, "prover") and "seed" not in body
    assert "add_special_tokens" not in body  # the plain format leaves BOS to the server


@pytest.mark.anyio
async def test_greedy_asks_one_sample_per_state_and_an_api_key_is_sent(
    stand_in: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in.script()
    monkeypatch.setenv("BURNQED_TEST_KEY", "sekrit")
    async with OpenAIPolicy.connect(_config(stand_in, temperature=0.0, api_key_env="BURNQED_TEST_KEY")) as policy:
        assert await policy.generate(STATES[:1], 4) == [[TacticCandidate(tactic="rfl", log_prob=-0.5)]]
        assert await policy.generate([], 4) == []
    (request,) = stand_in.log()["requests"]
    assert request["body"]["n"] == 1 and request["authorization"] == "Bearer sekrit"


@pytest.mark.anyio
async def test_deepseek_v2_takes_the_first_tactic_of_a_fence_and_drops_prose(stand_in: StandIn) -> None:
    stand_in.script(rules=[("", [
        ("```lean4\nintro n\nsimp\n```", [-0.5, -0.5]),
        ("We proceed by induction on n.", [-0.1]),
        ("Let us see.\n```lean4\ntheorem t (n : ℕ) : n + 0 = n := by\n  omega\n```", [-0.75]),
    ])])
    async with OpenAIPolicy.connect(_config(stand_in, prompt_format="deepseek-v2")) as policy:
        (found,) = await policy.generate(["n : ℕ\n⊢ n + 0 = n"], 3)
    assert found == [TacticCandidate(tactic="omega", log_prob=-0.75), TacticCandidate(tactic="intro n", log_prob=-1.0)]
    log = stand_in.log()
    body = log["requests"][0]["body"]
    # no tokenizer: the DeepSeek turn markers are written literally, less BOS, which the server adds once
    assert body["prompt"][0].startswith(DEEPSEEK_START[len(BOS_TEXT) :])
    assert "/- tactic state:\nn : ℕ\n⊢ n + 0 = n\n-/" in body["prompt"][0]
    assert log["token_prompts"][0][:2] != [BOS_ID, BOS_ID] and log["token_prompts"][0][0] == BOS_ID


@pytest.mark.anyio
async def test_a_local_tokenizer_gives_the_chat_template_and_a_token_budget_within_the_served_context(
    stand_in: StandIn, tiny_model_dir: Path
) -> None:
    from transformers import AutoTokenizer

    stand_in.script(models=[{"id": "prover", "max_model_len": 200}])
    state = "\n".join(f"h{i} : x{i} + {i} = {i} + x{i}" for i in range(60)) + "\n⊢ x0 = x0"
    config = _config(stand_in, prompt_format="deepseek-v2", tokenizer_dir=tiny_model_dir, max_new_tokens=48)
    async with OpenAIPolicy.connect(config) as policy:
        await policy.generate([state], 1)
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir, local_files_only=True)
    (ids,) = stand_in.log()["requests"][0]["body"]["prompt"]  # token ids: read alike by vLLM and SGLang
    # the budget is the served context less the answer (200 - 48), not max_prompt_tokens (512)
    prompt = format_prompt(state, "deepseek-v2", tokenizer=tokenizer, max_tokens=152)
    assert ids == tokenizer(prompt, add_special_tokens=False)["input_ids"] and ids[0] == tokenizer.bos_token_id
    assert ids[1] != tokenizer.bos_token_id  # the template wrote BOS: none is added
    assert "⊢ x0 = x0" in prompt and "h0 :" not in prompt and len(ids) <= 152


@pytest.mark.anyio
async def test_without_a_tokenizer_the_prompt_budget_is_counted_in_characters(stand_in: StandIn) -> None:
    stand_in.script()
    state = "\n".join(f"h{i} : x{i} + {i} = {i} + x{i}" for i in range(300)) + "\n⊢ x0 = x0"
    async with OpenAIPolicy.connect(_config(stand_in, max_prompt_tokens=100)) as policy:
        await policy.generate([state], 1)
    (prompt,) = stand_in.log()["requests"][0]["body"]["prompt"]
    assert len(prompt) <= 300 and prompt.endswith("⊢ x0 = x0[PROOFSTEP]") and "h299 :" in prompt


# ---------------------------------------------------------------- the served model


@pytest.mark.anyio
async def test_the_only_served_model_is_picked_and_named_in_the_fingerprint(stand_in: StandIn) -> None:
    stand_in.script(models=[{"id": "deepseek-prover-v2-7b", "max_model_len": 8192}])
    async with OpenAIPolicy.connect(_config(stand_in)) as policy:
        assert policy.model == "deepseek-prover-v2-7b" and policy.max_model_len == 8192
        assert policy.fingerprint == f"openai:{stand_in.api}:deepseek-prover-v2-7b" and policy.hidden_size == 0
        await policy.generate(STATES[:1], 1)
    assert stand_in.log()["requests"][0]["body"]["model"] == "deepseek-prover-v2-7b"


@pytest.mark.anyio
async def test_several_served_models_need_policy_model_and_an_unserved_name_is_refused(stand_in: StandIn) -> None:
    stand_in.script(models=[{"id": "a"}, {"id": "b"}])
    with pytest.raises(PolicyModelNotServed, match=r"serves several models \(a, b\): set policy.model"):
        async with OpenAIPolicy.connect(_config(stand_in)):
            pass
    with pytest.raises(PolicyModelNotServed, match=r"policy.model 'c' is not served .*\(served: a, b\)"):
        async with OpenAIPolicy.connect(_config(stand_in, model="c")):
            pass
    async with OpenAIPolicy.connect(_config(stand_in, model="b")) as policy:
        assert policy.model == "b"


@pytest.mark.anyio
async def test_encode_is_refused_with_a_typed_error(stand_in: StandIn) -> None:
    stand_in.script()
    async with OpenAIPolicy.connect(_config(stand_in)) as policy:
        with pytest.raises(PolicyEmbeddingsUnavailable, match='no state embeddings.*policy.backend = "local"'):
            await policy.encode(STATES[:1])


# ---------------------------------------------------------------- failures


@pytest.mark.anyio
async def test_busy_answers_are_retried_then_given_up_after_a_bounded_number_of_tries(stand_in: StandIn) -> None:
    stand_in.script(fail=[(429, "too many requests"), (503, "warming up")])
    async with OpenAIPolicy.connect(_config(stand_in), **QUICK) as policy:
        assert await policy.generate(STATES[:1], 1) == [[TacticCandidate(tactic="rfl", log_prob=-0.5)]]
    assert len(stand_in.log()["requests"]) == 3

    stand_in.script(fail=[(503, "warming up")] * 3)
    async with OpenAIPolicy.connect(_config(stand_in), max_retries=2, **QUICK) as policy:
        with pytest.raises(PolicyServerUnavailable, match=r"kept failing POST /completions \(HTTP 503: warming up\) in 3 tries") as info:
            await policy.generate(STATES[:1], 1)
    assert info.value.status == 503 and len(stand_in.log()["requests"]) == 3


@pytest.mark.anyio
async def test_an_error_status_is_typed_and_carries_the_servers_message(stand_in: StandIn) -> None:
    stand_in.script(fail=[(500, "CUDA out of memory.\nTried to allocate 2 GiB"), (400, "maximum context length is 8192")])
    async with OpenAIPolicy.connect(_config(stand_in), **QUICK) as policy:
        with pytest.raises(PolicyServerError) as info:
            await policy.generate(STATES[:1], 1)
        assert not isinstance(info.value, PolicyServerUnavailable) and info.value.status == 500
        assert "HTTP 500: CUDA out of memory. Tried to allocate 2 GiB" in str(info.value) and "\n" not in str(info.value)
        with pytest.raises(PolicyServerError, match=r"HTTP 400: maximum context length is 8192\): check policy.model"):
            await policy.generate(STATES[:1], 1)
    assert len(stand_in.log()["requests"]) == 2  # not retried


@pytest.mark.anyio
async def test_an_unreachable_server_is_one_typed_line_saying_what_to_do() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    with pytest.raises(PolicyServerUnavailable) as info:
        async with OpenAIPolicy.connect(PolicyConfig(backend="openai", base_url=url)):
            pass
    message = str(info.value)
    assert message == (
        f"cannot reach the policy server at {url} (connection refused): start vLLM or SGLang "
        "(see README, 'The seed experiment') or fix policy.base_url"
    )


# ---------------------------------------------------------------- behind the service, in a search


@pytest.mark.anyio
async def test_concurrent_searches_are_batched_into_at_most_max_concurrency_requests_in_flight(stand_in: StandIn) -> None:
    stand_in.script(delay_s=0.2, rules=[(f"x{i} :", [(f"exact h{i}", [-float(i)])]) for i in range(16)])
    config = _config(stand_in, max_concurrency=2, seed=None, service=ServiceConfig(max_batch_size=4, max_wait_s=0.005))
    answers: dict[int, list[TacticCandidate]] = {}
    async with OpenAIPolicy.connect(config) as policy, GenerationService(policy) as service:

        async def search(i: int) -> None:
            (answers[i],) = await service.generate([STATES[i]], 2)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                for i in range(16):
                    tg.start_soon(search, i)
    assert answers == {i: [TacticCandidate(tactic=f"exact h{i}", log_prob=-float(i))] for i in range(16)}
    log = stand_in.log()
    sizes = [len(r["body"]["prompt"]) for r in log["requests"]]
    assert log["max_in_flight"] == 2 and sum(sizes) == 16 and max(sizes) > 1 and max(sizes) <= 4
    assert service.stats.batches == len(sizes) < 16


@pytest.mark.anyio
async def test_open_components_serves_the_openai_backend_and_refuses_a_head_on_policy_embeddings(
    stand_in: StandIn, tmp_path: Path
) -> None:
    from burnqed.ebm.checkpoint import HeadCheckpointMeta, save_head
    from burnqed.ebm.encoder import HashingEncoder
    from burnqed.ebm.head import EnergyHead, EnergyHeadConfig

    stand_in.script()
    paths = PathsConfig(home=tmp_path / "home")
    async with open_components(_config(stand_in), paths) as comps:
        assert comps.policy_id == f"openai prover at {stand_in.api}" and comps.scorer is None
        assert isinstance(comps.generator, GenerationService)
        assert await comps.generator.generate(STATES[:1], 2) == [[TacticCandidate(tactic="rfl", log_prob=-0.5)]]

    hashing = HashingEncoder()
    for name, fingerprint in (("policy_head", "0123456789abcdef"), ("hashing_head", hashing.fingerprint)):
        head = EnergyHeadConfig(dim=hashing.dim, hidden=(8,))
        save_head(EnergyHead.from_config(head), tmp_path / name, HeadCheckpointMeta(head=head, encoder_fingerprint=fingerprint))
    with pytest.raises(PolicyEmbeddingsUnavailable, match="trained on the policy's embeddings"):
        async with open_components(_config(stand_in), paths, ebm=tmp_path / "policy_head"):
            pass
    async with open_components(_config(stand_in), paths, ebm=tmp_path / "hashing_head") as comps:
        assert comps.scorer is not None and comps.label == "with_ebm"
        assert len(await comps.scorer.score(STATES[:2])) == 2


def _eval_args(stand_in_api: str, theorems: Path, output: Path) -> list[str]:
    return [
        "eval", "--theorems", str(theorems), "--output", str(output),
        "--set", "policy.backend=openai", "--set", f"policy.base_url={stand_in_api}",
        "--set", "search.automation_tactics=[]", "--set", "lean.num_workers=1",
    ]


def test_eval_on_the_embedded_backend_proves_with_the_served_tactics(stand_in: StandIn, tmp_path: Path) -> None:
    stand_in.script(rules=[
        ("∀ (n", [("intro n", [-0.1])]),
        ("n + 0 = n", [("rfl", [-0.2])]),
        ("∀ (a b", [("intro a b", [-0.1])]),
        ("a + b = b + a", [("exact Nat.add_comm a b", [-0.3])]),
        ("", [("sorry", [-1.0])]),
    ])
    theorems = tmp_path / "set.jsonl"
    save_theorems(theorems, [
        Theorem(name="add_zero", statement="∀ (n : Nat), n + 0 = n"),
        Theorem(name="add_comm", statement="∀ (a b : Nat), a + b = b + a"),
        Theorem(name="false", statement="False"),
    ])
    output = tmp_path / "report.json"
    assert main(_eval_args(stand_in.api, theorems, output)) == 0
    report = json.loads(output.read_text(encoding="utf-8"))
    assert report["backend"] == "embedded" and report["policy"] == f"openai prover at {stand_in.api}"
    assert {o["name"]: o["proved"] for o in report["outcomes"]} == {"add_zero": True, "add_comm": True, "false": False}
    assert stand_in.log()["requests"], "the searches asked the stand-in server"


def test_a_refused_policy_request_is_that_statements_infrastructure_outcome(stand_in: StandIn, tmp_path: Path) -> None:
    """Issue 26: a context-length 400 (or a 500) on one statement's request aborted the whole eval."""
    too_long = "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."
    stand_in.script(
        rules=[("∀ (n", [("intro n", [-0.1])]), ("n + 0 = n", [("rfl", [-0.2])]), ("", [("skip", [-1.0])])],
        fail_when=[("a + b = b + a", 400, too_long), ("c * 1 = c", 500, "Internal Server Error")],
    )
    theorems = tmp_path / "set.jsonl"
    save_theorems(theorems, [
        Theorem(name="add_zero", statement="∀ (n : Nat), n + 0 = n"),
        Theorem(name="add_comm", statement="∀ (a b : Nat), a + b = b + a"),
        Theorem(name="mul_one", statement="∀ (c : Nat), c * 1 = c"),
    ])  # fmt: skip
    output = tmp_path / "report.json"
    assert main([*_eval_args(stand_in.api, theorems, output), "--set", "search.concurrency=1"]) == 0
    report = json.loads(output.read_text(encoding="utf-8"))
    outcomes = {o["name"]: o for o in report["outcomes"]}
    assert outcomes["add_zero"]["proved"] is True
    for name, why in (("add_comm", "maximum context length"), ("mul_one", "HTTP 500")):
        assert outcomes[name]["proved"] is False and outcomes[name]["reason"] == "error", outcomes[name]
        assert why in (outcomes[name].get("detail") or ""), outcomes[name]


@pytest.mark.anyio
@pytest.mark.parametrize("server", ["vllm", "sglang"])
async def test_bos_reaches_the_model_once_on_either_server(stand_in: StandIn, tiny_model_dir: Path, server: str) -> None:
    """Issue 26: SGLang tokenizes text with special tokens and has no add_special_tokens, so a
    prompt that starts with BOS got a second one; token ids, or text less its BOS, read alike."""
    from transformers import AutoTokenizer

    stand_in.script(server=server)
    async with OpenAIPolicy.connect(_config(stand_in, prompt_format="deepseek-v2")) as policy:
        await policy.generate(["n : ℕ\n⊢ n + 0 = n"], 1)
    (ids,) = stand_in.log()["token_prompts"]
    assert ids[0] == BOS_ID and ids[1] != BOS_ID
    stand_in.script(server=server, tokenizer_dir=str(tiny_model_dir))
    config = _config(stand_in, prompt_format="deepseek-v2", tokenizer_dir=tiny_model_dir)
    async with OpenAIPolicy.connect(config) as policy:
        await policy.generate(["n : ℕ\n⊢ n + 0 = n"], 1)
    bos = AutoTokenizer.from_pretrained(tiny_model_dir, local_files_only=True).bos_token_id
    (ids,) = stand_in.log()["token_prompts"]
    assert ids[0] == bos and ids[1] != bos


MANY = [(f"exact h{k}", [-0.01 * (k + 1)]) for k in range(40)]


@pytest.mark.anyio
@pytest.mark.parametrize("server", ["vllm", "sglang"])
async def test_seeded_samples_are_distinct_draws_reproducible_per_state(stand_in: StandIn, server: str) -> None:
    """Issue 26: policy.seed on every request made SGLang's n samples one draw n times (and
    vLLM's resamples the same); now n distinct draws, the same for a state whatever its batch."""
    stand_in.script(server=server, rules=[("", MANY)])
    async with OpenAIPolicy.connect(_config(stand_in, temperature=1.0, seed=7)) as policy:
        (alone,) = await policy.generate(STATES[:1], 8)
        assert len(alone) >= 5, alone  # 8 draws among 40 replies: a few may coincide, not all
        batched = await policy.generate(STATES[:3], 8)
        assert batched[0] == alone and (await policy.generate(STATES[:1], 8))[0] == alone
        (wider,) = await policy.generate(STATES[:1], 16)  # a resample round draws afresh, not the same 8 again
        assert not {c.tactic for c in alone} <= {c.tactic for c in wider}
    async with OpenAIPolicy.connect(_config(stand_in, temperature=1.0, seed=8)) as policy:
        (other,) = await policy.generate(STATES[:1], 8)
    assert other != alone


def test_the_cli_reports_an_unreachable_policy_server_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    code = main(["prove", "True", "--set", "policy.backend=openai", "--set", f"policy.base_url={url}"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    expected = (
        f"burnqed: cannot reach the policy server at {url} (connection refused): "
        "start vLLM or SGLang (see README, 'The seed experiment') or fix policy.base_url"
    )
    assert err.strip().splitlines() == [expected]
