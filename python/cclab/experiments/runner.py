"""Running experiments: which runs are finished, which to simulate, in what order, and where
the results go.

Every run's measured tables are kept as ``OUT/<paper>-<experiment>/runs/<key>.json`` under a
fingerprint of its scenario, seed, the experiment's ``measure`` (its source and the helpers it
calls) and the core's result version; the simulations themselves are kept in the run store
(``cclab.store``). The runs still to do, of all the chosen experiments together, go to the
shared runner (``cclab.runner``): one process pool, longest first (estimated from the packets
they carry), so that two cores are not left waiting on one long run at the end; an
experiment's files are written as soon as its last run is in.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import inspect
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import pandas as pd

from ..runner import dedupe, estimate_cost
from . import not_computed
from .base import DEFAULT_OUT, DEFAULT_STACK, Experiment, Run, out_dir, rows_frame
from .verdicts import VERDICTS, Check

__all__ = ["Outcome", "Progress", "Overall", "RunsFailed", "dedupe", "estimate_cost", "missing_runs", "run_experiments",
           "resolve_stack", "with_stack"]

#: ``stack`` of ``run_experiments``: besides a profile's name, "paper" is each experiment's own
#: (``Experiment.stack``: the stack the paper's runs used).
STACK_CHOICES = ("cclab", "ns2", "linux", "paper")


def resolve_stack(exp: Experiment, stack: str) -> str:
    """The profile ``exp``'s runs follow under ``stack``: "paper" is the experiment's own."""
    if stack not in STACK_CHOICES:
        raise ValueError(f"stack: unknown stack {stack!r}; accepted: {', '.join(STACK_CHOICES)}")
    return exp.stack if stack == "paper" else stack


def with_stack(scenario: Any, stack: str) -> Dict[str, Any]:
    """``scenario`` with every TCP flow group and the web section's transfers following the stack
    profile ``stack``, where the experiment did not name one itself. "cclab" (the default profile)
    leaves the scenario as it is, so that its runs keep their place in the run store."""
    s = copy.deepcopy(dict(scenario))
    if stack == "cclab":
        return s
    for group in s.get("flows", []):
        group.setdefault("stack", stack)
    if isinstance(s.get("web"), dict):
        s["web"].setdefault("stack", stack)
    return s



def _run_file_name(run: Run) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.=-]+", "_", run.key)[:80]
    return f"{safe}.json"


def _measure_source(exp: Experiment) -> str:
    """The source of ``measure`` and of every function of the experiment's modules it calls, directly
    or not: a helper that changes what is kept must redo the runs too."""
    seen: Dict[Any, str] = {}
    todo = [getattr(type(exp).measure, "__func__", type(exp).measure)]
    while todo:
        fn = todo.pop()
        code = getattr(fn, "__code__", None)
        if fn in seen or code is None or not getattr(fn, "__module__", "").startswith(__name__):
            continue
        try:
            seen[fn] = inspect.getsource(fn)
        except (OSError, TypeError):
            seen[fn] = fn.__qualname__
        names = set(code.co_names) | {c.co_name for c in code.co_consts if inspect.iscode(c)}
        todo += [fn.__globals__[n] for n in names if inspect.isfunction(fn.__globals__.get(n))]
    return "\n".join(seen[f] for f in sorted(seen, key=lambda f: f.__qualname__))


def _fingerprint(exp: Experiment, run: Run) -> str:
    from ..store import result_versions

    src = _measure_source(exp)
    blob = json.dumps([run.scenario, run.seed, src, *result_versions(run.scenario)], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _measure(exp_id: str, run: Run, res: Any) -> Dict[str, List[Dict[str, Any]]]:
    """What the experiment keeps of a run (in the worker): its measured tables, as records."""
    from . import _REGISTRY, _load_all

    _load_all()
    tables = _REGISTRY[exp_id].measure(run, res)
    return {name: rows_frame(rows, {}).to_dict("records") for name, rows in tables.items()}


def _execute(exp_id: str, run: Run, fresh: bool = False) -> Dict[str, List[Dict[str, Any]]]:
    """Runs one simulation (or reads it from the run store) and keeps what the experiment
    measures (in the worker)."""
    from ..runner import Job, run_job

    return run_job(Job(run.scenario, run.seed, keep=functools.partial(_measure, exp_id, run), fresh=fresh))


def _work(job: Any) -> Dict[str, List[Dict[str, Any]]]:
    """The shared runner's work for one job of ``run_experiments``: ``_execute`` (looked up when
    called, so that a test can replace it)."""
    exp_id, run = job.tag
    return _execute(exp_id, run, job.fresh)


def _worker_init() -> None:
    import matplotlib

    matplotlib.use("Agg")


#: ``progress(experiment id, runs done, runs in all)``, per experiment.
Progress = Callable[[str, int, int], Any]
#: ``overall(cost done, cost in all, runs simulated, runs to simulate)``: the cost is
#: ``estimate_cost``'s, so cost done / cost in all is the share of the wall time behind us.
Overall = Callable[[float, float, int, int], Any]

@dataclass
class Outcome:
    """What one experiment produced."""

    experiment: Experiment
    quick: bool
    folder: Path
    checks: List[Check]
    runs: int
    wall_s: float
    files: List[Path]
    #: The stack profile the runs followed ("cclab", "ns2", "linux").
    stack: str = "cclab"

    def counts(self) -> Dict[str, int]:
        """How many checks got each verdict (``VERDICTS``)."""
        return {v: sum(c.kind == v for c in self.checks) for v in VERDICTS}


@dataclass
class _Plan:
    """One experiment's runs: those already measured, those to simulate."""

    exp: Experiment
    quick: bool
    folder: Path
    runs: List[Run]
    fps: Dict[str, str]
    stack: str
    results: Dict[str, Dict[str, List[Dict[str, Any]]]] = field(default_factory=dict)
    #: Runs that need more memory than this machine has (key -> the error): not_computed.py.
    missing: Dict[str, str] = field(default_factory=dict)
    todo: List[Run] = field(default_factory=list)
    t0: float = field(default_factory=time.perf_counter)

    def keep(self, r: Run, tables: Dict[str, List[Dict[str, Any]]]) -> None:
        self.results[r.key] = tables
        self._save(r, {"key": r.key, "fingerprint": self.fps[r.key], "tables": tables})

    def keep_not_computed(self, r: Run, error: str, budget: Optional[int]) -> None:
        self.missing[r.key] = error
        self._save(r, not_computed.marker(r.key, self.fps[r.key], error, budget))

    def _save(self, r: Run, content: Dict[str, Any]) -> None:
        f = self.folder / "runs" / _run_file_name(r)
        tmp = f.with_suffix(".tmp")
        tmp.write_text(json.dumps(content))
        os.replace(tmp, f)  # atomic: a killed reproduction leaves whole files only

    @property
    def complete(self) -> bool:
        return len(self.results) + len(self.missing) == len(self.runs)


