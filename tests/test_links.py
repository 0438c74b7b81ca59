"""Links that vary over time from Python (docs/links.md): trace paths resolved against the
scenario file, the example runs and shows its algorithms apart, bad schedules are one-line
ScenarioErrors, the run store keys on the trace's content, and cross-checks refuse them."""

from __future__ import annotations

from pathlib import Path

import pytest

import cclab
from cclab import ScenarioError
from cclab.crosscheck import refusal
from cclab.store import run_key

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "links" / "cellular.toml"

SCENARIO = """duration = "3s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = "100pkts", mahimahi = "{trace}" }}
[[udp]]
rate = "30Mbps"
"""


def test_a_relative_trace_path_is_read_beside_the_scenario_file(tmp_path, monkeypatch):
    (tmp_path / "traces").mkdir()
    # Two opportunities every millisecond: 24 Mbit/s.
    (tmp_path / "traces" / "flat.trace").write_text("".join(f"{ms}\n{ms}\n" for ms in range(1, 101)))
    (tmp_path / "s.toml").write_text(SCENARIO.format(trace="traces/flat.trace"))
    monkeypatch.chdir(ROOT)  # elsewhere: the path only resolves against the scenario's folder
    sc = cclab.load_scenario(tmp_path / "s.toml")
    assert sc["topology"]["bottleneck"]["mahimahi"] == str(tmp_path / "traces" / "flat.trace")
    res = cclab.run(sc)
    # 30 Mbit/s offered to 24 Mbit/s of opportunities (the nominal rate is 10 Mbit/s).
    u = res.udp.iloc[0]
    assert u["received_pkts"] * u["packet_size"] == pytest.approx(24e6 / 8 * 3, rel=0.01)


def test_the_cellular_example_shows_delay_based_vegas_with_a_shorter_queue_than_cubic():
    sc = cclab.load_scenario(EXAMPLE)
    sc["duration"] = "20s"
    rtt = {}
    for cc in ("cubic", "vegas"):
        sc["flows"][0]["cc"] = cc
        rtt[cc] = cclab.run(sc).flows["rtt_mean_s"].iloc[0]
    assert rtt["vegas"] < 0.6 * rtt["cubic"], rtt


@pytest.mark.parametrize("extra, field", [
    ('rate_schedule = [["2s", "5Mbps"], ["1s", "1Mbps"]]', "topology.bottleneck.rate_schedule[1][0]"),
    ('loss_schedule = [["1s", 1.5]]', "topology.bottleneck.loss_schedule[0][1]"),
    ('mahimahi = "no-such.trace"', "topology.bottleneck.mahimahi"),
    ('jitter = "2ms"', "topology.bottleneck.jitter"),
    ('jitter = "0.5ms", delay_schedule = [["0.5s", "0.2ms"]]', "topology.bottleneck.jitter"),
    ('jitter = "soon"', "topology.bottleneck.jitter"),
])
def test_a_bad_schedule_is_a_one_line_scenario_error_naming_its_field(tmp_path, extra, field):
    (tmp_path / "s.toml").write_text(
        f'duration = "1s"\n[topology]\nbottleneck = {{ rate = "10Mbps", delay = "1ms", {extra} }}\n'
        '[[udp]]\nrate = "1Mbps"\n')
    with pytest.raises(ScenarioError) as info:
        cclab.run(cclab.load_scenario(tmp_path / "s.toml"))
    assert info.value.field == field
    assert "\n" not in str(info.value)


def test_the_run_key_changes_with_the_trace_content_and_not_for_scenarios_without_files(tmp_path, quick):
    trace = tmp_path / "t.trace"
    trace.write_text("1\n2\n")
    sc = cclab.load_scenario(ROOT / "scenarios" / "quickstart.toml")
    plain = run_key(sc, 1)
    sc["topology"]["bottleneck"]["mahimahi"] = str(trace)
    before = run_key(sc, 1)
    trace.write_text("1\n1\n2\n")
    assert run_key(sc, 1) != before
    del sc["topology"]["bottleneck"]["mahimahi"]
    assert run_key(sc, 1) == plain


@pytest.mark.parametrize("field, value", [("rate_schedule", [["1s", "5Mbps"]]), ("jitter", "0.1ms")])
def test_a_crosscheck_refuses_a_link_with_a_schedule_or_jitter(field, value):
    sc = cclab.load_scenario(ROOT / "scenarios" / "quickstart.toml")
    sc["topology"]["bottleneck"][field] = value
    for peer in ("ns2", "ns3"):
        e = refusal(sc, peer)
        assert e is not None and field in str(e), (peer, e)


def test_jitter_lengthens_the_round_trips_spread_and_the_same_seed_repeats_the_run():
    # One flow's RTT samples over a jittered bottleneck (both directions): their spread grows
    # with the jitter, the path's least RTT stays the fixed path's or above, and a seed repeats.
    sc = cclab.load_scenario(ROOT / "scenarios" / "quickstart.toml")
    def flows(jitter, seed=1):
        s = {**sc, "topology": {**sc["topology"], "bottleneck": {**sc["topology"]["bottleneck"]}}}
        if jitter:
            s["topology"]["bottleneck"]["jitter"] = jitter
        return cclab.run(s, seed=seed).flows
    plain, jit = flows(None), flows("2ms")
    spread = lambda f: float((f.rtt_max_s - f.rtt_min_s).max())
    assert spread(jit) > spread(plain) + 0.002, (spread(plain), spread(jit))
    assert float(jit.rtt_min_s.min()) >= float(plain.rtt_min_s.min()) - 0.004
    assert flows("2ms").equals(jit)
    assert not flows("2ms", seed=2).equals(jit)
