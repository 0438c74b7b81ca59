"""The papers' experiments (`cclab reproduce`): every experiment's quick form runs,
writes its files, and shows the paper's qualitative result."""

from __future__ import annotations

import json
import sys


import pytest

from cclab import experiments as ex
from cclab.cli import app
from typer.testing import CliRunner

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ALL = ex.experiments()


def test_every_paper_has_experiments():
    papers = {e.paper for e in ALL}
    assert papers == set(ex.PAPERS), f"papers without experiments: {set(ex.PAPERS) - papers}"


@pytest.mark.parametrize("exp", ALL, ids=[e.id for e in ALL])
def test_quick_form_shows_the_papers_result(exp, tmp_path):
    o = ex.run_experiment(exp, quick=True, out=tmp_path, jobs=2)
    names = {f.name for f in o.files}
    assert "report.md" in names
    assert any(n.endswith(".png") for n in names) and any(n.endswith(".svg") for n in names)
    assert any(n.endswith(".csv") for n in names)
    for f in o.files:
        assert f.exists() and f.stat().st_size > 0, f
    claims = [c for c in o.checks if c.qualitative]
    assert claims, f"{exp.id} states no qualitative result of its paper"
    failed = [f"{c.what}: {c.measured}" for c in claims if not c.holds]
    assert not failed, f"{exp.id}: the quick form does not show: {failed}"
    for c in o.checks:
        assert c.holds or c.reason, f"{exp.id}: '{c.what}' differs without a reason"
    report = (o.folder / "report.md").read_text()
    assert exp.title in report and "| what | published | cclab |" in report


def test_finished_runs_are_reused_and_a_changed_scenario_is_rerun(tmp_path, monkeypatch):
    (exp,) = ex.find("003", "fig1")
    ex.run_experiment(exp, quick=True, out=tmp_path, jobs=1)

    def no_simulation(*_a, **_k):
        raise AssertionError("a finished run was simulated again")

    monkeypatch.setattr(ex, "_execute", no_simulation)
    again = ex.run_experiment(exp, quick=True, out=tmp_path, jobs=1)
    assert again.runs == 1
    # A different scenario (the full form) is not taken from the quick form's file.
    with pytest.raises(AssertionError, match="simulated again"):
        ex.run_experiment(exp, quick=False, out=tmp_path, jobs=1)


def test_find_names_what_is_accepted():
    assert [e.name for e in ex.find("ubr")] == [e.name for e in ex.find("003")] == [e.name for e in ex.find("3")]
    with pytest.raises(LookupError, match=r"paper: '9'.*accepted: 000 \(tcp-gt\)"):
        ex.find("9")
    with pytest.raises(LookupError, match=r"experiment: 'fig99'.*accepted: .*table1"):
        ex.find("003", "fig99")


def test_compare_and_claim_verdicts():
    assert ex.compare("u", 0.995, 0.990, 0.01).verdict == "matches"
    c = ex.compare("u", 0.995, 0.980, 0.01, reason="why")
    assert not c.holds and c.verdict == "differs: why"
    assert ex.compare("x", 100.0, 109.0, 0.1, relative=True).holds
    assert not ex.compare("x", 100.0, 111.0, 0.1, relative=True).holds
    assert not ex.compare("x", 1.0, float("nan"), 0.1).holds
    assert ex.claim("no drop", True, "0 drops").verdict == "holds"


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
    # Image links are relative to the report and point at files that exist.
    link = text.split("![fig1](")[1].split(")")[0]
    assert (rep.parent / link).exists()
    saved = json.loads(next((tmp_path / "o" / "003-fig1" / "runs").glob("*.json")).read_text())
    assert saved["key"] == "reno" and "flow_series" in saved["tables"]
