"""The Linux engine (docs/linux.md): the namespace testbed, real kernel TCP flows, the BPF
congestion control, the refusals, and that nothing is left behind.

The testbed tests need root, network namespaces, tc, ethtool and gcc (the BPF ones also clang,
bpftool and the kernel's BTF) and SKIP with the reason otherwise. They run in real time at
20 Mbit/s, where a loaded 2-core machine still forwards honestly, and assert with margins that
scheduling noise does not reach (docs/linux.md gives the figures they were set from).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import cclab
from cclab.linux import engine
from cclab.advice import CclabWarning
from cclab.linux.endpoint import StateReader
from cclab.linux.errors import Unsupported
from cclab.linux.result_build import LIMITED_FLAG, bbr_mode, limited_fractions
from cclab.linux.host import NS_STEM, cleanup_leftovers, missing_requirements, registered_ccs, registered_struct_ops
from cclab.linux.testbed import Testbed as Bed

ROOT = Path(__file__).resolve().parents[1]
# The children run the cclab this test imported (an installed wheel in CI, a source tree elsewhere).
ENV = {**os.environ, "PYTHONPATH": str(Path(cclab.__file__).resolve().parents[1])}
NO_TESTBED = missing_requirements()
NO_BPF = missing_requirements(bpf=True)
needs_testbed = pytest.mark.skipif(NO_TESTBED is not None, reason=f"Linux testbed unavailable: {NO_TESTBED}")
needs_bpf = pytest.mark.skipif(NO_BPF is not None, reason=f"BPF congestion controls unavailable: {NO_BPF}")


def dumbbell(cc: str = "reno", duration: str = "8s", buffer: str = "1bdp", **flow: object) -> dict:
    return {
        "name": "linux-test", "duration": duration, "sample_interval": "100ms",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "20Mbps", "delay": "18ms", "buffer": buffer}},
        "flows": [{"cc": cc, "rtt": "40ms", **flow}],
    }


def our_namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(NS_STEM)]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


# -- refusals (no root needed) --------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda s: s["topology"]["bottleneck"].update(queue="red"), "topology.bottleneck.queue"),
        (lambda s: s["topology"]["bottleneck"].update(rate="1Gbps"), "topology.bottleneck.rate"),
        (lambda s: s["topology"]["bottleneck"].update(delay_schedule=[["1s", "600ms"]]), "topology.bottleneck.delay_schedule"),
        (lambda s: s["topology"]["bottleneck"].update(mahimahi="trace.up"), "topology.bottleneck.mahimahi"),
        (lambda s: s["topology"]["bottleneck"].update(rate_schedule=[["1s", "300Mbps"]]), "topology.bottleneck.rate_schedule"),
        (lambda s: s["topology"]["bottleneck"].update(rate_schedule=[["1s", "10kbps"]]), "topology.bottleneck.rate_schedule"),
        (lambda s: s["flows"][0].update(cc="vegas"), "flows[0].cc"),
        (lambda s: s["flows"][0].update(count=17), "flows"),
        (lambda s: s["flows"].append({"cc": "cubic", "rtt": "1200ms"}), "flows[1].rtt"),
        (lambda s: (s["flows"][0].pop("rtt"), s["flows"][0].update(access_delay="600ms")), "flows[0].access_delay"),
        (lambda s: s.update(udp=[{"rate": "1Mbps"}]), "udp"),
        (lambda s: s.update(duration="1000s"), "duration"),
    ],
)
def test_a_field_the_testbed_cannot_honour_is_refused_naming_it(change, field) -> None:
    sc = dumbbell()
    change(sc)
    with pytest.raises(Unsupported) as e:
        engine.plan(sc, 1)
    assert e.value.field == field
    assert str(e.value).startswith(field + ": ") and "\n" not in str(e.value)


def test_the_cli_refuses_an_aqm_on_linux_in_one_line_before_building_anything(tmp_path: Path) -> None:
    bad = tmp_path / "red.toml"
    bad.write_text((ROOT / "scenarios" / "single-reno.toml").read_text().replace('"droptail"', '"red"'))
    p = subprocess.run([sys.executable, "-m", "cclab", "run", str(bad), "--engine", "linux", "-q",
                        "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        "error: topology.bottleneck.queue: 'red': this kernel has no AQM qdisc (no red, codel, fq_codel, pie); "
        "the Linux engine accepts droptail"]


def test_a_round_trip_beyond_the_delay_lines_bound_is_refused_with_value_and_bound() -> None:
    sc = dumbbell()
    sc["flows"].append({"cc": "reno", "rtt": "1200ms"})
    with pytest.raises(Unsupported) as e:
        engine.plan(sc, 1)
    assert str(e.value) == ("flows[1].rtt: 1200 ms round trip (600 ms forward, 600 ms back): the Linux delay line "
                            "accepts one-way delays up to 500 ms (docs/linux.md)")


def test_the_cli_refuses_a_round_trip_beyond_the_bound_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "far.toml"
    bad.write_text((ROOT / "scenarios" / "linux" / "rtt-fairness-reno.toml").read_text().replace('"120ms"', '"1200ms"'))
    p = subprocess.run([sys.executable, "-m", "cclab", "compare", str(bad), "--engines", "sim,linux"],
                       capture_output=True, text=True, timeout=60, env=ENV)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        "error: flows[1].rtt: 1200 ms round trip (600 ms forward, 600 ms back): the Linux delay line accepts one-way "
        "delays up to 500 ms (docs/linux.md)"]


def two_rtts(duration: str = "5s") -> dict:
    # 20 and 80 ms round trips over a 5 ms bottleneck: access delays 4 ms and 34 ms (docs/scenario.md).
    return {
        "name": "linux-two-rtts", "duration": duration, "sample_interval": "100ms",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "20Mbps", "delay": "5ms", "buffer": "1bdp"}},
        "flows": [{"cc": "reno", "rtt": "20ms"}, {"cc": "reno", "rtt": "80ms"}],
    }


def test_flows_with_different_round_trips_get_one_relay_class_each_and_equal_ones_none() -> None:
    p = engine.plan(two_rtts(), 1)
    # Keyed by each flow's receiver port; the one-way delays are the sums of the path's links.
    assert p["classes"].keys() == {engine.PORT, engine.PORT + 1}
    assert p["classes"][engine.PORT] == pytest.approx((0.010, 0.010))
    assert p["classes"][engine.PORT + 1] == pytest.approx((0.040, 0.040))
    # Equal round trips: no class, the relay's single FIFO per direction as before.
    same = dumbbell(count=3)
    same["flows"].append({"cc": "cubic", "rtt": "40ms"})
    assert engine.plan(same, 1)["classes"] == {}


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
@pytest.mark.parametrize("arg, line", [
    ("5201:10", "delay_line: class '5201:10': accepted: PORT:A_TO_B_US:B_TO_A_US, a port 1-65535 and delays 0 to "
                "1000000 microseconds"),
    ("5201:2000000:1", "delay_line: class '5201:2000000:1': accepted: PORT:A_TO_B_US:B_TO_A_US, a port 1-65535 and "
                       "delays 0 to 1000000 microseconds"),
])
def test_the_delay_line_refuses_a_bad_class_in_one_line_before_opening_anything(arg, line) -> None:
    from cclab.linux.host import HERE, compile_c

    binary = compile_c(HERE / "c" / "delay_line.c", "delay_line")
    p = subprocess.run([str(binary), "no-such-if", "no-such-if", "1000", "1000", arg], capture_output=True, text=True,
                       timeout=10)
    assert p.returncode == 1 and p.stderr.strip().splitlines() == [line]


GE_ACCEPTED = "accepted: P:R:LOSS_GOOD:LOSS_BAD, P and R in (0, 1], the losses in [0, 1]"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
@pytest.mark.parametrize("arg, line", [
    ("loss=2", "delay_line: loss '2': accepted: a probability 0 to 1"),
    ("loss=0.1x", "delay_line: loss '0.1x': accepted: a probability 0 to 1"),
    ("seed=-1", "delay_line: seed '-1': accepted: a whole number >= 0"),
    ("jitter=-5", "delay_line: jitter '-5': accepted: 0 to 1000000 microseconds"),
    ("jitter=1.5", "delay_line: jitter '1.5': accepted: 0 to 1000000 microseconds"),
    ("gemodel=0:0.5:0:1", "delay_line: gemodel '0:0.5:0:1': " + GE_ACCEPTED),
    ("gemodel=0.1:0.5:0:1.5", "delay_line: gemodel '0.1:0.5:0:1.5': " + GE_ACCEPTED),
    ("gemodel=0.1:0.5:0", "delay_line: gemodel '0.1:0.5:0': " + GE_ACCEPTED),
    ("gemodel=0.1:0.5:0:1:", "delay_line: gemodel '0.1:0.5:0:1:': " + GE_ACCEPTED),
])
def test_the_delay_line_refuses_a_bad_loss_or_seed_in_one_line(arg, line) -> None:
    from cclab.linux.host import HERE, compile_c

    binary = compile_c(HERE / "c" / "delay_line.c", "delay_line")
    p = subprocess.run([str(binary), "no-such-if", "no-such-if", "1000", "1000", arg], capture_output=True, text=True,
                       timeout=10)
    assert p.returncode == 1 and p.stderr.strip().splitlines() == [line]


def test_the_same_scenario_plans_the_dumbbell_the_simulator_builds() -> None:
    p = engine.plan(dumbbell(buffer="1bdp"), 1)
    # 20 Mbit/s x 40 ms / 1500 B = 66.7 packets; the simulator rounds the buffer up to 67.
    assert p["limit_pkts"] == 67 and p["rate_bps"] == 20e6
    assert p["fwd_s"] == pytest.approx(0.020) and p["rev_s"] == pytest.approx(0.020)
    assert p["kernel_cc"] == ["reno"] and engine.plan(dumbbell(cc="newreno"), 1)["kernel_cc"] == ["reno"]
    assert p["loss"] == 0 and p["gilbert_elliott"] is None


def test_a_rate_schedule_is_planned_as_the_simulator_resolves_it_and_a_bad_step_names_its_value() -> None:
    sc = dumbbell()
    sc["topology"]["bottleneck"]["rate_schedule"] = [["2s", "5Mbps"], ["4.5s", "30Mbps"]]
    assert engine.plan(sc, 1)["rate_steps"] == [(2.0, 5_000_000), (4.5, 30_000_000)]
    assert engine.plan(dumbbell(), 1)["rate_steps"] == []
    sc["topology"]["bottleneck"]["rate_schedule"] = [["2s", "5Mbps"], ["3s", "250Mbps"]]
    with pytest.raises(Unsupported, match=r"^topology\.bottleneck\.rate_schedule: 250 Mbit/s at 3 s: .*0\.064 to 200 Mbit/s$"):
        engine.plan(sc, 1)


def test_schedules_and_jitter_are_planned_as_the_simulator_resolves_them() -> None:
    sc = dumbbell()  # 40 ms: the bottleneck's delay is 18 ms
    b = sc["topology"]["bottleneck"]
    b.update(loss_schedule=[["2s", 0.01], ["4s", 0]], delay_schedule=[["3s", "30ms"], ["5s", "8ms"]], jitter="2ms")
    p = engine.plan(sc, 1)
    assert p["loss_steps"] == [(2.0, 0.01), (4.0, 0.0)] and p["jitter_s"] == pytest.approx(0.002)
    # Each delay step as the change from the bottleneck's own delay, which every path includes.
    assert [t for t, _ in p["delay_steps"]] == [3.0, 5.0]
    assert [by for _, by in p["delay_steps"]] == pytest.approx([0.012, -0.010])
    plain = engine.plan(dumbbell(), 1)
    assert plain["loss_steps"] == plain["delay_steps"] == [] and plain["jitter_s"] == 0
    # The longest one-way delay a schedule reaches is bound as a flow's is.
    b["delay_schedule"] = [["3s", "499ms"]]
    with pytest.raises(Unsupported, match=r"^topology\.bottleneck\.delay_schedule: 503 ms one way at its longest "
                                          r"\(flows\[0\]\): .* up to 500 ms"):
        engine.plan(sc, 1)


def test_gilbert_elliott_loss_is_planned_with_the_simulator_s_defaults_and_refused_beside_loss() -> None:
    sc = dumbbell()
    sc["topology"]["bottleneck"]["gilbert_elliott"] = {"p": 0.02, "r": 0.5}
    assert engine.plan(sc, 1)["gilbert_elliott"] == (0.02, 0.5, 0.0, 1.0)
    sc["topology"]["bottleneck"]["gilbert_elliott"] = {"p": 0.02, "r": 0.5, "loss_good": 0.01, "loss_bad": 0.6}
    assert engine.plan(sc, 1)["gilbert_elliott"] == (0.02, 0.5, 0.01, 0.6)
    sc["topology"]["bottleneck"]["loss"] = 0.01
    with pytest.raises(cclab.ScenarioError, match=r"gilbert_elliott"):
        engine.plan(sc, 1)


def _relay_counts(over_fwd: int, over_rev: int, lost: int = 0) -> dict:
    return {"fwd": lost, "rev": 0, "late_fwd_frames": 5000, "late_rev_frames": 5000,
            "late_fwd_over_1ms": over_fwd, "late_rev_over_1ms": over_rev}


def test_a_run_whose_relay_was_late_for_over_one_percent_of_its_frames_is_warned_about() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        engine._warn_relay(_relay_counts(50, 50), held=True)  # 1 % exactly: not flagged
        engine._warn_relay({}, held=False)  # the relay left no counts: nothing to say
    with pytest.warns(CclabWarning, match=r"topology\.bottleneck\.delay: .* 101 of 10000 frames .* held: no"):
        engine._warn_relay(_relay_counts(51, 50), held=False)
    with pytest.warns(CclabWarning, match=r"topology\.bottleneck\.rate: the delay line lost 3 data"):
        engine._warn_relay(_relay_counts(0, 0, lost=3), held=True)


# -- the testbed ----------------------------------------------------------------------------------


@needs_testbed
@pytest.mark.skipif(shutil.which("ping") is None, reason="ping is not installed (iputils-ping)")
def test_the_idle_round_trip_is_the_configured_one_within_2_ms() -> None:
    with Bed(20e6, 100, None, 0.020, 0.020) as tb:
        rtts = np.array(tb.ping_rtt(count=40, interval_s=0.02))
    assert len(rtts) >= 38
    # The delay line never delivers early, and its median lateness stays well under 2 ms.
    assert rtts.min() >= 0.0399
    assert abs(np.median(rtts) - 0.040) < 0.002


def _cpu_latency_target() -> int:
    """The kernel's aggregated CPU latency target in us (2,000,000,000: no request)."""
    with open("/dev/cpu_dma_latency", "rb") as f:
        return struct.unpack("=i", f.read(4))[0]


