"""``cclab run --engine linux``, ``cclab linux cleanup`` and ``cclab compare``: the commands of the
Linux engine (cclab.linux, docs/linux.md). Importing this module registers them on ``app``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, List, Optional

import typer

from .cli import SeedOpt, ScenarioArg, _check_out, _safe_name, _stdout, app, fail
from .cli_tables import summary_tables as _summary_tables
from .scenario import load_scenario

__all__ = ["compare", "linux_cleanup", "run_linux_cli"]

def run_linux_cli(sc: Any, seed_list: List[Optional[int]], several: bool, out: Optional[Path], plot: bool,
               quiet: bool) -> None:
    """``cclab run --engine linux``: the scenario on kernel TCP, one real-time run per seed."""
    from .linux.engine import plan, run_linux
    from .linux.errors import LinuxEngineError
    from .linux.host import missing_requirements
    from .scenario import resolve_seed

    plan(sc, resolve_seed(seed_list[0], sc))  # refuses, naming the field, before anything is built
    why = missing_requirements()
    if why:
        fail("--engine", why)
    dest = out if out is not None else Path("cclab-out") / (_safe_name(str(sc["name"])) + "-linux")
    _check_out(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for s in seed_list:
        folder = dest if not several else dest / f"seed-{s}"
        try:
            res = run_linux(sc, seed=s)
        except LinuxEngineError as e:
            fail("--engine", str(e), 1)
        res.save(folder)
        (folder / "report.md").write_text(res.report_markdown(), encoding="utf-8")
        if plot:
            res.plot(folder / "plot.png")
        if not quiet:
            con = _stdout()
            for t in _summary_tables(res):
                con.print(t)
    if not quiet:
        _stdout().print(f"wrote {dest} (engine linux, load average {res.summary()['linux_load_avg_1min']:.2f})")


linux_app = typer.Typer(help="The Linux engine's testbed (docs/linux.md).", no_args_is_help=True)
app.add_typer(linux_app, name="linux")


@linux_app.command("cleanup")
def linux_cleanup() -> None:
    """Remove everything a Linux-engine run left (cclab-* namespaces and cgroups and their processes,
    cclab_* struct_ops); waits for a run in progress to finish first."""
    from .linux.errors import LinuxEngineError
    from .linux.host import _Lock, cleanup_leftovers, missing_requirements

    why = missing_requirements()
    if why:
        fail("linux cleanup", why)
    lock = _Lock()
    try:
        lock.acquire()
    except LinuxEngineError as e:
        fail("linux cleanup", str(e), 1)
    try:
        removed = cleanup_leftovers(include_own=True)
    finally:
        lock.release()
    _stdout().print("\n".join(f"removed {r}" for r in removed) if removed else "nothing to remove")


@app.command()
def compare(
    scenario: ScenarioArg,
    engines: Annotated[str, typer.Option("--engines", help="The engines to set side by side: sim,linux "
                                          "(the only pair built).")] = "sim,linux",
    seeds: Annotated[int, typer.Option("--seeds", help="Linux repetitions, 1 to 20 (the simulator runs once: "
                                       "it is deterministic).")] = 3,
    flow: Annotated[int, typer.Option("--flow", help="The flow whose cwnd the figure traces (0-based).")] = 0,
    seed: SeedOpt = None,
    out: Annotated[
        Optional[Path],
        typer.Option("--out", help="Folder for compare.md, compare.csv and cwnd.png (default "
                     "cclab-out/<name>-compare).", show_default=False),
    ] = None,
) -> None:
    """Run a dumbbell scenario in the simulator and on real Linux TCP (root) and print both
    engines' per-flow and bottleneck metrics side by side (docs/linux.md)."""
    from .linux.compare import ENGINES, check, compare as run_compare
    from .linux.errors import LinuxEngineError
    from .linux.host import missing_requirements

    if engines.replace(" ", "") != ENGINES:
        fail("--engines", f"invalid value {engines!r}; accepted: {ENGINES}")
    if not 1 <= seeds <= 20:
        fail("--seeds", f"{seeds}: accepted: 1 to 20 Linux repetitions")
    sc = load_scenario(scenario)
    p = check(sc, seed)  # refuses what the Linux engine refuses, naming the field, before anything runs
    n = len(p["net"]["flows"])
    if not 0 <= flow < n:
        fail("--flow", f"{flow}: accepted: 0 to {n - 1} (the scenario has {n} flow(s))")
    dest = out if out is not None else Path("cclab-out") / (_safe_name(str(sc["name"])) + "-compare")
    _check_out(dest)
    why = missing_requirements()
    if why:
        fail("--engines", f"linux: {why}")
    dest.mkdir(parents=True, exist_ok=True)
    try:
        c = run_compare(sc, reps=seeds, seed=seed)
    except LinuxEngineError as e:
        fail("--engines", str(e), 1)
    note = ('the simulator ran with stack = "linux" on every flow group (the scenario names no stack)\n'
            if c.stack_applied else "the simulator ran with the scenario's own stack settings\n")
    md = (c.markdown().replace("cclab against linux", "simulator (cclab) against the Linux engine (linux)")
          .replace(", seeds ", f", {seeds} Linux run(s), seed ")
          .replace("ranges over seeds", "ranges over the Linux runs") + note)
    sys.stdout.write(md)
    (dest / "compare.md").write_text(md)
    c.csv(dest / "compare.csv")
    c.cwnd_figure(flow, dest / "cwnd.png")
    sys.stdout.write(f"wrote {dest} (compare.md, compare.csv, cwnd.png of flow {flow})\n")
