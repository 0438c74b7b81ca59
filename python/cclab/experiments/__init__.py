"""The papers' experiments, one module per paper, rerun with one command each.

    cclab reproduce --list
    cclab reproduce 003 table1 --quick --out repro/
    cclab reproduce ubr                       # every experiment of paper 003
    cclab reproduce --all --report docs/REPRODUCTION.md

From Python: ``cclab.experiments.reproduce("003", "table1", quick=True, out="repro")``.

Each experiment writes into ``OUT/<paper>-<name>/``: its figures (PNG and SVG),
the data behind them (one CSV per table), ``report.md`` (published numbers
beside cclab's, with a verdict each), and ``runs/`` (one JSON per finished run,
so an interrupted reproduction resumes where it stopped; a run is redone when
its scenario, its seed, the experiment's ``measure`` or the core's result version changes).
The simulations themselves are kept in the run store (``cclab.store``, by default
``~/.cache/cclab/runs``), keyed by scenario, seed and result version: a rebuild that does
not change results, or a new ``measure``, reuses them without simulating.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import multiprocessing
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

import pandas as pd

from .base import Experiment, Report, Run, Variant, out_dir, rows_frame
from .verdicts import VERDICTS, Check, checks_table, claim, compare, fmt, model

__all__ = [
    "Check",
    "Experiment",
    "Outcome",
    "PAPERS",
    "Report",
    "Run",
    "VERDICTS",
    "Variant",
    "claim",
    "model",
    "compare",
    "experiments",
    "find",
    "register",
    "reproduce",
    "write_summary",
]

#: Paper number -> (module, short name of its algorithm, title). A paper's experiments
#: live in ``paperNNN.py`` (and ``paperNNN_*.py`` when they are many).
PAPERS: Dict[str, tuple[str, str, str]] = {
    "000": ("paper000", "tcp-gt", "Jung et al., TCP-GT (JCN 2010)"),
    "001": ("paper001", "hrf", "Ogura et al., HRF-TCP (IEICE 2012)"),
    "002": ("paper002", "ktcp", "Yoshimizu et al., Kyushu-TCP (IEICE 2010)"),
    "003": ("paper003", "ubr", "Hyun and Jang, extra window for under-buffered links (IEICE 2012)"),
    "004": ("paper004", "ghstcp", "Zhang, Hasegawa, Murata, gHSTCP and gARED"),
}

_REGISTRY: Dict[str, Experiment] = {}


def register(cls: type) -> type:
    """Class decorator: makes an Experiment subclass known to ``cclab reproduce``."""
    exp = cls()
    if exp.paper not in PAPERS:
        raise ValueError(f"{cls.__name__}.paper: {exp.paper!r} is not one of {sorted(PAPERS)}")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", exp.name):
        raise ValueError(f"{cls.__name__}.name: {exp.name!r}: use lower-case letters, digits and '-'")
    if exp.id in _REGISTRY and type(_REGISTRY[exp.id]) is not cls:
        raise ValueError(f"{cls.__name__}: experiment {exp.id} is already registered")
    _REGISTRY[exp.id] = exp
    return cls


def _load_all() -> None:
    """Imports every ``paperNNN*.py`` module of this package (a paper may span several)."""
    import importlib
    import pkgutil

    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if m.name.startswith("paper"):
            importlib.import_module(f"{__name__}.{m.name}")


def experiments() -> List[Experiment]:
    """Every registered experiment, by paper then in the order the modules define them."""
    _load_all()
    return sorted(_REGISTRY.values(), key=lambda e: e.paper)


def _paper_number(paper: str) -> str:
    p = str(paper).strip().lower()
    for num, (_, alias, _) in PAPERS.items():
        if p in (num, num.lstrip("0") or "0", alias, f"paper{num}"):
            return num
    accepted = ", ".join(f"{n} ({a})" for n, (_, a, _) in PAPERS.items())
    raise LookupError(f"paper: {paper!r} is not a paper of this project; accepted: {accepted}")


def find(paper: str, name: Optional[str] = None) -> List[Experiment]:
    """The experiments of ``paper`` (number or alias: "003", "3", "ubr"), or the one named
    ``name``. Raises LookupError naming what is accepted."""
    num = _paper_number(paper)
    found = [e for e in experiments() if e.paper == num]
    if name is None:
        if not found:
            raise LookupError(f"paper: {paper!r} has no experiments yet")
        return found
    hit = [e for e in found if e.name == str(name).strip().lower()]
    if not hit:
        names = ", ".join(e.name for e in found) or "none yet"
        raise LookupError(f"experiment: {name!r} is not an experiment of paper {num}; accepted: {names}")
    return hit


# -- running ------------------------------------------------------------------------------------


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
    from .. import _core

    src = _measure_source(exp)
    blob = json.dumps([run.scenario, run.seed, src, _core.RESULT_VERSION], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _execute(exp_id: str, run: Run, fresh: bool = False) -> Dict[str, List[Dict[str, Any]]]:
    """Runs one simulation (or reads it from the run store) and keeps what the experiment
    measures (in the worker)."""
    from ..run import run as run_scenario
    from ..store import RunStore

    _load_all()
    exp = _REGISTRY[exp_id]
    store = RunStore()
    res = None if fresh else store.get(run.scenario, run.seed)
    if res is None:
        res = run_scenario(dict(run.scenario), seed=run.seed)
        store.put(run.scenario, run.seed, res, overwrite=fresh)
    tables = exp.measure(run, res)
    return {name: rows_frame(rows, {}).to_dict("records") for name, rows in tables.items()}


def _worker_init() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import matplotlib

    matplotlib.use("Agg")


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

    def counts(self) -> Dict[str, int]:
        """How many checks got each verdict (``VERDICTS``)."""
        return {v: sum(c.kind == v for c in self.checks) for v in VERDICTS}


Progress = Callable[[str, int, int], Any]


def _gather(
    exp: Experiment, runs: Sequence[Run], folder: Path, jobs: int, fresh: bool, progress: Optional[Progress]
) -> tuple[Dict[str, pd.DataFrame], int]:
    """The experiment's tables over all its runs, and how many runs had to be simulated now."""
    keys = [r.key for r in runs]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"{exp.id}: run keys must be unique; repeated: {sorted(dup)[:3]}")
    cache = folder / "runs"
    cache.mkdir(parents=True, exist_ok=True)
    results: Dict[str, Dict[str, List[Dict[str, Any]]]] = {}
    todo: List[Run] = []
    # Taken once, before anything runs: an edit of the module during a long reproduction must not
    # change the fingerprints the finished runs are saved under.
    fps = {r.key: _fingerprint(exp, r) for r in runs}
    for r in runs:
        f = cache / _run_file_name(r)
        fp = fps[r.key]
        if not fresh and f.exists():
            try:
                saved = json.loads(f.read_text())
                if saved.get("fingerprint") == fp:
                    results[r.key] = saved["tables"]
                    continue
            except (OSError, ValueError, KeyError):
                pass
        todo.append(r)

    def keep(r: Run, tables: Dict[str, List[Dict[str, Any]]]) -> None:
        results[r.key] = tables
        f = cache / _run_file_name(r)
        tmp = f.with_suffix(".tmp")
        tmp.write_text(json.dumps({"key": r.key, "fingerprint": fps[r.key], "tables": tables}))
        os.replace(tmp, f)  # atomic: a killed reproduction leaves whole files only
        if progress is not None:
            progress(exp.id, len(results), len(runs))

    if progress is not None:
        progress(exp.id, len(results), len(runs))
    if todo and jobs <= 1:
        for r in todo:
            keep(r, _execute(exp.id, r, fresh))
    elif todo:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=ctx, initializer=_worker_init) as pool:
            futs = {pool.submit(_execute, exp.id, r, fresh): r for r in todo}
            try:
                for fut in as_completed(futs):
                    keep(futs[fut], fut.result())
            except BaseException:
                for fut in futs:
                    fut.cancel()
                raise

    frames: Dict[str, List[pd.DataFrame]] = {}
    for r in runs:  # in the experiment's order, whatever order they finished in
        for name, rows in results[r.key].items():
            frames.setdefault(name, []).append(rows_frame(rows, dict(r.params)))
    return {name: pd.concat(fs, ignore_index=True) for name, fs in frames.items()}, len(todo)


