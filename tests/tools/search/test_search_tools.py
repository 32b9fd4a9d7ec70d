"""SearchTools' own logic: set checks, statement theorems, a training set generated in a child process."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from burnqed.config import load_config
from burnqed.data.sets import train_cache_path
from burnqed.tools.common.errors import InvalidInput, PolicyViolation
from burnqed.tools.search.tools import SearchTools


def tools(overrides: dict[str, Any]) -> SearchTools:
    # only the config is used by these methods: no pool, jobs or host needed
    return SearchTools(load_config(None, overrides), pool=None, jobs=None, host=None)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_set_checks_and_statement_theorems(tools_overrides: dict[str, Any]) -> None:
    from burnqed.lean import LeanPool

    st = tools(tools_overrides)
    st.check_set("core")
    with pytest.raises(InvalidInput, match="held out"):
        st.check_set("benchmark-test")
    tools({**tools_overrides, "tools.show_held_out": True}).check_set("benchmark-test")
    async with LeanPool(st.config.lean) as pool:
        st.pool = pool
        with anyio.fail_after(60):
            theorems, held = await st.statement_theorems(["True", "∀ (n : Nat), n = n"])
            assert [t.name for t in theorems] == ["statement_0", "statement_1"] and held is False
            with pytest.raises(PolicyViolation):
                await st.statement_theorems(["sorry = sorry"])


@pytest.mark.anyio
async def test_an_uncached_training_set_is_generated_in_a_child_process(tools_overrides: dict[str, Any]) -> None:
    st = tools({**tools_overrides, "data.train_size": 3})
    cache = train_cache_path(st.config.paths.home, 3, st.config.data.train_seed)
    assert not cache.is_file()
    with anyio.fail_after(120):
        theorems = await st.load_set("benchmark-train")
    assert len(theorems) == 3 and cache.is_file()
