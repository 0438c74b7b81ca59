"""Running scenarios: tables, conservation, determinism, threads, progress."""

from __future__ import annotations

import copy
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict

import numpy as np
import pandas as pd
import pytest

import cclab
from cclab import _core
from cclab.result import TABLES


def assert_same_result(a: cclab.Result, b: cclab.Result) -> None:
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True, obj=name)
    sa, sb = a.summary(), b.summary()
    for k in ("wall_time_s", "cpu_time_s", "delivered_pkts_per_s"):
        sa.pop(k), sb.pop(k)
    assert sa == sb


def test_tables_have_one_row_per_flow_and_per_link(quick_result):
    r = quick_result
    assert len(r.flows) == 4
    assert r.flows["flow"].tolist() == [0, 1, 2, 3]
    assert r.flows["name"].tolist() == [f"newreno.{i}" for i in range(4)]
    assert set(r.flows["cc"]) == {"newreno"}
    assert set(r.flows["recovery"]) == {"sack"}
    # Dumbbell: the bottleneck both ways plus four access links per flow.
    assert len(r.links) == len(r.queues) == 2 + 4 * 4
    assert r.links["role"].tolist().count("bottleneck") == 1
    assert r.queues["name"].tolist() == r.links["name"].tolist()


def test_time_series_have_one_row_per_sample_and_flow(quick_result):
    fs, qs = quick_result.flow_series, quick_result.queue_series
    times = np.unique(fs["time_s"])
    # 10 s sampled every 100 ms, from t = 0: 101 samples (the last one at 10 s).
    assert len(times) == 101
    assert times[0] == 0.0 and times[-1] == pytest.approx(10.0)
    assert len(fs) == 101 * 4
    # Only the bottleneck queue is sampled on a dumbbell.
    bottleneck = int(quick_result.links.query("role == 'bottleneck'")["link"].iloc[0])
    assert set(qs["link"]) == {bottleneck}
    assert len(qs) == 101
    # Cumulative delivered bytes never decrease.
    for _, g in fs.groupby("flow"):
        assert (np.diff(g["delivered_bytes"].to_numpy().astype(np.int64)) >= 0).all()


def test_data_packets_are_conserved(quick_result):
    s = quick_result.summary()
    assert s["data_sent"] > 10_000
    assert s["data_sent"] == s["data_received"] + s["data_dropped"] + s["data_in_queues"] + s["data_on_wires"]
    # The flows table and the summary count the same drops and sends.
    assert int(quick_result.flows["sent_pkts"].sum()) == s["data_sent"]
    assert int(quick_result.flows["drops"].sum()) == s["data_dropped"]


def test_the_run_fills_the_bottleneck(quick_result):
    s = quick_result.summary()
    assert 0.9 < s["bottleneck_utilization"] <= 1.0
    assert s["total_goodput_bps"] == pytest.approx(quick_result.flows["goodput_bps"].sum())
    assert s["total_goodput_bps"] < 100e6
    assert s["bdp_pkts"] == pytest.approx(100e6 / 8 * 0.040 / 1500)


def test_same_seed_gives_identical_results(quick):
    assert_same_result(cclab.run(quick, seed=3), cclab.run(quick, seed=3))


def test_scenario_seed_is_used_when_no_seed_is_given(quick):
    quick["seed"] = 11
    a = cclab.run(quick)
    assert a.seed == 11
    assert_same_result(a, cclab.run(quick, seed=11))
    del quick["seed"]
    assert cclab.run(quick).seed == 1


def test_different_seeds_draw_different_start_times(quick):
    a = cclab.run(quick, seed=1).flows["start_s"].to_numpy()
    b = cclab.run(quick, seed=2).flows["start_s"].to_numpy()
    assert ((a >= 0) & (a <= 1.0)).all() and ((b >= 0) & (b <= 1.0)).all()
    assert not np.array_equal(a, b)
    # Without a spread every flow starts at `start`.
    quick["flows"][0]["start_spread"] = "0s"
    quick["flows"][0]["start"] = "0.5s"
    assert cclab.run(quick, seed=2).flows["start_s"].tolist() == [0.5] * 4


def test_runs_in_two_threads_at_once_match_a_run_alone(quick):
    alone = cclab.run(quick, seed=5)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        a, b = pool.map(lambda _: cclab.run(copy.deepcopy(quick), seed=5), range(2))
    both = time.perf_counter() - t0
    assert_same_result(a, b)
    assert_same_result(a, alone)
    # Timing is informative only: the machine may be shared.
    print(f"\none run {alone.wall_time_s:.3f} s; two in parallel {both:.3f} s wall")


