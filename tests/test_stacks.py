"""The papers' experiments under a TCP stack profile (`cclab reproduce --stack`, `--versus`): which
flows a profile reaches, which stack a paper ran, and how verdicts are paired across stacks."""

from __future__ import annotations

import tomllib

import pytest
from typer.testing import CliRunner

import cclab
from cclab import experiments as ex
from cclab.cli import app
from cclab.experiments.runner import Outcome
from cclab.experiments.verdicts import Check


runner = CliRunner()

WEB = {
    "sessions": 2, "pages_per_session": 2, "inter_page": {"dist": "constant", "value": 1},
    "objects_per_page": {"dist": "constant", "value": 2}, "inter_object": {"dist": "constant", "value": 0.1},
    "object_size": {"dist": "constant", "value": 30000}, "servers": 2, "clients": 2,
}


def _scenario(web_stack=None):
    web = dict(WEB, **({"stack": web_stack} if web_stack else {}))
    return {"duration": "4s", "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
            "flows": [{"cc": "reno", "rtt": "40ms"}, {"cc": "reno", "rtt": "40ms", "stack": "linux"}], "web": web}


def test_with_stack_reaches_every_group_and_the_web_transfers_but_keeps_a_stack_already_named():
    s = ex.with_stack(_scenario(), "ns2")
    assert [g["stack"] for g in s["flows"]] == ["ns2", "linux"]
    assert s["web"]["stack"] == "ns2"
    # cclab, the default profile, leaves the scenario as written: its runs keep their run-store keys.
    sc = _scenario()
    assert ex.with_stack(sc, "cclab") == sc and "stack" not in sc["flows"][0] and "stack" not in sc["web"]
    cclab.check(s)


def test_the_web_transfers_follow_their_stack_and_a_bad_one_is_refused_naming_web_stack():
    alone = lambda sc: dict(sc, flows=[])  # noqa: E731  (the web transfers alone: no queue to perturb them)
    cclab_web = cclab.run(alone(_scenario()), seed=1).web
    ns2_web = cclab.run(alone(_scenario("ns2")), seed=1).web
    assert len(cclab_web) == len(ns2_web) == 8
    # ns-2's agents open with a SYN: every transfer takes about one more round trip (24 ms here).
    extra = ns2_web.response_s - cclab_web.response_s
    assert ((extra > 0.5 * 0.024) & (extra < 1.5 * 0.024)).all(), extra.tolist()
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.check(_scenario("ns3"))
    assert e.value.field == "web.stack" and "linux" in e.value.accepted


def test_the_paper_stack_is_each_experiments_own_and_an_unknown_stack_is_refused():
    (fig1,) = ex.find("003", "fig1")
    (impl,) = ex.find("001", "fig10-11")
    assert ex.resolve_stack(fig1, "paper") == "ns2" and ex.resolve_stack(impl, "paper") == "linux"
    assert ex.resolve_stack(impl, "cclab") == "cclab"
    with pytest.raises(ValueError, match="stack: unknown stack 'bsd'; accepted: cclab, ns2, linux, paper"):
        ex.resolve_stack(fig1, "bsd")


def _check(what, holds, measured=1.0, headline=False):
    return Check(what=what, measured=measured, holds=holds, headline=headline)


def _outcome(exp, checks, stack):
    return Outcome(exp, True, None, checks, 1, 0.0, [], stack)


def test_verdicts_are_paired_by_statement_and_occurrence_and_a_one_sided_check_is_a_change(tmp_path):
    (exp,) = ex.find("003", "fig1")
    a = [_outcome(exp, [_check("x", True), _check("y", True), _check("y", False, headline=True),
                        _check("only in a", True)], "ns2")]
    b = [_outcome(exp, [_check("x", True, 2.0), _check("y", True), _check("y", True), _check("only in b", False)],
                  "cclab")]
    changes = ex.verdict_changes(a, b)
    got = [(c.what, c.a.kind if c.a else None, c.b.kind if c.b else None, c.headline) for c in changes]
    # "x" matches under both (its value alone moved): no change; the second "y" is paired with the second.
    assert got == [("y", "differs-unexplained", "matches", True), ("only in a", "matches", None, False),
                   ("only in b", None, "differs-unexplained", False)]
    path = ex.write_stack_changes(a, b, tmp_path / "c.md", "cclab reproduce 003 fig1 --stack ns2 --versus cclab",
                                  "ns2", "cclab")
    text = path.read_text()
    assert "3 of 4 checks change verdict" in text
    rows = [r for r in text.splitlines() if r.startswith("| 003/fig1 |")]
    assert rows[0].startswith("| 003/fig1 | yes | y |") and len(rows) == 3  # the headline first
    assert "| 003 | ns2 | 4 | 3 | 0 | 1 | 0 |" in text and "| 003 | cclab | 4 | 3 | 0 | 1 | 0 |" in text


