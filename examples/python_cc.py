"""Congestion controls written in Python (docs/writing-an-algorithm.md).

``NewReno`` is the built-in ``newreno``'s window policy (crates/cclab-sim/src/cc/reno.rs) in
Python: registered and run on the same scenario, it gives the same results bit for bit
(tests/test_pycc.py). ``DelayReno`` is the worked example, the same algorithm as the plugin in
examples/plugin-cc/src/lib.rs: Reno whose additive increase pauses while the flow's queueing
delay SRTT - RTT_min is above ``target`` seconds.

    import cclab, python_cc
    cclab.register_cc("py-newreno", python_cc.NewReno)
    cclab.register_cc("py-delay-reno", python_cc.DelayReno)
"""

from __future__ import annotations

import cclab
from cclab import cc


class NewReno(cclab.CongestionControl):
    """NewReno's window policy (RFC 5681), written in Python"""

    def __init__(self, a: float = 1.0, beta: float = 0.5):
        if not (0 < a <= 100 and 0 < beta < 1):
            raise ValueError(f"a = {a}, beta = {beta}: accepted a in (0, 100], beta in (0, 1)")
        self.a, self.beta = a, beta

    def ssthresh(self, v):
        return cc.multiplicative_decrease(v.cwnd, self.beta)

    def cong_avoid(self, v, acked):
        return cc.slow_start_then_increase(v, acked, self.a)


class DelayReno(cclab.CongestionControl):
    """Reno that stops growing while SRTT - RTT_min is above a target, written in Python"""

    def __init__(self, a: float = 1.0, beta: float = 0.5, target: float = 0.005):
        if not (0 < a <= 100 and 0 < beta < 1 and 0 < target <= 10):
            raise ValueError(f"a = {a}, beta = {beta}, target = {target}: "
                             "accepted a in (0, 100], beta in (0, 1), target in (0, 10] s")
        self.a, self.beta, self.target = a, beta, target

    def ssthresh(self, v):
        return cc.multiplicative_decrease(v.cwnd, self.beta)

    def cong_avoid(self, v, acked):
        q = v.srtt - v.rtt_min  # the queueing delay this flow sees, seconds
        return cc.slow_start_then_increase(v, acked, self.a if q < self.target else 0.0)
