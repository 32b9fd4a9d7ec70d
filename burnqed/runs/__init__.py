"""burnqed.runs: running a set of statements, on the local pool or on Ray, resumable.

``StatementRun`` says what to run and where (``Local``: a pool and opened components; a
``ClusterSpec``: Ray Lean actors); ``run_statements`` runs it, hands each statement's result
to a callback, and commits every one to the run's ``StatementStore`` (burnqed.search.store),
which is what a rerun resumes from, wherever the earlier attempt ran. ``RayAccess`` keeps Ray
up for a process that runs several cluster runs. See docs/cluster.md.
"""

from burnqed.runs.ray import RayAccess, ray_session
from burnqed.runs.run import run_statements
from burnqed.runs.spec import Local, RunOutcome, RunStart, StatementRun

__all__ = ["Local", "RayAccess", "RunOutcome", "RunStart", "StatementRun", "ray_session", "run_statements"]