def _variants_table(variants: Sequence[Variant]) -> List[str]:
    """The verdict of every check under every setting of the open choices, the default named."""
    whats: List[str] = []
    for v in variants:
        whats += [c.what for c in v.checks if c.what not in whats]
    head = [f"{v.name}{' (default)' if v.default else ''}" for v in variants]
    lines = ["Verdicts under every setting the paper leaves open:", ""]
    lines += [f"- **{v.name}**{' (default)' if v.default else ''}: {v.description}" + (f" {v.why}" if v.why else "")
              for v in variants]
    lines += ["", "| check | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for w in whats:
        cells = []
        for v in variants:
            c = next((c for c in v.checks if c.what == w), None)
            cells.append("—" if c is None else f"{c.kind} ({fmt(c.measured)})")
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in [w] + cells) + " |")
    return lines + [""]


def _scenario_block(run: Run) -> str:
    from ..scenario import to_toml

    return to_toml(dict(run.scenario))


def _write_report(
    exp: Experiment,
    rep: Report,
    runs: Sequence[Run],
    simulated: int,
    quick: bool,
    wall: float,
    folder: Path,
    files: List[Path],
) -> Path:
    title = PAPERS[exp.paper][2]
    lines = [f"## Paper {exp.paper} ({title}) — {exp.name}: {exp.title}", ""]
    if quick:
        lines += ["> **Quick form**: shortened runs and sweeps. Its numbers are not comparable to the paper's; "
                  "the verdicts below only show that the experiment runs. The full form is "
                  f"`cclab reproduce {exp.paper} {exp.name}`.", ""]
    seeds = sorted({r.seed for r in runs})
    seed_s = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}–{seeds[-1]} ({len(seeds)})"
    form = "quick form (`--quick`: shortened)" if quick else "full form (the paper's)"
    # The wall time means something only for the runs simulated now, not for those taken from runs/.
    done = f"{wall:.0f} s wall time" if simulated == len(runs) else f"{simulated} simulated now, the rest reused"
    lines += [f"{len(runs)} runs, {seed_s}, {form}, {done}. "
              f"Command: `cclab reproduce {exp.paper} {exp.name}{' --quick' if quick else ''}`.", ""]
    for f in files:
        if f.suffix == ".png":
            lines += [f"![{exp.name}]({f.name})", ""]
    if rep.markdown:
        lines += [rep.markdown.strip(), ""]
    if rep.checks:
        lines += [checks_table(rep.checks), ""]
    if rep.variants:
        lines += _variants_table(rep.variants)
    for a in list(exp.assumptions) + list(rep.notes):
        lines.append(f"- {a}")
    if exp.assumptions or rep.notes:
        lines.append("")
    if runs:
        lines += ["<details><summary>Scenario of the first run "
                  f"(<code>{runs[0].key}</code>, seed {runs[0].seed})</summary>", "", "```toml",
                  _scenario_block(runs[0]).strip(), "```", "</details>", ""]
    path = folder / "report.md"
    path.write_text("\n".join(lines))
    return path