def test_the_core_releases_the_gil_while_it_runs(quick):
    """While another thread is inside one long run_until, this thread keeps running Python.

    If the core held the GIL, this thread would stall for the whole call; the
    largest gap between two iterations of the loop below would be as long as it.
    """
    quick["duration"] = "60s"
    sim = _core.Sim(__import__("json").dumps(quick), 1)
    span: list[float] = []

    def worker() -> None:
        t0 = time.perf_counter()
        sim.run_until(sim.duration)
        span.append(time.perf_counter() - t0)

    th = threading.Thread(target=worker)
    largest_gap = 0.0
    last = time.perf_counter()
    th.start()
    while th.is_alive():
        now = time.perf_counter()
        largest_gap = max(largest_gap, now - last)
        last = now
    th.join()
    print(f"\nrun_until took {span[0]:.3f} s; the other thread's largest stall {largest_gap * 1e3:.1f} ms")
    assert sim.now == sim.duration
    assert span[0] > 0.05, "the run is too short to tell"
    assert largest_gap < 0.5 * span[0]


def test_progress_callback_sees_simulated_time_up_to_the_duration(quick):
    seen: list[tuple[float, float]] = []
    cclab.run(quick, progress=lambda now, dur: seen.append((now, dur)))
    assert 90 <= len(seen) <= 110
    nows = [n for n, _ in seen]
    assert nows == sorted(nows) and nows[0] > 0
    assert nows[-1] == 10.0
    assert {d for _, d in seen} == {10.0}


def test_keyboard_interrupt_in_a_callback_stops_the_run(quick):
    calls = []

    def stop(now: float, dur: float) -> None:
        calls.append(now)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cclab.run(quick, progress=stop)
    assert len(calls) == 3


def test_a_toml_path_runs_like_the_same_dict(quickstart_path):
    a = cclab.run(quickstart_path, seed=4)
    b = cclab.run(cclab.load_scenario(str(quickstart_path)), seed=4)
    assert a.scenario == b.scenario
    assert a.scenario["name"] == "quickstart" and a.scenario["duration"] == "30s"
    assert_same_result(a, b)


def test_run_does_not_modify_the_callers_dict(quick):
    before = copy.deepcopy(quick)
    cclab.run(quick, seed=2)
    assert quick == before


def test_graph_parking_lot_samples_every_link_and_the_long_flow_gets_least(quickstart_path):
    sc = cclab.load_scenario(quickstart_path.parent / "graph-parking-lot.toml")
    sc["duration"] = "10s"
    r = cclab.run(sc)
    assert r.flows["name"].tolist() == ["long.0", "cross1.0", "cross2.0"]
    assert r.flows["base_rtt_s"].tolist() == pytest.approx([0.060, 0.020, 0.020])
    assert r.bdp_pkts is None and "bottleneck_utilization" not in r.summary()
    # Three duplex links: six directed links, all sampled.
    assert len(r.links) == 6
    assert set(r.queue_series["link"]) == set(r.links["link"])
    gp = r.flows.set_index("name")["goodput_bps"]
    assert gp["long.0"] < gp["cross1.0"] and gp["long.0"] < gp["cross2.0"]


def test_a_run_parses_and_builds_its_scenario_once(quick, monkeypatch):
    # The simulation a run advances is the one build of its scenario: no separate
    # `check` before it (which built the whole simulation too), no second Sim.
    calls = {"Sim": 0, "check_scenario": 0}
    real_sim, real_check = _core.Sim, _core.check_scenario

    def counting_sim(*args):
        calls["Sim"] += 1
        return real_sim(*args)

    def counting_check(*args):
        calls["check_scenario"] += 1
        return real_check(*args)

    monkeypatch.setattr(_core, "Sim", counting_sim)
    monkeypatch.setattr(_core, "check_scenario", counting_check)
    quick["duration"] = "1s"
    r = cclab.run(quick, seed=3)
    assert calls == {"Sim": 1, "check_scenario": 0}
    # What the result records is what `check` normalizes the scenario to.
    assert r.scenario == cclab.check(quick, 3)
    assert calls["check_scenario"] == 1


def test_an_invalid_scenario_fails_the_run_with_the_field_named(quick):
    quick["flows"][0]["rtt"] = "80 parsecs"
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.run(quick)
    assert e.value.field == "flows[0].rtt"


