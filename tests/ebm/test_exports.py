"""The public names of burnqed.ebm exist, and importing the config does not pull in torch."""

from __future__ import annotations

import subprocess
import sys

import burnqed.ebm


def test_every_public_name_resolves() -> None:
    for name in burnqed.ebm.__all__:
        assert getattr(burnqed.ebm, name) is not None, name
    assert sorted(burnqed.ebm.__all__) == sorted(set(burnqed.ebm.__all__))


def test_config_import_stays_light() -> None:
    code = "import sys, burnqed.config, burnqed.cli.ebm; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"
