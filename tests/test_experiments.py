"""The papers' experiments (`cclab reproduce`): every experiment's quick form runs, writes its
files, and gives well-formed verdicts. Whether a paper's claim holds is the report's business,
never a test's: the tests check that verdicts are computed right (see test_verdicts.py too)."""

from __future__ import annotations

import json
import re
import tomllib


import pytest

from cclab import experiments as ex
from cclab.cli import app
from typer.testing import CliRunner


ALL = ex.experiments()
#: reason text -> the check that gave it, over every experiment run in this session
REASONS: dict = {}
#: a cause with its numbers replaced by N -> the cause, over every experiment run in this session
CAUSE_SHAPES: dict = {}


def test_every_paper_has_experiments():
    papers = {e.paper for e in ALL}
    assert papers == set(ex.PAPERS), f"papers without experiments: {set(ex.PAPERS) - papers}"


@pytest.mark.parametrize("exp", ALL, ids=[e.id for e in ALL])
def test_quick_form_writes_its_files_and_well_formed_verdicts(exp, tmp_path):
    o = ex.run_experiment(exp, quick=True, out=tmp_path, jobs=2)
    names = {f.name for f in o.files}
    assert "report.md" in names
    assert any(n.endswith(".png") for n in names) and any(n.endswith(".svg") for n in names)
    assert any(n.endswith(".csv") for n in names)
    for f in o.files:
        assert f.exists() and f.stat().st_size > 0, f
    assert o.checks, f"{exp.id} checks nothing"
    checks = list(o.checks)
    for c in checks:
        assert c.kind in ex.VERDICTS
        if c.kind == "differs-explained":
            assert c.ablation is not None and c.ablation.explains, c.what
        if c.kind in ("differs-explained", "uninformative"):  # an unexplained difference may have no cause yet
            assert c.reason, f"{exp.id}: '{c.what}' is {c.kind} without a reason"
        if c.why_uninformative and c.holds:  # computed from the check's own numbers: each its own
            other = REASONS.setdefault(c.why_uninformative, f"{exp.id}: {c.what}")
            assert other == f"{exp.id}: {c.what}", f"two checks give the same reason: {other!r} and {c.what!r}"
    report = (o.folder / "report.md").read_text()
    for cause in {c.cause for c in checks if c.cause}:  # a cause is stated once, however many checks it explains
        assert report.count(cause) == 1, f"{exp.id}: cause stated {report.count(cause)} times: {cause!r}"
        # and no cause is another's sentence with other numbers (a template); one cause may serve two experiments
        other = CAUSE_SHAPES.setdefault(re.sub(r"\d+(\.\d+)?", "N", cause), cause)
        assert other == cause, f"two causes differ only in their numbers: {other!r} and {cause!r}"
        if any(c.cause == cause and c.ablation is not None for c in checks):  # its ablation's numbers with it
            assert " → " in report.split(cause, 1)[1].split("\n", 1)[0], cause
    rows = report.split("Causes of the differences")[0]
    assert "of the gap" not in rows, f"{exp.id}: a verdict cell repeats an ablation's effect instead of its label"
    assert exp.title in report and "| what the paper says | published | cclab |" in report
    assert "**Quick form**" in report.split("|")[0], "a quick-form report must say its numbers are not the paper's"


def test_finished_runs_are_reused_and_a_changed_scenario_is_rerun(tmp_path, monkeypatch):
    (exp,) = ex.find("003", "fig1")
    ex.run_experiment(exp, quick=True, out=tmp_path, jobs=1)

    def no_simulation(*_a, **_k):
        raise AssertionError("a finished run was simulated again")

    from cclab.experiments import runner

    monkeypatch.setattr(runner, "_execute", no_simulation)
    again = ex.run_experiment(exp, quick=True, out=tmp_path, jobs=1)
    assert again.runs == 1
    # A different scenario (the full form) is not taken from the quick form's file.
    with pytest.raises(AssertionError, match="simulated again"):
        ex.run_experiment(exp, quick=False, out=tmp_path, jobs=1)


def test_runs_of_all_experiments_go_longest_first_and_the_time_left_is_apportioned(tmp_path, monkeypatch):
    from cclab.experiments import runner

    exps = ex.find("003", "table1") + ex.find("003", "fig1")
    order, seen = [], []

    def fake(exp_id, run, fresh=False):
        order.append(ex.estimate_cost(run.scenario))
        return real(exp_id, run, fresh)

    real = runner._execute
    monkeypatch.setattr(runner, "_execute", fake)
    outs = ex.run_experiments(exps, quick=True, out=tmp_path, jobs=1,
                              overall=lambda done, total, n, m: seen.append((done, total, n, m)))
    assert [o.experiment.id for o in outs] == ["003/table1", "003/fig1"]
    assert order == sorted(order, reverse=True) and len(order) == sum(len(e.runs(True)) for e in exps)
    assert seen[-1][0] == seen[-1][1] and seen[-1][2] == seen[-1][3] == len(order)


