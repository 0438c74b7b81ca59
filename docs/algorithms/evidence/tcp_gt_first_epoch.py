"""Evidence for docs/algorithms/tcp-gt.md ("Figs. 9-10"): paper 000 Fig. 10's set-up at a 1 s RTT
(50 TCP-GT flows, eq. (15) as printed, 500 Mbit/s) for its first seconds under each stack profile.
Prints the sum and the largest of the 50 windows every 50 ms around the first increase decision,
and the time that decision comes. Under `ns2` the windows jump to millions of packets in one
epoch, which no machine here can hold in queues for the run's 200 s (the reproduction then
keeps the run as not computed, docs/reproduction.md).

    PYTHONPATH=python python docs/algorithms/evidence/tcp_gt_first_epoch.py [seconds [stack ...]]
"""

import sys

import cclab

DURATION = float(sys.argv[1]) if len(sys.argv) > 1 else 2.2


def scenario(stack: str) -> dict:
    flows = {"count": 50, "cc": "tcp-gt", "recovery": "sack", "start_spread": "1s", "rtt": "1000ms",
             "packet_size": "1000B", "ack_size": "40B", "stack": stack}
    return {"duration": f"{DURATION}s", "sample_interval": "50ms",
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "500Mbps", "delay": "1ms", "buffer": "1bdp",
                                                              "queue": "droptail"}},
            "flows": [flows]}


for stack in sys.argv[2:] or ("ns2", "cclab"):
    ts = cclab.run(scenario(stack), seed=1).timeseries("flows")
    by = ts.groupby("time_s").cwnd.agg(["sum", "max"])
    jump = by.index[by["max"] > 1000]
    print(f"{stack}: first window over 1000 packets at "
          + (f"{jump[0]:.2f} s" if len(jump) else f"none by {DURATION:g} s"))
    print(by.tail(4).to_string(float_format=lambda x: f"{x:,.0f}"))
