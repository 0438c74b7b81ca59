"""Running many simulations: the one runner of ``cclab sweep`` and ``cclab reproduce``.

A *job* is a scenario, a seed and what to keep of its result (``keep``, a function of the
``Result`` run where the simulation ran, so that only what it returns crosses between
processes). ``run_jobs``:

- looks each job up in the run store (``cclab.store``) and simulates only the missing ones,
  storing them, so a rerun after an interruption resumes; jobs with the same scenario and seed
  are simulated once (the others wait for it and read it from the store);
- runs them longest first (``estimate_cost``), so that the cores are not left waiting on one long
  run at the end, on local worker processes (``concurrent.futures.ProcessPoolExecutor``, ``spawn``)
  or on Dask (an address, a ``distributed.Client`` or a cluster), through the same call;
- survives a worker that dies (killed, out of memory, a crash in the core; midway through
  sending its result too): the jobs that were running are tried again one at a time, so the one
  that kills its worker is found and reported as failed with how the worker died, and the
  others go on;
- shares the memory budget among the workers (``memory_shares``), and tries a run that stopped
  for memory (MemoryBudgetError) at its share again with most of the budget, beside runs
  given little, then alone with the whole (``memory_plan.py``);
- makes the workers die with this process (``workers.py``): killing only the parent stops them.

A job that raises is reported as failed (its error in one line and its traceback); the others
go on. Progress goes to one bar (``cclab.progress.Bar``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import re
import time
import traceback
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence

from .memory_plan import MemoryPlan
from .progress import Bar
from .workers import Dask, break_pool, dask_client, kill_pool, process_pool, worker_death, worker_gone

__all__ = ["Done", "Job", "dedupe", "estimate_cost", "one_line", "run_job", "run_jobs"]

RunFn = Callable[..., Any]

#: How often the runner looks for a worker that died unreported, and how long the pool has to
#: report a dead worker itself before the runner breaks it (seconds).
_STALL_POLL_S = 1.0
_STALL_GRACE_S = 3.0


@dataclasses.dataclass(frozen=True)
class Job:
    """One simulation to run, and what to keep of it.

    ``keep(result)`` runs where the simulation ran (a worker) and its value is what comes back
    (default: the whole ``Result``); with processes or Dask it must be importable by name (a
    module-level function or a ``functools.partial`` of one). ``run`` replaces ``cclab.run``
    (called as ``run(scenario, seed=seed)``); its results are not kept in the store, which holds
    the core's results only. ``fresh`` simulates even when stored, and overwrites. ``cost``
    orders the jobs (default ``estimate_cost``). ``tag`` is the caller's, handed back in ``Done``.
    """

    scenario: Mapping[str, Any]
    seed: int
    keep: Optional[Callable[[Any], Any]] = None
    run: Optional[RunFn] = None
    fresh: bool = False
    cost: Optional[float] = None
    tag: Any = None

    @property
    def weight(self) -> float:
        return self.cost if self.cost is not None else estimate_cost(self.scenario)


@dataclasses.dataclass
class Done:
    """A finished job: its ``value`` (what ``keep`` returned), or its ``error`` in one line and
    its ``traceback`` when it failed."""

    job: Job
    value: Any = None
    error: Optional[str] = None
    traceback: str = ""
    exception: Optional[BaseException] = None  # the exception itself, for a job run in this process
    #: It failed for memory (MemoryBudgetError), alone if the runner could give it the whole budget.
    memory: bool = False
    #: The memory budget, bytes, it failed under (with ``memory``, where known).
    budget: Optional[int] = None

    @property
    def ok(self) -> bool:
        return self.error is None


# -- the cost of a run --------------------------------------------------------------------------

_UNITS = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12}


def _rate_bps(text: Any) -> float:
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([kKMGT]?)bps\s*", str(text))
    return float(m.group(1)) * _UNITS[m.group(2)] if m else 0.0


def _seconds(text: Any) -> float:
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(s|ms|us|µs|ns|ps)\s*", str(text))
    return float(m.group(1)) * _TIME[m.group(2)] if m else 0.0


def estimate_cost(scenario: Any) -> float:
    """A run's cost in wall time, estimated as the bits its fastest link can carry in its duration
    (the packets it delivers dominate the time); 1 when it cannot be read. Only the order and the
    shares matter: it schedules the longest runs first and apportions the time left."""
    topo = scenario.get("topology", {}) if isinstance(scenario, dict) else {}
    rates = [_rate_bps((topo.get("bottleneck") or {}).get("rate"))]
    rates += [_rate_bps(link.get("rate")) for link in topo.get("links", []) if isinstance(link, dict)]
    cost = max(rates) * _seconds(scenario.get("duration", "0s")) if isinstance(scenario, dict) else 0.0
    return cost if cost > 0 else 1.0


def dedupe(keys: Sequence[str]) -> tuple[List[int], Dict[int, List[int]]]:
    """The positions of the first job of each key, in order, and for each of them the positions
    of the later jobs with the same key (to be run once it is in the store)."""
    first: Dict[str, int] = {}
    waiting: Dict[int, List[int]] = {}
    for j, k in enumerate(keys):
        if k in first:
            waiting.setdefault(first[k], []).append(j)
        else:
            first[k] = j
    return list(first.values()), waiting


def one_line(e: BaseException) -> str:
    """``Type: message``, first line only."""
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0] if text else type(e).__name__


# -- one job --------------------------------------------------------------------------------------


def _run_module() -> Any:
    # The module cclab.run: the package's attribute ``run`` is its function, which shadows it.
    import importlib

    return importlib.import_module(".run", __package__)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """No setting warnings (cclab.advice) for the papers' experiments: their settings are the
    papers' own, chosen on purpose, and hundreds of runs would repeat them."""
    import warnings

    from .advice import CclabWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CclabWarning)
        yield