def run_experiment(
    exp: Experiment,
    quick: bool = False,
    out: Union[str, "os.PathLike[str]"] = "reproduction",
    jobs: Optional[int] = None,
    fresh: bool = False,
    progress: Optional[Progress] = None,
) -> Outcome:
    """Runs one experiment (reusing finished runs in its folder) and writes its files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    jobs = jobs or os.cpu_count() or 1
    folder = out_dir(Path(out), exp)
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    runs = exp.runs(quick)
    data, simulated = _gather(exp, runs, folder, jobs, fresh, progress)
    files: List[Path] = []
    for name, df in data.items():
        p = folder / f"{name}.csv"
        df.to_csv(p, index=False)
        files.append(p)
    rep = exp.report(data, quick)
    for stem, fig in rep.figures.items():
        for ext in ("png", "svg"):
            p = folder / f"{stem}.{ext}"
            fig.savefig(p, dpi=100)
            files.append(p)
        plt.close(fig)
    wall = time.perf_counter() - t0
    files.append(_write_report(exp, rep, runs, simulated, quick, wall, folder, files))
    return Outcome(exp, quick, folder, list(rep.checks), len(runs), wall, files)


def reproduce(
    paper: Optional[str] = None,
    name: Optional[str] = None,
    quick: bool = False,
    out: Union[str, "os.PathLike[str]"] = "reproduction",
    jobs: Optional[int] = None,
    fresh: bool = False,
    progress: Optional[Progress] = None,
) -> List[Outcome]:
    """Reruns the experiments of ``paper`` (all papers when None), or the one named ``name``."""
    chosen: Iterable[Experiment] = experiments() if paper is None else find(paper, name)
    return [run_experiment(e, quick, out, jobs, fresh, progress) for e in chosen]


def _headlines(outcomes: Sequence[Outcome]) -> List[str]:
    lines = ["## Headline claims", "",
             "Each paper's central claims, with cclab's verdict and, where it differs, the measured cause.", "",
             "| paper | claim | cclab | verdict |", "|---|---|---|---|"]
    for o in outcomes:
        for c in o.checks:
            if c.headline:
                what = c.what + (f" — “{c.quote}”" if c.quote else "") + (f" ({c.section})" if c.section else "")
                cells = [f"{o.experiment.paper} [{o.experiment.name}](#{o.experiment.paper}-{o.experiment.name})",
                         what, fmt(c.measured), c.verdict]
                lines.append("| " + " | ".join(re.sub(r"\s+", " ", x.replace("|", "\\|")) for x in cells) + " |")
    return lines + [""]


def write_summary(outcomes: Sequence[Outcome], path: Union[str, "os.PathLike[str]"]) -> Path:
    """Gathers the experiments' reports into one markdown file (docs/REPRODUCTION.md): the
    headline claims, the verdicts counted per paper and per experiment, then every report, with
    image links relative to the file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = sum(len(o.checks) for o in outcomes)
    total = {v: sum(o.counts()[v] for o in outcomes) for v in VERDICTS}
    forms = {o.quick for o in outcomes}
    form = "quick forms" if forms == {True} else "full forms" if forms == {False} else "quick and full forms"
    lines = [
        "# Reproduction of the papers' experiments",
        "",
        "Generated by `cclab reproduce --all --report " + path.as_posix() + "` "
        f"({form}). {len(outcomes)} experiments, {n} checks: "
        + ", ".join(f"{total[v]} {v}" for v in VERDICTS) + ".",
        "",
        "A check *matches* when cclab's value is within the paper's own precision (and the spread over seeds) "
        "and the check can tell the algorithms apart; *uninformative* when it passes but so would the "
        "alternative it should separate from; *differs-explained* when an ablation run by the experiment "
        "(the cause removed) passes the check or closes at least half the gap; *differs-unexplained* otherwise.",
        "",
    ]
    if forms == {True}:
        lines += ["> **Quick forms**: shortened runs; the numbers are not comparable to the papers'.", ""]
    lines += _headlines(outcomes)
    lines += ["## Verdicts per paper", "", "| paper | checks | " + " | ".join(VERDICTS) + " |",
              "|---" * (len(VERDICTS) + 2) + "|"]
    for num in sorted({o.experiment.paper for o in outcomes}):
        mine = [o for o in outcomes if o.experiment.paper == num]
        cnt = {v: sum(o.counts()[v] for o in mine) for v in VERDICTS}
        lines.append(f"| {num} {PAPERS[num][1]} | {sum(cnt.values())} | " + " | ".join(str(cnt[v]) for v in VERDICTS)
                     + " |")
    lines += ["", "## Verdicts per experiment", "",
              "| paper | experiment | runs | checks | " + " | ".join(VERDICTS) + " |",
              "|---" * (len(VERDICTS) + 4) + "|"]
    for o in outcomes:
        e = o.experiment
        cnt = o.counts()
        anchor = f"#{e.paper}-{e.name}"
        lines.append(f"| {e.paper} | [{e.name}]({anchor}) {e.title} | {o.runs} | {len(o.checks)} | "
                     + " | ".join(str(cnt[v]) for v in VERDICTS) + " |")
    lines.append("")
    for o in outcomes:
        e = o.experiment
        body = (o.folder / "report.md").read_text()
        rel = os.path.relpath(o.folder, path.parent)
        body = re.sub(r"!\[([^\]]*)\]\(([^)/]+)\)", lambda m: f"![{m.group(1)}]({rel}/{m.group(2)})", body)
        lines += [f'<a id="{e.paper}-{e.name}"></a>', "", ("\n" + body).replace("\n## ", "\n### ").lstrip("\n"), ""]
    path.write_text("\n".join(lines))
    return path
