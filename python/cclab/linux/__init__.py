"""The Linux engine: a scenario on real kernel TCP between network namespaces (docs/linux.md).

``cclab.run(scenario, engine="linux")`` (``cclab run SCENARIO --engine linux``) builds the
dumbbell as three namespaces joined by veth pairs, a rate-limited drop-tail queue at the
bottleneck and a user-space delay line (this kernel has no netem), runs the flows as real TCP
connections with the named kernel or BPF congestion control, samples TCP_INFO and the queue's
statistics, and returns the same ``Result`` tables as the simulator. Needs root.
"""

from __future__ import annotations

from .errors import LinuxEngineError, Unsupported
from .host import PREFIX, cleanup_leftovers

__all__ = ["LinuxEngineError", "Unsupported", "PREFIX", "cleanup_leftovers", "run_linux"]


def run_linux(*args, **kwargs):  # type: ignore[no-untyped-def]
    """``cclab.linux.engine.run_linux`` (imported on use: it needs pandas)."""
    from .engine import run_linux as _run

    return _run(*args, **kwargs)