@needs_testbed
@pytest.mark.skipif(not os.path.exists("/dev/cpu_dma_latency"), reason="no /dev/cpu_dma_latency (PM QoS) here")
def test_the_testbed_holds_a_zero_cpu_latency_request_while_up_and_withdraws_it_after() -> None:
    before = _cpu_latency_target()
    assert before > 0, "another process holds a CPU latency request: this test cannot tell ours apart"
    with Bed(20e6, 100, None, 0.010, 0.010) as tb:
        assert tb.cpu_latency_held and _cpu_latency_target() == 0
    assert _cpu_latency_target() == before
    Bed.cpu_latency_qos = False
    try:
        with Bed(20e6, 100, None, 0.010, 0.010) as tb:
            assert not tb.cpu_latency_held and _cpu_latency_target() == before
    finally:
        Bed.cpu_latency_qos = True


@needs_testbed
def test_one_reno_flow_fills_the_bottleneck_and_the_queue_stays_within_its_buffer() -> None:
    res = cclab.run(dumbbell("reno", "8s"), engine="linux")
    fs = res.flow_series
    d = fs.set_index("time_s")["delivered_bytes"]
    late = (d.loc[8.0] - d.loc[4.0]) * 8 / 4.0
    # Over the last half the flow delivers the bottleneck's rate (wire bits), within 15 %.
    assert late == pytest.approx(20e6, rel=0.15)
    # Each sample is taken at its time: every whole second after slow start carries the rate too
    # (late samples, all taken at the end, would show seconds of nothing and one of everything).
    per_second = np.diff(d.loc[[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]].to_numpy()) * 8
    assert per_second.min() > 0.7 * 20e6 and per_second.max() < 1.3 * 20e6
    q = res.queues.iloc[0]
    assert q["role"] == "bottleneck" and 0 < q["max_len_pkts"] <= 67
    assert res.summary()["bottleneck_utilization"] > 0.85
    # Every loss was the bottleneck's: the delay line lost nothing.
    assert res.summary()["linux_relay_lost"] == 0
    assert res.flows.loc[0, "cc"] == "reno" and res.flows.loc[0, "rtt_min_s"] >= 0.0399
    assert not our_namespaces()


