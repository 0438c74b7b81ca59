"""The ``cclab`` command.

Each command is one function decorated with ``@app.command()``. User errors
(an invalid scenario, a bad flag, a missing file) are turned into one red line
``error: <field>: <message>`` on stderr and exit code 2 by the command group,
so commands just let ScenarioError, OSError and click's errors
propagate and never print tracebacks for them.
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Annotated, Any, List, NoReturn, Optional

import typer
from typer.core import TyperGroup
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import _core
from .advice import CclabWarning
from .cli_tables import seeds_table as _seeds_table, summary_tables as _summary_tables
from .run import run as run_scenario
from .crosscheck.errors import CrosscheckError
from .scenario import ScenarioError, check as check_scenario, load_scenario

__all__ = ["app", "main"]

USER_ERROR = 2
INTERRUPTED = 130


def _stdout() -> Console:
    return Console(highlight=False)


def fail(field: str, message: str, code: int = USER_ERROR) -> NoReturn:
    """Prints ``error: <field>: <message>`` in red on one line of stderr and exits."""
    line = f"error: {field}: {message}".replace("\n", " ").replace("\r", " ")
    Console(stderr=True, soft_wrap=True, highlight=False).print(line, style="red", markup=False)
    sys.exit(code)


# Recent typer vendors its own click (typer._click) and no longer depends on
# click; older typer re-exports click's classes. Either way the click that
# typer uses is reached through typer's own names, and error attributes are
# read by name.
_CLI_ERRORS: tuple[type[BaseException], ...] = tuple(
    cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "ClickException"
)
_ABORT: tuple[type[BaseException], ...] = (typer.Abort,)


def _cli_field(e: BaseException) -> str:
    name = type(e).__name__
    if name == "NoSuchOption":
        return str(getattr(e, "option_name", "option"))
    param = getattr(e, "param", None)
    if param is not None:
        opts = [o for o in getattr(param, "opts", []) if o.startswith("-")]
        return max(opts, key=len) if opts else str(getattr(param, "human_readable_name", param.name))
    if name == "MissingParameter":
        return str(getattr(e, "param_hint", None) or "argument")
    return "usage"


def _cli_message(e: BaseException) -> str:
    msg = getattr(e, "message", "") or ""
    if type(e).__name__ == "BadParameter" and msg:
        return msg
    fmt = getattr(e, "format_message", None)
    return fmt() if callable(fmt) else str(e)


class _Group(TyperGroup):
    """The command group: runs a command and turns user errors into one line."""

    def invoke(self, ctx: Any) -> Any:
        # Ctrl-C: click makes it Abort ("Aborted!", exit 1), typer >= 0.20 a silent
        # exit 130; say it in one line, exit 130 either way.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            fail("interrupted", "stopped by the user", INTERRUPTED)

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:  # type: ignore[override]
        try:
            rv = super().main(*args, standalone_mode=False, **kwargs)
        except _CLI_ERRORS as e:
            if type(e).__name__ == "NoArgsIsHelpError":  # `cclab` alone: the help text
                e.show()  # type: ignore[attr-defined]
                sys.exit(0)
            code = getattr(e, "exit_code", USER_ERROR)
            fail(_cli_field(e), _cli_message(e), code if code > 1 else USER_ERROR)
        except _ABORT:  # Ctrl-C while parsing, or EOF at a prompt
            fail("interrupted", "stopped by the user", INTERRUPTED)
        except ScenarioError as e:
            field = getattr(e, "field", "") or "scenario"
            msg = str(e)
            if msg.startswith(field + ": "):
                msg = msg[len(field) + 2 :]
            fail(field, msg)
        except CrosscheckError as e:
            fail(e.field, str(e)[len(e.field) + 2:])
        except OSError as e:
            user = isinstance(e, (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError))
            fail(str(e.filename or "file"), (e.strerror or str(e)).lower(), USER_ERROR if user else 1)
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else 0)
        return rv


app = typer.Typer(
    cls=_Group,
    name="cclab",
    help="cclab: a congestion-control lab (deterministic packet-level network simulator).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def main() -> None:
    """Entry point of ``python -m cclab``."""
    app(prog_name="cclab")


def _check_out(path: Path) -> None:
    """``--out`` names a folder (new or not): anything on the way that is a file is refused here,
    in one line, before anything runs."""
    for p in (path, *path.parents):
        if p.exists() and not p.is_dir():
            what = "is a file" if p == path else f"is inside {p}, which is a file"
            fail("--out", f"{path} {what}, not a folder; give a new or existing folder")


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "scenario"


def _print_warnings(sc: Any, seed: Optional[int]) -> None:
    """``warning: <field>: <message>`` on stderr for each setting that probably gives nonsense."""
    from .run import warn_settings
    from .scenario import _to_json, resolve_seed

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CclabWarning)
        found = warn_settings(_core.Sim(_to_json(sc), resolve_seed(seed, sc)))
    con = Console(stderr=True, soft_wrap=True, highlight=False)
    for field, message in found:
        con.print(f"warning: {field}: {message}", style="yellow", markup=False)


ScenarioArg = Annotated[Path, typer.Argument(help="Scenario TOML file.", show_default=False)]
SeedOpt = Annotated[
    Optional[int],
    typer.Option("--seed", help="Master seed, 0 to 2**64-1 (default: the scenario's seed, else 1).", show_default=False),
]


@app.command()
def run(
    scenario: ScenarioArg,
    out: Annotated[
        Optional[Path],
        typer.Option("--out", "-o", help="Result folder (default: ./cclab-out/NAME, NAME the scenario's name).", show_default=False),
    ] = None,
    seed: SeedOpt = None,
    seeds: Annotated[
        Optional[str],
        typer.Option("--seeds", help="Run several seeds: A..B, A,B,C or a count N (1..N); each run in OUT/seed-S, "
                     "their summaries in OUT/seeds.csv.", show_default=False),
    ] = None,
    sets: Annotated[
        Optional[List[str]],
        typer.Option("--set", help="Change one setting, PATH=VALUE (repeatable), e.g. "
                     "--set topology.bottleneck.buffer=0.5bdp --set flows[0].cc=cubic.", show_default=False),
    ] = None,
    plot: Annotated[bool, typer.Option("--plot", help="Also write plot.png (needs sample_interval).")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no summary.")] = False,
    trace: Annotated[
        Optional[str],
        typer.Option("--trace", help="Trace these flows (docs/tracing.md): 'all', or indices or names separated by "
                     "commas, e.g. 0,2; writes packets.parquet and sender.parquet.", show_default=False),
    ] = None,
    pcap: Annotated[
        Optional[Path],
        typer.Option("--pcap", help="Write the traced flows' packets (all flows without --trace) to this pcapng file.",
                     show_default=False),
    ] = None,
    engine: Annotated[
        str,
        typer.Option("--engine", help="sim (the simulator) or linux (real kernel TCP in network namespaces, "
                     "real time, root; docs/linux.md)."),
    ] = "sim",
) -> None:
    """Run a scenario and write its result folder.

    Shows progress in simulated time and a summary; the folder holds the
    tables (Parquet), summary.json, scenario.toml, report.md and, with --plot,
    plot.png.
    """
    from .overrides import apply_sets, parse_seeds, trace_table

    sc = load_scenario(scenario)
    sc.setdefault("name", scenario.stem)
    if sets:
        sc = apply_sets(sc, sets)
    if seeds is not None and seed is not None:
        fail("--seeds", "give either --seed or --seeds, not both")
    seed_list = parse_seeds(seeds) if seeds is not None else [seed]
    if trace is not None or pcap is not None:
        if pcap is not None and seeds is not None:
            fail("--pcap", "one pcap file cannot hold several runs; give --seed with --pcap, or set trace.pcap per run")
        sc["trace"] = trace_table(sc.get("trace") or {}, trace, pcap)
    if plot and not sc.get("sample_interval"):
        fail("--plot", "the scenario has no sample_interval, so nothing to plot; add e.g. sample_interval = \"100ms\"")
    if engine not in ("sim", "linux"):
        fail("--engine", f"invalid value {engine!r}; accepted: sim, linux")
    if engine == "linux":
        from .cli_linux import run_linux_cli

        run_linux_cli(sc, seed_list, seeds is not None, out, plot, quiet)
        return
    check_scenario(sc, seed_list[0])  # a bad --set fails here, before anything runs
    dest = out if out is not None else Path("cclab-out") / _safe_name(str(sc["name"]))
    _check_out(dest)
    dest.mkdir(parents=True, exist_ok=True)  # fail before the run, not after it
    _print_warnings(sc, seed_list[0])
    rows = []
    for s in seed_list:
        folder = dest if seeds is None else dest / f"seed-{s}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CclabWarning)  # printed once above
            res = run_scenario(sc, seed=s, progress=not quiet)
        res.save(folder)
        (folder / "report.md").write_text(res.report_markdown(), encoding="utf-8")
        if plot:
            res.plot(folder / "plot.png")
        rows.append(res.summary())
        if not quiet and seeds is None:
            con = _stdout()
            for t in _summary_tables(res):
                con.print(t)
    if seeds is not None:
        import pandas as pd

        frame = pd.DataFrame(rows)
        frame.to_csv(dest / "seeds.csv", index=False)
        if not quiet:
            _stdout().print(_seeds_table(frame))
    if not quiet:
        _stdout().print(f"wrote {dest}")


@app.command()
def check(scenario: ScenarioArg, seed: SeedOpt = None) -> None:
    """Validate a scenario without running it."""
    sc = check_scenario(load_scenario(scenario), seed)
    _print_warnings(sc, seed)
    n_flows = sum(int(g.get("count", 1)) for g in sc.get("flows", []))
    kind = sc.get("topology", {}).get("kind", "dumbbell")
    _stdout().print(f"ok: {scenario}: {kind}, {n_flows} flow(s), {sc['duration']} simulated")


@app.command()
def crosscheck(
    scenario: ScenarioArg,
    peer: Annotated[
        str, typer.Option("--with", help="The simulator to compare with: ns2 (ns-2.35, `apt-get install ns2`) or ns3 "
                     "(ns-3.44, `pip install ns3==3.44.post0`, and g++).")
    ] = "ns2",
    seeds: Annotated[int, typer.Option("--seeds", help="Seeds to run on both sides, 1 to 100.")] = 1,
    seed: SeedOpt = None,
    stack: Annotated[
        Optional[List[str]],
        typer.Option("--stack", help="Make every flow group follow this stack profile (repeatable for a "
                     "folder; default for a folder: ns2 and cclab with ns2, linux and cclab with ns3).",
                     show_default=False),
    ] = None,
    out: Annotated[
        Optional[Path],
        typer.Option("--out", help="Also write report.md, runs.csv and each seed's peer script here "
                     "(for a folder: matrix.md and matrix.csv).", show_default=False),
    ] = None,
    exclude: Annotated[
        Optional[List[str]],
        typer.Option("--exclude", help="For a folder: leave out this scenario (its file name without "
                     ".toml; repeatable).", show_default=False),
    ] = None,
) -> None:
    """Run a scenario (or every scenario of a folder: the fidelity matrix) in cclab and in ns-2
    or ns-3 and print both sides' metrics with their differences."""
    from .crosscheck import crosscheck as run_crosscheck
    from .crosscheck.matrix import markdown as matrix_markdown, run_matrix, with_stack

    if out is not None:
        _check_out(out)
    if scenario.is_dir():
        from .crosscheck import PEERS

        if peer not in PEERS:
            fail("--with", f"{peer!r}; accepted: {' or '.join(PEERS)}")
        stacks = stack or list(PEERS[peer].STACKS)
        for s in stacks:
            if s not in _core.stacks():
                fail("--stack", f"{s!r}; accepted: {', '.join(_core.stacks())}")
        m = run_matrix(scenario, peer, seeds, stacks, exclude or ())
        flags = "".join(f" --stack {s}" for s in stacks) + "".join(f" --exclude {x}" for x in exclude or ())
        md = matrix_markdown(m, peer, seeds, f"cclab crosscheck {scenario} --with {peer} --seeds {seeds}{flags}")
        sys.stdout.write(md)
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            (out / "matrix.md").write_text(md)
            m.to_csv(out / "matrix.csv", index=False)
        return
    if exclude:
        fail("--exclude", f"{' '.join(exclude)!r}; accepted: only with a folder of scenarios")
    sc = load_scenario(scenario)
    if stack:
        if len(stack) > 1 or stack[0] not in _core.stacks():
            fail("--stack", f"{' '.join(stack)!r}; accepted: one of {', '.join(_core.stacks())} for one scenario")
        sc = with_stack(sc, stack[0])
    c = run_crosscheck(sc, peer, seeds=seeds, seed=seed, keep=out)
    md = c.markdown()
    sys.stdout.write(md)  # markdown as is: a rich console would wrap its table rows
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.md").write_text(md)
        c.runs.to_csv(out / "runs.csv", index=False)



