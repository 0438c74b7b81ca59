"""Tracing from Python (docs/tracing.md): the trace's tables, and the pcapng file read back by a
real decoder (dpkt; tshark too where it is installed), packet for packet against the trace."""

from __future__ import annotations

import shutil
import struct
import subprocess

import numpy as np
import pandas as pd
import pytest

import cclab
from cclab.result import TRACE_TABLES

dpkt = pytest.importorskip("dpkt")

# One SACK flow through a small, lossy bottleneck: losses, SACK blocks, retransmissions.
LOSSY = {
    "duration": "3s",
    "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": "15pkts", "loss": 0.02}},
    "flows": [{"cc": "newreno", "recovery": "sack", "rtt": "40ms"}],
}


def _ones_complement_ok(data: bytes) -> bool:
    """RFC 1071: the sum over a header with its checksum in place is 0xffff."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def _read_pcap(path):
    """Every frame of the pcapng: (time_s, Ethernet frame, captured bytes, original length)."""
    out = []
    with open(path, "rb") as f:
        r = dpkt.pcapng.Reader(f)
        assert r.datalink() == dpkt.pcap.DLT_EN10MB
        for ts, buf in r:
            out.append((float(ts), dpkt.ethernet.Ethernet(buf), bytes(buf)))
    return out


def _captured_rows(res: cclab.Result, flow: int) -> pd.DataFrame:
    """The trace's rows the capture point sees: data as the sender sends it, ACKs as they reach it."""
    p = res.packets
    p = p[p["flow"] == flow]
    return p[((p["event"] == "send") & (p["kind"] == "data")) | ((p["event"] == "deliver") & (p["kind"] == "ack"))]


def _check_against_trace(res: cclab.Result, path, timestamps: bool, syn: bool) -> None:
    frames = _read_pcap(path)
    rows = _captured_rows(res, 0)
    assert len(frames) == len(rows) > 100
    payload = 1500 - 40 - (12 if timestamps else 0)
    isn = None
    for (ts, eth, raw), row in zip(frames, rows.itertuples(index=False)):
        ip, tcp = eth.data, eth.data.data
        assert isinstance(ip, dpkt.ip.IP) and isinstance(tcp, dpkt.tcp.TCP)
        assert abs(ts - row.time_s) < 1e-9
        assert _ones_complement_ok(raw[14:34]), "IPv4 header checksum"
        hlen = tcp.off * 4
        pseudo = raw[26:34] + struct.pack("!BBH", 0, 6, ip.len - 20)
        assert _ones_complement_ok(pseudo + raw[34:34 + hlen]), "TCP checksum (zero payload)"
        opts = dict((k, v) for k, v in dpkt.tcp.parse_opts(tcp.opts) if k != dpkt.tcp.TCP_OPT_NOP)
        assert (dpkt.tcp.TCP_OPT_TIMESTAMP in opts) == timestamps
        data = row.kind == "data"
        assert (tcp.sport == 10000) == data
        ecn = ip.tos & 3
        if data:
            if isn is None:
                isn = tcp.seq - (0 if syn else 1)  # the first segment sent is segment 0
            is_syn = bool(tcp.flags & dpkt.tcp.TH_SYN)
            assert is_syn == (syn and row.seq == 0)
            want = isn if is_syn else isn + 1 + (row.seq - (1 if syn else 0)) * payload
            assert tcp.seq == want % 2**32, row
            assert ip.len == (row.size if not is_syn else ip.len)
            assert ecn == (3 if row.flags & 2 else 2 if row.flags & 1 else 0)
            assert bool(tcp.flags & dpkt.tcp.TH_CWR) == bool(row.flags & 8)
        else:
            assert tcp.flags & dpkt.tcp.TH_ACK
            assert tcp.ack == (isn + 1 + (row.seq - (1 if syn else 0)) * payload) % 2**32, row
            assert bool(tcp.flags & dpkt.tcp.TH_ECE) == bool(row.flags & 4)
            blocks = []
            if dpkt.tcp.TCP_OPT_SACK in opts:
                v = opts[dpkt.tcp.TCP_OPT_SACK]
                edges = struct.unpack(f"!{len(v) // 4}I", v)
                blocks = [((a - isn - 1) // payload + (1 if syn else 0), (b - isn - 1) // payload + (1 if syn else 0))
                          for a, b in zip(edges[::2], edges[1::2])]
            want = [tuple(int(x) for x in b.split("-")) for b in row.sack.split()] if row.sack else []
            assert blocks == want, row
        # The frame is cut at the snaplen with its original length kept.
        assert len(raw) == min(14 + ip.len, 128)


def test_a_lossy_sack_flows_pcap_decodes_packet_for_packet_as_the_trace_says(tmp_path):
    path = tmp_path / "lossy.pcapng"
    res = cclab.run(LOSSY, seed=2, trace={"flows": [0], "pcap": str(path)})
    assert int(res.flows["retransmits"][0]) > 5
    assert (res.packets["sack"] != "").sum() > 10, "the losses make SACK blocks"
    _check_against_trace(res, path, timestamps=True, syn=False)


def test_an_ns2_flow_with_a_handshake_and_no_timestamps_and_ecn_decodes_too(tmp_path):
    sc = {
        **LOSSY,
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": "30pkts", "queue": "red",
                                    "queue_params": {"ecn": 1}}},
        "flows": [{"cc": "newreno", "recovery": "sack", "rtt": "40ms", "stack": "ns2", "timestamps": False,
                   "ecn": True}],
    }
    path = tmp_path / "ns2.pcapng"
    res = cclab.run(sc, trace={"flows": [0], "pcap": str(path), "snaplen": 128})
    assert (res.packets["event"] == "mark").sum() > 0
    _check_against_trace(res, path, timestamps=False, syn=True)


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_reads_the_pcap_without_a_malformed_packet_or_a_bad_checksum(tmp_path):
    path = tmp_path / "lossy.pcapng"
    res = cclab.run(LOSSY, seed=2, trace={"flows": [0], "pcap": str(path), "packets": False, "sender": False})
    assert all(res.tables()[t].empty for t in TRACE_TABLES)
    out = subprocess.run(
        ["tshark", "-r", str(path), "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
         "-Y", "_ws.malformed || _ws.expert.severity == error || ip.checksum.status == 0 || tcp.checksum.status == 0",
         "-T", "fields", "-e", "frame.number"],
        capture_output=True, text=True, timeout=120, check=True,
    )
    assert out.stdout.strip() == "", out.stdout[:500]
    n = subprocess.run(["tshark", "-r", str(path), "-T", "fields", "-e", "tcp.options.sack_le"],
                       capture_output=True, text=True, timeout=120, check=True).stdout
    assert sum(1 for ln in n.splitlines() if ln.strip()) > 10