@needs_testbed
def test_the_scenario_s_random_loss_drops_data_in_the_delay_line_before_the_queue() -> None:
    sc = dumbbell("reno", "8s", buffer="1bdp")
    sc["topology"]["bottleneck"]["loss"] = 0.01
    res = cclab.run(sc, engine="linux", seed=3)
    q, f = res.queues.iloc[0], res.flows.iloc[0]
    # About 1 % of the data frames, within four standard deviations of the binomial count.
    n = f["sent_pkts"]
    assert abs(q["drops_link"] - 0.01 * n) <= 4 * np.sqrt(0.01 * 0.99 * n) and q["drops_link"] > 0
    # Counted as the simulator counts a link's random loss: in the bottleneck's drops, not its overflow.
    assert q["drops"] == q["drops_overflow"] + q["drops_link"]
    assert res.summary()["bottleneck_drops"] == q["drops"]
    # Each random loss is a data segment the kernel sends again, but for those in the run's last
    # round trip (about 0.7 expected at 1 % and 20 Mbit/s; one was seen); the relay lost nothing else.
    assert f["retransmits"] >= q["drops_link"] - 3
    assert res.summary()["linux_relay_lost"] == 0


@needs_testbed
def test_the_bottleneck_follows_its_rate_schedule_step_by_step() -> None:
    sc = dumbbell("cubic", "9s")
    sc["topology"]["bottleneck"]["rate_schedule"] = [["3s", "5Mbps"], ["6s", "20Mbps"]]
    res = cclab.run(sc, engine="linux", seed=1)
    s = res.summary()
    # Both steps were applied, each within 50 ms of its time (tc takes a few).
    assert s["linux_rate_steps"] == 2 and 0 <= s["linux_rate_step_late_max_s"] < 0.05
    # The queue is never empty once cubic has filled it, so what leaves it per phase is the
    # phase's rate (the samples within 0.5 s after a step left out), within 2 %.
    qs = res.queue_series
    t, thr = qs["time_s"].to_numpy(), qs["throughput_bps"].to_numpy()
    for a, b, rate in ((1.0, 3.0, 20e6), (3.5, 6.0, 5e6), (6.5, 9.0, 20e6)):
        m = (t > a) & (t <= b)
        assert thr[m].mean() == pytest.approx(rate, rel=0.02), (a, b)


