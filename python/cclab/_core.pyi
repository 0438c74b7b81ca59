"""Type stubs of the compiled extension (crates/cclab-py/src/lib.rs).

The extension is a thin wrapper around the Rust core: scenarios cross the
boundary as JSON text, results come back as numpy arrays.
"""

from typing import Optional, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str
#: "plain", "profiled" (compiled from a profile of cclab's runs: tools/pgo_build.py) or "instrumented".
BUILD: str

Column = Union[npt.NDArray[np.float64], npt.NDArray[np.uint64], list[str]]
"""One result column: f64 or u64 numpy array, or a list of str."""

class ScenarioError(ValueError):
    """A scenario field failed validation."""

    field: str
    """Path of the field, e.g. ``topology.bottleneck.rate`` or ``flows[0].cc``."""
    value: str
    """The value as written (in parentheses when it is a description, e.g. ``(missing)``)."""
    accepted: str
    """What the field accepts."""

class MemoryBudgetError(ScenarioError):
    """A run stopped because its memory passed the process's budget or the machine ran short of
    memory (a queue or a sender's window that grows without bound); on the field ``run``. Runners retry it alone."""

class Sim:
    """One simulation, advanced in steps so Python can show progress and stay interruptible."""

    def __init__(self, scenario_json: str, seed: int) -> None:
        """Validates and builds the scenario; raises ScenarioError. ``seed`` is a u64."""
    @property
    def duration(self) -> float:
        """Simulated duration, seconds."""
    @property
    def now(self) -> float:
        """Current simulated time, seconds."""
    @property
    def bdp_pkts(self) -> Optional[float]:
        """One bandwidth-delay product in packets on a dumbbell (what "1bdp" resolved to), else None."""
    @property
    def events(self) -> int:
        """Events handled so far."""
    def run_until(self, t: float) -> None:
        """Runs until ``t`` seconds of simulated time (capped at the duration), without the GIL."""
    def network(self) -> str:
        """The network as built, as JSON: ``{"nodes", "links": [{name, role, from, to, rate_bps,
        delay_s, loss, queue: {kind, capacity_pkts, capacity_bytes, params}}], "flows": [{name,
        group, cc, src, dst, start_s, stop_s, packet_size, recovery, stack, init_cwnd, ...}],
        "udp": [{name, group, src, dst, path, packet_size, rate_bps, start_s, stop_s, on_s, off_s}],
        "web"}`` (crates/cclab-sim/src/describe.rs)."""
    def results(self) -> dict[str, dict[str, Column] | dict[str, float]]:
        """The results so far: ``{"flows", "queues", "links", "flow_series",
        "queue_series": {column: array}, "summary": {name: float}}``."""

def check_scenario(scenario_json: str, seed: int) -> str:
    """Validates a scenario given as JSON (building it with ``seed``); returns it normalized, as JSON."""

def scenario_from_toml(text: str) -> str:
    """Parses a TOML scenario into JSON; field errors carry the TOML path."""

def scenario_to_toml(scenario_json: str) -> str:
    """Renders a scenario given as JSON in TOML."""

def algorithms() -> list[tuple[str, str]]:
    """The registered congestion-control algorithms: ``[(name, summary)]``."""

class ParamInfo(TypedDict):
    """One parameter of a registry entry, as text."""

    name: str
    kind: str
    """"number", "whole number", "flag", "duration", "rate", ..."""
    unit: str
    """The unit of a number ("s", "packets", "bytes"); empty when none or none declared."""
    default: str
    accepted: str

class RegistryEntry(TypedDict):
    """One thing a scenario can name."""

    kind: str
    """"cc", "add-on", "queue", "topology" or "traffic"."""
    name: str
    summary: str
    params: list[ParamInfo]

def registry() -> list[RegistryEntry]:
    """Every registered congestion control, add-on, queue discipline, topology and traffic
    source, in a fixed order (kind, then built-ins before run-time registrations)."""

def recoveries() -> list[str]:
    """The loss recoveries a flow can use."""
def stacks() -> list[str]:
    """The stack profiles a flow group can follow (``stack = ...``), the default first."""
def quantity(text: str) -> Optional[tuple[str, float]]:
    """A quantity written as text resolved by the core's parsers: ``("s", seconds)``,
    ``("bps", bit/s)``, ``("pkts", packets)`` (``inf`` for unlimited), ``("bytes", bytes)`` or
    ``("bdp", multiple of the BDP)``; None when the text is none of these."""

def memory_budget() -> Optional[int]:
    """The memory budget, bytes, that a run built now would take (80 % of the memory available and
    of what ``ulimit -v`` leaves, or CCLAB_MEMORY_LIMIT); None where it cannot be read."""
