"""Runs one fuzzed scenario in a process of its own, under a memory cap (see test_fuzz.py).

argv: a JSON scenario file (a dict) or a TOML file, and the address-space cap in bytes.
Prints one line: "ok", "error <message>" for a ScenarioError, or "other <type>: <message>".
An abort, a Rust panic that escapes, a traceback or a hang is what the parent looks for.
"""

from __future__ import annotations

import json
import resource
import sys
import time

path, cap = sys.argv[1], int(sys.argv[2])

import cclab  # noqa: E402  (imported before the cap: its libraries are mapped once)
from cclab import _core  # noqa: E402
from cclab.scenario import ScenarioError, _to_json, load_scenario, resolve_seed  # noqa: E402

resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

#: Wall time a run may take here: a valid scenario may simulate for hours; stepping it
#: for this long shows it neither aborts nor runs out of memory.
RUN_WALL_S = 1.0


def main() -> str:
    try:
        sc = load_scenario(path) if path.endswith(".toml") else json.loads(open(path).read())
        cclab.check(sc)
        sim = _core.Sim(_to_json(sc), resolve_seed(None, sc))
        # Steps of simulated time that adapt to the event rate, so one step never runs long.
        t, dt, t_end = 0.0, 1e-9, time.monotonic() + RUN_WALL_S
        while t < sim.duration and time.monotonic() < t_end:
            t0 = time.monotonic()
            t = min(t + dt, sim.duration)
            sim.run_until(t)
            dt = dt * 2 if time.monotonic() - t0 < 0.05 else max(dt / 4, 1e-12)
        sim.results()
        return "ok"
    except ScenarioError as e:
        return f"error {e}"
    except (FileNotFoundError, IsADirectoryError) as e:
        return f"error {e}"


print(main(), flush=True)