@needs_testbed
def test_gilbert_elliott_loss_drops_data_in_bursts_of_the_asked_mean_length() -> None:
    # bbr keeps the link busy whatever it loses, so the channel sees some 13,000 data frames.
    sc = dumbbell("bbr", "8s", buffer="1bdp")
    sc["topology"]["bottleneck"]["gilbert_elliott"] = {"p": 0.02, "r": 0.5}
    res = cclab.run(sc, engine="linux", seed=5)
    q, f, s = res.queues.iloc[0], res.flows.iloc[0], res.summary()
    # The mean loss p / (p + r) = 3.85 % of the data frames, and bursts of 1 / r = 2 frames on
    # average: with some 250 bursts (lengths geometric, sd 1.41) the mean length's standard
    # error is 0.09, so 1.6-2.5 is over four of them; the count of drops, within a quarter.
    n, drops, bursts = f["sent_pkts"], q["drops_link"], s["linux_relay_loss_bursts"]
    assert n > 5000 and abs(drops - 0.02 / 0.52 * n) <= 0.25 * 0.02 / 0.52 * n
    assert 1.6 <= drops / bursts <= 2.5
    assert q["drops"] == q["drops_overflow"] + q["drops_link"] and s["linux_relay_lost"] == 0
    # Independent loss at the same mean gives bursts of 1 / (1 - 0.0385) = 1.04 frames.
    sc["topology"]["bottleneck"].pop("gilbert_elliott")
    sc["topology"]["bottleneck"]["loss"] = 0.02 / 0.52
    res2 = cclab.run(sc, engine="linux", seed=5)
    assert res2.queues.iloc[0]["drops_link"] / res2.summary()["linux_relay_loss_bursts"] < 1.2


