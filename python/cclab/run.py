"""Running a scenario: ``run(scenario) -> Result``.

The simulation advances in about a hundred steps of simulated time. The Rust
core releases the GIL during each step, so other Python threads (another run,
a progress bar, a notebook) keep going, and Ctrl-C is seen between steps.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from typing import Any, Callable, List, Optional, Tuple, Union

from . import _core
from .result import Result
from .scenario import Scenario, _to_json, as_scenario, resolve_seed

__all__ = ["run", "ProgressCallback", "STEPS"]

#: Called as ``callback(now_s, duration_s)`` after each step, in simulated seconds.
ProgressCallback = Callable[[float, float], Any]

#: Steps of simulated time a run is cut into.
STEPS = 100


def run(
    scenario: Union[Scenario, str, "os.PathLike[str]"],
    seed: Optional[int] = None,
    progress: Union[bool, ProgressCallback] = False,
    trace: Optional[dict[str, Any]] = None,
    engine: str = "sim",
) -> Result:
    """Runs a scenario (a dict, or the path of a TOML file) and returns its Result.

    ``seed``: the master seed, a whole number in [0, 2**64-1]; default the
    scenario's ``seed``, else 1. The same scenario and seed give the same
    results, bit for bit, in any thread and on any machine.

    ``progress``: ``True`` shows a progress bar in simulated time on stderr (when
    it is a terminal); a
    callable is called as ``progress(now_s, duration_s)`` after each of the
    ~100 steps (an exception it raises, KeyboardInterrupt included, stops the run
    and propagates).

    ``trace``: the scenario's ``[trace]`` table (docs/tracing.md), e.g.
    ``{"flows": [0], "links": ["bottleneck"], "pcap": "flow0.pcapng"}``: the result's
    ``packets`` and ``sender`` tables then hold the traced flows' packet events and sender
    state; it replaces the scenario's own ``[trace]``.

    ``engine``: ``"sim"`` (the simulator) or ``"linux"``: the same scenario on real kernel TCP
    in a namespace testbed, in real time, as root (docs/linux.md); a dumbbell with bulk TCP
    flows, and what the testbed cannot honour is refused naming the field. Its result has the
    same tables, with <NA>/NaN where the kernel does not expose a figure.

    Raises ScenarioError, naming the field, when the scenario or seed is invalid, or when
    the trace passes its bound (``trace.max_records``).
    """
    if engine == "linux":
        from .linux.engine import run_linux

        if trace is not None:
            raise ValueError("trace: the Linux engine does not trace packets; on Linux capture with tcpdump")
        return run_linux(scenario, seed)
    if engine != "sim":
        raise ValueError(f"engine: invalid value {engine!r}; accepted: 'sim', 'linux'")
    sc = as_scenario(scenario)
    if trace is not None:
        sc = {**sc, "trace": dict(trace)}
    s = resolve_seed(seed, sc)
    # Parsing, validating and building are one step in the core, done once: the
    # normalized scenario the result records comes back from the built simulation.
    sim = _core.Sim(_to_json(sc), s)
    warn_settings(sim)
    return run_built(sim, s, progress)


def warn_settings(sim: _core.Sim) -> List[Tuple[str, str]]:
    """Issues a ``CclabWarning`` for each setting of the built simulation that probably gives
    nonsense (``cclab.advice``); returns them as ``(field, message)``."""
    from .advice import CclabWarning, advice

    found = advice(json.loads(sim.network()), json.loads(sim.scenario_json()), sim.bdp_pkts)
    for field, message in found:
        warnings.warn(f"{field}: {message}", CclabWarning, stacklevel=3)
    return found


def run_built(sim: _core.Sim, seed: int, progress: Union[bool, ProgressCallback] = False) -> Result:
    """Runs a simulation already built by ``_core.Sim(scenario_json, seed)`` to its end, for a
    caller that reads the build first (``cclab crosscheck`` translates ``sim.network()``);
    ``progress`` as for ``run``."""
    canonical: Scenario = json.loads(sim.scenario_json())
    duration = sim.duration

    if progress is True:
        wall, cpu = _run_with_bar(sim, duration, canonical.get("name") or "run")
    elif progress is False or progress is None:
        wall, cpu = _advance(sim, duration, None)
    elif callable(progress):
        wall, cpu = _advance(sim, duration, progress)
    else:
        raise TypeError(f"progress: expected a bool or a callable, not {type(progress).__name__}")
    return Result.from_core(canonical, seed, wall, sim.results(), sim.bdp_pkts, cpu_time_s=cpu)


def _advance(sim: _core.Sim, duration: float, callback: Optional[ProgressCallback]) -> Tuple[float, float]:
    """Runs ``sim`` to its end in STEPS steps; returns the wall time and the CPU time spent in the
    core, seconds. The CPU time is this thread's (the core runs in it): what the run costs
    whatever else shares the machine, where the wall time also counts the waits for a core."""
    wall = cpu = 0.0
    for i in range(1, STEPS + 1):
        # The last step asks for more than the duration: the core caps it, so
        # the run ends exactly at the duration whatever the float rounding.
        t = duration * i / STEPS if i < STEPS else duration * 2 + 1.0
        t0, c0 = time.perf_counter(), time.thread_time()
        sim.run_until(t)
        wall += time.perf_counter() - t0
        cpu += time.thread_time() - c0
        if callback is not None:
            callback(sim.now, duration)
    return wall, cpu


def _run_with_bar(sim: _core.Sim, duration: float, label: str) -> Tuple[float, float]:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:.1f}/{task.total:.1f} s simulated"),
        TimeElapsedColumn(),
    )
    console = Console(stderr=True)
    if not console.is_terminal:  # a log file or a pipe: no bar to redraw
        return _advance(sim, duration, None)
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(str(label), total=duration)
        return _advance(sim, duration, lambda now, _d: bar.update(task, completed=now))
