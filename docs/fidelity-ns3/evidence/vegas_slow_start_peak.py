"""docs/fidelity.md, 29-vegas-one-sack: the Linux Vegas's slow-start peak and queue, with Linux's
count (every acknowledged segment) and with ns-3's (one segment per ACK, `ack_counting = "per-ack"`).

    PYTHONPATH=python python docs/fidelity-ns3/evidence/vegas_slow_start_peak.py

Prints, for the matrix scenario and its `-per-ack` evidence run under the `linux` profile (seed
1, 30 ms samples): the largest window and when, the last time after 2 s the queue held more
than 10 packets, and the mean queue over [10 s, 30 s].
"""

import cclab
from cclab.crosscheck.matrix import with_stack

for f in ("scenarios/crosscheck/29-vegas-one-sack.toml",
          "scenarios/crosscheck/evidence/ns3/29-vegas-one-sack-per-ack.toml"):
    sc = with_stack(cclab.load_scenario(f), "linux")
    sc["sample_interval"] = "30ms"
    r = cclab.run(sc, seed=1)
    fs, qs = r.flow_series, r.queue_series
    qs = qs[qs.link == qs.link.iloc[0]]
    late = qs[(qs.time_s > 2) & (qs.len_pkts > 10)]
    print(f"{f}: max cwnd {fs.cwnd.max():.1f} at {float(fs.time_s[fs.cwnd.idxmax()]):.2f} s; "
          f"queue > 10 packets until {float(late.time_s.max()) if len(late) else None}; "
          f"mean queue [10 s, 30 s] {qs[qs.time_s >= 10].len_pkts.mean():.2f}")