@needs_testbed
def test_the_delay_line_jitters_each_frame_within_its_bound_and_moves_every_delay_on_command() -> None:
    with Bed(20e6, 100, None, 0.020, 0.020, jitter_s=0.005, seed=3) as tb:
        jittered = np.array(tb.ping_rtt(count=100, interval_s=0.02))
        tb.change_delay(0.010)
        longer = np.array(tb.ping_rtt(count=30, interval_s=0.02))
    assert len(jittered) >= 95 and len(longer) >= 28
    # Each way uniform in 20 +- 5 ms: the round trip within 30-50 ms (ping's 0.1 ms and the
    # relay's lateness on top), its standard deviation 5 ms x sqrt(2/3) = 4.08 ms; 100 pings
    # give that within about 7 %, so 3.3-4.9 ms is over three of them.
    assert jittered.min() >= 0.0299 and jittered.max() <= 0.0520
    assert 0.0033 <= jittered.std() <= 0.0049
    # 10 ms more each way: 20 ms more per round trip.
    assert longer.min() >= 0.0499 and abs(np.median(longer) - np.median(jittered) - 0.020) < 0.003


@needs_testbed
def test_a_loss_schedule_drops_data_in_its_lossy_phase_only_and_a_delay_schedule_moves_the_round_trip() -> None:
    sc = dumbbell("bbr", "9s", buffer="1bdp")
    b = sc["topology"]["bottleneck"]
    b.update(loss_schedule=[["3s", 0.02], ["6s", 0.0]], delay_schedule=[["6s", "38ms"]])
    res = cclab.run(sc, engine="linux", seed=4)
    q, s, fs = res.queues.iloc[0], res.summary(), res.flow_series
    assert s["linux_loss_steps"] == 2 and s["linux_delay_steps"] == 1
    assert 0 <= s["linux_loss_step_late_max_s"] < 0.01 and 0 <= s["linux_delay_step_late_max_s"] < 0.01
    # 2 % of the data frames sent between 3 and 6 s (bbr keeps the link busy through its
    # losses: about its rate's worth), within four binomial standard deviations.
    mss = 1448
    at = fs.set_index("time_s")["delivered_bytes"]
    sent = (at[at.index <= 6.0].iloc[-1] - at[at.index <= 3.0].iloc[-1]) / mss
    assert sent > 3000 and abs(q["drops_link"] - 0.02 * sent) <= 4 * np.sqrt(0.02 * 0.98 * sent) + 0.02 * 0.05 * sent
    # 20 ms more each way from 6 s: the kernel's smoothed RTT never below the new base after it.
    rtt = fs.set_index("time_s")["srtt_s"]
    assert rtt[(rtt.index > 1) & (rtt.index <= 6)].min() < 0.075 and rtt[rtt.index > 7].min() >= 0.0795
    assert s["linux_relay_lost"] == 0


