"""Running a sweep: each run written whole into ``OUT/runs/<run id>/`` by the shared runner
(``cclab.runner``: the run store, a local process pool or Dask, one progress bar); resumable;
the final report."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import secrets
import shutil
import socket
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

import pandas as pd

from .. import _core
from ..progress import Bar
from ..runner import Done, Job, run_jobs
from ..workers import dask_client
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


# -- one run ------------------------------------------------------------------------------------


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


def _fill(folder: Path, record: Dict[str, Any], result: Any, scenario: Scenario, tb: str = "") -> None:
    if result is not None:
        result.save(folder)
    else:
        try:
            (folder / "scenario.toml").write_text(to_toml(scenario), encoding="utf-8")
        except Exception:  # noqa: BLE001 - the record matters more than the copy of the scenario
            pass
        (folder / _ERROR_TXT).write_text(tb, encoding="utf-8")
    (folder / _RUN_JSON).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")  # last: marks it complete


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


def _keep_run(runs_dir: str, task: Mapping[str, Any], result: Any) -> bool:
    """What a sweep keeps of a run (in the worker): its folder, runs/<run id>/. False when
    another process wrote it first."""
    record = _record(task)
    record.update(status="ok", summary=result.summary(), elapsed_s=result.wall_time_s)
    return _commit(Path(runs_dir), task["run_id"], lambda d: _fill(d, record, result, task["scenario"]))


def _keep_failure(runs_dir: Path, task: Mapping[str, Any], error: Optional[str], tb: str) -> None:
    """Records a failed run (the run raised, or its worker died): run.json, error.txt, scenario.toml."""
    record = _record(task)
    record.update(status="failed", error=error, elapsed_s=None)
    _commit(runs_dir, task["run_id"], lambda d: _fill(d, record, None, task["scenario"], tb))


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
    client, own = None, False
    if dask is not None:  # reached (or not) before anything is written
        accepted = "the address of a running scheduler, such as tcp://host:8786, with dask[distributed] installed"
        try:
            client, own = dask_client(dask)
        except (ImportError, OSError) as e:
            raise _error("--dask", str(e), dask, accepted) from None
    try:
        lock = _prepare(out, sw)
        try:
            return _execute(sw, out, jobs, client, dask, progress, run, t0)
        finally:
            if lock is not None:
                lock.close()
    finally:
        if own:
            client.close()


def _execute(sw: Sweep, out: Path, jobs: Optional[int], client: Any, dask: Any, progress: bool,
             run: Optional[RunFn], t0: float) -> SweepReport:
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
    n_jobs = max(1, min(jobs if jobs is not None else _default_jobs(), len(pending)))
    if not pending:
        executor = "none (nothing left to run)"
    elif client is not None:
        executor = f"dask ({dask if isinstance(dask, str) else type(dask).__name__})"
    else:
        executor = f"{n_jobs} local processes" if n_jobs > 1 else "this process"
    report = SweepReport(sw.name, out, len(specs), skipped, 0, [], 0.0, executor)
    if progress and pending:
        print(f"sweep {sw.name}: {len(specs)} runs ({len(sw.points)} points x {sw.replications} replications), "
              f"{skipped} already done, {len(pending)} to run on {executor}", file=sys.stderr, flush=True)
    todo = []
    for s in pending:
        task = {"run_id": s.run_id, "params": s.params, "replication": s.replication, "seed": s.seed,
                "scenario": sw.scenario(s.point)}
        todo.append(Job(task["scenario"], s.seed, keep=functools.partial(_keep_run, str(runs_dir), task), run=run,
                        tag=task))

    def on_done(d: Done) -> None:
        task = d.job.tag
        if d.ok:
            report.ok += 1
            return
        _keep_failure(runs_dir, task, d.error, d.traceback)
        report.failed.append({"run_id": task["run_id"], "params": task["params"],
                              "replication": task["replication"], "error": d.error})

    bar = Bar(f"sweep {sw.name}", len(specs), done=skipped, cost=sum(j.weight for j in todo), enabled=progress)
    try:
        run_jobs(todo, workers=n_jobs, dask=client, on_done=on_done, bar=bar)
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
