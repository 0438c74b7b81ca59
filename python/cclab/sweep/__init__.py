"""Parameter sweeps: a base scenario, a grid or a list of parameter settings,
replications with derived seeds; run on local processes or on Dask, resumable.

A sweep is data (``docs/sweeps.md``)::

    name = "buffer"
    base = "single-reno.toml"        # or an inline [base] table
    replications = 2
    seed = 1
    [grid]
    "topology.bottleneck.buffer" = ["0.25bdp", "0.5bdp", "1bdp"]
    "flows[0].cc" = ["newreno", "cubic"]

Every run is written to ``OUT/runs/<run id>/`` as soon as it finishes (built in
a hidden temporary folder, then renamed into place, so a folder under ``runs/``
is always complete), and a rerun skips the runs already there.

The run id and the seed of a run are hashes of its parameter values and its
replication number (and, for the seed, the sweep's master seed), not of its
position, so adding points or replications changes no other run::

    key     = canonical_json({"params": {path: value, ...}, "replication": r})
    run_id  = sha256(key).hexdigest()[:16]
    seed    = int.from_bytes(sha256(canonical_json({"params": ..., "replication": r,
                                                    "seed": master})).digest()[:8], "big") >> 1

where ``canonical_json`` is ``json.dumps(obj, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``; seeds are in [0, 2**63-1] so they fit a signed 64-bit column.
"""

from __future__ import annotations

from .execute import SweepReport, execute, print_report, sweep
from .results import load_sweep, sweep_stats, t_quantile
from .spec import TIMING_COLUMNS, RunSpec, Sweep, SweepError, as_sweep, derive_seed, run_id

__all__ = [
    "RunSpec",
    "Sweep",
    "SweepError",
    "SweepReport",

    "TIMING_COLUMNS",
    "derive_seed",
    "as_sweep",
    "execute",
    "load_sweep",
    "print_report",
    "run_id",
    "sweep",
    "sweep_stats",
    "t_quantile",
]
