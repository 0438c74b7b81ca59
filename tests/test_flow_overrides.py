"""A flow group's fields that override one knob of its stack profile: `handshake` (a SYN first),
`ack_counting` (what an ACK counts towards window growth), `ca_rtt` (the RTT sample the congestion
control gets), `quickacks` (ACKs sent at once at the start), `rcv_autotune` (Linux's receive-buffer
autotuning and the quick ACKs of its window growth), `timestamp_clock` (the tick of the
timestamp clock) and `loss_detection` (RFC 6675's duplicate-ACK threshold or RACK-TLP)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cclab
from cclab import _core


def _one_flow(duration="1s", **flow):
    """One Linux-profile NewReno flow with delayed ACKs on a 100 ms path nothing else uses."""
    return {"duration": duration, "topology": {"kind": "dumbbell",
                                               "bottleneck": {"rate": "1Gbps", "delay": "48ms", "buffer": "10000pkts"}},
            "flows": [dict({"cc": "newreno", "rtt": "100ms", "stack": "linux", "delayed_ack": True}, **flow)]}


def _built(scenario):
    return json.loads(_core.Sim(json.dumps(scenario), 1).network())["flows"][0]


@pytest.mark.parametrize("stack, default", [("linux", False), ("cclab", False), ("ns2", True)])
def test_handshake_defaults_to_the_stacks_and_the_field_overrides_it(stack, default):
    assert _built(_one_flow(stack=stack))["handshake"] is default
    assert _built(_one_flow(stack=stack, handshake=not default))["handshake"] is (not default)


def test_a_handshake_delays_the_data_by_one_round_trip():
    done = {h: cclab.run(_one_flow(size="300KB", handshake=h, delayed_ack=False), seed=1).flows.completion_s[0]
            for h in (False, True)}
    # The SYN and its ACK take one round trip (100 ms plus a header's serialization) before the
    # initial window leaves; after that the two transfers proceed alike. (Without delayed ACKs:
    # with them the SYN changes the parity of the segment count, and the ACK of a last segment
    # left alone waits for the 40 ms timer in one of the two runs.)
    assert done[True] - done[False] == pytest.approx(0.100, abs=0.002), done


def test_ack_counting_overrides_the_stack_and_per_ack_grows_half_as_fast_with_delayed_acks():
    # An ACK for every second segment: without the model of Linux's receive-buffer autotuning,
    # which acknowledges most of a slow start's segments alone (test_rcv_autotune_... below).
    cwnd = {a: cclab.run(_one_flow(duration="0.45s", ack_counting=a, rcv_autotune=False), seed=1).flows.cwnd_final[0]
            for a in ("all", "abc", "per-ack")}
    assert _built(_one_flow())["ack_counting"] == "all"  # the linux profile's own
    assert _built(_one_flow(ack_counting="per-ack"))["ack_counting"] == "per-ack"
    # Four rounds of slow start from 10 packets: an ACK for two packets counts two ("all", and
    # "abc" with L = 2: 10 x 2^4) or one ("per-ack": about 1.5 per round; the first 16 ACKs are quick).
    assert cwnd["all"] == cwnd["abc"] == 160
    assert 10 * 1.5**4 <= cwnd["per-ack"] < 0.5 * cwnd["all"], cwnd


def _vegas(ca_rtt, delayed_ack):
    """Vegas (linux profile) filling a 100 Mbit/s, 30 ms path: docs/fidelity.md, 29-vegas-one-sack."""
    sc = {"duration": "1s", "sample_interval": "30ms",
          "topology": {"kind": "dumbbell", "bottleneck": {"rate": "100Mbps", "delay": "14ms", "buffer": "500pkts"}},
          "flows": [{"cc": "vegas", "recovery": "sack", "rtt": "30ms", "access_rate": "1Gbps", "stack": "linux",
                     "delayed_ack": delayed_ack, "ca_rtt": ca_rtt}]}
    return cclab.run(sc, seed=1).flow_series.cwnd


def test_ca_rtt_overrides_the_stack_and_matters_only_with_delayed_acks():
    assert _built(_one_flow())["ca_rtt"] == "newest-delivered"  # the linux profile's own
    assert _built(_one_flow(stack="cclab"))["ca_rtt"] == "estimator"
    assert _built(_one_flow(ca_rtt="estimator"))["ca_rtt"] == "estimator"
    # A delayed ACK's two segments were sent about a packet time apart: the older one's sample
    # (the estimator's) shows Vegas a queue before there is one, so it leaves slow start a round
    # earlier (349 packets against 573 on this 250-packet path).
    with_delack = {r: _vegas(r, True).max() for r in ("newest-delivered", "estimator")}
    assert with_delack["estimator"] < 0.75 * with_delack["newest-delivered"], with_delack
    # Each ACK covers one segment: both rules take the same sample, and the runs are the same.
    assert _vegas("estimator", False).equals(_vegas("newest-delivered", False))


def _first_round(**flow):
    """The trace of a linux-profile flow's first round trip and a bit (IW 10, delayed ACKs)."""
    return cclab.run(_one_flow(duration="0.15s", **flow), seed=1, trace={"flows": [0], "links": ["bottleneck"]})


