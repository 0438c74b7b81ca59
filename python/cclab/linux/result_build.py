"""The Linux engine's measurements as a ``Result`` with the simulator's tables (docs/linux.md).

Counts are the kernel's (TCP_INFO of each sender socket; the bottleneck qdisc's counters from
``tc -s``). Windows and packets are converted to the simulator's units: a packet is one
``packet_size`` on the wire carrying one MSS (``packet_size`` - 52: IPv4, TCP and the timestamps
option), so delivered bytes and goodput count wire bytes as the simulator does. What real TCP
does not expose is missing: ``<NA>`` in integer columns, NaN in float columns.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from ..result import TABLES, Result, _empty
from ..result_io import SCHEMA
from . import bpf

ETH = 14
INFINITE_SSTHRESH = 0x7FFFFFFF
NA = pd.NA
#: A flow limited by something else than its congestion window for more than this share of the
#: measured window is flagged: a bulk sender with a full socket is never app-limited, and the
#: kernel counts these times in jiffies (4 ms at this kernel's HZ = 250), so a few transitions
#: stay far below it.
LIMITED_FLAG = 0.05


def bbr_mode(pacing_gain: float, cwnd_gain: float) -> str:
    """Kernel BBR's mode, which it does not report, from the gains it does (net/ipv4/tcp_bbr.c):
    PROBE_RTT runs both at 1, PROBE_BW the window at 2 (its pacing gain cycles), STARTUP and DRAIN
    the window at the high gain 2/ln 2, pacing at it in STARTUP and at its inverse in DRAIN."""
    if cwnd_gain <= 1.0:
        return "PROBE_RTT"
    if cwnd_gain <= 2.0:
        return "PROBE_BW"
    return "STARTUP" if pacing_gain > 1.0 else "DRAIN"


def _table(name: str, rows: List[Dict[str, Any]]) -> pd.DataFrame:
    """Rows into the table's schema: uint64 columns as UInt64 (<NA> where not measured)."""
    if not rows:
        return _empty(name)
    cols = [c.split(":") for c in SCHEMA[name].split()]
    data = {}
    for col, kind in cols:
        values = [r.get(col, NA if kind == "u" else (float("nan") if kind == "f" else "")) for r in rows]
        if kind == "u":
            arr = pd.array([NA if v is NA or v is None else int(v) for v in values], dtype="UInt64")
            data[col] = arr.astype("uint64") if not arr.isna().any() else arr
        elif kind == "f":
            data[col] = np.array([float("nan") if v is None or v is NA else float(v) for v in values], dtype=float)
        else:
            data[col] = [str(v) for v in values]
    return pd.DataFrame(data)