_KIND_TITLES = {
    "cc": "congestion control (flows: cc = ...)",
    "add-on": "add-on (cc = \"<algorithm>+<add-on>\", its parameters by its prefix in cc_params)",
    "queue": "queue discipline (queue = ..., queue_params = {...})",
    "topology": "topology ([topology] kind = ...)",
    "traffic": "traffic source (a section of the scenario)",
}


def _param_line(p: dict[str, str]) -> str:
    unit = f" {p['unit']}" if p["unit"] else ""
    return f"{p['name']} ({p['kind']}{unit}): default {p['default']}; {p['accepted']}"


@app.command()
def algorithms(
    kind: Annotated[
        Optional[str],
        typer.Argument(help="Only this kind: cc, add-on, queue, topology or traffic (default: all).", show_default=False),
    ] = None,
    params: Annotated[bool, typer.Option("--params/--no-params", help="Show each entry's parameters.")] = True,
) -> None:
    """List everything a scenario can name, every kind from the registry: congestion controls,
    add-ons, queue disciplines, topologies and traffic sources, with their parameters."""
    entries = _core.registry()
    kinds = list(dict.fromkeys(e["kind"] for e in entries))
    if kind is not None and kind not in kinds:
        fail("kind", f"unknown kind {kind!r}; accepted: {', '.join(kinds)}")
    con = _stdout()
    for k in kinds if kind is None else [kind]:
        t = Table(title=_KIND_TITLES.get(k, k), title_justify="left")
        t.add_column("name", style="bold", no_wrap=True)
        t.add_column("summary")
        if params:
            t.add_column("parameters")
        for e in entries:
            if e["kind"] == k:
                row = [e["name"], e["summary"]]
                if params:
                    row.append("\n".join(_param_line(p) for p in e["params"]) or "-")
                t.add_row(*(Text(c) for c in row))
        con.print(t)
    if kind in (None, "cc"):
        con.print("loss recovery (recovery = ...): " + ", ".join(_core.recoveries()))


