"""``cclab reproduce``: a paper's figures and tables rerun, with the verdicts beside them
(cclab.experiments); ``--stack`` runs them under a TCP stack profile and ``--versus`` under a
second one, listing the checks whose verdict changes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from .cli import _check_out, _stdout, app, fail
from .experiments.base import DEFAULT_OUT, DEFAULT_STACK

__all__ = ["reproduce"]

_STACK_HELP = ("TCP stack profile of every flow: paper (default: the stack each paper ran, ns-2.35, or Linux "
               "for an implementation's results), cclab (cclab's own TCP), ns2, or linux.")


@app.command()
def reproduce(
    paper: Annotated[
        Optional[str],
        typer.Argument(help="Paper: 000 (tcp-gt), 001 (hrf), 002 (ktcp), 003 (ubr), 004 (ghstcp).", show_default=False),
    ] = None,
    experiment: Annotated[
        Optional[str], typer.Argument(help="One experiment of the paper (default: all of them).", show_default=False)
    ] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Shortened durations and sweeps (minutes, not hours).")] = False,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for figures, data and reports.")] = Path(DEFAULT_OUT),
    jobs: Annotated[
        Optional[int], typer.Option("--jobs", "-j", help="Simulations at once (default: the CPU count).", show_default=False)
    ] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the experiments and exit.")] = False,
    all_: Annotated[bool, typer.Option("--all", help="Every experiment of every paper.")] = False,
    report: Annotated[
        Optional[Path],
        typer.Option("--report", help="Also gather the verdicts into this markdown file.", show_default=False),
    ] = None,
    print_: Annotated[bool, typer.Option("--print", help="Print the scenarios (TOML) of the runs and exit.")] = False,
    fresh: Annotated[bool, typer.Option("--fresh", help="Simulate again, ignoring the runs finished in --out and in the run store.")] = False,
    stored_only: Annotated[
        bool,
        typer.Option("--stored-only", help="Simulate nothing: report the experiments whose runs are all finished, "
                     "list the others as not yet run."),
    ] = False,
    stack: Annotated[str, typer.Option("--stack", help=_STACK_HELP)] = DEFAULT_STACK,
    versus: Annotated[
        Optional[str],
        typer.Option("--versus", help="Also run the experiments under this stack profile (in OUT/versus-STACK/) "
                     "and list the checks whose verdict changes in OUT/stack-changes.md.", show_default=False),
    ] = None,
) -> None:
    """Rerun a paper's figures and tables: figures (PNG, SVG), data (CSV) and a
    report with the published numbers beside cclab's, in OUT/<paper>-<experiment>/."""
    from . import experiments as ex
    from .scenario import to_toml

    if jobs is not None and jobs < 1:
        fail("--jobs", f"invalid value {jobs}; accepted: a whole number >= 1")
    for flag, value in (("--stack", stack), ("--versus", versus)):
        if value is not None and value not in ex.STACK_CHOICES:
            fail(flag, f"unknown stack {value!r}; accepted: {', '.join(ex.STACK_CHOICES)}")
    if versus is not None and versus == stack:
        fail("--versus", f"{versus!r} is the --stack itself; give another stack to compare with")
    _check_out(out)
    if stored_only and fresh:
        fail("--stored-only", "cannot be combined with --fresh (which simulates everything again)")
    if list_:
        t = Table(title="experiments (cclab reproduce PAPER EXPERIMENT)", title_justify="left")
        for col in ("paper", "experiment", "what it reproduces"):
            t.add_column(col)
        for e in ex.experiments():
            t.add_row(f"{e.paper} ({ex.PAPERS[e.paper][1]})", e.name, e.title)
        _stdout().print(t)
        return
    if all_ and (paper or experiment):
        fail("--all", "give either --all or a PAPER [EXPERIMENT], not both")
    if not all_ and paper is None:
        fail("PAPER", "missing; give a paper (see --list) or --all")
    try:
        chosen = ex.experiments() if all_ else ex.find(paper or "", experiment)
    except LookupError as e:
        field, _, msg = str(e).partition(": ")
        fail(field.upper() if field in ("paper", "experiment") else field, msg)
    if print_:
        for e in chosen:
            profile = ex.resolve_stack(e, stack)
            for r in e.runs(quick):
                print(f"# {e.id} run {r.key!r}, seed {r.seed}")
                print(to_toml(ex.with_stack(r.scenario, profile)))
        return
    con = _stdout()

    def done(o: "ex.Outcome") -> None:
        cnt = o.counts()
        style = "green" if cnt["matches"] == len(o.checks) else "yellow"
        verdicts = ", ".join(f"{n} {v}" for v, n in cnt.items() if n)
        con.print(f"[{style}]{o.experiment.id}[/] ({o.stack}): {len(o.checks)} checks ({verdicts or 'none'}), "
                  f"{o.runs} runs, {o.wall_s:.0f} s -> {o.folder / 'report.md'}")

    pending = []
    if stored_only:
        stacks = [(stack, out)] + ([(versus, out / f"versus-{versus}")] if versus else [])
        missing = {e.id: sum(ex.missing_runs(e, quick, o, s) for s, o in stacks) for e in chosen}
        pending = [(e, missing[e.id], len(e.runs(quick))) for e in chosen if missing[e.id]]
        for e, miss, n in pending:
            con.print(f"[yellow]{e.id}[/]: {miss} of {n} runs not yet simulated; left out")
        chosen = [e for e in chosen if not missing[e.id]]
    # One bar (cclab.progress) over all the runs still to simulate, weighted by their estimated
    # cost (the packets they carry), so that the time left is apportioned by work, not by count.
    try:
        outcomes = ex.run_experiments(chosen, quick=quick, out=out, jobs=jobs, fresh=fresh, done=done, bar=True,
                                      stack=stack)
        other = None if versus is None else ex.run_experiments(
            chosen, quick=quick, out=out / f"versus-{versus}", jobs=jobs, fresh=fresh, done=done, bar=True,
            stack=versus)
    except ex.RunsFailed as e:
        fail("runs", str(e), 1)
    if report is not None:
        con.print(f"wrote {ex.write_summary(outcomes, report, pending, stack, out)}")
    if other is not None:
        what = "--all" if all_ else " ".join(x for x in (paper, experiment) if x)
        command = (f"cclab reproduce {what}{' --quick' if quick else ''}{' --stored-only' if stored_only else ''} "
                   f"{f'--stack {stack} ' if stack != DEFAULT_STACK else ''}--versus {versus}")
        con.print(f"wrote {ex.write_stack_changes(outcomes, other, out / 'stack-changes.md', command, stack, versus)}")