def build_result(p: Dict[str, Any], seed: int, wall: float, samples: List[Dict[str, Any]],
                 finals: Dict[int, Dict[str, Any]], qrows: List[Dict[str, Any]], dt: float, keep_series: bool,
                 received: Dict[str, Any], load: float,
                 states: Optional[Dict[int, Tuple[str, ...]]] = None, random_drops: int = 0) -> Result:
    net, canonical, duration = p["net"], p["canonical"], p["duration"]
    warmup = float(net.get("warmup_s") or 0.0)
    mtu = p["mtu"]
    option = {cc: bpf.REGISTRY[cc].option_bytes if cc in bpf.REGISTRY else 0 for cc in p["kernel_cc"]}

    by_flow: Dict[int, List[Dict[str, Any]]] = {}
    for r in samples:
        by_flow.setdefault(int(r["flow"]), []).append(r)

    flow_rows, series_rows, limits, cc_rows = [], [], [], []
    for i, f in enumerate(net["flows"]):
        rows = sorted(by_flow.get(i, []), key=lambda r: r["t"])
        fin = finals.get(i, {})
        start = float(f["start_s"])
        # MSS: IPv4 20 + TCP 20 + timestamps 12, and the TCP option a BPF algorithm adds (cclab_tcpgt: 12).
        mss = mtu - 52 - option[p["kernel_cc"][p["groups"][f["group"]]]]
        wire = mtu / mss  # wire bytes per payload byte, full-size packets
        acked_end = int(fin.get("bytes_acked") or 0)
        completion = fin.get("completion_s")
        t_end = start + completion if completion is not None else duration
        # Goodput over [max(start, warmup), end or completion] (the sample at or after the window's start).
        if warmup <= start:
            t_w, acked_w, retr_w, rto_w = start, 0, 0, 0
        else:
            first = next((r for r in rows if r["t"] >= warmup - 1e-9), rows[-1] if rows else {"t": warmup})
            t_w = float(first["t"])
            acked_w = int(first.get("bytes_acked") or 0)
            retr_w, rto_w = int(first.get("total_retrans") or 0), int(first.get("total_rto") or 0)
        span = t_end - t_w
        limits.append(limited_fractions(first if warmup > start else None, fin, span))
        good_payload = (acked_end - acked_w) * 8 / span if span > 0 else float("nan")
        srtts = [r["rtt_us"] / 1e6 for r in rows if r.get("rtt_us")]
        delivered_pkts = int(math.ceil(acked_end / mss)) if acked_end else 0
        flow_rows.append({
            "flow": i, "name": f["name"], "group": f["group"], "cc": canonical_cc(canonical, f["group"], f["cc"]),
            "recovery": "sack", "start_s": start, "base_rtt_s": sum(p["delays"][i]), "packet_size": mtu,
            "sent_pkts": fin.get("data_segs_out"), "retransmits": fin.get("total_retrans"),
            "timeouts": fin.get("total_rto"), "fast_retransmits": NA, "ecn_reductions": 0, "drops": NA,
            "loss_rate": float("nan"), "delivered_pkts": delivered_pkts, "delivered_bytes": delivered_pkts * mtu,
            "goodput_bps": good_payload * wire, "rtt_min_s": (fin.get("min_rtt_us") or 0) / 1e6,
            "rtt_mean_s": float(np.mean(srtts)) if srtts else 0.0, "rtt_max_s": max(srtts) if srtts else float("nan"),
            "cwnd_final": fin.get("cwnd"), "completion_s": completion, "drops_measured": NA,
            "retransmits_measured": None if fin.get("total_retrans") is None else int(fin["total_retrans"]) - retr_w,
            "timeouts_measured": None if fin.get("total_rto") is None else int(fin["total_rto"]) - rto_w,
            "payload_goodput_bps": good_payload,
        })
        if keep_series:
            prev: Optional[float] = None
            for r in rows:
                acked = int(r.get("bytes_acked") or 0)
                wire_bytes = int(round(acked * wire))
                ss = r.get("ssthresh")
                series_rows.append({
                    "time_s": r["t"], "flow": i, "cwnd": r.get("cwnd"),
                    "ssthresh": float("inf") if ss is not None and ss >= INFINITE_SSTHRESH else ss,
                    "srtt_s": (r.get("rtt_us") or 0) / 1e6, "rtt_s": float("nan"), "delivered_bytes": wire_bytes,
                    "goodput_bps": 0.0 if prev is None else (wire_bytes - prev) * 8 / dt,
                })
                prev = wire_bytes
                names = (states or {}).get(i, ())
                if r.get("bbr_pacing_gain") is not None:
                    # Kernel BBR's own record (TCP_CC_INFO), the columns of the simulator's BBR.
                    pg, cg = r["bbr_pacing_gain"], r["bbr_cwnd_gain"]
                    cc_rows.append({"time_s": r["t"], "flow": i, "state": bbr_mode(pg, cg),
                                    "pacing_rate_bps": float(r.get("pacing_rate") or 0) * 8 * wire,
                                    "pacing_gain": pg, "cwnd_gain": cg, "bw_bps": r["bbr_bw_Bps"] * 8 * wire,
                                    "min_rtt_s": r["bbr_min_rtt_us"] / 1e6})
                elif r.get("cc_state") is not None and names:
                    # A BPF algorithm's own state (cclab_show), as the simulator's cc_series shows
                    # BBR's; the columns it does not show stay NaN.
                    k = int(r["cc_state"])
                    cc_rows.append({"time_s": r["t"], "flow": i, "state": names[k] if k < len(names) else str(k),
                                    "pacing_rate_bps": float("nan"), "pacing_gain": float("nan"),
                                    "cwnd_gain": float("nan"), "bw_bps": float("nan"), "min_rtt_s": float("nan")})

    # The qdisc's counters from scenario time 0 (the testbed's set-up may have counted a few packets).
    base = qrows[0]
    qrows = [{**q, **{k: q[k] - base[k] for k in ("packets", "bytes", "drops")}} for q in qrows]
    links = net["links"]
    bn = next(i for i, l in enumerate(links) if l["role"] == "bottleneck")
    q_in = [q for q in qrows if q["t"] >= warmup - 1e-9] or qrows
    last, first = q_in[-1], q_in[0]

    def ip_bytes(q: Dict[str, Any]) -> int:
        return int(q["bytes"]) - ETH * int(q["packets"])

    span_q = last["t"] - first["t"]
    sent_bits = (ip_bytes(last) - ip_bytes(first)) * 8
    util = sent_bits / (p["rate_bps"] * span_q) if span_q > 0 else float("nan")
    mean_len = float(np.mean([q["qlen"] for q in q_in]))
    mean_bytes = float(np.mean([q["backlog"] - ETH * q["qlen"] for q in q_in]))
    dep_rate = sent_bits / 8 / span_q if span_q > 0 else float("nan")
    arrivals_w = (last["packets"] + last["drops"] + last["qlen"]) - (first["packets"] + first["drops"] + first["qlen"])
    queue_rows, link_rows = [], []
    for i, l in enumerate(links):
        if i == bn:
            queue_rows.append({
                # The delay line's random losses (the scenario's `loss`) come before the queue, as
                # in the simulator: in the arrivals and drops, as `drops_link`, for the whole run.
                "link": i, "name": l["name"], "role": l["role"],
                "arrivals": last["packets"] + last["drops"] + last["qlen"] + random_drops,
                "departures": last["packets"], "drops": last["drops"] + random_drops, "drops_overflow": last["drops"],
                "drops_early": 0, "drops_link": random_drops, "marks": 0, "mean_len_pkts": mean_len, "mean_len_bytes": mean_bytes,
                "max_len_pkts": max(q["qlen"] for q in qrows),
                "max_len_bytes": max(q["backlog"] - ETH * q["qlen"] for q in qrows),
                "mean_delay_s": mean_bytes / dep_rate if dep_rate and dep_rate > 0 else float("nan"),
                "len_pkts_end": last["qlen"],
                "loss_rate": (last["drops"] - first["drops"]) / arrivals_w if arrivals_w > 0 else 0.0,
            })
            link_rows.append({"link": i, "name": l["name"], "role": l["role"], "from": l["from"], "to": l["to"],
                              "rate_bps": l["rate_bps"], "delay_s": l["delay_s"], "tx_pkts": last["packets"],
                              "tx_bytes": ip_bytes(last), "utilization": util})
        else:
            queue_rows.append({"link": i, "name": l["name"], "role": l["role"]})
            link_rows.append({"link": i, "name": l["name"], "role": l["role"], "from": l["from"], "to": l["to"],
                              "rate_bps": l["rate_bps"], "delay_s": l["delay_s"]})
    qseries = []
    if keep_series:
        prev_q: Optional[Dict[str, Any]] = None
        for q in qrows:
            # Clamped at 0: runs sampled every 10-50 ms failed here on a negative value (backlog
            # below 14 bytes per queued packet in one tc sample; the cause was not examined).
            qseries.append({"time_s": q["t"], "link": bn, "len_pkts": q["qlen"],
                            "len_bytes": max(0, q["backlog"] - ETH * q["qlen"]),
                            "throughput_bps": 0.0 if prev_q is None else (ip_bytes(q) - ip_bytes(prev_q)) * 8 / dt,
                            "avg_pkts": float("nan"), "max_p": float("nan"),
                            "arrivals": q["packets"] + q["drops"] + q["qlen"], "drops": q["drops"]})
            prev_q = q

    tables = {name: _empty(name) for name in TABLES}
    tables["flows"] = _table("flows", flow_rows)
    tables["queues"] = _table("queues", queue_rows)
    tables["links"] = _table("links", link_rows)
    tables["flow_series"] = _table("flow_series", series_rows)
    tables["queue_series"] = _table("queue_series", qseries)
    tables["cc_series"] = _table("cc_series", cc_rows)
    goodputs = tables["flows"]["goodput_bps"].to_numpy(dtype=float)
    s2 = float((goodputs * goodputs).sum())
    summary = {
        "duration_s": duration, "warmup_s": warmup, "flows": float(len(flow_rows)),
        "total_goodput_bps": float(goodputs.sum()),
        "jain_index": float(goodputs.sum() ** 2 / (len(goodputs) * s2)) if s2 > 0 else 1.0,
        "data_sent": float(sum(int(r["sent_pkts"] or 0) for r in flow_rows)),
        "data_received": float(sum(r["delivered_pkts"] for r in flow_rows)),
        "data_dropped": float(last["drops"] + random_drops), "data_in_queues": float(last["qlen"]), "data_on_wires": float("nan"),
        "timeouts": float(sum(int(r["timeouts"] or 0) for r in flow_rows)), "events": float("nan"),
        "bottleneck_utilization": util, "bottleneck_drops": float(last["drops"] + random_drops),
        "bottleneck_mean_queue_pkts": mean_len,
        # Not the simulator's: marks a Linux result, and how busy the machine was.
        "linux_load_avg_1min": load,
    }
    # The largest share of the measured window a flow spent limited by something else than its
    # window (TCP_INFO's chrono times): nothing to send, the receiver's window, the send buffer.
    for k in ("app", "rwnd", "sndbuf"):
        v = [x[k] for x in limits if not math.isnan(x[k])]
        summary[f"linux_{k}_limited_max"] = max(v) if v else float("nan")
    return Result(canonical, seed, wall, tables, summary, p["bdp"])


