"""The one progress bar of long commands (``cclab sweep``, ``cclab reproduce``).

On a terminal, a rich bar on stderr: the runs done of all, the runs failed, the time spent and
the time left. The bar fills by *cost* (``cclab.runner.estimate_cost``: what a run carries), not
by run count, so one long run does not make the time left look shorter than it is. Without a
terminal (a log file, CI), a line every 10 % of the cost, and at least every ten minutes while
runs finish (a full reproduction's heaviest tenth takes hours).
"""

from __future__ import annotations

import sys
import time
from typing import Any, Optional

__all__ = ["Bar"]

#: Without a terminal: the longest wait between two lines while runs finish, seconds.
PLAIN_EVERY_S = 600.0


class Bar:
    """``Bar(label, runs, done=0, cost=...)``: ``runs`` in all, ``done`` of them finished before
    (shown in the count, not in the time estimate), ``cost`` the summed cost of the runs still to
    do (default: one per run). ``advance(cost, ok)`` after each run; ``close()`` at the end (or use
    it as a context manager). ``enabled=False`` shows nothing."""

    def __init__(self, label: str, runs: int, *, done: int = 0, cost: Optional[float] = None,
                 enabled: bool = True, transient: bool = False) -> None:
        self.label, self.runs, self.done, self.failed = label, runs, done, 0
        self.total_cost = float(cost if cost is not None else runs - done)
        self.spent = 0.0
        self._t0 = time.monotonic()
        self._next_line = 0.1
        self._last_line = self._t0
        self._rich: Any = None
        self._plain = False
        if not enabled or runs <= done:
            return
        from rich.console import Console

        console = Console(stderr=True)
        if not console.is_terminal:
            self._plain = True
            return
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self._rich = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[count]} runs"),
            TextColumn("{task.fields[failed]}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=console,
            transient=transient,
        )
        self._rich.start()
        self._task = self._rich.add_task(label, total=self.total_cost or None, count=self._count(), failed="")

    def _count(self) -> str:
        return f"{self.done}/{self.runs}"

    def advance(self, cost: float = 1.0, ok: bool = True) -> None:
        """One run finished (``ok``) or failed, of the given cost."""
        self.done += 1
        self.failed += 0 if ok else 1
        self.spent += cost
        if self._rich is not None:
            failed = f"[red]{self.failed} failed" if self.failed else ""
            self._rich.update(self._task, completed=self.spent, count=self._count(), failed=failed)
        elif self._plain and self.total_cost > 0:
            now = time.monotonic()
            if self.spent / self.total_cost < self._next_line and now - self._last_line < PLAIN_EVERY_S:
                return
            while self.spent / self.total_cost >= self._next_line:
                self._next_line += 0.1
            self._last_line = now
            dt = now - self._t0
            left = (self.total_cost - self.spent) * dt / self.spent if self.spent else float("nan")
            print(f"{self.label}: {self._count()} runs done, {self.failed} failed, {dt:.0f} s elapsed, "
                  f"about {left:.0f} s left", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._rich is not None:
            self._rich.stop()
            self._rich = None

    def __enter__(self) -> "Bar":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