@app.command()
def bench(
    cases: Annotated[
        Optional[List[str]], typer.Argument(help="Benchmark cases: B1 B2 B3 B4 B5 (default: all).", show_default=False)
    ] = None,
    ns3: Annotated[
        Optional[str],
        typer.Option(
            "--ns3",
            help="Also run ns-3's dumbbell_bench on each case and print the ratio: a path to the "
            "binary, or 'auto' for $CCLAB_NS3_BENCH, else cclab's bench_ns3.cc compiled against the ns3 wheel "
            "(pip install ns3==3.44.post0, g++).",
            show_default=False,
        ),
    ] = None,
    ns3_timeout: Annotated[float, typer.Option("--ns3-timeout", help="Seconds before an ns-3 run is abandoned.")] = 1800.0,
    quick: Annotated[bool, typer.Option("--quick", help="Simulate 2 s of each case: a smoke run, not a measurement.")] = False,
) -> None:
    """Speed benchmarks B1-B5 (B5: B2 with paced BBR): delivered data packets per wall-clock second and peak memory.

    Each case runs in a fresh process so its peak memory is its own. Machines are
    noisy: compare figures from one run, side by side.
    """
    from . import bench as b

    keys = [c.upper() for c in (cases or list(b.CASES))]
    for k in keys:
        if k not in b.CASES:
            fail("cases", f"unknown case {k!r}; accepted: {', '.join(b.CASES)}")
    binary = None
    if ns3 is not None:
        binary = b.find_ns3() if ns3 == "auto" else Path(ns3)
        if binary is None or not binary.is_file():
            fail("--ns3", f"no ns-3 benchmark binary at {ns3!r}; accepted: an executable, or 'auto' with the ns3 "
                 "wheel and g++ installed (pip install ns3==3.44.post0) to compile cclab's bench_ns3.cc")
    con = Console(highlight=False, width=max(_stdout().width, 150))
    m = b.machine()
    con.print(f"machine: {m['platform']}, {m['cores']} cores, Python {m['python']}, cclab {m['cclab']} "
              f"({m['build']} build)")
    for k in keys:
        con.print(f"  {k}: {b.CASES[k].title}")
    t = Table(title="cclab bench" + (" (--quick: 2 s simulated)" if quick else ""), title_justify="left")
    for col, just in [("case", "left"), ("wall s", "right"), ("delivered pkts", "right"),
                      ("pkts/s", "right"), ("sim MiB", "right"), ("peak MiB", "right"), ("utilization", "right")]:
        t.add_column(col, justify=just)  # type: ignore[arg-type]
    if binary is not None:
        for col in ("ns-3 pkts/s", "ns-3 MiB", "speed ratio", "memory ratio"):
            t.add_column(col, justify="right")
    for k in keys:
        case = b.CASES[k]
        ok, why = b.available(case)
        if not ok:
            t.add_row(k, "-", "-", "-", "-", "-", f"skipped: {why}")
            continue
        r = b.run_isolated(k, quick=quick)
        row = [k, f"{r['wall_s']:.2f}", f"{r['delivered_pkts']:,}", f"{r['pkts_per_s']:,.0f}",
               f"{r['sim_rss_mib']:.1f}", f"{r['peak_rss_mib']:.1f}", f"{r['utilization']:.4f}"]
        if binary is not None:
            if case.ns3_args is None:
                row += ["not run", "", "", ""]
            else:
                try:
                    n = b.run_ns3(binary, case, ns3_timeout, quick=quick)
                    row += [f"{n['pkts_per_s']:,.0f}", f"{n['peak_rss_mib']:.1f}",
                            f"{r['pkts_per_s'] / n['pkts_per_s']:.1f}x", f"{n['peak_rss_mib'] / r['peak_rss_mib']:.2f}x"]
                except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
                    row += [f"failed: {str(e)[:60]}", "", "", ""]
        t.add_row(*row)
        con.print(f"{k} done: {r['pkts_per_s']:,.0f} delivered pkts/s")
    con.print(t)
    if binary is not None and any(b.CASES[k].ns3_args is None for k in keys):
        con.print("ns-3 does not finish B3 as specified (docs/benchmarks.md); it is not run.")


