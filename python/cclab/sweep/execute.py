"""Running a sweep: each run written whole into ``OUT/runs/<run id>/``, inline, on a local
process pool or on Dask; resumable; progress and the final report."""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Union

import pandas as pd

from .. import _core
from ..scenario import Scenario, to_toml
from .results import _read_record, load_sweep
from .spec import (
    _canonical,
    _params_text,
    _error,
    _ERROR_TXT,
    _FORMAT,
    _RUN_JSON,
    _SWEEP_JSON,
    _TMP_PREFIX,
    as_sweep,
    Path_,
    RunFn,
    RunSpec,
    Sweep,
)


# -- one run, in a worker ---------------------------------------------------------------------


def _commit(runs_dir: Path, rid: str, fill: Callable[[Path], None]) -> bool:
    """Builds a run folder in a hidden temporary folder, then renames it to runs/<rid>.
    False when runs/<rid> appeared meanwhile (another process finished it first)."""
    tmp = runs_dir / f"{_TMP_PREFIX}{rid}-{os.getpid()}-{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        fill(tmp)
        try:
            os.rename(tmp, runs_dir / rid)
        except OSError:
            if (runs_dir / rid / _RUN_JSON).is_file():
                shutil.rmtree(tmp, ignore_errors=True)
                return False
            raise
        return True
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _fill(folder: Path, record: Dict[str, Any], result: Any, scenario: Scenario) -> None:
    if result is not None:
        result.save(folder)
    else:
        try:
            (folder / "scenario.toml").write_text(to_toml(scenario), encoding="utf-8")
        except Exception:  # noqa: BLE001 - the record matters more than the copy of the scenario
            pass
        (folder / _ERROR_TXT).write_text(record.get("traceback", ""), encoding="utf-8")
    rec = {k: v for k, v in record.items() if k != "traceback"}
    (folder / _RUN_JSON).write_text(json.dumps(rec, indent=2) + "\n", encoding="utf-8")  # last: marks it complete


def _record(task: Mapping[str, Any]) -> Dict[str, Any]:
    return {
        "format": _FORMAT,
        "run_id": task["run_id"],
        "params": task["params"],
        "replication": task["replication"],
        "seed": task["seed"],
        "cclab_version": _core.__version__,
        "host": socket.gethostname(),
    }


def _execute(task: Mapping[str, Any], runs_dir: Optional[str], run_fn: Optional[RunFn] = None) -> Dict[str, Any]:
    """Runs one task. With ``runs_dir``, writes the run folder there; without, returns its
    files (``files``: name -> bytes) for the caller to write. Never raises for a
    failed run: the error is part of what it returns (and writes)."""
    t0 = time.perf_counter()
    record = _record(task)
    result = None
    try:
        if task["cclab_version"] != _core.__version__:
            raise RuntimeError(f"this worker has cclab {_core.__version__}, the sweep cclab {task['cclab_version']}")
        if run_fn is None:
            from ..run import run as run_fn
        result = run_fn(task["scenario"], seed=task["seed"])
        record["status"] = "ok"
        record["summary"] = result.summary()
    except Exception as e:  # noqa: BLE001 - a failed run is recorded, the sweep goes on
        record["status"] = "failed"
        record["error"] = _one_line(e)
        record["traceback"] = traceback.format_exc()
    record["elapsed_s"] = time.perf_counter() - t0
    out = {"run_id": task["run_id"], "status": record["status"], "error": record.get("error")}
    if runs_dir is not None:
        out["committed"] = _commit(Path(runs_dir), task["run_id"], lambda d: _fill(d, record, result, task["scenario"]))
    else:
        with tempfile.TemporaryDirectory(prefix="cclab-run-") as tmp:
            _fill(Path(tmp), record, result, task["scenario"])
            out["files"] = {f.name: f.read_bytes() for f in Path(tmp).iterdir()}
    return out


