"""``burnqed doctor``: the real set-up checked row by row, each row with its fix.

Rows: the Lean backend this place gets, the Pantograph repl and its Lean, the project's
toolchain, its Mathlib build, the version agreement, ``LEAN_PATH``, the policy model
directory, torch and its devices, the policy server, and Ray with ``--cluster``. A row is
``ok``, ``warn`` (works, but not what a real run wants), ``blocker`` (the configured run
cannot start) or ``skip`` (not used by this config). The report's ``next_step`` is the fix
of the first blocker, else of the first warning.
"""

from burnqed.doctor.checks import DoctorReport, Row, RowStatus, run_doctor

__all__ = ["DoctorReport", "Row", "RowStatus", "run_doctor"]
