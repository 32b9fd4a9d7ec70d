"""The head's non-learned controls evaluated by the run itself (iteration.head_controls), read back by the report."""

from __future__ import annotations

import anyio

from burnqed.config import BurnqedConfig
from burnqed.iteration import IterationRunner, RunLayout
from burnqed.iteration.controls import control_report_path, run_controls
from burnqed.iteration.report import run_report
from burnqed.lean import LeanPool
from burnqed.search.evaluation import load_report
from tests.iteration.test_runner import HELD_OUT
from tests.iteration.test_runner import config as config  # noqa: F401  (the runner's fixture)


def test_the_run_evaluates_each_control_with_the_last_policy_beside_the_head(config: BurnqedConfig) -> None:
    config = config.model_copy(update={"iteration": config.iteration.model_copy(
        update={"iterations": 1, "head_controls": ["connectives", "depth_bonus"]})})

    async def go() -> dict:
        with anyio.fail_after(300):
            async with LeanPool(config.lean) as pool:
                await IterationRunner(config, config.paths.run_dir, pool).run(1)
                return await run_controls(config, config.paths.run_dir, pool)

    summaries = anyio.run(go)
    assert set(summaries) == {"connectives", "depth_bonus"}
    layout = RunLayout(config.paths.run_dir)
    without = load_report(layout.eval_result(0, False))
    for name in ("connectives", "depth_bonus"):
        report = load_report(control_report_path(layout, 0, name))
        # the last iteration's policy, its held-out statements and budget; the control in place of a head
        assert report.search.priority_control == name and report.ebm is None
        assert report.policy == without.policy and {o.name for o in report.outcomes} == {t.name for t in HELD_OUT}
        assert report.search.max_nodes == without.search.max_nodes
    rows = run_report([layout.root], resamples=200).controls
    assert {r.arm for r in rows} >= {"control:connectives", "control:depth_bonus"}
    assert all(r.compared is not None and r.compared.n == len(HELD_OUT) for r in rows if r.arm.startswith("control"))
    # a control already reported is not run again
    before = control_report_path(layout, 0, "connectives").stat().st_mtime_ns

    async def again() -> dict:
        async with LeanPool(config.lean) as pool:
            return await run_controls(config, config.paths.run_dir, pool)

    anyio.run(again)
    assert control_report_path(layout, 0, "connectives").stat().st_mtime_ns == before