def _one_line(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0] if text else type(e).__name__


def _write_files(runs_dir: Path, rid: str, files: Mapping[str, bytes]) -> bool:
    def fill(d: Path) -> None:
        for name, data in files.items():
            if name != _RUN_JSON:
                (d / name).write_bytes(data)
        (d / _RUN_JSON).write_bytes(files[_RUN_JSON])

    return _commit(runs_dir, rid, fill)


def _failed_here(task: Mapping[str, Any], runs_dir: Path, error: str, tb: str) -> Dict[str, Any]:
    """Records a run that failed outside the run function (a worker died, a task was lost)."""
    record = _record(task)
    record.update(status="failed", error=error, traceback=tb, elapsed_s=None)
    committed = _commit(runs_dir, task["run_id"], lambda d: _fill(d, record, None, task["scenario"]))
    return {"run_id": task["run_id"], "status": "failed", "error": error, "committed": committed}


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group; the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


# -- executors ----------------------------------------------------------------------------------


OnDone = Callable[[Dict[str, Any]], None]


def _run_inline(tasks: Iterator[Dict[str, Any]], runs_dir: Path, run_fn: Optional[RunFn], on_done: OnDone) -> None:
    for task in tasks:
        on_done(_execute(task, str(runs_dir), run_fn))


def _kill_pool(pool: Any) -> None:
    for p in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            p.terminate()
        except Exception:  # noqa: BLE001
            pass
    pool.shutdown(wait=False, cancel_futures=True)


def _run_pool(
    tasks: Iterator[Dict[str, Any]], runs_dir: Path, jobs: int, run_fn: Optional[RunFn], on_done: OnDone
) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("spawn")

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init)

    pool = new_pool()
    inflight: Dict[Any, Dict[str, Any]] = {}
    retry: List[Dict[str, Any]] = []
    deaths: Dict[str, int] = {}
    finished_on_pool = 0  # tasks this pool finished
    barren = 0  # pools in a row that broke before finishing any task

    def fill() -> None:
        # At most two tasks per worker in flight: Ctrl-C has little to cancel, and a
        # worker that dies takes few tasks with it.
        while len(inflight) < 2 * jobs:
            task = retry.pop() if retry else next(tasks, None)
            if task is None:
                return
            inflight[pool.submit(_execute, task, str(runs_dir), run_fn)] = task

    try:
        fill()
        while inflight:
            done, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                task = inflight.pop(fut)
                try:
                    outcome = fut.result()
                except BrokenProcessPool:
                    broken = True
                    deaths[task["run_id"]] = deaths.get(task["run_id"], 0) + 1
                    if deaths[task["run_id"]] < 2:
                        retry.append(task)
                        continue
                    outcome = _failed_here(task, runs_dir, "the worker process died while running it, twice "
                                           "(killed, out of memory, or crashed)", "")
                except Exception as e:  # noqa: BLE001 - e.g. the run function does not pickle
                    outcome = _failed_here(task, runs_dir, _one_line(e), traceback.format_exc())
                finished_on_pool += 1
                on_done(outcome)
            if broken:
                # Every task in flight on a broken pool fails with it: run them again on a new pool.
                barren = barren + 1 if finished_on_pool == 0 else 0
                if barren >= 2:
                    raise RuntimeError(
                        "the worker processes die before finishing any run (see their messages above). "
                        "They are started with 'spawn': a script that calls cclab.sweep must do it under "
                        "if __name__ == '__main__':, and the run function must be importable by name")
                retry.extend(inflight.values())
                inflight.clear()
                _kill_pool(pool)
                pool = new_pool()
                finished_on_pool = 0
            fill()
    except BaseException:
        _kill_pool(pool)
        raise
    pool.shutdown(wait=True)


