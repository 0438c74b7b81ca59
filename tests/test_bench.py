"""`cclab bench` runs the benchmark scenarios it names (figures are printed, never asserted)."""

from __future__ import annotations

import copy
from pathlib import Path

from typer.testing import CliRunner

import cclab
from cclab import bench
from cclab.cli import app


def test_isolated_benchmark_runs_exactly_the_named_scenario():
    r = bench.run_isolated("B1", quick=True)
    sc = copy.deepcopy(bench.CASES["B1"].scenario)
    sc["duration"] = bench.QUICK_DURATION
    same = cclab.run(sc, seed=1)
    assert r["delivered_pkts"] == int(same.flows["delivered_pkts"].sum())
    assert r["delivered_pkts"] > 0 and r["peak_rss_mib"] > 0


def test_benchmarks_match_the_design_table():
    # B1-B4 of shared/DESIGN.md: flows, algorithm, bottleneck, RTT (2 x (1 + d + 1) ms), buffer, duration.
    want = {
        "B1": (1, "newreno", "100Mbps", "38ms", "0.25bdp", "120s"),
        "B2": (50, "cubic", "500Mbps", "38ms", "1bdp", "60s"),
        "B3": (100, "highspeed", "10Gbps", "48ms", "0.1bdp", "20s"),
        "B4": (10, "newreno", "1Gbps", "23ms", "1bdp", "60s"),
    }
    for key, (n, cc, rate, delay, buf, dur) in want.items():
        sc = bench.CASES[key].scenario
        f = sc["flows"][0]
        b = sc["topology"]["bottleneck"]
        assert (f.get("count", 1), f["cc"], b["rate"], b["delay"], b["buffer"], sc["duration"]) == (n, cc, rate, delay, buf, dur)
        assert f["recovery"] == "sack"
    assert bench.CASES["B4"].scenario["topology"]["bottleneck"]["queue"] == "ared"


def test_bench_names_the_kind_of_build_it_measures():
    # "profiled" only from tools/pgo_build.py; the test suite's own build (pip install .) is plain.
    assert cclab._core.BUILD in ("plain", "profiled", "instrumented")
    res = CliRunner().invoke(app, ["bench", "B1", "--quick"])
    assert res.exit_code == 0, res.output
    assert f"({cclab._core.BUILD} build)" in res.output.splitlines()[0]


def test_unknown_case_is_one_line_and_exit_2():
    res = CliRunner().invoke(app, ["bench", "B9"])
    assert res.exit_code == 2
    assert "B9" in res.output and "accepted" in res.output


def test_ns3_auto_compiles_the_shipped_program_and_runs_the_same_case(monkeypatch):
    import os

    import pytest

    from cclab.crosscheck import ns3

    if ns3.available() is None:
        pytest.skip("the ns3 wheel or g++ is not installed")
    monkeypatch.delenv("CCLAB_NS3_BENCH", raising=False)
    binary = bench.find_ns3()
    assert binary is not None and os.access(binary, os.X_OK) and binary.name == "ns3-bench"
    n = bench.run_ns3(binary, bench.CASES["B1"], 600.0, quick=True)
    # One NewReno flow for 2 s on 100 Mbit/s: a few thousand packets, the link partly used.
    assert 1_000 < n["delivered_pkts"] < 2 * 100e6 / 8 / 1500 * 2
    assert 0 < n["utilization"] <= 1


def test_reproduction_benchmark_files_are_valid_paper_stack_runs():
    # scenarios/bench/: the reproduction's heaviest kinds of run (docs/benchmarks.md), each under ns-2's stack.
    files = sorted((Path(__file__).resolve().parents[1] / "scenarios" / "bench").glob("*.toml"))
    assert [f.stem for f in files] == ["p002-fig6-8-hstcp", "p004-table5-ared", "p004-table6-gared"]
    for f in files:
        cclab.check(f)
        assert {g["stack"] for g in cclab.load_scenario(f)["flows"]} == {"ns2"}