def test_the_limited_shares_come_from_the_kernel_s_chrono_times_over_the_measured_window() -> None:
    # 10 s measured: 7 s with data queued, of which 1 s receiver-window- and 0.5 s send-buffer-limited.
    start = {"busy_us": 2_000_000, "rwnd_limited_us": 0, "sndbuf_limited_us": 500_000}
    end = {"busy_us": 9_000_000, "rwnd_limited_us": 1_000_000, "sndbuf_limited_us": 1_000_000}
    assert limited_fractions(start, end, 10.0) == pytest.approx({"app": 0.3, "rwnd": 0.1, "sndbuf": 0.05})
    # From the flow's start every counter starts at zero.
    assert limited_fractions(None, end, 10.0) == pytest.approx({"app": 0.1, "rwnd": 0.1, "sndbuf": 0.1})
    # A kernel without the chrono fields (before 4.10) gives no verdict rather than a wrong one.
    assert all(np.isnan(v) for v in limited_fractions(None, {"busy_us": 1}, 10.0).values())


@needs_testbed
def test_each_flow_gets_its_own_round_trip_from_the_delay_line() -> None:
    res = cclab.run(two_rtts("5s"), engine="linux")
    f = res.flows.set_index("flow")
    assert list(f["base_rtt_s"]) == pytest.approx([0.020, 0.080])
    # The kernel's minimum RTT of each flow is its own configured one: never below, and late by
    # at most 2 ms (the idle delay line adds 0.1-0.3 ms, docs/linux.md). One delay for both
    # flows would put them within those 2 ms of each other, not 60 ms apart.
    for flow, rtt in ((0, 0.020), (1, 0.080)):
        assert rtt - 1e-4 <= f.loc[flow, "rtt_min_s"] <= rtt + 0.002, (flow, f.loc[flow, "rtt_min_s"])
    assert f.loc[1, "rtt_min_s"] - f.loc[0, "rtt_min_s"] > 0.055
    s = res.summary()
    # Every frame was classified to its flow, and none was lost outside the bottleneck.
    assert s["linux_relay_default_frames"] == 0 and s["linux_relay_lost"] == 0
    assert not our_namespaces()