def test_quickacks_overrides_the_stack_and_acks_that_many_segments_at_once():
    assert _built(_one_flow())["quickacks"] == 16  # the linux profile's own
    assert _built(_one_flow(quickacks=0))["quickacks"] == 0
    acks = {}
    for q in (0, 10):
        # Without the autotuning model, whose window growth would ACK every segment here too.
        p = _first_round(quickacks=q, rcv_autotune=False).packets
        acks[q] = len(p[(p.event == "send") & (p.kind == "ack") & (p.time_s < 0.11)])
    # The initial window's 10 segments: one ACK for every two, or one each.
    assert acks == {0: 5, 10: 10}, acks


def _segments_per_ack(res, start, end):
    """Segments acknowledged per ACK arriving at the sender in [start, end) (duplicates counted)."""
    s = res.sender
    a = s[(s.event == "ack") & (s.time_s >= start) & (s.time_s < end)].ack
    return (a.iloc[-1] - a.iloc[0]) / (len(a) - 1)


def test_rcv_autotune_acks_most_of_a_slow_start_one_by_one_and_every_second_segment_after():
    """docs/linux.md, "Jitter 1 ms, cubic": Linux's receiver grows its window threshold through a
    slow start, each growth a quick ACK, then goes back to delaying; without the model (and
    without the first quick ACKs) every ACK covers two segments."""
    assert _built(_one_flow())["rcv_autotune"] is True  # the linux profile's own
    assert _built(_one_flow(rcv_autotune=False))["rcv_autotune"] is False
    assert _built(_one_flow(stack="cclab"))["rcv_autotune"] is False
    sc = {"duration": "6s", "topology": {"kind": "dumbbell",
                                         "bottleneck": {"rate": "20Mbps", "delay": "18ms", "buffer": "1bdp"}}}
    runs = {}
    for on in (False, True):
        # Off, without the first quick ACKs either (the profile's 16 alone bring it to 1.87 segments per ACK).
        sc["flows"] = [{"cc": "cubic", "rtt": "40ms", "stack": "linux",
                        **({"rcv_autotune": True} if on else {"rcv_autotune": False, "quickacks": 0})}]
        runs[on] = cclab.run(sc, seed=1, trace={"flows": [0], "links": []})
    # The slow start's first quarter second (the window passes 100 packets in it).
    assert _segments_per_ack(runs[False], 0.0, 0.25) > 1.9
    assert 1.0 < _segments_per_ack(runs[True], 0.0, 0.25) < 1.3
    # Past the slow start the room is used up: every second segment again.
    assert 1.85 < _segments_per_ack(runs[True], 2.0, 6.0) <= 2.0