def test_a_run_whose_queue_outgrows_the_memory_budget_stops_with_memory_budget_error(monkeypatch):
    """TCP-GT's eq. (15) as printed, at a 1 s RTT, grows its window by millions of packets
    behind an unlimited access buffer: with a 64 MiB budget the run stops, in one line, with a
    MemoryBudgetError (a ScenarioError on the field `run`) that survives pickling as itself."""
    import pickle

    monkeypatch.setenv("CCLAB_MEMORY_LIMIT", "64MiB")
    sc = {"duration": "20s", "topology": {"kind": "dumbbell", "bottleneck": {"rate": "500Mbps", "delay": "1ms",
                                                                              "buffer": "1bdp"}},
          "flows": [{"cc": "tcp-gt", "count": 10, "rtt": "1000ms", "packet_size": "1000B"}]}
    with pytest.raises(cclab.MemoryBudgetError) as e:
        cclab.run(sc, seed=1)
    err = e.value
    assert isinstance(err, cclab.ScenarioError) and err.field == "run" and "\n" not in str(err)
    assert "memory passed this process's budget of 0.07 GB" in str(err) and "of 20s" in str(err)
    # The packets wait in the access queues, so the message names the queues and buffers first.
    assert re.search(r"the queues grew to \d+ packets, \d+ segments unacknowledged; accepted: finite buffers",
                     str(err)), str(err)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is cclab.MemoryBudgetError and back.field == "run" and str(back) == str(err)


def _exploding_windows(**flow: Any) -> Dict[str, Any]:
    """TCP-GT's eq. (15) as printed at a 1 s RTT: ten windows opened by millions of packets."""
    return {"duration": "20s", "topology": {"kind": "dumbbell", "bottleneck": {"rate": "500Mbps", "delay": "1ms",
                                                                                "buffer": "1bdp"}},
            "flows": [{"cc": "tcp-gt", "count": 10, "rtt": "1000ms", "packet_size": "1000B", **flow}]}


def test_a_run_stopped_for_memory_held_by_the_senders_windows_names_them_and_rwnd(monkeypatch):
    """Behind 50-packet access buffers the packets are dropped, but each sender still keeps a record
    of every segment of its window: the memory is the senders', and the message says so, names the
    largest window's flow, and offers the receiver window first. With rwnd the same run fits."""
    import gc

    gc.collect()  # a run stopped in an earlier test is freed with its traceback's reference cycle
    monkeypatch.setenv("CCLAB_MEMORY_LIMIT", "64MiB")
    # First the bounded run (the stopped one's memory stays referenced by its traceback).
    res = cclab.run(_exploding_windows(access_buffer="50pkts", rwnd=20000), seed=1)
    assert res.summary()["duration_s"] == 20.0
    with pytest.raises(cclab.MemoryBudgetError) as e:
        cclab.run(_exploding_windows(access_buffer="50pkts"), seed=1)
    msg = str(e.value)
    m = re.search(r"the senders' windows grew to (\d+) unacknowledged segments \((\d+) of them (tcp-gt0\.\d+)'s\), "
                  r"(\d+) packets queued; accepted: a receiver window \(rwnd\) that bounds them, finite buffers", msg)
    assert m, msg
    total, largest, queued = int(m.group(1)), int(m.group(2)), int(m.group(4))
    assert total >= largest > 0 and queued < total


def test_a_window_opened_by_millions_of_packets_in_one_ack_stops_cleanly_under_an_address_space_limit():
    """Under `ulimit -v` the budget is 80 % of what the limit leaves. TCP-GT's eq. (15) at a 1 s RTT
    opens 50 windows by millions of packets within single ACKs, each burst into an unlimited
    access buffer: checked only between steps, one event outgrew the budget and the process
    aborted ("memory allocation of ... failed"). The allocator now stops the run inside the event."""
    import subprocess
    import sys
    from pathlib import Path

    code = """
import resource, cclab
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
sc = {"duration": "20s", "topology": {"kind": "dumbbell", "bottleneck": {"rate": "500Mbps", "delay": "1ms",
      "buffer": "1bdp"}}, "flows": [{"cc": "tcp-gt", "count": 50, "rtt": "1000ms", "packet_size": "1000B",
      "start_spread": "1s", "recovery": "sack", "stack": "ns2"}]}
try:
    cclab.run(sc, seed=3)
except cclab.MemoryBudgetError as e:
    print("stopped:", e.field)
"""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(cclab.__file__).resolve().parents[1])}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0 and p.stdout.strip() == "stopped: run", (p.returncode, p.stdout, p.stderr[-500:])
