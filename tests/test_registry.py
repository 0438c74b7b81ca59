"""The registry as Python sees it: `cclab algorithms` lists every kind, and an unknown name's
error lists what is accepted."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import cclab
from cclab import _core
from cclab.cli import app

BUILT_INS = {
    "cc": ["reno", "newreno", "highspeed", "scalable", "bic", "bic-linux", "cubic", "cubic-linux", "vegas", "vegas-linux", "vegas-ns2", "fast", "westwood",
           "cr", "ci", "htcp", "xcp", "tcp-gt", "hrf", "w+cr+reno", "w+cr+cr", "ubr", "ghstcp", "ktcp", "bbr", "dctcp",
           "bbr3"],
    "add-on": ["ktcp"],
    "queue": ["droptail", "red", "ared", "gared", "xcp", "codel", "fq_codel", "pie", "dualpi2"],
    "topology": ["dumbbell", "graph"],
    "traffic": ["tcp", "udp", "web"],
}


def graph(cc: str = "reno", queue: str = "droptail", kind: str = "graph") -> dict:
    return {
        "duration": "1s",
        "topology": {"kind": kind, "nodes": ["a", "b"],
                     "links": [{"from": "a", "to": "b", "rate": "10Mbps", "delay": "5ms", "queue": queue}]},
        "flows": [{"cc": cc, "src": "a", "dst": "b"}],
    }


def test_the_registry_holds_every_built_in_of_every_kind_with_its_parameters():
    entries = _core.registry()
    for kind, names in BUILT_INS.items():
        listed = [e["name"] for e in entries if e["kind"] == kind]
        assert listed[: len(names)] == names, kind
    red = next(e for e in entries if e["kind"] == "queue" and e["name"] == "red")
    min_th = next(p for p in red["params"] if p["name"] == "min_th")
    assert (min_th["unit"], min_th["default"]) == ("packets", "5")
    ktcp = next(e for e in entries if e["kind"] == "add-on")
    assert [p["name"] for p in ktcp["params"]] == ["ktcp_alpha", "ktcp_low_window", "ktcp_tc_max"]


def test_cclab_algorithms_lists_every_kind():
    res = CliRunner().invoke(app, ["algorithms"], prog_name="cclab", env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    for names in BUILT_INS.values():
        for name in names:
            assert name in res.stdout, name
    for title in ("congestion control", "add-on", "queue discipline", "topology", "traffic source"):
        assert title in res.stdout
    assert "ktcp_alpha" in res.stdout and "target_delay" in res.stdout


def test_cclab_algorithms_of_one_kind_and_an_unknown_kind():
    res = CliRunner().invoke(app, ["algorithms", "queue", "--no-params"], prog_name="cclab", env={"COLUMNS": "250"})
    assert res.exit_code == 0 and "gared" in res.stdout and "cubic" not in res.stdout
    res = CliRunner().invoke(app, ["algorithms", "queues"], prog_name="cclab")
    assert res.exit_code == 2
    assert res.stderr.strip() == "error: kind: unknown kind 'queues'; accepted: cc, add-on, queue, topology, traffic"


@pytest.mark.parametrize(
    "scenario, field, kind",
    [
        (graph(cc="renoo"), "flows[0].cc", "cc"),
        (graph(queue="rde"), "topology.links[0].queue", "queue"),
        (graph(kind="ring"), "topology.kind", "topology"),
    ],
)
def test_an_unknown_name_is_refused_in_one_line_listing_the_accepted_ones(scenario, field, kind):
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.check(scenario)
    assert e.value.field == field
    assert e.value.accepted.split(", ")[: len(BUILT_INS[kind])] == BUILT_INS[kind]
    assert "\n" not in str(e.value)
