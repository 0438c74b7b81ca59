"""Every bad value is refused before the run with an error naming the field,
the value and what is accepted."""

from __future__ import annotations

import pickle

import pytest

import cclab
from cclab import ScenarioError


def error_of(scenario, seed=None) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        cclab.run(scenario, seed=seed)
    return info.value


def test_scenario_error_is_a_value_error_with_field_value_and_accepted(quick):
    quick["flows"][0]["cc"] = "renoo"
    e = error_of(quick)
    assert isinstance(e, ValueError)
    assert e.field == "flows[0].cc"
    assert e.value == "renoo"
    assert "reno" in e.accepted and "newreno" in e.accepted
    assert str(e).startswith("flows[0].cc: ") and "'renoo'" in str(e)
    assert type(e).__name__ == "ScenarioError"


@pytest.mark.parametrize(
    "edit, field, value",
    [
        (lambda s: s["topology"]["bottleneck"].update(rate="100Mbs"), "topology.bottleneck.rate", "100Mbs"),
        (lambda s: s["topology"]["bottleneck"].update(delay="-5ms"), "topology.bottleneck.delay", "-5ms"),
        (lambda s: s["topology"]["bottleneck"].update(buffer="0pkts"), "topology.bottleneck.buffer", "0pkts"),
        (lambda s: s["flows"][0].update(start="5s", start_spread="0s", stop="2s"), "flows[0].stop", "2s"),
        (lambda s: s["flows"][0].update(recovery="tahoe"), "flows[0].recovery", "tahoe"),
        (lambda s: s["flows"][0].update(stack="ns-3"), "flows[0].stack", "ns-3"),
        (lambda s: s["flows"][0].update(ack_counting="bytes"), "flows[0].ack_counting", "bytes"),
        (lambda s: s["flows"][0].update(loss_detection="rack"), "flows[0].loss_detection", "rack"),
        (lambda s: s["flows"][0].update(ca_rtt="newest"), "flows[0].ca_rtt", "newest"),
        (lambda s: s["flows"][0].update(timestamp_clock="2s"), "flows[0].timestamp_clock", "2s"),
        (lambda s: s["flows"][0].update(quickacks=2000000), "flows[0].quickacks", "2000000"),
        (lambda s: s["flows"][0].update(rtt="20ms"), "flows[0].rtt", "20ms"),
        (lambda s: s.update(duration="30 minutes"), "duration", "30 minutes"),
    ],
    ids=["rate", "negative-delay", "zero-buffer", "stop-before-start", "recovery", "stack", "ack-counting", "loss-detection",
         "ca-rtt", "timestamp-clock", "quickacks", "rtt-too-short",
         "duration"],
)
def test_bad_values_name_their_field_and_value(quick, edit, field, value):
    edit(quick)
    e = error_of(quick)
    assert e.field == field
    assert e.value == value
    assert value in str(e)
    assert e.accepted


def test_units_are_listed_for_a_misspelt_rate(quick):
    quick["topology"]["bottleneck"]["rate"] = "100Mbs"
    assert "Mbps" in error_of(quick).accepted


def test_unknown_key_in_a_dict_is_refused_with_its_path(quick):
    b = quick["topology"]["bottleneck"]
    b["bufer"] = b.pop("buffer")
    e = error_of(quick)
    assert "bottleneck" in e.field
    assert "bufer" in str(e)