@needs_testbed
def test_a_sender_that_stops_writing_halfway_is_flagged_app_limited() -> None:
    with pytest.warns(CclabWarning, match=r"app-limited"):
        res = cclab.run(dumbbell("reno", "6s", stop="3s"), engine="linux")
    # The application wrote for 3 s of 6: the kernel found nothing to send for about half the run.
    assert 0.4 < res.summary()["linux_app_limited_max"] <= 0.5
    assert res.summary()["linux_app_limited_max"] > LIMITED_FLAG


@needs_bpf
def test_the_state_reader_finds_an_entry_by_local_port_with_one_system_call(tmp_path: Path) -> None:
    if " /sys/fs/bpf bpf " not in Path("/proc/mounts").read_text():
        pytest.skip("no BPF file system at /sys/fs/bpf to pin a test map in")
    pin = Path("/sys/fs/bpf") / f"cclab_test_state_{os.getpid()}"
    subprocess.run(["bpftool", "map", "create", str(pin), "type", "hash", "key", "4", "value", "8", "entries", "4",
                    "name", "cclab_test"], check=True)
    try:
        # Port 12345 = 0x3039 (little-endian key), state 1, value 7.
        subprocess.run(["bpftool", "map", "update", "pinned", str(pin), "key", "0x39", "0x30", "0", "0",
                        "value", "1", "0", "0", "0", "7", "0", "0", "0"], check=True)
        info = subprocess.run(["bpftool", "map", "show", "pinned", str(pin), "-j"], capture_output=True, text=True,
                              check=True).stdout
        reader = StateReader(json.loads(info)["id"])
        assert reader.read(12345) == (1, 7)
        assert reader.read(12346) is None
        reader.close()
    finally:
        pin.unlink()


@needs_bpf
@pytest.mark.parametrize("pacing, cwnd, mode", [
    (739 / 256, 739 / 256, "STARTUP"), (88 / 256, 739 / 256, "DRAIN"), (1.25, 2.0, "PROBE_BW"),
    (0.75, 2.0, "PROBE_BW"), (1.0, 2.0, "PROBE_BW"), (1.0, 1.0, "PROBE_RTT"),
])
def test_kernel_bbrs_mode_is_read_from_its_gains(pacing, cwnd, mode) -> None:
    # tcp_bbr.c's gains in BBR_UNIT = 256: bbr_high_gain 739, bbr_drain_gain 88, bbr_cwnd_gain 512.
    assert bbr_mode(pacing, cwnd) == mode


@needs_testbed
def test_kernel_bbr_shows_its_modes_bandwidth_and_min_rtt_in_cc_series() -> None:
    res = cclab.run(dumbbell("bbr", "6s"), engine="linux")
    cs = res.cc_series
    assert len(cs) >= 0.9 * len(res.flow_series) and cs["state"].iloc[0] == "STARTUP"
    assert {"STARTUP", "PROBE_BW"} <= set(cs["state"]) <= {"STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT"}
    late = cs[cs["time_s"] >= 3.0]
    # Its bandwidth estimate is the bottleneck's rate (wire bits), its minimum RTT the path's 40 ms.
    assert late["bw_bps"].median() == pytest.approx(20e6, rel=0.15)
    assert late["min_rtt_s"].between(0.0399, 0.045).all()
    assert set(late["pacing_gain"].round(3)) <= {1.25, 0.75, 1.0}


@needs_bpf
def test_cclab_ghstcp_shows_its_mode_in_cc_series() -> None:
    res = cclab.run(dumbbell("cclab_ghstcp", "6s", count=2), engine="linux")
    cs = res.cc_series
    # Every flow, at the samples after its connection opened, in one of the two modes.
    assert set(cs["flow"]) == {0, 1} and set(cs["state"]) <= {"hstcp", "reno"}
    assert len(cs) >= 0.9 * len(res.flow_series)
    assert set(cs["time_s"]) <= set(res.flow_series["time_s"])
    assert cs[["pacing_rate_bps", "bw_bps"]].isna().all().all()
    assert not registered_ccs()