def simulate(job: Job) -> Any:
    """The ``Result`` of the job: from the store, or simulated (and stored)."""
    if job.run is not None:
        return job.run(dict(job.scenario), seed=job.seed)
    from .store import RunStore

    run_module = _run_module()
    store = RunStore()
    res = None if job.fresh else store.get(job.scenario, job.seed)
    if res is None:
        with _quiet():
            res = run_module.run(dict(job.scenario), seed=job.seed)  # looked up now: tests replace it
        store.put(job.scenario, job.seed, res, overwrite=job.fresh)
    return res


def run_job(job: Job) -> Any:
    """Runs one job where it is called: ``keep(result)``, or the ``Result``."""
    res = simulate(job)
    return job.keep(res) if job.keep is not None else res


@dataclasses.dataclass
class _Failed:
    """What a worker sends back for a job that raised: the exception itself stays behind (it
    may not pickle)."""

    error: str
    traceback: str
    exception: Optional[BaseException] = None
    #: It stopped for memory (MemoryBudgetError): alone, it may fit.
    memory: bool = False
    #: The memory budget it ran under, bytes (where it stopped for memory and the budget is known).
    budget: Optional[int] = None

    def __reduce__(self) -> Any:
        return (_Failed, (self.error, self.traceback, None, self.memory, self.budget))


def _call(work: Callable[[Job], Any], job: Job, memory_limit: Optional[int] = None) -> Any:
    """``work(job)``, or what failed. ``memory_limit``: the run's memory budget in bytes
    (CCLAB_MEMORY_LIMIT while it runs), where the runner shares the machine among workers."""
    from ._core import MemoryBudgetError, memory_budget

    before = os.environ.get(_LIMIT_VAR)
    if memory_limit is not None:
        os.environ[_LIMIT_VAR] = f"{memory_limit}B"
    budget = memory_budget()  # what a run built now takes (the limit just set, or its share of the machine)
    try:
        return work(job)
    except Exception as e:  # noqa: BLE001 - a failed job is reported; the others go on
        memory = isinstance(e, MemoryBudgetError)
        return _Failed(one_line(e), traceback.format_exc(), e, memory, budget if memory else None)
    finally:
        if memory_limit is not None:
            if before is None:
                os.environ.pop(_LIMIT_VAR, None)
            else:
                os.environ[_LIMIT_VAR] = before


_LIMIT_VAR = "CCLAB_MEMORY_LIMIT"


def memory_shares(workers: int) -> Optional[tuple[int, int]]:
    """The memory budget of a run beside ``workers - 1`` others and of a run alone, bytes: the
    core's budget (80 % of the memory available now, ``_core.memory_budget``) divided among the
    workers, or whole (each run takes the budget against the free memory when it starts, and runs
    started together would each take it against the same); the share is ``MemoryPlan``'s.
    ``None`` when the user set CCLAB_MEMORY_LIMIT (it applies to every run as it is) or the
    budget cannot be read."""
    from . import _core
    from .memory_plan import BESIDE

    whole = None if _LIMIT_VAR in os.environ else _core.memory_budget()
    return None if whole is None else (MemoryPlan(workers, whole).limit(BESIDE) or 0, whole)


def _done(job: Job, out: Any) -> Done:
    if isinstance(out, _Failed):
        return Done(job, error=out.error, traceback=out.traceback, exception=out.exception, memory=out.memory,
                    budget=out.budget)
    return Done(job, out)


# -- many jobs ------------------------------------------------------------------------------------