def test_trace_tables_are_empty_without_a_trace_and_absent_from_a_saved_folder(quick_result, tmp_path):
    for t in TRACE_TABLES:
        assert getattr(quick_result, t).empty
    d = quick_result.save(tmp_path / "r")
    assert not any((d / f"{t}.parquet").exists() for t in TRACE_TABLES)
    again = cclab.load(d)
    assert again.packets.empty and list(again.packets.columns) == list(quick_result.packets.columns)


def test_a_traced_result_saves_and_loads_with_its_trace(tmp_path):
    res = cclab.run(LOSSY, seed=2, trace={"flows": [0], "links": ["bottleneck"]})
    assert set(res.packets["link"].dropna().unique()) == {int(res.links.query("role == 'bottleneck'")["link"].iloc[0])}
    assert res.packets["link"].isna().sum() > 0  # sends and deliveries happen at the endpoints
    back = cclab.load(res.save(tmp_path / "t"))
    pd.testing.assert_frame_equal(back.packets, res.packets)
    pd.testing.assert_frame_equal(back.sender, res.sender)


def test_a_traced_run_has_the_untraced_runs_results(tmp_path):
    plain = cclab.run(LOSSY, seed=2)
    traced = cclab.run(LOSSY, seed=2, trace={})
    for t in ("flows", "queues", "links", "flow_series", "queue_series"):
        pd.testing.assert_frame_equal(getattr(plain, t), getattr(traced, t), check_exact=True)
    assert len(traced.sender) == int(np.sum(traced.packets.eval("event == 'deliver' and kind == 'ack'")))


def test_the_record_budget_stops_the_run_with_an_error_naming_the_field():
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.run(LOSSY, trace={"max_records": 500})
    assert e.value.field == "trace.max_records"
    assert "500 records" in str(e.value)
