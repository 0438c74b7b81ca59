"""Figures beyond one run (compare, sweep bands, one flow's window), the sweep table's
resolved values, ``cclab run --set / --seeds`` and the warnings for settings that give
nonsense."""

from __future__ import annotations

import copy
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import cclab
from cclab import _core
from cclab.advice import CclabWarning
from cclab.cli import app
from cclab.overrides import apply_sets, parse_seeds, parse_value
from cclab.plots import window_reductions

ROOT = Path(__file__).resolve().parents[1]

TINY = {
    "name": "tiny",
    "duration": "4s",
    "warmup": "1s",
    "sample_interval": "100ms",
    "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "8ms", "buffer": "1bdp"}},
    "flows": [{"cc": "newreno", "count": 2, "rtt": "20ms", "start_spread": "0.5s"}],
}


def tiny(**changes):
    sc = copy.deepcopy(TINY)
    for path, v in changes.items():
        sc = apply_sets(sc, [f"{path}={v}"])
    return sc


# -- --set and --seeds ------------------------------------------------------------------------------


def test_a_set_value_is_read_as_toml_and_else_kept_as_text():
    assert parse_value("0.3") == 0.3 and parse_value("true") is True and parse_value("4") == 4
    assert parse_value('"x y"') == "x y" and parse_value("[1, 2]") == [1, 2]
    assert parse_value("20Mbps") == "20Mbps" and parse_value("cubic") == "cubic"


def test_set_changes_the_named_setting_only_and_refuses_a_missing_list_entry():
    sc = apply_sets(TINY, ["topology.bottleneck.buffer=0.5bdp", "flows[0].cc=cubic", "duration=2s"])
    assert sc["topology"]["bottleneck"]["buffer"] == "0.5bdp" and sc["flows"][0]["cc"] == "cubic"
    assert sc["duration"] == "2s" and TINY["duration"] == "4s"  # a copy
    with pytest.raises(cclab.ScenarioError, match=r"^--set: flows\[3\]\.cc=x: unknown parameter path"):
        apply_sets(TINY, ["flows[3].cc=x"])
    with pytest.raises(cclab.ScenarioError, match=r"^--set: invalid value 'duration'; accepted: PATH=VALUE"):
        apply_sets(TINY, ["duration"])


@pytest.mark.parametrize("text,seeds", [("1..3", [1, 2, 3]), ("4", [1, 2, 3, 4]), ("7,2,9", [7, 2, 9]), ("0..0", [0])])
def test_seeds_are_a_range_a_list_or_a_count(text, seeds):
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["3..1", "0", "a..b", "1,1", "1..20000", "-1,2", ""])
def test_bad_seeds_are_refused_naming_the_option(text):
    with pytest.raises(cclab.ScenarioError, match=r"^--seeds: invalid value"):
        parse_seeds(text)


def test_run_with_seeds_writes_each_run_and_their_summaries(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(cclab.to_toml(TINY))
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["run", str(path), "--seeds", "2..3", "--set", "flows[0].cc=cubic", "--out", str(out),
                                 "-q"])
    assert r.exit_code == 0, r.output
    table = pd.read_csv(out / "seeds.csv")
    assert table["seed"].tolist() == [2, 3]
    # Each run is the scenario with the change, at its seed.
    direct = cclab.run(apply_sets(TINY, ["flows[0].cc=cubic"]), seed=3)
    assert table["total_goodput_bps"].iloc[1] == direct.summary()["total_goodput_bps"]
    assert cclab.load(out / "seed-3").flows["cc"].unique().tolist() == ["cubic"]


