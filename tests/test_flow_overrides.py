"""A flow group's fields that override one knob of its stack profile: `handshake` (a SYN first)
and `ack_counting` (what an ACK counts towards window growth)."""

from __future__ import annotations

import json

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
    cwnd = {a: cclab.run(_one_flow(duration="0.45s", ack_counting=a), seed=1).flows.cwnd_final[0]
            for a in ("all", "abc", "per-ack")}
    assert _built(_one_flow())["ack_counting"] == "all"  # the linux profile's own
    assert _built(_one_flow(ack_counting="per-ack"))["ack_counting"] == "per-ack"
    # Four rounds of slow start from 10 packets: an ACK for two packets counts two ("all", and
    # "abc" with L = 2: 10 x 2^4) or one ("per-ack": about 1.5 per round; the first ACKs are quick).
    assert cwnd["all"] == cwnd["abc"] == 160
    assert 10 * 1.5**4 <= cwnd["per-ack"] < 0.5 * cwnd["all"], cwnd
