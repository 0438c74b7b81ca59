"""Where the runner's jobs run: a local process pool whose workers die with their parent, and
the connection to a Dask scheduler (checked in seconds, before anything is written)."""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from typing import Any, Callable, Optional, Tuple

__all__ = ["Dask", "break_pool", "dask_client", "kill_pool", "process_pool", "worker_death", "worker_gone"]

#: A Dask scheduler address (``tcp://host:8786``), a ``distributed.Client`` or a cluster.
Dask = Any

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with(parent: int) -> None:
    """Makes this process die when ``parent`` does, even by SIGKILL: Linux's PR_SET_PDEATHSIG
    (the kernel sends SIGKILL when the parent exits), and elsewhere a thread that watches the
    parent's pid (a worker whose parent died is re-parented, so its parent pid changes)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the watcher below does it
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="cclab-parent-watch", daemon=True).start()


def _init_worker(parent: int, init: Optional[Callable[[], Any]]) -> None:
    # Ctrl-C reaches the whole process group; the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with(parent)
    if init is not None:
        init()


def process_pool(workers: int, init: Optional[Callable[[], Any]] = None) -> Any:
    """A ``ProcessPoolExecutor`` of ``workers`` processes, started with ``spawn`` (a fresh
    interpreter: no copy of this process's threads or of a half-run simulation), ignoring Ctrl-C
    (the parent stops them) and dying with this process. ``init()`` runs once in each."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_init_worker, initargs=(os.getpid(), init))


def _processes(pool: Any) -> list:
    return list((getattr(pool, "_processes", None) or {}).values())


def _sentinels(procs: list) -> list:
    """The sentinels of the processes not closed (a closed one is gone). Sentinels, not ``join``
    or ``is_alive``: the pool's manager thread may reap a worker first, and then those cannot tell."""
    out = []
    for p in procs:
        try:
            out.append(p.sentinel)
        except ValueError:  # closed: gone
            pass
    return out


def _exited(procs: list, timeout: float) -> bool:
    """Whether all ``procs`` have exited within ``timeout`` seconds."""
    from multiprocessing.connection import wait

    deadline = time.monotonic() + timeout
    left = _sentinels(procs)
    while left and time.monotonic() < deadline:
        ready = wait(left, timeout=max(deadline - time.monotonic(), 0.0))
        left = [s for s in left if s not in ready]
    return not left


def break_pool(pool: Any) -> None:
    """Kills the pool's workers (SIGTERM, then SIGKILL after 2 s) and, once all are gone, closes
    this process's write end of the pool's result pipe.

    A worker killed while it sends a result (the OOM killer, say) leaves half a message in the
    result pipe, and the pool's manager thread waits for the rest for ever: the other workers
    and this process (CPython 3.11's ProcessPoolExecutor) hold write ends too, so it never sees
    end-of-file, and the pool never reports the worker's death. With every write end closed the
    thread gets end-of-file, and the pool breaks as it does when a worker dies between
    messages: its futures fail with BrokenProcessPool, and the manager thread ends."""
    procs = _processes(pool)
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    for p in procs:
        try:
            p.terminate()
        except Exception:  # noqa: BLE001 - already gone
            pass
    if not _exited(procs, timeout=2.0):
        for p in procs:
            try:
                p.kill()
            except Exception:  # noqa: BLE001 - already gone
                pass
    if writer is not None and _exited(procs, timeout=5.0):
        writer.close()


def worker_gone(pool: Any) -> bool:
    """Whether one of the pool's workers has exited."""
    from multiprocessing.connection import wait

    procs = _processes(pool)
    sentinels = _sentinels(procs)
    return len(sentinels) < len(procs) or bool(sentinels and wait(sentinels, timeout=0))


def kill_pool(pool: Any) -> None:
    """Stops a pool now: its workers are killed, their jobs dropped, and the pool's manager
    thread has ended when this returns (else this process could not exit: it joins that
    thread, which a worker killed midway through a result leaves waiting; ``break_pool``)."""
    from concurrent.futures import process as cf_process

    manager = getattr(pool, "_executor_manager_thread", None)
    break_pool(pool)
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None:
        manager.join(timeout=5.0)
        if not manager.is_alive():
            # Ended: the interpreter's exit need not wake it (waking it now writes to a pipe it closed).
            cf_process._threads_wakeups.pop(manager, None)


def worker_death(pool: Any) -> str:
    """How the worker of a broken pool died, in one line (from its exit status)."""
    # The pool sees a worker die when its pipe closes, a moment before the kernel has its exit
    # status: wait for it (the pool terminates the other workers, hence SIGTERM is not it).
    deadline = time.monotonic() + 2.0
    while True:
        codes = [p.exitcode for p in _processes(pool)]
        codes = [c for c in codes if c is not None and c != -signal.SIGTERM]
        if codes or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    why = "crashed, was killed, or ran out of memory"
    if codes and codes[0] < 0:
        try:
            name = signal.Signals(-codes[0]).name
        except ValueError:
            name = f"signal {-codes[0]}"
        why = {"SIGKILL": "killed by SIGKILL: out of memory, or killed", "SIGABRT": "aborted (SIGABRT): "
               "an abort in the core, such as running out of memory", "SIGSEGV": "crashed (SIGSEGV)"}.get(
            name, f"killed by {name}")
    elif codes:
        why = f"exited with code {codes[0]}"
    return f"the worker process died while running it ({why})"


def _probe(address: str, timeout_s: float) -> None:
    """Raises OSError unless ``address`` answers as a Dask scheduler would: a TCP connection in
    3 s (a refused or unrouted address fails here, where distributed would retry until its
    timeout), then distributed's own handshake (something else listening fails here)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect, get_address_host_port, parse_address

    try:
        scheme, _ = parse_address(address)
        if scheme in ("tcp", "tls"):
            socket.create_connection(get_address_host_port(address), timeout=3.0).close()
    except ValueError as e:
        raise OSError(f"{address} is not a scheduler address ({e})") from None
    except OSError as e:
        raise OSError(f"cannot reach the Dask scheduler at {address}: {e.strerror or e}") from None

    async def handshake() -> None:
        comm = await connect(address, timeout=timeout_s)
        await comm.close()

    try:  # in a thread of its own: the caller may be inside a running event loop (a notebook)
        with ThreadPoolExecutor(1) as t:
            t.submit(asyncio.run, asyncio.wait_for(handshake(), timeout_s)).result()
    except Exception as e:  # noqa: BLE001 - a timeout, a reset, bytes that are not Dask's protocol...
        raise OSError(f"no Dask scheduler answers at {address} ({type(e).__name__}: {e})"[:300]) from None


def dask_client(dask: Dask, timeout_s: float = 10.0) -> Tuple[Any, bool]:
    """A ``distributed.Client`` for ``dask`` and whether it is ours to close. An address is
    probed first (``_probe``), so an unreachable scheduler fails in seconds.
    Raises ImportError without dask.distributed, OSError when the scheduler cannot be reached,
    TypeError for anything else."""
    try:
        from distributed import Client
    except ImportError:
        raise ImportError("running on Dask needs dask.distributed: pip install 'cclab[sweep]'") from None
    if isinstance(dask, str):
        _probe(dask, timeout_s)
        try:
            return Client(dask, timeout=f"{timeout_s}s", set_as_default=False), True
        except Exception as e:  # noqa: BLE001 - whatever it is, the scheduler is not usable
            raise OSError(f"cannot reach the Dask scheduler at {dask}: {type(e).__name__}: {e}") from None
    if hasattr(dask, "submit"):
        return dask, False
    if hasattr(dask, "scheduler_address"):  # a cluster object
        return Client(dask, set_as_default=False), True
    raise TypeError(f"dask: expected a scheduler address, a distributed.Client or a cluster, not {type(dask).__name__}")
