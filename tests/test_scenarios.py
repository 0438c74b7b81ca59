"""The scenarios shipped in scenarios/ are valid and say what their comments say."""

from __future__ import annotations

from pathlib import Path

import pytest

import cclab

SCENARIOS = sorted((Path(__file__).resolve().parents[1] / "scenarios").glob("*.toml"))


def short(path: Path, duration: str = "2s") -> dict:
    sc = cclab.load_scenario(path)
    sc["duration"] = duration
    return sc


def by_name(name: str) -> Path:
    return next(p for p in SCENARIOS if p.stem == name)


def test_the_four_scenarios_are_there():
    assert {p.stem for p in SCENARIOS} >= {"single-reno", "two-flows-rtt", "quickstart", "graph-parking-lot"}


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_is_valid_named_after_its_file_and_survives_toml(path, tmp_path):
    sc = cclab.check(path)
    assert sc["name"] == path.stem
    assert sc.get("sample_interval") == "100ms"
    assert cclab.load_scenario(path) == cclab.check(cclab.load_scenario(path))
    text = cclab.to_toml(sc)
    (tmp_path / "again.toml").write_text(text)
    assert cclab.load_scenario(tmp_path / "again.toml") == sc


def test_single_reno_is_benchmark_b1():
    r = cclab.run(short(by_name("single-reno")))
    f = r.flows.iloc[0]
    assert (f["cc"], f["recovery"], f["packet_size"]) == ("newreno", "sack", 1500)
    assert f["base_rtt_s"] == pytest.approx(0.080)
    links = r.links.set_index("name")
    assert links.loc["bottleneck", "rate_bps"] == 100_000_000
    assert links.loc["bottleneck", "delay_s"] == pytest.approx(0.038)
    assert links.loc["s0->r1", "rate_bps"] == 1_000_000_000
    assert r.bdp_pkts == pytest.approx(100e6 / 8 * 0.080 / 1500)
    assert r.scenario["topology"]["bottleneck"]["buffer"] == "0.25bdp"
    assert cclab.load_scenario(by_name("single-reno"))["duration"] == "120s"


def test_two_flows_rtt_has_40_and_120_ms_flows():
    r = cclab.run(short(by_name("two-flows-rtt")))
    assert r.flows["base_rtt_s"].tolist() == pytest.approx([0.040, 0.120])
    assert r.bdp_pkts == pytest.approx(100e6 / 8 * 0.080 / 1500)


def test_quickstart_is_four_sack_flows_starting_within_a_second():
    r = cclab.run(short(by_name("quickstart")))
    assert len(r.flows) == 4
    assert set(r.flows["recovery"]) == {"sack"}
    assert r.flows["start_s"].between(0, 1).all()
    assert r.flows["base_rtt_s"].tolist() == pytest.approx([0.040] * 4)