def test_run_refuses_seed_with_seeds(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(cclab.to_toml(TINY))
    r = CliRunner().invoke(app, ["run", str(path), "--seeds", "2", "--seed", "4", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "--seeds: give either --seed or --seeds" in r.output


# -- sweep tables: resolved values ---------------------------------------------------------------------


def test_the_sweep_table_places_text_parameters_by_their_resolved_values(tmp_path):
    definition = {"name": "buf", "replications": 2, "seed": 1, "base": TINY,
                  "grid": {"topology.bottleneck.buffer": ["0.5bdp", "2bdp", "7pkts"],
                           "topology.bottleneck.rate": ["10Mbps", "20Mbps"]}}
    df = cclab.sweep(definition, tmp_path / "buf", jobs=1, progress=False)
    cols = list(df.columns)
    assert cols.index("topology.bottleneck.buffer:value") == cols.index("topology.bottleneck.buffer") + 1
    assert df.attrs["units"] == {"topology.bottleneck.buffer": "packets", "topology.bottleneck.rate": "bit/s"}
    expect = [0.5 * b if v == "0.5bdp" else 2 * b if v == "2bdp" else 7.0
              for v, b in zip(df["topology.bottleneck.buffer"], df["bdp_pkts"])]
    assert df["topology.bottleneck.buffer:value"].tolist() == expect
    assert set(df["topology.bottleneck.rate:value"]) == {1e7, 2e7}
    # Not metrics of sweep_stats.
    assert "topology.bottleneck.rate:value" not in set(cclab.sweep_stats(df)["metric"])
    # The figure puts the points at those values, the mean per point.
    fig = cclab.plot_sweep(df, "topology.bottleneck.buffer", "bottleneck_utilization",
                           hue="topology.bottleneck.rate", path=tmp_path / "s.png")
    line = fig.axes[0].get_lines()[0]
    ten = df[df["topology.bottleneck.rate"] == "10Mbps"]
    means = ten.groupby("topology.bottleneck.buffer:value")["bottleneck_utilization"].mean()
    assert np.allclose(line.get_xdata(), means.index.to_numpy())
    assert np.allclose(line.get_ydata(), means.to_numpy())
    assert (tmp_path / "s.png").stat().st_size > 0


def test_plot_sweep_refuses_a_text_axis_it_cannot_resolve():
    df = pd.DataFrame({"flows[0].cc": ["reno", "cubic"], "replication": [0, 0], "u": [0.5, 0.6]})
    with pytest.raises(ValueError, match=r"^x: column 'flows\[0\]\.cc' holds text"):
        cclab.plot_sweep(df, "flows[0].cc", "u")


# -- compare and one flow -------------------------------------------------------------------------------


def test_compare_shows_each_run_in_its_own_column_with_its_numbers(tmp_path):
    a, b = cclab.run(TINY, seed=1), cclab.run(tiny(**{"flows[0].cc": "cubic"}), seed=1)
    cmp = cclab.compare([a, b], labels=["newreno", "cubic"])
    s = cmp.summary()
    assert s.index.tolist() == ["newreno", "cubic"]
    assert s.loc["cubic", "total_goodput_bps"] == b.summary()["total_goodput_bps"]
    fig = cmp.plot(tmp_path / "c.png")
    assert [ax.get_title() for ax in fig.axes[:2]] == ["newreno", "cubic"]
    assert len(fig.axes) == 6
    with pytest.raises(ValueError, match=r"^labels: invalid value of length 1"):
        cclab.compare([a, b], labels=["x"])


def test_window_reductions_are_found_where_ssthresh_is_set_or_the_window_restarts():
    # A cut at 0.2 s, a timeout at 0.4 s, and a cut at 0.7 s to an ssthresh above the last one.
    s = pd.DataFrame({"time_s": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
                      "cwnd": [2.0, 20.0, 10.0, 12.0, 1.0, 2.0, 20.0, 9.0],
                      "ssthresh": [np.inf, np.inf, 10.0, 10.0, 6.0, 6.0, 6.0, 9.0]})
    ev = window_reductions(s)
    assert ev["time_s"].tolist() == [0.2, 0.4, 0.7]
    assert ev["kind"].tolist() == ["reduction", "restart", "reduction"]


def test_plot_flow_marks_the_flows_reductions_and_shades_the_warmup(tmp_path):
    res = cclab.run(tiny(**{"topology.bottleneck.buffer": "0.25bdp"}), seed=1)
    fig = res.plot_flow(0, tmp_path / "f.png")
    ax = fig.axes[0]
    series = res.flow_series[res.flow_series["flow"] == 0]
    marked = sum(len(c.get_offsets()) for c in ax.collections if c.get_offsets().size)
    assert marked == len(window_reductions(series)) > 0
    shaded = [p for p in ax.patches if p.get_label() == "_warm-up"]
    assert len(shaded) == 1 and shaded[0].get_x() == 0.0


def test_a_result_shows_as_html_with_its_flows():
    res = cclab.run(TINY, seed=1)
    html = res._repr_html_()
    assert "<table" in html and res.flows["name"].iloc[1] in html and "total_goodput_bps" in html


# -- warnings ---------------------------------------------------------------------------------------------


def advice_of(sc):
    from cclab.advice import advice
    from cclab.scenario import _to_json

    import json

    sim = _core.Sim(_to_json(sc), 1)
    return advice(json.loads(sim.network()), json.loads(sim.scenario_json()), sim.bdp_pkts)


def test_red_thresholds_far_below_the_bdp_are_warned_about_and_scaled_ones_are_not():
    sc = tiny(**{"topology.bottleneck.rate": "1Gbps", "topology.bottleneck.queue": "red",
                 "topology.bottleneck.delay": "48ms", "flows[0].rtt": "100ms"})
    fields = [f for f, _ in advice_of(sc)]
    assert "topology.bottleneck.queue_params.max_th" in fields
    sc["topology"]["bottleneck"]["queue_params"] = {"min_th": 1000, "max_th": 3000}
    assert "topology.bottleneck.queue_params.max_th" not in [f for f, _ in advice_of(sc)]


def test_xcp_without_its_router_is_warned_about():
    assert ("flows[0].cc" in [f for f, _ in advice_of(tiny(**{"flows[0].cc": "xcp"}))])
    assert ("flows[0].cc" not in [f for f, _ in advice_of(tiny(**{"flows[0].cc": "xcp",
                                                                    "topology.bottleneck.queue": "xcp"}))])


def test_bbr_without_sack_is_warned_about_and_with_sack_or_for_newreno_it_is_not():
    assert "flows[0].recovery" in [f for f, _ in advice_of(tiny(**{"flows[0].cc": "bbr", "flows[0].recovery": "newreno"}))]
    assert "flows[0].recovery" in [f for f, _ in advice_of(tiny(**{"flows[0].cc": "bbr3", "flows[0].recovery": "reno"}))]
    assert "flows[0].recovery" not in [f for f, _ in advice_of(tiny(**{"flows[0].cc": "bbr", "flows[0].recovery": "sack"}))]
    assert "flows[0].recovery" not in [f for f, _ in advice_of(tiny(**{"flows[0].cc": "newreno", "flows[0].recovery": "newreno"}))]


def test_a_sample_interval_under_the_rtt_and_a_run_too_short_for_slow_start_are_warned_about():
    assert [f for f, _ in advice_of(TINY)] == []
    fields = [f for f, _ in advice_of(tiny(sample_interval="5ms"))]
    assert fields == ["sample_interval"]
    short = tiny(**{"topology.bottleneck.rate": "1Gbps", "duration": "0.1s", "warmup": "0s"})
    assert "duration" in [f for f, _ in advice_of(short)]
    with pytest.warns(CclabWarning, match=r"^duration: 0.1s ends before flow"):
        cclab.run(short)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CclabWarning)
        cclab.run(TINY)  # nothing to warn about


def test_plot_flow_marks_the_traced_drops_and_timeouts_at_their_times(tmp_path):
    sc = tiny(**{"topology.bottleneck.buffer": "0.25bdp"})
    sc["trace"] = {"flows": [0]}
    res = cclab.run(sc, seed=1)
    p = res.packets[res.packets["flow"] == 0]
    drops = p[(p["event"] == "drop") & (p["kind"] == "data")]["time_s"].to_numpy()
    rtos = p[p["event"] == "rto"]["time_s"].to_numpy()
    fig = res.plot_flow(0, tmp_path / "f.png")
    marks = {c.get_label(): c.get_offsets()[:, 0] for c in fig.axes[0].collections if c.get_offsets().size}
    assert len(drops) > 0 and list(marks["drop (trace)"]) == list(drops)
    assert list(marks.get("retransmission timeout (trace)", [])) == list(rtos)
