"""The ``anthropic`` brain: Claude through the Anthropic SDK's tool runner.

The SDK's async tool runner drives the turns; every tool it may call is a thin wrapper
around the toolbox, so the allow-list, budgets, duplicate warnings and logging stay ours.
The system prompt and the tool list carry cache_control so repeated turns are cached.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from burnqed.env import env
from burnqed.coordination.brain import (
    BrainFatalError,
    BrainOutcome,
    BrainTransientError,
    SessionContext,
    load_prompt,
)
from burnqed.coordination.config import CoordinatorConfig
from burnqed.coordination.log import SessionLog
from burnqed.coordination.toolbox import Toolbox

__all__ = ["AnthropicBrain", "opening_message"]

log = logging.getLogger(__name__)

_CACHE = {"type": "ephemeral"}


def opening_message(context: SessionContext) -> str:
    """The user message that opens a session (the handover from the previous one)."""
    handover = context.handover.strip() or "This is the first session; nothing has been run yet."
    return (
        f"Session {context.session}. Next iteration label: iter_{context.next_iteration}. "
        f"Training set: {context.train_set}.\n\nHandover from the daemon:\n{handover}\n\n"
        "Work through the tools only. End with a short summary of what you launched and scheduled."
    )


def _translate(exc: Exception) -> Exception:
    """Map SDK errors onto fatal / transient brain errors."""
    import anthropic

    if isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError | anthropic.PaymentRequiredError):
        return BrainFatalError(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, anthropic.BadRequestError) and "credit balance" in str(exc).lower():
        return BrainFatalError(f"billing: {exc}")
    if isinstance(
        exc,
        anthropic.RateLimitError | anthropic.InternalServerError | anthropic.APIConnectionError,
    ):
        return BrainTransientError(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, anthropic.APIStatusError) and exc.status_code in (408, 409, 429) or (
        isinstance(exc, anthropic.APIStatusError) and exc.status_code >= 500
    ):
        return BrainTransientError(f"{type(exc).__name__}: {exc}")
    return BrainFatalError(f"{type(exc).__name__}: {exc}")


class AnthropicBrain:
    """Claude as the coordinator, with only the toolbox's tools."""

    name = "anthropic"

    def __init__(self, config: CoordinatorConfig, *, api_key: str | None = None) -> None:
        self._config = config
        self._api_key = api_key if api_key is not None else env(config.api_key_env)
        if not self._api_key:
            raise BrainFatalError(f"no API key: set ${config.api_key_env} (or use brain = 'scripted')")
        self._base_url = config.base_url or env("ANTHROPIC_BASE_URL")

    def _tools(self, toolbox: Toolbox) -> list[Any]:
        from anthropic.lib.tools import ToolError, beta_async_tool

        def make(name: str) -> Callable[..., Awaitable[str]]:
            async def call(**arguments: Any) -> str:
                result = await toolbox.call(name, arguments)
                if result.is_error:
                    raise ToolError(result.text)
                return result.text

            return call

        specs = toolbox.specs
        return [
            beta_async_tool(
                make(spec.name),
                name=spec.name,
                description=spec.description or spec.name,
                input_schema=spec.input_schema,
                cache_control=_CACHE if i == len(specs) - 1 else None,  # type: ignore[arg-type]
            )
            for i, spec in enumerate(specs)
        ]

    async def run(self, toolbox: Toolbox, context: SessionContext, log: SessionLog) -> BrainOutcome:
        """Run one session with Claude; SDK errors become fatal or transient brain errors."""
        import anthropic

        client = anthropic.AsyncAnthropic(api_key=self._api_key, base_url=self._base_url, max_retries=0)
        system = [{"type": "text", "text": load_prompt(), "cache_control": _CACHE}]
        runner = client.beta.messages.tool_runner(
            model=self._config.model,
            max_tokens=self._config.max_tokens,
            system=system,  # type: ignore[arg-type]
            tools=self._tools(toolbox),
            messages=[{"role": "user", "content": opening_message(context)}],
            max_iterations=self._config.max_turns,
        )
        turns = 0
        summary = ""
        stop: str = "turn_limit"
        usage: dict[str, int] = {}
        try:
            with anyio.move_on_after(self._config.session_time_limit_s) as scope:
                async for message in runner:
                    turns += 1
                    texts = [b.text for b in message.content if getattr(b, "type", "") == "text"]
                    calls = [b.name for b in message.content if getattr(b, "type", "") == "tool_use"]
                    for key, value in message.usage.model_dump(exclude_none=True).items():
                        if isinstance(value, int):
                            usage[key] = usage.get(key, 0) + value
                    log.event("turn", turn=turns, stop_reason=message.stop_reason, text="\n".join(texts), tool_uses=calls)
                    if texts:
                        summary = "\n".join(texts)
                    if message.stop_reason != "tool_use":
                        stop = "end_turn"
                        break
                    if toolbox.exhausted:
                        stop = "tool_budget"
                        break
            if scope.cancelled_caught:
                stop = "time_limit"
        except anthropic.AnthropicError as exc:
            raise _translate(exc) from exc
        finally:
            await runner.close()
            await client.close()
        return BrainOutcome(stop_reason=stop, turns=turns, summary=summary, usage=usage)  # type: ignore[arg-type]