def _run_dask(
    tasks: Iterator[Dict[str, Any]], runs_dir: Path, dask: Any, run_fn: Optional[RunFn], on_done: OnDone
) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise _error("--dask", "running on Dask needs dask.distributed: pip install 'cclab[sweep]'", dask,
                     "a scheduler address such as tcp://host:8786, with dask[distributed] installed") from None
    own = False
    if isinstance(dask, str):
        try:
            client = Client(dask, timeout="20s", set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise _error("--dask", f"cannot reach the Dask scheduler at {dask}: {e}", dask,
                         "the address of a running scheduler, such as tcp://host:8786") from None
        own = True
    elif hasattr(dask, "submit"):
        client = dask
    elif hasattr(dask, "scheduler_address"):  # a cluster object
        client = Client(dask, set_as_default=False)
        own = True
    else:
        raise TypeError(f"dask: expected a scheduler address, a distributed.Client or a cluster, not {type(dask).__name__}")
    futures: Dict[Any, Dict[str, Any]] = {}
    try:
        token = secrets.token_hex(4)
        for task in tasks:
            fut = client.submit(_execute, task, None, run_fn, key=f"cclab-run-{task['run_id']}-{token}", pure=False)
            futures[fut] = task
        for fut in as_completed(list(futures), loop=client.loop):
            task = futures.pop(fut)
            try:
                out = fut.result()
            except Exception as e:  # noqa: BLE001 - a lost worker, a task that did not deserialize...
                on_done(_failed_here(task, runs_dir, _one_line(e), traceback.format_exc()))
                continue
            finally:
                fut.release()
            files = out.pop("files")
            out["committed"] = _write_files(runs_dir, task["run_id"], files)
            on_done(out)
    except BaseException:
        client.cancel(list(futures))
        raise
    finally:
        if own:
            client.close()


# -- progress -------------------------------------------------------------------------------------


class _Progress:
    """A rich progress bar on a terminal (runs done, failed, time left), else a line every 10%."""

    def __init__(self, enabled: bool, name: str, total: int, done: int) -> None:
        self.total, self.done, self.failed = total, done, 0
        self._bar = None
        self._plain = False
        self._next_plain = 0.1
        self._t0 = time.monotonic()
        self._start_done = done
        if not enabled or total == done:
            return
        from rich.console import Console

        console = Console(stderr=True)
        if console.is_terminal:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)

            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs,"),
                TextColumn("[red]{task.fields[failed]} failed"),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                console=console,
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(name, total=total, completed=done, failed=0)
        else:
            self._plain = True

    def advance(self, ok: bool) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        if self._bar is not None:
            self._bar.update(self._task, advance=1, failed=self.failed)
        elif self._plain and self.done / self.total >= self._next_plain:
            while self.done / self.total >= self._next_plain:
                self._next_plain += 0.1
            ran = self.done - self._start_done
            dt = time.monotonic() - self._t0
            eta = (self.total - self.done) * dt / ran if ran else float("nan")
            print(f"{self.done}/{self.total} runs done, {self.failed} failed, "
                  f"{dt:.0f} s elapsed, about {eta:.0f} s left", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


# -- a sweep, end to end ---------------------------------------------------------------------------


@dataclasses.dataclass
class SweepReport:
    """What ``execute`` did."""

    name: str
    out: Path
    total: int  # runs in the sweep
    skipped: int  # already complete before this execution
    ok: int  # finished in this execution
    failed: List[Dict[str, Any]]  # {run_id, params, replication, error} of the runs that failed
    elapsed_s: float
    executor: str


def _prepare(out: Path, sw: Sweep) -> Optional[Any]:
    """Checks that ``out`` is new or holds this sweep, before anything is written; then
    creates it, takes its lock and writes sweep.json. Returns the lock's file (keep it open)."""
    meta_path = out / _SWEEP_JSON
    if meta_path.is_file():
        old = json.loads(meta_path.read_text(encoding="utf-8"))
        why = None
        if old.get("format") != _FORMAT:
            why = f"it was written in sweep format {old.get('format')}"
        elif old.get("cclab_version") != _core.__version__:
            why = f"it was started with cclab {old.get('cclab_version')}, this is cclab {_core.__version__}"
        elif _canonical(old.get("base")) != _canonical(sw.base):
            why = "its base scenario differs"
        elif old.get("seed") != sw.seed:
            why = f"its master seed is {old.get('seed')}, this sweep's is {sw.seed}"
        if why:
            raise _error("--out", f"{out} holds another sweep ({why}); choose another folder or delete it",
                         out, "a new folder, or one that holds this sweep (same base, seed and cclab version)")
    elif out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise _error("--out", f"{out} exists and is not a sweep folder (it has no {_SWEEP_JSON})", out,
                     "a new or empty folder, or one that holds this sweep")
    (out / "runs").mkdir(parents=True, exist_ok=True)
    lock = None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        fcntl = None  # type: ignore[assignment]
    if fcntl is not None:
        lock = open(out / ".lock", "w")
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise _error("--out", f"another cclab sweep is writing to {out}", out, "one sweep per folder at a time")
    tmp = out / f"{_TMP_PREFIX}{_SWEEP_JSON}"
    tmp.write_text(json.dumps(sw.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, meta_path)
    return lock


def _default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


def execute(
    definition: Union[Sweep, Mapping[str, Any], Path_],
    out: Path_,
    *,
    jobs: Optional[int] = None,
    dask: Any = None,
    progress: bool = False,
    run: Optional[RunFn] = None,
) -> SweepReport:
    """Runs the runs of a sweep that ``out`` does not hold yet; returns a SweepReport.
    ``sweep`` is this plus ``load_sweep``; the arguments are the same."""
    sw = as_sweep(definition)
    out = Path(out)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise _error("--jobs", f"invalid value {jobs!r}", jobs, "a whole number >= 1")
    if jobs is not None and dask is not None:
        raise _error("--jobs", "--jobs and --dask exclude each other (Dask has its own workers)", jobs,
                     "one of --jobs and --dask")
    t0 = time.monotonic()
    lock = _prepare(out, sw)
    try:
        runs_dir = out / "runs"
        for stale in runs_dir.glob(_TMP_PREFIX + "*"):  # left by a run that was killed while writing
            shutil.rmtree(stale, ignore_errors=True)
        specs = sw.runs()
        pending: List[RunSpec] = []
        for s in specs:
            rec = _read_record(runs_dir / s.run_id)
            if rec is not None and rec.get("status") == "ok":
                continue
            if (runs_dir / s.run_id).exists():  # a failed run: try it again
                shutil.rmtree(runs_dir / s.run_id)
            pending.append(s)
        skipped = len(specs) - len(pending)
        n_jobs = jobs if jobs is not None else _default_jobs()
        n_jobs = max(1, min(n_jobs, len(pending)))
        if not pending:
            executor = "none (nothing left to run)"
        elif dask is not None:
            executor = f"dask ({dask if isinstance(dask, str) else type(dask).__name__})"
        else:
            executor = f"{n_jobs} local processes" if n_jobs > 1 else "this process"
        report = SweepReport(sw.name, out, len(specs), skipped, 0, [], 0.0, executor)
        if progress and pending:
            print(f"sweep {sw.name}: {len(specs)} runs ({len(sw.points)} points x {sw.replications} replications), "
                  f"{skipped} already done, {len(pending)} to run on {executor}", file=sys.stderr, flush=True)
        bar = _Progress(progress, sw.name, len(specs), skipped)
        by_id = {s.run_id: s for s in pending}

        def tasks() -> Iterator[Dict[str, Any]]:
            for s in pending:
                yield {"run_id": s.run_id, "params": s.params, "replication": s.replication, "seed": s.seed,
                       "scenario": sw.scenario(s.point), "cclab_version": _core.__version__}

        def on_done(o: Dict[str, Any]) -> None:
            if o["status"] == "ok":
                report.ok += 1
            else:
                s = by_id[o["run_id"]]
                report.failed.append({"run_id": s.run_id, "params": s.params, "replication": s.replication,
                                      "error": o.get("error")})
            bar.advance(o["status"] == "ok")

        try:
            if not pending:
                pass
            elif dask is not None:
                _run_dask(tasks(), runs_dir, dask, run, on_done)
            elif n_jobs == 1:
                _run_inline(tasks(), runs_dir, run, on_done)
            else:
                _run_pool(tasks(), runs_dir, n_jobs, run, on_done)
        except KeyboardInterrupt:
            bar.close()
            kept = sum((runs_dir / s.run_id / _RUN_JSON).is_file() for s in specs)
            print(f"interrupted: {kept} of {len(specs)} runs are in {runs_dir}; "
                  "run the same sweep again to resume", file=sys.stderr, flush=True)
            raise
        finally:
            bar.close()
        report.elapsed_s = time.monotonic() - t0
        return report
    finally:
        if lock is not None:
            lock.close()


def sweep(
    definition: Union[Sweep, Mapping[str, Any], Path_],
    out: Path_,
    *,
    jobs: Optional[int] = None,
    dask: Any = None,
    progress: bool = False,
    run: Optional[RunFn] = None,
) -> pd.DataFrame:
    """Runs a sweep into the folder ``out`` and returns its table (``load_sweep``'s
    columns, the runs of this sweep only).

    ``definition``: the path of a sweep TOML file, a dict with its keys, or a Sweep.
    ``jobs``: local worker processes (default: every core; 1 runs in this process).
    ``dask``: instead, a Dask scheduler address (``"tcp://host:8786"``), a
    ``distributed.Client`` or a cluster; results travel back to this process,
    which writes them, so the workers need cclab but no shared folder.
    ``progress``: a progress bar on stderr. ``run``: the function that runs one
    scenario, called as ``run(scenario, seed=seed)`` (default ``cclab.run``); for
    processes or Dask it must be importable by name.

    Runs already in ``out`` are skipped; failed runs are recorded (``status``,
    ``error``) and tried again by the next execution. Uses a process pool with
    the ``spawn`` start method: in a script, call it under ``if __name__ == "__main__":``.
    """
    sw = as_sweep(definition)
    execute(sw, out, jobs=jobs, dask=dask, progress=progress, run=run)
    return load_sweep(out, runs=[s.run_id for s in sw.runs()])


def print_report(report: SweepReport, console: Any, max_failures: int = 20) -> None:
    """The end-of-sweep summary for the command line."""
    from rich.table import Table

    t = Table(title=f"sweep {report.name}", title_justify="left", show_header=False)
    t.add_column("what")
    t.add_column("value", justify="right")
    t.add_row("runs in the sweep", f"{report.total}")
    t.add_row("already done before", f"{report.skipped}")
    t.add_row("finished now", f"{report.ok}")
    t.add_row("failed", f"{len(report.failed)}", style="red" if report.failed else None)
    t.add_row("executor", report.executor)
    t.add_row("wall time", f"{report.elapsed_s:.1f} s")
    console.print(t)
    if report.failed:
        f = Table(title="failed runs (tried again when the sweep is run again)", title_justify="left")
        for col in ("run id", "parameters", "rep", "error"):
            f.add_column(col)
        for r in report.failed[:max_failures]:
            f.add_row(r["run_id"], _params_text(r["params"]), str(r["replication"]), str(r["error"]))
        if len(report.failed) > max_failures:
            f.caption = f"... and {len(report.failed) - max_failures} more; load_sweep() lists them all"
        console.print(f)
        console.print(f"tracebacks: {report.out / 'runs'}/<run id>/{_ERROR_TXT}")
    console.print(f"wrote {report.out} (cclab.load_sweep({str(report.out)!r}))")