def limited_fractions(at_start: Optional[Dict[str, Any]], at_end: Dict[str, Any], span_s: float) -> Dict[str, float]:
    """Shares of ``span_s`` seconds in which a flow's sender was not limited by its congestion
    window, from TCP_INFO at the window's start (None: the flow's start, all zero) and end. The kernel's
    ``tcpi_busy_time`` is the time with data in its write queue, and includes the times limited
    by the receiver's window and by the send buffer (``tcp_get_info_chrono_stats``); the rest
    of the span the sender had nothing to send (``app``)."""
    keys = ("busy_us", "rwnd_limited_us", "sndbuf_limited_us")
    start = at_start if at_start is not None else dict.fromkeys(keys, 0)
    if span_s <= 0 or any(at_end.get(k) is None or start.get(k) is None for k in keys):
        return {"app": float("nan"), "rwnd": float("nan"), "sndbuf": float("nan")}
    d = {k: (int(at_end[k]) - int(start[k])) / 1e6 / span_s for k in keys}
    return {"app": min(1.0, max(0.0, 1.0 - d["busy_us"])), "rwnd": d["rwnd_limited_us"],
            "sndbuf": d["sndbuf_limited_us"]}


def canonical_cc(canonical: Dict[str, Any], group: str, fallback: str) -> str:
    """The cc name the scenario gave the group (a BPF one stays as written)."""
    for i, g in enumerate(canonical.get("flows", [])):
        if g.get("name", f"{g.get('cc')}{i}") == group:
            return str(g.get("cc"))
    return fallback