@needs_bpf
def test_cclab_reno_in_bpf_carries_a_flow_and_a_small_buffer_drops_at_the_bottleneck(tmp_path: Path) -> None:
    maps_before = {m["id"] for m in registered_struct_ops()}
    # Through the command line, and back from its result folder.
    sc = tmp_path / "bpf.toml"
    sc.write_text(cclab.to_toml(dumbbell("cclab_reno", "5s", buffer="10pkts")))
    p = subprocess.run([sys.executable, "-m", "cclab", "run", str(sc), "--engine", "linux", "-q", "--out",
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=120,
                       env=ENV)
    assert p.returncode == 0, p.stderr
    res = cclab.load(tmp_path / "out")
    assert res.flows.loc[0, "cc"] == "cclab_reno" and res.flows["drops"].isna().all()
    assert res.summary()["linux_relay_lost"] == 0
    q = res.queues.iloc[0]
    assert q["drops"] > 0 and q["max_len_pkts"] <= 10
    assert int(res.flows.loc[0, "retransmits"]) > 0
    # A 10-packet buffer under a 67-packet BDP still keeps the link busy more than half the time.
    assert res.flows.loc[0, "goodput_bps"] > 10e6
    assert not registered_ccs() and not our_namespaces()
    # The flows closed with a reset: no orphan socket keeps the unregistered map alive.
    deadline = time.monotonic() + 3
    while {m["id"] for m in registered_struct_ops()} - maps_before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not {m["id"] for m in registered_struct_ops()} - maps_before


CHILD = """
import sys, time
from cclab.linux.host import PREFIX
from cclab.linux.testbed import Testbed
from cclab.linux import bpf
with Testbed(20e6, 50, None, 0.01, 0.01) as tb:
    if sys.argv[1] == "bpf":
        tb.struct_ops.append(bpf.register("cclab_reno"))
    relay = [p.pid for p in tb.procs]
    print(PREFIX, *relay, flush=True)
    time.sleep(60)
"""


def _start_child(mode: str) -> tuple[subprocess.Popen, str, list[int]]:
    child = subprocess.Popen([sys.executable, "-c", CHILD, mode], stdout=subprocess.PIPE, text=True, env=ENV)
    words = child.stdout.readline().split()
    child.stdout.close()
    if not words:
        child.kill()
        child.wait()
    assert words, "the child did not build its testbed"
    return child, words[0], [int(w) for w in words[1:]]


@needs_bpf
def test_a_new_start_removes_what_a_sigkilled_run_left() -> None:
    child, prefix, relay = _start_child("bpf")
    child.send_signal(signal.SIGKILL)
    child.wait()
    # Killed without any chance to clean: its namespaces, its relay and its struct_ops remain...
    assert [n for n in our_namespaces() if n.startswith(prefix)]
    assert relay and alive(relay[0])
    assert registered_ccs() == ["cclab_reno"]
    # ...until the next start removes them.
    with Bed(20e6, 50, None, 0.01, 0.01) as tb:
        assert any(r.startswith(f"netns {prefix}") for r in tb.removed_at_start)
        assert not [n for n in our_namespaces() if n.startswith(prefix)]
    time.sleep(0.2)
    assert not alive(relay[0])
    assert not our_namespaces() and not registered_ccs()


@needs_testbed
def test_sigterm_tears_the_testbed_down() -> None:
    child, prefix, relay = _start_child("plain")
    child.send_signal(signal.SIGTERM)
    child.wait(timeout=20)
    assert not [n for n in our_namespaces() if n.startswith(prefix)]
    assert not alive(relay[0])


@needs_testbed
def test_linux_cleanup_command_reports_and_removes_leftovers() -> None:
    child, prefix, _ = _start_child("plain")
    child.send_signal(signal.SIGKILL)
    child.wait()
    p = subprocess.run([sys.executable, "-m", "cclab", "linux", "cleanup"], capture_output=True, text=True,
                       timeout=60, env=ENV)
    assert p.returncode == 0, p.stderr
    assert f"removed netns {prefix}mid" in p.stdout
    assert not our_namespaces()
    assert cleanup_leftovers(include_own=True) == []
