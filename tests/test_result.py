"""Result: summary, Jain's index, time series, plot, report, save and load."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import cclab
from cclab.result import TABLES, TRACE_TABLES, _jain


def test_summary_has_the_core_numbers_and_the_speed(quick_result):
    s = quick_result.summary()
    for key in ("duration_s", "total_goodput_bps", "jain_index", "events", "bottleneck_utilization",
                "bottleneck_drops", "data_sent", "wall_time_s", "delivered_pkts", "delivered_pkts_per_s"):
        assert key in s, key
    assert s["seed"] == 7 and s["name"] == "quickstart"
    assert isinstance(s["events"], int) and s["events"] > s["data_sent"]
    assert s["delivered_pkts"] == int(quick_result.flows["delivered_pkts"].sum())
    assert s["wall_time_s"] == quick_result.wall_time_s > 0
    assert s["delivered_pkts_per_s"] == pytest.approx(s["delivered_pkts"] / s["wall_time_s"])
    # The simulating thread's CPU time: positive, and no more than the wall time it ran in.
    assert s["cpu_time_s"] == quick_result.cpu_time_s and 0 < s["cpu_time_s"] <= s["wall_time_s"] * 1.05 + 0.01


def test_jain_index_formula():
    assert _jain([5, 5, 5, 5]) == 1.0
    assert _jain([1, 0, 0, 0]) == pytest.approx(0.25)
    assert _jain([1, 2]) == pytest.approx(9 / 10)
    assert _jain([0, 0]) == 1.0


def test_jain_without_a_window_uses_the_flows_goodput(quick_result):
    r = quick_result
    assert r.jain() == pytest.approx(r.summary()["jain_index"])
    assert r.jain(flows=[2]) == 1.0
    g = r.flows["goodput_bps"].to_numpy()[[0, 3]]
    assert r.jain(flows=[0, 3]) == pytest.approx(g.sum() ** 2 / (2 * (g**2).sum()))
    # By name and by group.
    assert r.jain(flows=["newreno.0", "newreno.3"]) == r.jain(flows=[0, 3])
    assert r.jain(flows="newreno") == r.jain()


def test_jain_over_a_window_uses_the_delivered_bytes_between_samples(quick_result):
    fs = quick_result.flow_series
    d = fs.pivot(index="time_s", columns="flow", values="delivered_bytes").astype(float)
    x = (d.loc[8.0] - d.loc[2.0]).to_numpy()
    expected = x.sum() ** 2 / (len(x) * (x**2).sum())
    assert quick_result.jain(start=2.0, end=8.0) == pytest.approx(expected)
    # A time between samples uses the sample at or before it.
    assert quick_result.jain(start=2.05, end=8.09) == pytest.approx(expected)
    # Defaults: the first and the last sample.
    x_all = (d.iloc[-1] - d.iloc[0]).to_numpy()
    assert quick_result.jain(start=0.0) == pytest.approx(x_all.sum() ** 2 / (4 * (x_all**2).sum()))
    with pytest.raises(ValueError):
        quick_result.jain(start=5.0, end=5.01)


def test_jain_rejects_unknown_flows(quick_result):
    with pytest.raises(ValueError):
        quick_result.jain(flows=[9])
    with pytest.raises(ValueError):
        quick_result.jain(flows=["nobody"])


def test_timeseries_adds_names(quick_result):
    fl = quick_result.timeseries("flows")
    assert list(fl.columns[:3]) == ["time_s", "flow", "name"]
    assert set(fl["name"]) == set(quick_result.flows["name"])
    q = quick_result.timeseries("queues")
    assert set(q["name"]) == {"bottleneck"}
    with pytest.raises(ValueError):
        quick_result.timeseries("links")
    # The result's own tables are left as they were.
    assert "name" not in quick_result.flow_series.columns


def test_save_and_load_round_trip(quick_result, tmp_path):
    out = quick_result.save(tmp_path / "res")
    names = {p.name for p in out.iterdir()}
    # The trace's tables are saved only when a trace filled them (tests/test_trace.py).
    assert names == {f"{t}.parquet" for t in TABLES if t not in TRACE_TABLES} | {"summary.json", "scenario.toml"}
    back = cclab.load(out)
    for t in TABLES:
        pd.testing.assert_frame_equal(getattr(back, t), getattr(quick_result, t), check_exact=True, obj=t)
    assert back.scenario == quick_result.scenario
    assert back.seed == quick_result.seed
    assert back.wall_time_s == quick_result.wall_time_s
    assert back.cpu_time_s == quick_result.cpu_time_s
    assert back.bdp_pkts == quick_result.bdp_pkts
    assert back.summary() == quick_result.summary()
    # The saved scenario runs again to the same results.
    again = cclab.run(out / "scenario.toml", seed=back.seed)
    pd.testing.assert_frame_equal(again.flows, quick_result.flows, check_exact=True)


def test_summary_json_is_plain_json(quick_result, tmp_path):
    quick_result.save(tmp_path)
    meta = json.loads((tmp_path / "summary.json").read_text())
    assert meta["seed"] == 7 and meta["name"] == "quickstart"
    assert meta["summary"]["events"] == quick_result.summary()["events"]


def test_a_result_saved_before_cpu_time_was_measured_loads_without_it(quick_result, tmp_path):
    quick_result.save(tmp_path)
    meta = json.loads((tmp_path / "summary.json").read_text())
    assert meta["cpu_time_s"] == quick_result.cpu_time_s > 0
    del meta["cpu_time_s"]
    (tmp_path / "summary.json").write_text(json.dumps(meta))
    back = cclab.load(tmp_path)
    assert back.cpu_time_s is None and math.isnan(back.summary()["cpu_time_s"])
    assert back.wall_time_s == quick_result.wall_time_s


def test_load_of_a_folder_without_a_result_fails_clearly(tmp_path):
    with pytest.raises(FileNotFoundError):
        cclab.load(tmp_path)


def test_plot_draws_three_panels_and_writes_a_png(quick_result, tmp_path):
    png = tmp_path / "plot.png"
    fig = quick_result.plot(png)
    axes = fig.get_axes()
    assert len(axes) == 3
    assert len(axes[0].get_lines()) == 4 and len(axes[1].get_lines()) == 4
    assert len(axes[2].get_lines()) == 1
    # The goodput panel is in Mbit/s and stays under the 100 Mbit/s bottleneck on average.
    y = np.concatenate([ln.get_ydata() for ln in axes[1].get_lines()])
    assert 0 < np.mean(y) < 100
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 20_000


def test_plot_without_time_series_explains_what_is_missing(quick):
    del quick["sample_interval"]
    r = cclab.run(quick)
    assert r.flow_series.empty and r.queue_series.empty
    with pytest.raises(ValueError, match="sample_interval"):
        r.plot()


def test_report_markdown_has_the_numbers_and_a_row_per_flow(quick_result):
    md = quick_result.report_markdown()
    assert md.startswith("# cclab: quickstart")
    s = quick_result.summary()
    assert f"{100 * s['bottleneck_utilization']:.2f} %" in md
    for r in quick_result.flows.itertuples():
        assert f"| {r.name} | newreno | sack |" in md
        assert f"{r.goodput_bps / 1e6:.2f}" in md
    assert md.count("\n| newreno.") == 4


def test_repr_names_the_run(quick_result):
    assert repr(quick_result).startswith("<Result 'quickstart': 4 flows, 10 s simulated, seed 7")
    assert not math.isnan(quick_result.wall_time_s)


# -- load checks what it reads -------------------------------------------------------------------


def test_schema_is_what_a_run_gives(quick_result):
    """SCHEMA (what load checks against) is the core's tables: names, order and kinds."""
    import pyarrow as pa

    from cclab.result import SCHEMA, _kind

    for name in TABLES:
        df = getattr(quick_result, name)
        want = [c.split(":") for c in SCHEMA[name].split()]
        assert [c for c, _ in want] == list(df.columns), name
        if len(df):
            kinds = [_kind(pa.Schema.from_pandas(df, preserve_index=False).field(c).type) for c, _ in want]
            assert kinds == [k for _, k in want], name


