"""cclab: a congestion-control lab.

A deterministic packet-level network simulator with a Rust core, driven from
Python::

    import cclab
    res = cclab.run("scenarios/quickstart.toml")
    res.flows            # one row per flow (pandas)
    res.plot("run.png")  # cwnd, goodput, queue over time
    res.save("out/")     # Parquet + summary.json + scenario.toml; cclab.load("out/")

A scenario is a TOML file or the same structure as a dict (docs/scenario.md).
Parameter sweeps: ``cclab.sweep("sweep.toml", "out/")``, ``cclab.load_sweep("out/")``
(docs/sweeps.md).
"""

from __future__ import annotations

from . import _core, cc
from .cc import AlgorithmError, CcObservation, CongControl, CongestionControl, PluginError, load_plugin, register_cc
from .plots import compare, plot_sweep
from .result import Result, load
from .run import run
from .scenario import MemoryBudgetError, ScenarioError, check, load_scenario, to_toml
from .sweep import Sweep, SweepError, load_sweep, sweep, sweep_stats

__version__: str = _core.__version__

__all__ = [
    "AlgorithmError",
    "CcObservation",
    "CongControl",
    "CongestionControl",
    "MemoryBudgetError",
    "PluginError",
    "Result",
    "ScenarioError",
    "Sweep",
    "SweepError",
    "__version__",
    "algorithms",
    "check",
    "cc",
    "compare",
    "load",
    "load_plugin",
    "load_scenario",
    "load_sweep",
    "plot_sweep",
    "recoveries",
    "register_cc",
    "run",
    "sweep",
    "sweep_stats",
    "to_toml",
]


def algorithms() -> dict[str, str]:
    """The congestion-control algorithms this build knows: ``{name: summary}``."""
    return dict(_core.algorithms())


def recoveries() -> list[str]:
    """The loss recoveries a flow can choose (``recovery = ...``)."""
    return list(_core.recoveries())