def run_jobs(
    jobs: Iterable[Job],
    *,
    workers: int = 1,
    dask: Dask = None,
    on_done: Optional[Callable[[Done], Any]] = None,
    bar: Optional[Bar] = None,
    work: Callable[[Job], Any] = run_job,
    init: Optional[Callable[[], Any]] = None,
) -> List[Done]:
    """Runs the jobs longest first and returns them finished, in the order they finished.

    ``workers``: local processes (1: in this process). ``dask``: instead, a Dask scheduler
    address, client or cluster (``workers`` is then ignored); the simulations run there, and
    their results come back here, where they are stored and ``keep`` runs. ``on_done(done)`` is
    called here for each job as it finishes; ``bar`` advances by the job's cost. ``work(job)``
    replaces ``run_job`` as what a worker does with a job (module-level, for processes);
    ``init()`` runs once in each worker process (module-level too).
    """
    todo = sorted(jobs, key=lambda j: -j.weight)  # stable: equal costs keep their order
    finished: List[Done] = []

    def report(d: Done) -> None:
        finished.append(d)
        if bar is not None:
            bar.advance(d.job.weight, d.ok)
        if on_done is not None:
            on_done(d)

    if not todo:
        return finished
    if dask is not None:
        if work is not run_job:
            raise ValueError("dask: runs the simulations only; a custom work function needs local processes")
        _no_external_on_dask(todo)
        _on_dask(todo, dask, report)
    elif workers <= 1:
        for job in todo:
            report(_done(job, _call(work, job)))
    else:
        _on_processes(todo, workers, work, _with_registrations(todo, init), report)
    return finished


def _external(todo: List[Job]) -> List[str]:
    from . import cc

    names: List[str] = []
    for j in todo:
        names += [n for n in cc.external_names(j.scenario) if n not in names]
    return names


def _no_external_on_dask(todo: List[Job]) -> None:
    names = _external(todo)
    if names:
        raise ValueError(f"cc '{names[0]}' was registered in this process (a Python class or a plugin): Dask workers "
                         "do not have it; run on local processes (--jobs) instead")


def _with_registrations(todo: List[Job], init: Optional[Callable[[], Any]]) -> Optional[Callable[[], Any]]:
    """``init``, preceded in each worker by the registrations of Python classes and plugins the
    jobs need (a worker is a fresh interpreter). Raises ValueError naming an algorithm whose class
    a worker could not import."""
    if not _external(todo):
        return init
    from . import cc

    return functools.partial(_restore_then, cc.worker_setup(), init)


def _restore_then(registrations: Any, init: Optional[Callable[[], Any]]) -> None:
    from . import cc

    cc.restore(registrations)
    if init is not None:
        init()


def _store_key(job: Job) -> Optional[str]:
    if job.run is not None:
        return None
    from .store import run_key

    return run_key(job.scenario, job.seed)


def _on_processes(todo: List[Job], workers: int, work: Callable[[Job], Any], init: Optional[Callable[[], Any]],
                  report: Callable[[Done], None]) -> None:
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    # A run that several jobs share (same scenario and seed) is simulated once: the others are
    # queued when it is done, and then read it from the store.
    firsts, waiting = dedupe([_store_key(j) or f"#{i}" for i, j in enumerate(todo)])
    queue: List[int] = list(firsts)  # indices into todo, longest first; runs to try again go in front
    inflight: Dict[Any, int] = {}
    n = min(workers, len(firsts))
    pool = process_pool(n, init)
    ever_finished = breaks = 0
    gone_since: Optional[float] = None  # when a worker was first seen gone with nothing done
    shares = memory_shares(n)
    plan = MemoryPlan(n, None if shares is None else shares[1])

    def submit(i: int, level: int) -> None:
        plan.start(i, level)
        inflight[pool.submit(_call, work, todo[i], plan.limit(level))] = i

    def finish(d: Done, i: int) -> None:
        report(d)
        for w in reversed(waiting.pop(i, [])):  # now in the store: read, not simulated again
            queue.insert(0, w)
            todo[w] = dataclasses.replace(todo[w], fresh=False)

    try:
        while queue or inflight:
            # At most two jobs per worker in flight (Ctrl-C has little to cancel, and a worker that
            # dies takes few jobs with it), each at the memory level the plan gives it.
            while len(inflight) < 2 * n:
                nxt = plan.next(queue)
                if nxt is None:
                    break
                queue.remove(nxt[0])
                submit(*nxt)
            done, _ = wait(list(inflight), timeout=_STALL_POLL_S, return_when=FIRST_COMPLETED)
            if not done:
                # A worker that died midway through sending its result leaves the pool waiting
                # for the rest for ever, its death unreported: break the pool (workers.py).
                gone_since = (gone_since or time.monotonic()) if worker_gone(pool) else None
                if gone_since is not None and time.monotonic() - gone_since > _STALL_GRACE_S:
                    break_pool(pool)
                    gone_since = None
                continue
            gone_since = None
            broken = False
            for fut in done:
                i = inflight.pop(fut)
                level = plan.end(i)
                try:
                    out = fut.result()
                except BrokenProcessPool:
                    # The jobs a dying worker may have taken down run again alone: the one that
                    # kills its worker alone is the culprit.
                    broken = True
                    if plan.worker_died(i, level):
                        queue.insert(0, i)
                    else:
                        finish(Done(todo[i], error=worker_death(pool)), i)
                    continue
                except Exception as e:  # noqa: BLE001 - e.g. the job does not pickle
                    out = _Failed(one_line(e), traceback.format_exc())
                if isinstance(out, _Failed) and out.memory and plan.stopped_for_memory(i, level):
                    queue.insert(0, i)
                    continue
                ever_finished += 1
                finish(_done(todo[i], out), i)
            if broken:
                breaks += 1
                if breaks >= 3 and not ever_finished:
                    raise RuntimeError(
                        "the worker processes die before finishing any run. They are started with 'spawn': "
                        "a script that runs cclab on processes must do it under if __name__ == '__main__':, "
                        "and the run function must be importable by name")
                for i in inflight.values():
                    # Never alone (a run at the whole budget has nothing beside it): tried again.
                    plan.worker_died(i, plan.end(i))
                    queue.insert(0, i)
                inflight.clear()
                pool.shutdown(wait=False, cancel_futures=True)
                pool = process_pool(n, init)
    except BaseException:
        kill_pool(pool)
        raise
    pool.shutdown(wait=True)


