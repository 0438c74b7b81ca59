"""The bottleneck's schedules on the Linux testbed (docs/linux.md, "Rate schedules" and "Loss and delay schedules, jitter"): each step of a
`rate_schedule` changes the HTB class's rate with ``tc``; each step of a `loss_schedule` or a
`delay_schedule` is a command to the delay line (c/delay_line.c), which takes it at once.

The simulator reads a step at the first packet it concerns after the step's time; here a thread
sleeps until the step's time (the scenario's time 0 is the endpoints' ``t0``) and applies it.
How late each step landed (the call's return against the step's time) is kept, per kind: a
few milliseconds for ``tc``, which is a process to start, well under one for the delay line.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Dict, List, Tuple

#: A step: (seconds after t0, its kind: "rate", "loss" or "delay", what applies it).
Step = Tuple[float, str, Callable[[], None]]


class Steps:
    """Applies ``steps`` in time order from a thread of its own; ``stop()`` ends it (steps not
    yet due are not applied) and returns how late each applied step landed, seconds, per kind."""

    def __init__(self, t0: float, steps: List[Step]) -> None:
        self._t0, self._steps = t0, sorted(steps, key=lambda s: s[0])
        self._done = threading.Event()
        self.late: Dict[str, List[float]] = {}
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="cclab-schedule-steps", daemon=True)
        if self._steps:
            self._thread.start()

    def _run(self) -> None:
        try:
            for t, kind, apply in self._steps:
                if self._done.wait(max(0.0, self._t0 + t - time.monotonic())):
                    return
                apply()
                self.late.setdefault(kind, []).append(time.monotonic() - (self._t0 + t))
        except BaseException as e:  # noqa: BLE001 - reported by stop()
            self.error = e

    def stop(self) -> Dict[str, List[float]]:
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()
        if self.error is not None:
            raise self.error
        return self.late
