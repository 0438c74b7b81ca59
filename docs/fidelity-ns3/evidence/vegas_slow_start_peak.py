"""docs/fidelity.md, 29-vegas-one-sack: the Linux Vegas's slow-start peak and queue, with Linux's
count (every acknowledged segment) and with ns-3's (one segment per ACK, `ack_counting = "per-ack"`),
with the RTT estimator's sample instead of Linux's ca_rtt (`ca_rtt = "estimator"`, the rule
before the `linux` profile's version 7), and with all of ns-3's RTT handling (`-handshake-ns3-rtt`).

    PYTHONPATH=python python docs/fidelity-ns3/evidence/vegas_slow_start_peak.py

Prints, for the matrix scenario and its `-per-ack`, `-ca-rtt-estimator` and `-handshake-ns3-rtt`
evidence runs under the `linux` profile (seed
1, 30 ms samples): the largest window and when, the last time after 2 s the queue held more
than 10 packets, and the mean queue over [10 s, 30 s]; then, from a trace of the matrix
scenario's start, the time between the sends of the two segments each slow-start ACK covers.
"""

import cclab
from cclab.crosscheck.matrix import with_stack

for f in ("scenarios/crosscheck/29-vegas-one-sack.toml",
          "scenarios/crosscheck/evidence/ns3/29-vegas-one-sack-per-ack.toml",
          "scenarios/crosscheck/evidence/ns3/29-vegas-one-sack-ca-rtt-estimator.toml",
          "scenarios/crosscheck/evidence/ns3/29-vegas-one-sack-handshake-ns3-rtt.toml"):
    sc = with_stack(cclab.load_scenario(f), "linux")
    sc["sample_interval"] = "30ms"
    r = cclab.run(sc, seed=1)
    fs, qs = r.flow_series, r.queue_series
    qs = qs[qs.link == qs.link.iloc[0]]
    late = qs[(qs.time_s > 2) & (qs.len_pkts > 10)]
    print(f"{f}: max cwnd {fs.cwnd.max():.1f} at {float(fs.time_s[fs.cwnd.idxmax()]):.2f} s; "
          f"queue > 10 packets until {float(late.time_s.max()) if len(late) else None}; "
          f"mean queue [10 s, 30 s] {qs[qs.time_s >= 10].len_pkts.mean():.2f}")

# The two RTT samples of a delayed ACK end at the same ACK; the older segment's (the estimator's)
# is longer by the time between the two segments' sends. That gap in slow start (ACKs reaching
# the sender in [0.06 s, 0.18 s]), from a trace of the matrix scenario's first 0.3 s:
sc = with_stack(cclab.load_scenario("scenarios/crosscheck/29-vegas-one-sack.toml"), "linux")
sc["duration"], sc["warmup"] = "0.3s", "0s"
p = cclab.run(sc, seed=1, trace={"flows": [0], "links": ["bottleneck"], "sender": False}).packets
sent = p[(p.event == "send") & (p.kind == "data") & (p.retx == 0)].drop_duplicates("seq").set_index("seq").time_s
acks = p[(p.event == "deliver") & (p.kind == "ack")]
gaps, una = [], None
for t, a in zip(acks.time_s, acks.seq):
    if una is not None and a - una == 2 and 0.06 <= t <= 0.18:
        gaps.append(float(sent[a - 1] - sent[a - 2]))
    una = a if una is None else max(una, a)
gaps.sort()
print(f"send gap of the two segments a slow-start ACK covers: {len(gaps)} ACKs, median "
      f"{gaps[len(gaps) // 2] * 1e3:.3f} ms, 90th percentile {gaps[int(len(gaps) * 0.9)] * 1e3:.3f} ms, "
      f"largest {gaps[-1] * 1e3:.3f} ms")
