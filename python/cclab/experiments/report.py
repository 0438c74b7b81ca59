"""Writing what the experiments found: one ``report.md`` per experiment (the figure, the table
in the paper's form, the checks with their verdicts, the verdicts under every setting of an open
choice, the assumptions) and REPRODUCTION.md (headline claims, verdicts counted per paper and
per experiment, then every report)."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, List, Sequence, Union

from .base import DEFAULT_OUT, DEFAULT_STACK, Experiment, Report, Run, Variant
from .verdicts import CAUSES_HEAD, VERDICTS, causes_list, causes_of, checks_table, fmt, verdict_cell

if TYPE_CHECKING:
    from .runner import Outcome

__all__ = ["write_report", "write_summary"]


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


def _stack_words(exp: Experiment, stack: str) -> str:
    """What the stack profile of a report means beside the stack the paper used."""
    used = "ns-2.35" if exp.stack == "ns2" else "a Linux implementation" if exp.stack == "linux" else exp.stack
    if stack == exp.stack:
        return f"the paper's: it ran {used}"
    if stack == "cclab":
        return f"cclab's own TCP; the paper ran {used}, which the default `--stack paper` follows"
    return f"the paper ran {used}"


def write_report(
    exp: Experiment,
    rep: Report,
    runs: Sequence[Run],
    simulated: int,
    quick: bool,
    wall: float,
    folder: Path,
    files: List[Path],
    stack: str,
) -> Path:
    """``stack``: the profile the runs followed."""
    from . import PAPERS

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
    opts = (" --quick" if quick else "") + (f" --stack {stack}" if stack != exp.stack else "")
    lines += [f"{len(runs)} runs, {seed_s}, {form}, {done}. "
              f"Command: `cclab reproduce {exp.paper} {exp.name}{opts}`.", ""]
    lines += [f"TCP stack profile: `{stack}` ({_stack_words(exp, stack)}).", ""]
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


def _headlines(outcomes: Sequence[Outcome], stated: dict) -> List[str]:
    """The headline table; its causes, listed once below it, are recorded in ``stated``."""
    lines = ["## Headline claims", "",
             "Each paper's central claims, with cclab's verdict and, where it differs, the measured cause "
             "(stated once, below the table).", "",
             "| paper | claim | cclab | verdict |", "|---|---|---|---|"]
    first: dict = {}  # cause -> its label where a headline first gives it; a cause is stated once
    members: List = []  # the headline checks that have a cause, in order
    for o in outcomes:
        e = o.experiment
        local = causes_of(list(o.checks))
        for c in o.checks:
            if not c.headline:
                continue
            what = c.what + (f" — “{c.quote}”" if c.quote else "") + (f" ({c.section})" if c.section else "")
            label = first.setdefault(c.cause, f"{e.paper}-{e.name} {local[c.cause]}") if c.cause else ""
            cells = [f"{e.paper} [{e.name}](#{e.paper}-{e.name})", what, fmt(c.measured), verdict_cell(c, label)]
            lines.append("| " + " | ".join(re.sub(r"\s+", " ", x.replace("|", "\\|")) for x in cells) + " |")
            if c.cause:
                members.append(replace(c, what=f"{e.paper} {e.name} {c.what}"))
                stated.setdefault(c.cause, f"[headline claims](#headline-claims) {label}")
    causes = causes_list(first, members)
    if causes:
        lines += ["", CAUSES_HEAD, ""] + [re.sub(r"\s+", " ", x) for x in causes]
    return lines + [""]


def write_summary(
    outcomes: Sequence["Outcome"],
    path: Union[str, "os.PathLike[str]"],
    pending: Sequence[tuple[Experiment, int, int]] = (),
    stack: str = DEFAULT_STACK,
    out: Union[str, "os.PathLike[str]", None] = None,
) -> Path:
    """Gathers the experiments' reports into one markdown file (docs/REPRODUCTION.md): the
    headline claims, the verdicts counted per paper and per experiment, then every report, with
    image links relative to the file. ``pending``: experiments left out because runs are missing
    (experiment, runs missing, runs in all), listed as such. ``stack``: the ``--stack`` the runs
    were made with; ``out``: the ``--out`` folder of the reports (named in the command when it is
    not the default ``reproduction``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = sum(len(o.checks) for o in outcomes)
    total = {v: sum(o.counts()[v] for o in outcomes) for v in VERDICTS}
    forms = {o.quick for o in outcomes}
    form = "quick forms" if forms == {True} else "full forms" if forms == {False} else "quick and full forms"
    lines = [
        "# Reproduction of the papers' experiments",
        "",
        "Generated by `cclab reproduce --all " + ("--stored-only " if pending else "")
        + (f"--stack {stack} " if stack != DEFAULT_STACK else "") + "--report "
        + path.as_posix() + (f" --out {Path(out).as_posix()}" if out is not None and Path(out) != Path(DEFAULT_OUT) else "")
        + "` "
        f"({form}). {len(outcomes)} experiments, {n} checks: "
        + ", ".join(f"{total[v]} {v}" for v in VERDICTS) + ".",
        "",
        "A check *matches* when cclab's value is within the paper's own precision (and the spread over seeds) "
        "and the check can tell the algorithms apart; *uninformative* when it passes but so would the "
        "alternative it should separate from; *differs-explained* when an ablation run by the experiment "
        "(the cause removed) passes the check or closes at least half the gap; *differs-unexplained* otherwise.",
        "",
    ]
    used = sorted({o.stack for o in outcomes})
    lines += [f"TCP stack profile{'s' if len(used) > 1 else ''}: " + ", ".join(f"`{u}`" for u in used)
              + (" (cclab's own TCP; the default, `--stack paper`, follows the stack each paper ran: ns-2.35, "
                 "or Linux for an implementation's results)" if used == ["cclab"] else
                 " (each experiment's own paper's)" if stack == "paper" else "") + ".", ""]
    if forms == {True}:
        lines += ["> **Quick forms**: shortened runs; the numbers are not comparable to the papers'.", ""]
    if pending:
        lines += [f"> **Incomplete**: {len(pending)} experiments are not in this report because some of their runs "
                  "have not been simulated yet (`--stored-only`); they are listed at the end. The counts below "
                  "cover the experiments shown only.", ""]
    stated: dict = {}  # cause -> where it was first stated: a cause shared by experiments is stated once
    lines += _headlines(outcomes, stated)
    lines += ["## Verdicts per paper", "",
              "All checks, then (second row of each paper) its headline claims alone.", "",
              "| paper | checks | " + " | ".join(VERDICTS) + " |", "|---" * (len(VERDICTS) + 2) + "|"]
    from . import PAPERS

    for num in sorted({o.experiment.paper for o in outcomes}):
        checks = [c for o in outcomes if o.experiment.paper == num for c in o.checks]
        for label, cs in ((f"{num} {PAPERS[num][1]}", checks), (f"{num} headline", [c for c in checks if c.headline])):
            cnt = {v: sum(c.kind == v for c in cs) for v in VERDICTS}
            lines.append(f"| {label} | {len(cs)} | " + " | ".join(str(cnt[v]) for v in VERDICTS) + " |")
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
        for cause, label in causes_of(list(o.checks)).items():
            line = f"- ({label}) " + re.sub(r"\s+", " ", cause)
            if cause in stated and line in body:
                body = body.replace(line, f"- ({label}) the cause ({stated[cause]}) above")
            stated.setdefault(cause, f"[{e.paper} {e.name}](#{e.paper}-{e.name}) {label}")
        rel = os.path.relpath(o.folder, path.parent)
        body = re.sub(r"!\[([^\]]*)\]\(([^)/]+)\)", lambda m: f"![{m.group(1)}]({rel}/{m.group(2)})", body)
        lines += [f'<a id="{e.paper}-{e.name}"></a>', "", ("\n" + body).replace("\n## ", "\n### ").lstrip("\n"), ""]
    if pending:
        lines += ["## Not yet run", "", "| paper | experiment | runs missing | runs |", "|---|---|---|---|"]
        lines += [f"| {e.paper} | {e.name}: {e.title} | {miss} | {n} |" for e, miss, n in pending]
        lines.append("")
    path.write_text("\n".join(lines))
    return path