def _plan(exp: Experiment, quick: bool, out: Path, fresh: bool, stack: str) -> _Plan:
    profile = resolve_stack(exp, stack)
    runs = [dataclasses.replace(r, scenario=with_stack(r.scenario, profile)) for r in exp.runs(quick)]
    keys = [r.key for r in runs]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"{exp.id}: run keys must be unique; repeated: {sorted(dup)[:3]}")
    folder = out_dir(out, exp)
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    # Taken once, before anything runs: an edit of the module during a long reproduction must not
    # change the fingerprints the finished runs are saved under.
    plan = _Plan(exp, quick, folder, runs, {r.key: _fingerprint(exp, r) for r in runs}, profile)
    for r in runs:
        f = folder / "runs" / _run_file_name(r)
        if not fresh and f.exists():
            try:
                saved = json.loads(f.read_text())
                if saved.get("fingerprint") == plan.fps[r.key]:
                    if "not_computed" not in saved:
                        plan.results[r.key] = saved["tables"]
                        continue
                    if not_computed.still_out_of_reach(saved):
                        plan.missing[r.key] = str(saved["not_computed"])
                        continue
            except (OSError, ValueError, KeyError):
                pass
        plan.todo.append(r)
    return plan


def _finish(plan: _Plan) -> Outcome:
    """Writes the experiment's CSVs, figures and report from its runs' tables."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .report import write_report

    exp, folder = plan.exp, plan.folder
    frames: Dict[str, List[pd.DataFrame]] = {}
    for r in plan.runs:  # in the experiment's order, whatever order they finished in
        for name, rows in plan.results.get(r.key, {}).items():
            frames.setdefault(name, []).append(rows_frame(rows, dict(r.params)))
    data = {name: pd.concat(fs, ignore_index=True) for name, fs in frames.items()}
    files: List[Path] = []
    for name, df in data.items():
        p = folder / f"{name}.csv"
        df.to_csv(p, index=False)
        files.append(p)
    rep = not_computed.mark_report(exp, exp.report(data, plan.quick), plan.runs, plan.missing)
    for stem, fig in rep.figures.items():
        for ext in ("png", "svg"):
            p = folder / f"{stem}.{ext}"
            fig.savefig(p, dpi=100)
            files.append(p)
        plt.close(fig)
    wall = time.perf_counter() - plan.t0
    simulated = len(plan.todo)
    files.append(write_report(exp, rep, plan.runs, simulated, plan.quick, wall, folder, files, plan.stack))
    return Outcome(exp, plan.quick, folder, list(rep.checks), len(plan.runs), wall, files, plan.stack)


def missing_runs(exp: Experiment, quick: bool, out: Union[str, "os.PathLike[str]"], stack: str = DEFAULT_STACK) -> int:
    """How many of the experiment's runs are neither measured in ``out`` nor in the run store: what
    ``run_experiments`` would have to simulate."""
    from ..store import RunStore

    store = RunStore()
    plan = _plan(exp, quick, Path(out), False, stack)
    return sum(not (store.path(r.scenario, r.seed) / "summary.json").is_file() for r in plan.todo)


def run_experiments(
    exps: Sequence[Experiment],
    quick: bool = False,
    out: Union[str, "os.PathLike[str]"] = DEFAULT_OUT,
    jobs: Optional[int] = None,
    fresh: bool = False,
    progress: Optional[Progress] = None,
    overall: Optional[Overall] = None,
    done: Optional[Callable[[Outcome], Any]] = None,
    bar: bool = False,
    stack: str = DEFAULT_STACK,
) -> List[Outcome]:
    """Runs the experiments' missing runs together on the shared runner (``cclab.runner``:
    longest first, on ``jobs`` processes, a run shared by several experiments simulated once),
    and writes each experiment's files as soon as its runs are in (``done(outcome)`` is called
    then). ``bar``: the progress bar on stderr. ``stack``: the TCP stack profile of every flow
    (``with_stack``; "paper": each experiment's ``stack``, the one its paper used). Returns the outcomes in the order of ``exps``.
    Raises RunsFailed, after the other experiments are written, when some runs failed."""
    from ..progress import Bar
    from ..runner import Done, Job, run_jobs

    jobs = jobs or os.cpu_count() or 1
    plans = [_plan(e, quick, Path(out), fresh, stack) for e in exps]
    work = [Job(r.scenario, r.seed, fresh=fresh, cost=estimate_cost(r.scenario), tag=(p.exp.id, r))
            for p in plans for r in p.todo]
    plan_of = {id(r): p for p in plans for r in p.todo}
    total = sum(j.weight for j in work)
    spent, n = 0.0, 0
    outcomes: Dict[int, Outcome] = {}
    failures: List[Any] = []

    def finish_if_complete(i: int) -> None:
        if plans[i].complete and i not in outcomes:
            outcomes[i] = _finish(plans[i])
            if done is not None:
                done(outcomes[i])

    def report_progress(p: _Plan) -> None:
        if progress is not None:
            progress(p.exp.id, len(p.results), len(p.runs))
        if overall is not None:
            overall(spent, total, n, len(work))

    def on_done(d: Done) -> None:
        nonlocal spent, n
        exp_id, r = d.job.tag
        p = plan_of[id(r)]
        spent, n = spent + d.job.weight, n + 1
        if d.ok:
            p.keep(r, d.value)
        elif d.memory:  # even alone: more than this machine has (not_computed.py)
            p.keep_not_computed(r, d.error or "", d.budget)
        else:
            failures.append(d)
        report_progress(p)
        finish_if_complete(index[id(p)])

    index = {id(p): i for i, p in enumerate(plans)}
    for p in plans:
        report_progress(p)
    for i in range(len(plans)):
        finish_if_complete(i)
    with Bar("runs", len(work), cost=total, enabled=bar and bool(work), transient=True) as b:
        run_jobs(work, workers=jobs, on_done=on_done, bar=b, work=_work, init=_worker_init)
    if failures:
        what = "; ".join(f"{d.job.tag[0]} run {d.job.tag[1].key!r}: {d.error}" for d in failures[:3])
        msg = (f"{len(failures)} run(s) failed, their experiments are not written: {what}"
               + (" ..." if len(failures) > 3 else ""))
        first = failures[0].exception
        if first is not None:  # run in this process: the exception itself, as before the shared runner
            if hasattr(first, "add_note"):
                first.add_note(msg)
            raise first
        raise RunsFailed(msg)
    return [outcomes[i] for i in range(len(plans))]


class RunsFailed(RuntimeError):
    """Some runs of ``run_experiments`` failed (the message lists the first ones, in one line)."""
