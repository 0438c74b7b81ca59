"""A run that needs more memory than the machine has (MemoryBudgetError, even alone) is kept as not
computed: its experiment's report is still written, the checks that may need the run get the
verdict not-computed, and a later reproduction skips it unless it has more memory."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import cclab
from cclab import experiments as ex
from cclab.experiments import not_computed, runner
from cclab.experiments.base import Experiment, Report, Run, Variant
from cclab.experiments.verdicts import claim

SC = {"duration": "1s", "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "1ms"}},
      "flows": [{"cc": "reno", "rtt": "20ms"}]}


class Toy(Experiment):
    """Two variants ("a" the default, "b") at x = 1, 2; each check: y > 0 at every x of its variant."""

    paper = "003"
    name = "toy-not-computed"
    title = "toy"

    def runs(self, quick):
        return [Run(f"{v},x={x}", SC, x, {"variant": v, "x": x}) for v in ("a", "b") for x in (1, 2)]

    def measure(self, run, res):  # pragma: no cover - the test replaces the simulation
        raise AssertionError

    def shared_run(self, run):
        return False

    def report(self, data, quick):
        d = data["points"]
        by = {v: [claim(f"y > 0 at every x ({v})", bool((d[d.variant == v].y > 0).all()),
                        ", ".join(f"{r.x}: {r.y}" for r in d[d.variant == v].itertuples()))] for v in ("a", "b")}
        return Report(checks=by["a"], variants=[Variant(v, v, by[v], default=v == "a") for v in ("a", "b")])


def _fake(fail, ys, calls):
    def execute(exp_id, run, fresh=False):
        calls.append(run.key)
        if run.key in fail:
            raise cclab.MemoryBudgetError("run: the simulation's memory passed this process's budget; accepted: less")
        return {"points": [{"y": ys.get(run.key, 1.0)}]}
    return execute


@pytest.mark.parametrize("fail, ys, default", [
    # a run of variant b out of reach: a's check, which holds, keeps its verdict
    (["b,x=2"], {}, "matches"),
    # the default's run out of reach: the default's checks
    (["a,x=1"], {}, "not-computed"),
    # b out of reach and a's check failing: its ablation may come from b, so no verdict either
    (["b,x=1"], {"a,x=1": -1.0}, "not-computed"),
])
def test_a_run_out_of_memory_leaves_the_report_with_its_checks_not_computed(tmp_path, monkeypatch, fail, ys, default):
    calls: list = []
    monkeypatch.setattr(runner, "_execute", _fake(fail, ys, calls))
    monkeypatch.setenv("CCLAB_MEMORY_LIMIT", "3GiB")  # the budget the runs get, which the marker records
    (o,) = ex.run_experiments([Toy()], out=tmp_path, jobs=1)
    assert sorted(calls) == sorted(r.key for r in Toy().runs(False))
    assert [c.kind for c in o.checks] == [default]
    report = (o.folder / "report.md").read_text()
    assert f"- Not computed: '{fail[0]}': MemoryBudgetError: run: the simulation's memory passed" in report
    assert ("| not-computed: 1 run not computed for lack of memory" in report) == (default == "not-computed")
    (run,) = [r for r in Toy().runs(False) if r.key == fail[0]]
    saved = json.loads((o.folder / "runs" / runner._run_file_name(run)).read_text())
    assert saved["not_computed"].startswith("MemoryBudgetError: run:")
    assert saved["budget_bytes"] == 3 * 2**30


def test_the_verdict_of_a_variant_follows_its_runs():
    runs = Toy().runs(False)
    data = {"points": pd.DataFrame([{"variant": r.params["variant"], "x": r.params["x"], "y": 1.0}
                                    for r in runs if r.key != "b,x=2"])}
    rep = not_computed.mark_report(Toy(), Toy().report(data, False), runs, {"b,x=2": "out of memory"})
    assert {v.name: [c.kind for c in v.checks] for v in rep.variants} == {"a": ["matches"], "b": ["not-computed"]}
    (c,) = rep.variants[1].checks
    assert c.verdict == ("not-computed: 1 run not computed for lack of memory ('b,x=2'); on the runs computed it "
                         "passes, which the missing runs could turn") and c.cause == ""


def test_a_run_not_computed_is_skipped_with_no_more_memory_and_tried_again_with_more(tmp_path, monkeypatch):
    calls: list = []
    monkeypatch.setattr(runner, "_execute", _fake(["b,x=2"], {}, calls))
    ex.run_experiments([Toy()], out=tmp_path, jobs=1)
    calls.clear()
    (o,) = ex.run_experiments([Toy()], out=tmp_path, jobs=1)
    assert calls == [] and "Not computed: 'b,x=2'" in (o.folder / "report.md").read_text()
    budget = json.loads(next((o.folder / "runs").glob("b*x*2*")).read_text())["budget_bytes"]
    monkeypatch.setattr(not_computed, "_budget", lambda: int(budget * not_computed.RETRY_MARGIN) - 1)
    (o,) = ex.run_experiments([Toy()], out=tmp_path, jobs=1)
    assert calls == []
    monkeypatch.setattr(not_computed, "_budget", lambda: int(budget * not_computed.RETRY_MARGIN) + 1)
    monkeypatch.setattr(runner, "_execute", _fake([], {}, calls))
    (o,) = ex.run_experiments([Toy()], out=tmp_path, jobs=1)
    assert calls == ["b,x=2"] and "Not computed" not in (o.folder / "report.md").read_text()


def test_fig10_reports_without_tcp_gt_at_the_longest_rtt():
    """Paper 000 Fig. 10's runs of eq. (15) as printed at 1 s are the ones out of reach (not_computed.py):
    its checks are computed without them and marked, the variants with all their runs keep their verdicts."""
    (exp,) = ex.find("000", "fig10")
    runs = exp.runs(True)
    top = max(r.params["rtt_ms"] for r in runs)
    gone = {r.key: "out of memory" for r in runs
            if r.params["rtt_ms"] == top and r.params["proto"] == "tcp-gt" and r.params["variant"] == "paper"}
    rows = [{**r.params, "utilization": 0.9 if r.params["proto"] == "tcp-gt" else 0.8, "mean_queue_pkts": 1.0,
             "drops": 0} for r in runs if r.key not in gone]
    rep = not_computed.mark_report(exp, exp.report({"points": pd.DataFrame(rows)}, True), runs, gone)
    assert len(gone) == 3 and rep.checks and {c.kind for c in rep.checks} == {"not-computed"}
    kinds = {v.name: {c.kind for c in v.checks} for v in rep.variants}
    assert kinds == {"paper": {"not-computed"}, "slow-start": {"matches"}, "p-cap": {"matches"}}, kinds


def test_a_shared_run_not_computed_takes_every_variants_checks():
    class Shared(Toy):
        def shared_run(self, run):
            return True

    runs = Shared().runs(False)
    data = {"points": pd.DataFrame([{"variant": r.params["variant"], "x": r.params["x"], "y": 1.0}
                                    for r in runs if r.key != "b,x=2"])}
    rep = not_computed.mark_report(Shared(), Shared().report(data, False), runs, {"b,x=2": "out of memory"})
    assert [c.kind for v in rep.variants for c in v.checks] + [c.kind for c in rep.checks] == ["not-computed"] * 3