def test_timestamp_clock_counts_whole_ticks():
    assert _built(_one_flow())["timestamp_clock_s"] == 0.0
    assert _built(_one_flow(timestamp_clock="1ms"))["timestamp_clock_s"] == 0.001
    # The estimator's samples (the cclab profile takes them from the echoed timestamp) on a
    # path of 100 ms plus serialization: exact, or a whole number of milliseconds.
    exact = _first_round(stack="cclab").sender.rtt_s
    ticks = _first_round(stack="cclab", timestamp_clock="1ms").sender.rtt_s
    exact, ticks = exact[exact > 0], ticks[ticks > 0]
    assert len(exact) and len(ticks)
    assert not all(abs(r * 1e3 - round(r * 1e3)) < 1e-9 for r in exact), exact.tolist()
    assert all(abs(r * 1e3 - round(r * 1e3)) < 1e-9 for r in ticks), ticks.tolist()
    assert set(ticks.round(3)) <= {0.1, 0.101}, ticks.tolist()


def _short_lossy(loss_detection, seed):
    """A 100-packet CUBIC transfer under the linux profile through 5 % random loss."""
    sc = {"duration": "10s", "topology": {"kind": "dumbbell", "bottleneck": {
        "rate": "100Mbps", "delay": "48ms", "buffer": "1000pkts", "loss": 0.05}},
        "flows": [{"cc": "cubic", "rtt": "100ms", "stack": "linux", "size": "150KB",
                   "loss_detection": loss_detection}]}
    return cclab.run(sc, seed=seed).flows


def test_loss_detection_overrides_the_stack_and_rack_tlp_repairs_tail_losses_without_timeouts():
    assert _built(_one_flow())["loss_detection"] == "rack-tlp"  # the linux profile's own
    assert _built(_one_flow(loss_detection="dupthresh"))["loss_detection"] == "dupthresh"
    assert _built(_one_flow(stack="cclab", recovery="sack"))["loss_detection"] == "dupthresh"
    # NewReno recovery has no SACK scoreboard to run RACK on: the field does not apply.
    assert _built(_one_flow(recovery="newreno", loss_detection="rack-tlp"))["loss_detection"] == "dupthresh"
    # The same losses (the same seeds) in short transfers: losses near the end of a window, which
    # three duplicate ACKs never follow, end in timeouts under RFC 6675; RACK finds most of them
    # from the SACKs of later segments or of the tail loss probe.
    runs = {d: [_short_lossy(d, s) for s in range(1, 41)] for d in ("dupthresh", "rack-tlp")}
    timeouts = {d: sum(int(f.timeouts[0]) for f in r) for d, r in runs.items()}
    done = {d: sum(float(f.completion_s[0]) for f in r) for d, r in runs.items()}
    assert timeouts["rack-tlp"] < timeouts["dupthresh"] / 2, timeouts
    assert done["rack-tlp"] < done["dupthresh"], done


def test_sacked_retx_in_pipe_reaches_the_built_flow_and_is_off_by_default():
    # The scoreboard's behaviour is tested in Rust (scoreboard.rs); here the group field's path.
    assert _built(_one_flow())["sacked_retx_in_pipe"] is False
    assert _built(_one_flow(sacked_retx_in_pipe=True))["sacked_retx_in_pipe"] is True


def test_resend_below_high_sack_reaches_the_built_flow_and_keeps_in_flight_segments_from_resends():
    # The rule itself is tested in Rust (scoreboard.rs). Here its effect at a timeout: four BBR
    # flows with RFC 6675 loss detection time out with a window still in flight; resending only
    # below the highest SACK sends fewer segments that the receiver already has.
    assert _built(_one_flow())["resend_below_high_sack"] is False
    assert _built(_one_flow(resend_below_high_sack=True))["resend_below_high_sack"] is True
    sc = cclab.load_scenario(Path(__file__).resolve().parents[1] / "scenarios/crosscheck/evidence/ns3/56-bbr-four-dupthresh.toml")
    sc = {**sc, "duration": "5s", "warmup": "0s", "flows": [{**g, "stack": "linux"} for g in sc["flows"]]}
    spurious = {}
    for below in (False, True):
        run = {**sc, "flows": [{**g, "resend_below_high_sack": below} for g in sc["flows"]]}
        f = cclab.run(run, seed=1).flows
        assert int(f.timeouts.sum()) > 0
        # Segments sent beyond the ones delivered and the ones dropped: resends of delivered data.
        spurious[below] = int(f.sent_pkts.sum() - f.delivered_pkts.sum() - f.drops.sum())
    assert spurious[True] < spurious[False] / 2, spurious