def _versions() -> tuple:
    """This cclab's version, result version and stack profiles' versions (with their overheads')."""
    from . import _core

    stacks = sorted(_core.stack_versions().items())
    stacks += sorted((f"{k} overhead", v) for k, v in _core.stack_overhead_versions().items())
    stacks += sorted((f"queue {k}", v) for k, v in _core.queue_versions().items())
    stacks.append(("cong_control", int(_core.CONG_CONTROL_VERSION)))
    return (_core.__version__, int(_core.RESULT_VERSION), stacks)


def _simulate_only(job: Job, version: Any = None) -> Any:
    """On a Dask worker: the simulation only (the store and ``keep`` are the caller's). A worker
    with another cclab (``version``: the caller's ``_versions()``) refuses: its results would be
    stored under the caller's result versions."""
    here = _versions()
    if version is not None and list(version) != list(here):
        raise RuntimeError(f"this worker has cclab {here[0]} (result version {here[1]}, stack versions "
                           f"{dict(here[2])}), the caller cclab {version[0]} (result version {version[1]}, "
                           f"stack versions {dict(version[2])})")
    if job.run is not None:
        return job.run(dict(job.scenario), seed=job.seed)
    with _quiet():
        return _run_module().run(dict(job.scenario), seed=job.seed)


def _keep_here(job: Job, res: Any) -> Done:
    return _done(job, _call(lambda j: j.keep(res) if j.keep is not None else res, job))


def _on_dask(todo: List[Job], dask: Dask, report: Callable[[Done], None]) -> None:
    import secrets

    from distributed import as_completed

    from .store import RunStore

    store = RunStore()
    work = functools.partial(_simulate_only, version=_versions())
    client, own = dask_client(dask)
    futures: Dict[Any, Job] = {}
    try:
        token = secrets.token_hex(4)
        for rank, job in enumerate(todo):
            hit = None if job.run is not None or job.fresh else store.get(job.scenario, job.seed)
            if hit is not None:
                report(_keep_here(job, hit))
                continue
            # Dask runs higher priorities first: longest first, as here.
            fut = client.submit(_call, work, dataclasses.replace(job, keep=None), pure=False,
                                key=f"cclab-run-{rank}-{token}", priority=len(todo) - rank)
            futures[fut] = job
        for fut in as_completed(list(futures), loop=client.loop):
            job = futures.pop(fut)
            try:
                out = fut.result()
            except Exception as e:  # noqa: BLE001 - a lost worker (KilledWorker), a task that did not unpickle...
                report(Done(job, error=one_line(e), traceback=traceback.format_exc()))
                continue
            finally:
                fut.release()
            if isinstance(out, _Failed):
                report(_done(job, out))
                continue
            if job.run is None:
                store.put(job.scenario, job.seed, out, overwrite=job.fresh)
            report(_keep_here(job, out))
    except BaseException:
        client.cancel(list(futures))
        raise
    finally:
        if own:
            client.close()