def test_a_run_shared_by_two_experiments_is_simulated_once(tmp_path):
    from cclab.experiments.runner import dedupe

    firsts, waiting = dedupe(["a", "b", "a", "c", "b", "a"])
    assert firsts == [0, 1, 3] and waiting == {0: [2, 5], 1: [4]}
    (exp,) = ex.find("003", "fig1")
    one, two = ex.run_experiments([exp, exp], quick=True, out=tmp_path, jobs=2)
    assert [c.measured for c in one.checks] == [c.measured for c in two.checks]


def test_estimate_cost_reads_rate_and_duration():
    sc = {"duration": "30s", "topology": {"bottleneck": {"rate": "100Mbps"}}}
    assert ex.estimate_cost(sc) == 100e6 * 30
    assert ex.estimate_cost({"duration": "500ms", "topology": {"links": [{"rate": "2.5Gbps"}, {"rate": "1Gbps"}]}}) == (
        2.5e9 * 0.5)
    assert ex.estimate_cost({"duration": "junk"}) == 1.0


def test_find_names_what_is_accepted():
    assert [e.name for e in ex.find("ubr")] == [e.name for e in ex.find("003")] == [e.name for e in ex.find("3")]
    with pytest.raises(LookupError, match=r"paper: '9'.*accepted: 000 \(tcp-gt\)"):
        ex.find("9")
    with pytest.raises(LookupError, match=r"experiment: 'fig99'.*accepted: .*table1"):
        ex.find("003", "fig99")


runner = CliRunner()


def test_cli_list_and_errors(tmp_path):
    r = runner.invoke(app, ["reproduce", "--list"])
    assert r.exit_code == 0
    for e in ALL:
        assert e.name in r.output
    r = runner.invoke(app, ["reproduce", "nope"])
    assert r.exit_code == 2 and "PAPER" in r.output and "nope" in r.output and "tcp-gt" in r.output
    r = runner.invoke(app, ["reproduce", "003", "fig99"])
    assert r.exit_code == 2 and "EXPERIMENT" in r.output and "table1" in r.output
    r = runner.invoke(app, ["reproduce", "003", "--jobs", "0"])
    assert r.exit_code == 2 and "--jobs" in r.output
    r = runner.invoke(app, ["reproduce"])
    assert r.exit_code == 2 and "--all" in r.output


def test_cli_print_gives_valid_scenarios(tmp_path):
    r = runner.invoke(app, ["reproduce", "003", "table1", "--quick", "--print"])
    assert r.exit_code == 0
    docs = [d for d in r.output.split("# 003/table1 run ") if d.strip()]
    assert len(docs) == len(ex.find("003", "table1")[0].runs(True))
    import cclab

    for d in docs:
        body = d.split("\n", 1)[1]
        cclab.check(tomllib.loads(body))


def test_cli_run_and_report(tmp_path):
    rep = tmp_path / "docs" / "REPRODUCTION.md"
    r = runner.invoke(app, ["reproduce", "003", "fig1", "--quick", "--out", str(tmp_path / "o"), "-j", "1",
                            "--report", str(rep)])
    assert r.exit_code == 0, r.output
    text = rep.read_text()
    assert "| 003 | [fig1]" in text
    assert f"--report {rep.as_posix()} --out {(tmp_path / 'o').as_posix()}`" in text  # the command that made it
    # Image links are relative to the report and point at files that exist.
    link = text.split("![fig1](")[1].split(")")[0]
    assert (rep.parent / link).exists()
    saved = json.loads(next((tmp_path / "o" / "003-fig1" / "runs").glob("*.json")).read_text())
    assert saved["key"] == "reno" and "flow_series" in saved["tables"]


def test_cli_stored_only_reports_what_is_finished_and_lists_the_rest(tmp_path, monkeypatch):
    monkeypatch.setenv("CCLAB_STORE", str(tmp_path / "store"))  # empty: only what this test runs is stored
    out, rep = tmp_path / "o", tmp_path / "R.md"
    r = runner.invoke(app, ["reproduce", "003", "fig1", "--quick", "--out", str(out), "-j", "1"])
    assert r.exit_code == 0, r.output
    (fig3,) = ex.find("003", "fig3")
    assert ex.missing_runs(fig3, True, out) == len(fig3.runs(True))
    r = runner.invoke(app, ["reproduce", "003", "--quick", "--out", str(out), "--stored-only", "--report", str(rep)])
    assert r.exit_code == 0, r.output
    text = rep.read_text()
    assert "| 003 | [fig1]" in text and "## Not yet run" in text
    assert "| 003 | fig3: " in text and "**Incomplete**" in text
    assert not (out / "003-fig3" / "report.md").exists()  # nothing was simulated for it
    r = runner.invoke(app, ["reproduce", "003", "--stored-only", "--fresh"])
    assert r.exit_code == 2 and "--stored-only" in r.output
