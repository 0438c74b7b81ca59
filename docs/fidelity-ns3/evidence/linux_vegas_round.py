"""Evidence for docs/fidelity.md (29-vegas-one-sack under `stack = "linux"`): Linux's Vegas
(tcp_vegas.c) written in Python with Linux's own round boundary, an ACK whose snd_una passes
`beg_snd_nxt`, beside the built-in `vegas`, whose rounds end by the RTT sample's departure time
(cc/rtt_round.rs). Same mean queue: the round rule is not what moved it.

    PYTHONPATH=python python docs/fidelity-ns3/evidence/linux_vegas_round.py
"""

import math
import tomllib
from pathlib import Path

import cclab

class LinuxVegas(cclab.CongestionControl):
    """tcp_vegas.c's rules with Linux's own round boundary (an ACK past beg_snd_nxt)."""
    def __init__(self):
        self.base = math.inf; self.minr = math.inf; self.cnt = 0; self.beg = 0; self.ss = math.inf
    def ssthresh(self, v):
        self.ss = max(v.cwnd / 2, 2.0)
        return self.ss
    def pkts_acked(self, v, s):
        if s.rtt is not None:
            r = s.rtt + 1e-6
            self.base = min(self.base, r); self.minr = min(self.minr, r); self.cnt += 1
    def cong_avoid(self, v, acked):
        cwnd = v.cwnd
        ss = min(self.ss, v.ssthresh)
        if v.snd_una > self.beg:
            self.beg = v.snd_nxt
            if self.cnt <= 2:
                cwnd = cwnd + acked if cwnd < ss else cwnd + acked / cwnd
            else:
                rtt = self.minr
                target = cwnd * self.base / rtt
                diff = cwnd * (rtt - self.base) / self.base
                if diff > 1 and cwnd < ss:
                    cwnd = min(cwnd, target + 1)
                    self.ss = min(ss, cwnd - 1)
                elif cwnd < ss:
                    cwnd = cwnd + acked
                else:
                    if diff > 4:
                        cwnd -= 1; self.ss = min(ss, cwnd - 1)
                    elif diff < 2:
                        cwnd += 1
                cwnd = max(cwnd, 2)
            self.cnt = 0; self.minr = math.inf
        elif cwnd < ss:
            cwnd = cwnd + acked
        return cwnd

cclab.register_cc("pyvegas", LinuxVegas)
if __name__ == "__main__":
    sc = tomllib.load(open(Path(__file__).resolve().parents[3] / "scenarios/crosscheck/29-vegas-one-sack.toml", "rb"))
    for cc in ("vegas", "pyvegas"):
        s2 = {**sc, "flows": [{**sc["flows"][0], "cc": cc, "stack": "linux"}]}
        r = cclab.run(s2, seed=1)
        print(cc, "mean queue", round(r.summary()["bottleneck_mean_queue_pkts"], 2), "final cwnd", round(r.flows.cwnd_final.max(), 1))