def _damage_summary_garbage(d):
    (d / "summary.json").write_text("{not json")
    return "summary.json", "not valid JSON"


def _damage_summary_binary(d):
    (d / "summary.json").write_bytes(b"\xff\xfe\x00\x01")
    return "summary.json", "not text"


def _damage_summary_no_seed(d):
    meta = json.loads((d / "summary.json").read_text())
    del meta["seed"]
    (d / "summary.json").write_text(json.dumps(meta))
    return "summary.json", "no 'seed' entry"


def _damage_summary_list(d):
    (d / "summary.json").write_text("[1, 2]")
    return "summary.json", "expected a JSON object"


def _damage_table_missing(d):
    (d / "queues.parquet").unlink()
    return "queues.parquet", "missing"


def _damage_table_not_parquet(d):
    (d / "flows.parquet").write_bytes(b"PAR1 this is not parquet")
    return "flows.parquet", "not a readable Parquet file"


def _damage_table_truncated(d):
    data = (d / "links.parquet").read_bytes()
    (d / "links.parquet").write_bytes(data[: len(data) // 2])
    return "links.parquet", "not a readable Parquet file"


def _damage_table_other_columns(d):
    pd.read_parquet(d / "queues.parquet").to_parquet(d / "flows.parquet", index=False)  # another table
    return "flows.parquet", "not the 'flows' table: columns missing ['flow'"


def _damage_column_type(d):
    df = pd.read_parquet(d / "flows.parquet")
    df["retransmits"] = df["retransmits"].astype(str)
    df.to_parquet(d / "flows.parquet", index=False)
    return "flows.parquet", "column 'retransmits' holds text, expected unsigned integers (uint64)"


def _damage_scenario(d):
    (d / "scenario.toml").write_text("duration = = 3")
    return "scenario.toml", "not a readable scenario"


DAMAGE = [_damage_summary_garbage, _damage_summary_binary, _damage_summary_no_seed, _damage_summary_list,
          _damage_table_missing, _damage_table_not_parquet, _damage_table_truncated, _damage_table_other_columns,
          _damage_column_type, _damage_scenario]


@pytest.mark.parametrize("damage", DAMAGE, ids=[f.__name__[8:] for f in DAMAGE])
def test_load_of_a_damaged_folder_names_the_file_and_the_problem_in_one_line(quick_result, tmp_path, damage):
    from cclab.result import ResultError

    quick_result.save(tmp_path)
    cclab.load(tmp_path)  # whole, it loads
    file, words = damage(tmp_path)
    with pytest.raises(ResultError) as ei:
        cclab.load(tmp_path)
    msg = str(ei.value)
    assert msg.startswith(f"{tmp_path / file}: ") and words in msg, msg
    assert "\n" not in msg and len(msg) < 400 + len(str(tmp_path))
    assert isinstance(ei.value, ValueError) and ei.value.path == tmp_path / file


def test_a_bbr_flow_fills_cc_series_and_a_result_saved_without_that_table_loads_it_empty(tmp_path):
    sc = {"name": "bbr", "duration": "2s", "sample_interval": "100ms",
          "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
          "flows": [{"cc": "bbr", "recovery": "sack", "rtt": "40ms"}, {"cc": "cubic", "recovery": "sack", "rtt": "40ms"}]}
    r = cclab.run(sc, seed=1)
    cs = r.cc_series
    assert set(cs["flow"]) == {0}, "only the BBR flow shows a state"
    assert len(cs) == len(r.flow_series) // 2
    assert set(cs["state"]) <= {"STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT"}
    assert (cs["pacing_rate_bps"] > 0).all()
    d = r.save(tmp_path / "r")
    (d / "cc_series.parquet").unlink()
    back = cclab.load(d)
    assert back.cc_series.empty and list(back.cc_series.columns) == list(cs.columns)


def test_a_folder_saved_before_the_measured_counts_loads_them_as_unknown(tmp_path):
    import pyarrow.parquet as pq

    res = cclab.run({"name": "t", "duration": "3s", "warmup": "1s",
                     "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "8ms",
                                                                    "buffer": "0.25bdp"}},
                     "flows": [{"cc": "newreno", "count": 2, "rtt": "20ms"}]})
    later = ["drops_measured", "retransmits_measured", "timeouts_measured", "payload_goodput_bps"]
    f = res.flows
    # Over the measured window: never more than the whole run; payload below the wire's goodput.
    assert (f["drops_measured"] <= f["drops"]).all() and (f["retransmits_measured"] <= f["retransmits"]).all()
    assert (f["payload_goodput_bps"] < f["goodput_bps"]).all()
    assert f["payload_goodput_bps"].iloc[0] == pytest.approx(f["goodput_bps"].iloc[0] * (1500 - 52) / 1500)
    d = res.save(tmp_path / "r")
    old = pq.read_table(d / "flows.parquet").drop_columns(later)
    pq.write_table(old, d / "flows.parquet")
    back = cclab.load(d)
    assert back.flows[later].isna().all().all()
    assert back.flows["goodput_bps"].tolist() == f["goodput_bps"].tolist()