@app.command()
def sweep(
    definition: Annotated[Path, typer.Argument(help="Sweep TOML file (docs/sweeps.md).", show_default=False)],
    out: Annotated[
        Optional[Path],
        typer.Option("--out", "-o", help="Sweep folder (default: ./cclab-out/NAME, NAME the sweep's name).",
                     show_default=False),
    ] = None,
    jobs: Annotated[
        Optional[int],
        typer.Option("--jobs", "-j", help="Local worker processes (default: every core; 1: in this process).",
                     show_default=False),
    ] = None,
    dask: Annotated[
        Optional[str],
        typer.Option("--dask", help="Run on a Dask cluster instead: the scheduler address, e.g. tcp://host:8786.",
                     show_default=False),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no report.")] = False,
) -> None:
    """Run a parameter sweep: every point of a grid or list, each replication with its own seed.

    Every run is written to OUT/runs/<run id>/ as soon as it finishes; running the
    same command again skips the runs already there (and tries failed ones again),
    so an interrupted sweep resumes. Validates every point before anything runs.
    Exit code 1 when some runs failed; load the table with cclab.load_sweep(OUT).
    """
    from .sweep import Sweep, execute, print_report

    sw = Sweep.load(definition)
    dest = out if out is not None else Path("cclab-out") / _safe_name(sw.name)
    _check_out(dest)
    report = execute(sw, dest, jobs=jobs, dask=dask, progress=not quiet)
    if not quiet:
        print_report(report, _stdout())
    if report.failed:
        sys.exit(1)


# `cclab reproduce` lives in its own module; importing it registers the command on `app`.
from . import cli_reproduce as _cli_reproduce  # noqa: E402,F401
# `cclab run --engine linux`, `cclab linux` and `cclab compare` live in cli_linux.py.
from . import cli_linux as _cli_linux  # noqa: E402,F401