def test_unknown_key_in_a_toml_file_is_refused_with_its_path(tmp_path, quickstart_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(quickstart_path.read_text().replace("buffer =", "bufer ="))
    with pytest.raises(ScenarioError) as info:
        cclab.load_scenario(bad)
    assert "bottleneck" in info.value.field
    assert "bufer" in str(info.value)


def test_a_toml_syntax_error_is_a_scenario_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('duration = "10s\n')
    with pytest.raises(ScenarioError) as info:
        cclab.load_scenario(bad)
    assert info.value.field == "(file)"
    assert "line 1" in str(info.value)


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        cclab.run(tmp_path / "nope.toml")


@pytest.mark.parametrize("seed", [-1, "abc", 2**64, 1.5, True, None])
def test_bad_seeds_are_refused(quick, seed):
    if seed is None:  # a bad seed in the scenario itself
        quick["seed"] = -1
        e = error_of(quick)
        shown = "-1"
    else:
        e = error_of(quick, seed=seed)
        shown = str(seed)
    assert e.field == "seed"
    assert e.value == shown and f"'{shown}'" in str(e)
    assert "2**64-1" in e.accepted


def test_the_largest_seed_is_accepted(quick):
    quick["duration"] = "100ms"
    assert cclab.run(quick, seed=2**64 - 1).seed == 2**64 - 1
    assert cclab.run(quick, seed=0).seed == 0


def test_check_validates_without_running_and_normalizes(quick):
    quick["duration"] = "1000s"  # would take a while to run
    out = cclab.check(quick)
    assert out["topology"]["kind"] == "dumbbell"
    assert out["flows"][0]["cc"] == "newreno"
    quick["flows"][0]["cc"] = "renoo"
    with pytest.raises(ScenarioError):
        cclab.check(quick)


def test_a_scenario_that_is_not_json_data_is_refused(quick):
    quick["duration"] = object()
    e = error_of(quick)
    assert e.field == "(scenario)"


def test_scenario_errors_survive_pickling_for_process_pools(quick):
    quick["flows"][0]["cc"] = "renoo"
    e = error_of(quick)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is ScenarioError
    assert (back.field, back.value, back.accepted, str(back)) == (e.field, e.value, e.accepted, str(e))


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda s: s["flows"][0].update(init_cwnd=1e9), "flows[0].init_cwnd"),
        (lambda s: s["flows"][0].update(init_cwnd=float("nan")), "flows[0].init_cwnd"),
        (lambda s: s["flows"][0].update(cc_params={"beta": float("inf")}), "flows[0].cc_params.beta"),
        (lambda s: s.update(sample_interval="1ps"), "sample_interval"),
        (lambda s: s.update(udp=[{"rate": "0.5bps"}]), "udp[0].rate"),
        (lambda s: s.update(udp=[{"rate": "100Gbps"}]), "udp[0].rate"),
        (lambda s: s["topology"]["bottleneck"].update(buffer="1e308pkts"), "topology.bottleneck.buffer"),
        (lambda s: s["flows"][0].update(size="1e30B"), "flows[0].size"),
    ],
)
def test_values_that_would_exhaust_memory_or_send_nothing_are_refused(quick, edit, field):
    edit(quick)
    with pytest.raises(ScenarioError) as info:
        cclab.check(quick)
    assert info.value.field == field, str(info.value)


def test_cc_params_values_are_shown_as_written(quick):
    quick["flows"][0]["cc"] = "reno"
    quick["flows"][0]["cc_params"] = {"beta": 1e300}
    e = error_of(quick)
    assert e.value == "1e300", str(e)


def test_a_huge_value_gives_one_bounded_line(quick):
    quick["topology"]["bottleneck"]["rate"] = "x" * 100_000 + "\n" * 5
    e = error_of(quick)
    assert "\n" not in str(e) and len(str(e)) < 700
    assert e.value.endswith("…")


@pytest.mark.parametrize(
    "data, says",
    [
        (b"\xd0\xcf\x11\xe0binary", "not UTF-8"),
        ('duration = "1s"'.encode("utf-16"), "UTF-16"),
        (b'duration = "1s"\x00', "NUL"),
        (b"x" * (16 * 1024 * 1024 + 1), "larger than 16 MiB"),
    ],
)
def test_files_that_are_not_text_are_one_line_errors(tmp_path, data, says):
    p = tmp_path / "s.toml"
    p.write_bytes(data)
    with pytest.raises(ScenarioError) as info:
        cclab.load_scenario(p)
    assert says in str(info.value) and "\n" not in str(info.value)