@pytest.mark.parametrize("args, stacks", [([], {"ns2"}), (["--stack", "paper"], {"ns2"}), (["--stack", "linux"], {"linux"}),
                                         (["--stack", "cclab"], None)])
def test_cli_print_shows_the_runs_under_the_stack_asked_for_and_the_papers_by_default(args, stacks):
    r = runner.invoke(app, ["reproduce", "003", "table1", "--quick", "--print", *args])
    assert r.exit_code == 0, r.output
    docs = [d.split("\n", 1)[1] for d in r.output.split("# 003/table1 run ") if d.strip()]
    assert docs
    for d in docs:
        sc = tomllib.loads(d)
        assert {g.get("stack") for g in sc["flows"]} == (stacks or {None})
        cclab.check(sc)


@pytest.mark.parametrize("args, field", [
    (["--stack", "bsd"], "--stack"), (["--versus", "ns3"], "--versus"), (["--stack", "ns2", "--versus", "ns2"],
                                                                          "--versus")])
def test_cli_refuses_an_unknown_stack_or_a_comparison_with_itself_in_one_line(args, field):
    r = runner.invoke(app, ["reproduce", "003", "fig1", "--quick", *args])
    assert r.exit_code == 2
    line = r.output.strip()
    assert line.startswith(f"error: {field}: ") and "\n" not in line
    assert "accepted: cclab, ns2, linux, paper" in line or "is the --stack itself" in line


def test_cli_versus_runs_both_stacks_and_lists_the_changes(tmp_path):
    out = tmp_path / "o"
    r = runner.invoke(app, ["reproduce", "003", "fig1", "--quick", "-o", str(out), "-j", "1", "--versus", "cclab"])
    assert r.exit_code == 0, r.output
    assert "TCP stack profile: `ns2` (the paper's" in (out / "003-fig1" / "report.md").read_text()
    assert "Command: `cclab reproduce 003 fig1 --quick`." in (out / "003-fig1" / "report.md").read_text()
    mine = (out / "versus-cclab" / "003-fig1" / "report.md").read_text()
    assert "TCP stack profile: `cclab` (cclab's own TCP" in mine and "--quick --stack cclab`." in mine
    text = (out / "stack-changes.md").read_text()
    assert "Generated by `cclab reproduce 003 fig1 --quick --versus cclab`" in text
    assert "| 003 | paper |" in text and "| 003 | cclab |" in text


def test_a_written_report_reads_back_to_its_checks_and_two_reports_are_compared_by_verdict(tmp_path):
    from cclab.experiments.verdicts import checks_table

    def write(folder, checks):
        (tmp_path / folder / "003-fig1").mkdir(parents=True)
        (tmp_path / folder / "003-fig1" / "report.md").write_text(
            "## heading\n\n" + checks_table(checks) + "\n\n| check | one | two |\n|---|---|---|\n| x | matches | a |\n")
        return tmp_path / folder

    # a statement with a bar in it (escaped by the table) and one that occurs twice
    a = write("a", [_check("x | y", True, 0.5), _check("z", False), _check("z", True)])
    b = write("b", [_check("x | y", False, 0.25), _check("z", False), _check("z", False)])
    got = ex.report_checks((a / "003-fig1" / "report.md").read_text())
    assert got == [("x \\| y", "0.5", "matches"), ("z", "1", "differs-unexplained"), ("z", "1", "matches")]
    text = ex.write_report_changes(a, b, tmp_path / "c.md", "paper", "cclab").read_text()
    assert "2 of 3 checks change verdict" in text
    assert "| 003 | paper | 3 | 2 | 0 | 1 | 0 |" in text and "| 003 | cclab | 3 | 0 | 0 | 3 | 0 |" in text
    rows = [r for r in text.splitlines() if r.startswith("| 003-fig1 |")]
    assert rows == ["| 003-fig1 | x \\| y | matches: 0.5 | differs-unexplained: 0.25 |",
                    "| 003-fig1 | z | matches: 1 | differs-unexplained: 1 |"]


def test_a_report_row_without_a_verdict_is_refused_naming_it():
    text = "| what the paper says | published | cclab | tolerance | verdict |\n|---|---|---|---|---|\n| x | | 1 | — | maybe |\n"
    with pytest.raises(ValueError, match="report row without a verdict"):
        ex.report_checks(text)
