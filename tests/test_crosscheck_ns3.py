"""`cclab crosscheck --with ns3`: the translation of a built network into the ns-3 program's
description, the reading of its counters, and (where the ns3 wheel and g++ are installed, as
in CI) short runs whose answer is known on both sides."""

from __future__ import annotations

import json
import re
import subprocess

import pandas as pd
import pytest

from cclab import _core
from cclab.crosscheck import CrosscheckError, crosscheck, ns3, refusal


def scenario(queue=None, **flow):
    g = {"name": "a", "cc": "newreno", "count": 2, "rtt": "60ms", "stack": "linux"}
    g.update(flow)
    bn = {"rate": "10Mbps", "delay": "20ms", "buffer": "30pkts"}
    bn.update(queue or {})
    return {"name": "xc", "duration": "5s", "topology": {"kind": "dumbbell", "bottleneck": bn}, "flows": [g]}


def network(sc, seed=1):
    return json.loads(_core.Sim(json.dumps(sc), seed).network())


def text(sc, seed=1):
    net = network(sc, seed)
    return ns3.script(net, 5.0, net["warmup_s"], seed)


def record(txt, kind, ident):
    """The key=value pairs of record ``kind`` with ``id=ident``."""
    for line in txt.splitlines():
        tok = line.split()
        if tok and tok[0] == kind and f"id={ident}" in tok:
            return dict(t.split("=", 1) for t in tok[1:])
    raise AssertionError(f"no {kind} {ident}")


def test_droptail_holds_the_buffer_in_the_device_queue_one_less_if_it_counts_the_packet_in_service():
    assert record(text(scenario()), "link", 0)["limit"] == "30"
    assert record(text(scenario()), "link", 0)["queue"] == "droptail"
    sc = scenario({"queue_params": {"count_in_service": 1}})
    assert record(text(sc), "link", 0)["limit"] == "29"
    # Only the bottleneck is compared (no flow's data crosses the reverse one).
    assert [record(text(sc), "link", i)["monitor"] for i in (0, 1)] == ["1", "0"]


def test_red_gets_cclabs_resolved_parameters_and_one_packet_less_for_the_device_slot():
    sc = scenario({"queue": "red", "queue_params": {"min_th": 5, "max_th": 15, "max_p": 0.2}})
    r = record(text(sc), "link", 0)
    assert (r["queue"], r["limit"]) == ("ns3::RedQueueDisc", "29")
    assert (float(r["qd.MinTh"]), float(r["qd.MaxTh"]), float(r["qd.LInterm"])) == (5.0, 15.0, 5.0)
    assert r["qd.ARED"] == "false" and r["qd.AdaptMaxP"] == "false"
    net = network(sc)
    assert float(r["qd.QW"]) == net["links"][0]["queue"]["params"]["q_weight"]
    # Adaptive RED: ns-3's ARED flag would overwrite the thresholds, so only max_p adapts.
    a = record(text(scenario({"queue": "ared"})), "link", 0)
    assert a["qd.ARED"] == "false" and a["qd.AdaptMaxP"] == "true"
    assert float(a["qd.Interval"].rstrip("s")) == network(scenario({"queue": "ared"}))["links"][0]["queue"]["params"]["interval"]


def test_codel_fq_codel_and_pie_become_ns3_queue_discs_with_cclabs_parameters():
    c = record(text(scenario({"queue": "codel", "queue_params": {"target": 0.002, "ecn": 1, "ce_threshold": 0.001}})),
               "link", 0)
    assert (c["queue"], c["limit"]) == ("ns3::CoDelQueueDisc", "29")
    assert (c["qd.Target"], c["qd.Interval"], c["qd.UseEcn"], c["qd.CeThreshold"]) == ("0.002s", "0.1s", "true", "0.001s")
    # cclab exempts a backlog of at most 1500 bytes of its packets, ns-3 one below MinBytes of its
    # items, 2 bytes (PPP) shorter: one full packet in both, not two.
    assert c["qd.MinBytes"] == "1499"
    f = record(text(scenario({"queue": "fq_codel", "queue_params": {"flows": 256, "drop_batch_size": 8}}), seed=7),
               "link", 0)
    assert (f["queue"], f["limit"], f["qd.Flows"], f["qd.DropBatchSize"]) == ("ns3::FqCoDelQueueDisc", "29", "256", "8")
    assert (f["qd.UseEcn"], f["qd.Perturbation"], f["qd.Target"]) == ("true", "7", "0.005s")
    # An unlimited buffer is FQ-CoDel's 10240 packets in both.
    assert record(text(scenario({"queue": "fq_codel"})), "link", 1)["limit"] == "10239"
    p = record(text(scenario({"queue": "pie", "queue_params": {"derandomize": 1, "max_burst": 0.1}})), "link", 0)
    assert (p["queue"], p["limit"]) == ("ns3::PieQueueDisc", "29")
    assert (p["qd.QueueDelayReference"], p["qd.Tupdate"], p["qd.A"], p["qd.B"]) == ("0.015s", "0.015s", "0.125", "1.25")
    assert (p["qd.MaxBurstAllowance"], p["qd.UseDerandomization"], p["qd.UseDequeueRateEstimator"]) == ("0.1s", "true", "false")


@pytest.mark.parametrize("queue, params, field", [
    ("fq_codel", {"exact": 1}, "link bottleneck: queue_params.exact"),
    ("fq_codel", {"quantum": 3000}, "link bottleneck: queue_params.quantum"),
    ("fq_codel", {"memory_limit": 30000}, "link bottleneck: queue_params.memory_limit"),
    ("codel", {"ce_threshold": 0.001}, "link bottleneck: queue_params.ce_threshold"),
])
def test_aqm_settings_ns3_has_not_are_refused_naming_the_field(queue, params, field):
    with pytest.raises(CrosscheckError) as e:
        text(scenario({"queue": queue, "queue_params": params}))
    assert e.value.field == field and "\n" not in str(e.value)


@pytest.mark.parametrize("ts, size, seg", [(True, 1500, 1446), (False, 1500, 1458), (True, 1000, 946)])
def test_the_payload_leaves_the_same_bytes_on_the_wire_as_cclabs_packet(ts, size, seg):
    f = record(text(scenario(timestamps=ts, packet_size=f"{size}B")), "flow", 0)
    assert f["payload"] == f["tcp.SegmentSize"] == str(seg)
    assert f["tcp.Timestamp"] == str(ts).lower()


def test_flows_carry_their_resolved_settings_and_the_start_times_cclab_drew():
    sc = scenario(recovery="sack", delayed_ack=True, init_cwnd=4, rto_min="300ms", size="100kB",
                  start_spread="1s")
    txt = text(sc, seed=7)
    net = network(sc, seed=7)
    for i in (0, 1):
        f = record(txt, "flow", i)
        assert float(f["start"]) == net["flows"][i]["start_s"]
        assert (f["tcp.Sack"], f["tcp.DelAckCount"], f["tcp.InitialCwnd"]) == ("true", "2", "4")
        assert f["tcp.MinRto"] == "0.3s" and f["tcp.ConnTimeout"] == "1.0s"
        assert f["recovery"] == "ns3::TcpPrrRecovery"
        assert int(f["bytes"]) == net["flows"][i]["size_pkts"] * int(f["payload"])
    assert record(text(scenario(stack="cclab")), "flow", 0)["tcp.LimitedTransmit"] == "false"
    assert record(text(scenario(recovery="newreno")), "flow", 0)["tcp.Sack"] == "false"


def test_only_the_linux_profile_with_sack_recovers_with_prr():
    linux = record(text(scenario(recovery="sack")), "flow", 0)
    assert linux["tcp.DelAckTimeout"] == "0.04s" and linux["tcp.MinRto"] == "0.2s"
    assert linux["recovery"] == "ns3::TcpPrrRecovery"
    # cclab's linux profile runs PRR only with SACK: without it both recover classically.
    for other in (scenario(recovery="newreno"), scenario(stack="cclab", recovery="sack")):
        assert record(text(other), "flow", 0)["recovery"] == "ns3::TcpClassicRecovery"


def test_algorithms_get_ns3s_type_and_cclabs_constants():
    cubic = record(text(scenario(cc="cubic", stack="cclab")), "flow", 0)
    assert cubic["cc"] == "ns3::TcpCubic" and cubic["cc.HyStart"] == "false"
    assert (cubic["cc.C"], cubic["cc.Beta"]) == ("0.4", "0.7")
    vegas = record(text(scenario(cc="vegas", recovery="newreno")), "flow", 0)
    assert (vegas["cc"], vegas["cc.Alpha"], vegas["cc.Beta"], vegas["cc.Gamma"]) == ("ns3::TcpVegas", "2", "4", "1")
    vegas = record(text(scenario(cc="vegas", recovery="newreno", cc_params={"alpha": 3, "beta": 6})), "flow", 0)
    assert (vegas["cc.Alpha"], vegas["cc.Beta"]) == ("3", "6")


def test_bic_is_the_papers_under_cclab_and_linuxs_tcp_bic_under_linux():
    paper = record(text(scenario(cc="bic", stack="cclab", recovery="sack")), "flow", 0)
    assert (paper["cc"], paper["cc.BinarySearchCoefficient"], paper["cc.MaxIncr"]) == ("ns3::TcpBic", "2", "32")
    linux = record(text(scenario(cc="bic")), "flow", 0)
    # Linux's divisor, step and smooth part; its "at or below 14" is ns-3's "below 15", its
    # 819/1024 ns-3's fraction.
    assert {k: linux[f"cc.{k}"] for k in ("BinarySearchCoefficient", "MaxIncr", "SmoothPart", "LowWnd", "Beta",
                                          "FastConvergence")} == {
        "BinarySearchCoefficient": "4", "MaxIncr": "16", "SmoothPart": "20", "LowWnd": "15",
        "Beta": "0.7998046875", "FastConvergence": "true"}
    off = scenario(cc="bic", cc_params={"fast_convergence": 0, "smooth_part": 5})
    assert refusal(off, "ns3") is None
    assert (record(text(off), "flow", 0)["cc.FastConvergence"], record(text(off), "flow", 0)["cc.SmoothPart"]) == (
        "false", "5")


def test_cubic_is_the_rfcs_under_cclab_and_linuxs_tcp_cubic_under_linux():
    rfc = record(text(scenario(cc="cubic", stack="cclab")), "flow", 0)
    assert (rfc["cc.C"], rfc["cc.Beta"]) == ("0.4", "0.7")
    linux = record(text(scenario(cc="cubic")), "flow", 0)
    # bic_scale 41 is C = 410/1024, beta 717/1024.
    assert (linux["cc"], linux["cc.C"], linux["cc.Beta"], linux["cc.TcpFriendliness"]) == (
        "ns3::TcpCubic", "0.400390625", "0.7001953125", "true")
    off = scenario(cc="cubic", cc_params={"tcp_friendliness": 0, "fast_convergence": 0, "beta": 819})
    assert refusal(off, "ns3") is None
    got = record(text(off), "flow", 0)
    assert (got["cc.TcpFriendliness"], got["cc.FastConvergence"], got["cc.Beta"]) == ("false", "false", "0.7998046875")


def test_bbr_is_ns3s_tcp_bbr_with_its_filter_lengths_and_refuses_what_ns3_cannot_run():
    got = record(text(scenario(cc="bbr", stack="cclab", recovery="sack")), "flow", 0)
    assert (got["cc"], got["cc.BwWindowLength"], got["cc.RttWindowLength"], got["cc.ProbeRttDuration"]) == (
        "ns3::TcpBbr", "10", "10.0s", "0.2s")
    short = scenario(cc="bbr", stack="cclab", recovery="sack",
                     cc_params={"bw_rtts": 8, "min_rtt_win_sec": 5, "probe_rtt_mode_ms": 100, "tso_segs": 1, "lt_bw": 0})
    assert refusal(short, "ns3") is None
    got = record(text(short), "flow", 0)
    assert (got["cc.BwWindowLength"], got["cc.RttWindowLength"], got["cc.ProbeRttDuration"]) == ("8", "5.0s", "0.1s")
    assert refusal(scenario(cc="bbr", stack="cclab", recovery="sack", cc_params={"tso_segs": 4}), "ns3").field.endswith(
        "tso_segs")
    assert refusal(scenario(cc="bbr", stack="cclab", recovery="sack", cc_params={"extra_acked_gain": 0}),
                   "ns3").field.endswith("extra_acked_gain")


def test_cubic_runs_hystart_in_ns3_as_the_flow_resolved_it_with_linuxs_values():
    # The linux stack turns HyStart on: ns-3's knobs at Linux's values, and the delay margin
    # Linux's for the 60 ms path (60/8 = 7.5 ms, inside 4..16 ms) as both of ns-3's bounds.
    on = record(text(scenario(cc="cubic")), "flow", 0)
    assert (on["cc.HyStart"], on["cc.HyStartDetect"], on["cc.HyStartLowWindow"], on["cc.HyStartMinSamples"]) == (
        "true", "BOTH", "16", "8")
    assert (on["cc.HyStartAckDelta"], on["cc.CubicDelta"]) == ("0.002s", "1.0s")
    assert on["cc.HyStartDelayMin"] == on["cc.HyStartDelayMax"] == "0.0075s"
    # The margin's 4 ms floor and 16 ms ceiling.
    assert record(text(scenario({"delay": "5ms"}, cc="cubic", rtt="20ms")), "flow", 0)["cc.HyStartDelayMin"] == "0.004s"
    assert record(text(scenario(cc="cubic", rtt="200ms")), "flow", 0)["cc.HyStartDelayMax"] == "0.016s"
    # Written, it translates (and is not refused as a parameter ns-3 would ignore).
    off = scenario(cc="cubic", cc_params={"hystart": 0})
    assert refusal(off, "ns3") is None
    assert record(text(off), "flow", 0)["cc.HyStart"] == "false"
    assert "cc.HyStartDelayMin" not in record(text(off), "flow", 0)
    on = scenario(cc="cubic", stack="cclab", cc_params={"hystart": 1})
    assert record(text(on), "flow", 0)["cc.HyStart"] == "true"


def test_ecn_is_classic_ecn_on_both_ends_and_marking_red():
    sc = scenario({"queue": "red", "queue_params": {"ecn": 1}}, ecn=True)
    assert refusal(sc, "ns3") is None
    t = text(sc)
    assert record(t, "flow", 0)["tcp.UseEcn"] == "On"
    bn = next(line for line in t.splitlines() if line.startswith("link ") and "queue=ns3::RedQueueDisc" in line)
    assert "qd.UseEcn=true" in bn and "qd.UseHardDrop=true" in bn
    # Without ECN nothing is written that ns-3's defaults do not already say.
    plain = text(scenario({"queue": "red"}))
    assert "tcp.UseEcn" not in plain and "qd.UseEcn=false" in plain and "UseHardDrop" not in plain


def test_dctcp_is_ns3s_tcp_dctcp_on_red_set_up_as_a_step_marker_one_below_k():
    sc = scenario({"queue_params": {"ecn_threshold": 20}}, cc="dctcp", recovery="sack",
                  cc_params={"loss_reduction": 1, "g": 0.125})
    assert refusal(sc, "ns3") is None
    t = text(sc)
    f = record(t, "flow", 0)
    assert f["cc"] == "ns3::TcpDctcp" and f["cc.DctcpShiftG"] == "0.125" and f["tcp.UseEcn"] == "On"
    bn = next(line for line in t.splitlines() if line.startswith("link ") and "queue=ns3::RedQueueDisc" in line)
    # ns-3's disc holds one packet less than cclab's queue (one is staged in the device).
    for a in ("qd.MinTh=19.0", "qd.MaxTh=19.0", "qd.QW=1.0", "qd.UseEcn=true", "qd.UseHardDrop=false",
              "qd.Gentle=false", "limit=29"):
        assert a in bn.split(), a


@pytest.mark.parametrize("change, field", [
    ({"cc": "dctcp", "recovery": "sack"}, "flows[0].cc_params.loss_reduction"),
    ({"cc": "dctcp", "recovery": "sack", "cc_params": {"loss_reduction": 1, "alpha_init": 0.5}},
     "flows[0].cc_params.alpha_init"),
    ({"cc": "cubic", "stack": "cclab", "cc_params": {"hystart_pp": 1}}, "flows[0].cc_params.hystart_pp"),
    ({"queue": {"queue_params": {"ecn_threshold": 20}}}, "flows[0].ecn"),
    ({"queue": {"queue_params": {"ecn_threshold": 2}}, "ecn": True}, "link bottleneck: queue_params.ecn_threshold"),
    ({"queue": {"queue_params": {"ecn_threshold_bytes": 30000}}, "ecn": True},
     "link bottleneck: queue_params.ecn_threshold_bytes"),
    ({"queue": {"queue": "red", "queue_params": {"ecn_threshold": 20}}, "ecn": True},
     "link bottleneck: queue_params.ecn_threshold"),
])
def test_what_dctcp_and_step_marking_cannot_map_is_refused(change, field):
    q = change.pop("queue", None)
    with pytest.raises(CrosscheckError) as e:
        text(scenario(q, **change))
    assert e.value.field == field
    assert "accepted:" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("change, field", [
    ({"recovery": "reno"}, "flows[0].recovery"),
    ({"cc": "westwood"}, "flows[0].cc"),
    ({"overhead": "1ms"}, "flows[0].overhead"),
    ({"init_cwnd": 2.5}, "flows[0].init_cwnd"),
    ({"cc": "vegas", "recovery": "newreno", "cc_params": {"alpha": 2.5}}, "flows[0].cc_params.alpha"),
])
def test_what_does_not_map_is_refused_naming_the_field(change, field):
    with pytest.raises(CrosscheckError) as e:
        text(scenario(**change))
    assert e.value.field == field
    assert "accepted:" in str(e.value) and "\n" not in str(e.value)


def test_queues_and_graphs_ns3_cannot_build_alike_are_refused():
    with pytest.raises(CrosscheckError, match=r"^link bottleneck: buffer: 30000B"):
        text(scenario({"buffer": "30000B"}))
    with pytest.raises(CrosscheckError, match=r"^link bottleneck: buffer: 1pkts .*at least 2"):
        text(scenario({"queue": "red", "buffer": "1pkts"}))
    tri = {"name": "tri", "duration": "5s",
           "topology": {"kind": "graph", "nodes": ["a", "b", "c"], "links": [
               {"from": a, "to": b, "rate": "10Mbps", "delay": "5ms"} for a, b in ("ab", "bc", "ac")]},
           "flows": [{"cc": "newreno", "src": "a", "dst": "c", "recovery": "sack"}]}
    with pytest.raises(CrosscheckError, match=r"^topology: "):
        text(tri)
    # The matrix asks the same question before it runs anything.
    assert refusal(scenario(recovery="reno"), "ns3").field == "flows[0].recovery"
    assert refusal(dict(scenario(), udp=[{"rate": "1Mbps", "packet_size": "30B"}]), "ns3").field == "udp[0].packet_size"
    assert refusal(scenario(), "ns3") is None


def test_udp_sources_become_onoff_applications_with_cclabs_bytes_on_the_wire():
    sc = dict(scenario(), udp=[{"rate": "4Mbps", "packet_size": "1000B", "start": "1s", "stop": "3s"},
                               {"rate": "2Mbps", "on_time": "0.5s", "off_time": "1s"}])
    txt = text(sc)
    cbr, onoff = record(txt, "udp", 0), record(txt, "udp", 1)
    # 1000 bytes on the wire are 970 of payload after UDP, IP and PPP headers, and the payload's
    # rate is its share of the 4 Mbit/s on the wire.
    assert (cbr["payload"], cbr["rate"]) == ("970", "3880000")
    assert (float(cbr["start"]), float(cbr["stop"])) == (1.0, 3.0)
    assert "on" not in cbr and (float(onoff["on"]), float(onoff["off"])) == (0.5, 1.0)
    assert int(onoff["payload"]) + ns3.UDP_HEADERS == network(sc)["udp"][1]["packet_size"]


def test_the_report_lines_are_read_back_and_a_run_that_did_not_end_is_an_error():
    got = ns3.parse("junk\nW 2.0 F 1446 1 0 F 0 0 0 Q 0 3 1500 7.5\nE 5.0 F 14460 2 1 F 2892 0 0 Q 0 4 6000 30.5 M 0 12\n")
    assert got["E"]["marks"] == {0: 12.0} and got["W"]["marks"] == {}
    assert got["E"]["flows"][0] == {"rx_bytes": 14460.0, "retransmitted": 2.0, "timeouts": 1.0}
    assert got["W"]["queues"][0] == (3.0, 1500.0, 7.5) and got["E"]["t"] == 5.0
    f = {"packet_size": 1500, "timestamps": True}
    assert ns3.delivered_bytes(got["W"]["flows"][0], got["E"]["flows"][0], f, 2.0) == 9 * 1500
    with pytest.raises(CrosscheckError, match="a run that reaches its end"):
        ns3.parse("W 2.0 F 9 1 0\n")
    with pytest.raises(CrosscheckError, match="the report lines"):
        ns3.parse("E 5.0 F 9 1\n")


def test_the_matrix_lists_what_a_peer_refused_and_counts_only_the_rest():
    from cclab.crosscheck.matrix import markdown

    m = pd.DataFrame([
        {"scenario": "a", "stack": "linux", "metric": "timeouts", "kind": "start-up", "cclab": 1.0, "ns3": 1.0,
         "peer_min": 1.0, "peer_max": 1.0, "rel_diff": 0.0, "agrees": True},
        {"scenario": "b", "stack": "linux", "metric": "(not translated)", "kind": "not translated",
         "reason": "flows[0].recovery: reno cannot be cross-checked"},
    ])
    md = markdown(m, "ns3", 1, "cmd")
    assert "| linux | 0 of 0 | 1 of 1 |" in md
    assert "| b | linux | flows[0].recovery: reno cannot be cross-checked |" in md
    assert "## b" not in md


def test_a_matrix_compares_ns3_with_the_linux_profile_and_excludes_only_scenarios_it_has(tmp_path):
    from cclab.crosscheck.matrix import run_matrix

    assert ns3.STACKS == ("linux", "cclab")
    (tmp_path / "one.toml").write_text('name = "one"\nduration = "1s"\n[[flows]]\ncc = "newreno"\n')
    with pytest.raises(CrosscheckError) as e:
        run_matrix(tmp_path, "ns3", 1, ["linux"], exclude=["two"])
    assert e.value.field == "--exclude"
    assert run_matrix(tmp_path, "ns3", 1, ["linux"], exclude=["one"]).empty


needs_ns3 = pytest.mark.skipif(ns3.available() is None,
                               reason="ns-3 is not installed (pip install ns3==3.44.post0, and g++)")


@needs_ns3
def test_the_program_refuses_a_malformed_description_naming_the_field():
    exe = ns3.binary()
    good = text(scenario())
    bad = good.replace("queue=droptail limit=30", "queue=codel limit=30")
    p = subprocess.run([str(exe)], input=bad, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and re.search(r"line 3: link\.queue = codel; accepted: droptail or an ns-3 QueueDisc", p.stderr)
    bad = good.replace("queue=droptail limit=30", "queue=ns3::CoDelQueueDisc limit=30 qd.Targett=5ms")
    p = subprocess.run([str(exe)], input=bad, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "link.qd.Targett" in p.stderr
    bad = good.replace("tcp.MinRto=", "tcp.MinRtoo=")
    p = subprocess.run([str(exe)], input=bad, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "flow.tcp.MinRtoo" in p.stderr


@needs_ns3
def test_a_udp_source_takes_the_same_share_of_the_link_in_both():
    # A 4 Mbit/s CBR source beside one window-limited flow on an idle 10 Mbit/s link: nothing is
    # lost and the link carries the flow's goodput plus the source's rate. A wrong rate, payload
    # or start in the translation moves ns-3's utilization only.
    sc = dict(scenario(count=1, rwnd=10), udp=[{"rate": "4Mbps", "packet_size": "1000B"}], warmup="1s")
    t = crosscheck(sc, "ns3", seeds=1).table().set_index("metric")
    util = t.loc["bottleneck: utilization %"]
    assert 40.0 < util["ns3"] < 100.0
    assert abs(util["rel_diff"]) < 0.005, util
    assert t.loc["bottleneck: drops", "cclab"] == t.loc["bottleneck: drops", "ns3"] == 0


@needs_ns3
@pytest.mark.parametrize("size", ["1500B", "1000B"])
def test_a_window_limited_flow_gets_the_same_goodput_in_both(size):
    # One flow held to 10 packets by its receiver window on an idle 10 Mbit/s path: 10 packets
    # per round trip in any correct simulator. A wrong delay, rate, payload or window in the
    # translation moves one side only. Every segment is ACKed: with delayed ACKs the window's
    # last odd segment may wait for the ACK timer each round, by where the first ACKs left the
    # phase, and the linux profile's first quick ACKs (16) and receive-buffer autotuning leave
    # it even where ns-3's receiver, which has neither, leaves it odd (1.92 against 1.755 Mbit/s).
    sc = scenario(count=1, rwnd=10, packet_size=size, delayed_ack=False)
    sc["warmup"] = "1s"
    t = crosscheck(sc, "ns3", seeds=1).table().set_index("metric")
    gp = t.loc["goodput, all flows (Mbit/s)"]
    assert 1.0 < gp["ns3"] < 10.0
    assert abs(gp["rel_diff"]) < 0.005, gp
    assert abs(t.loc["bottleneck: utilization %", "rel_diff"]) < 0.005
    assert t.loc["bottleneck: drops", "cclab"] == t.loc["bottleneck: drops", "ns3"] == 0
    assert t.loc["retransmitted packets", "ns3"] == 0


@needs_ns3
def test_random_loss_is_counted_at_the_link_and_repaired():
    # 5 % loss on the bottleneck of an otherwise unloaded path: ns-3's drops there are its
    # error model's, about 5 % of the packets the link carried, and with SACK each loss is
    # repaired by about one retransmission.
    sc = scenario({"loss": 0.05, "buffer": "100pkts"}, count=1, rwnd=20, recovery="sack")
    sc["warmup"] = "0s"
    t = crosscheck(sc, "ns3", seeds=1).table().set_index("metric")
    drops = t.loc["bottleneck: drops", "ns3"]
    carried = t.loc["bottleneck: utilization %", "ns3"] / 100 * 10e6 * 5.0 / (8 * 1500)
    assert 0.03 < drops / carried < 0.07, (drops, carried)
    assert 0.8 * drops <= t.loc["retransmitted packets", "ns3"] <= 1.5 * drops


@needs_ns3
def test_a_graph_without_alternative_paths_runs_alike():
    # A chain a - b - c with a 5 Mbit/s middle hop: a window-limited flow's goodput depends on
    # every link's delay and the slow hop's rate, and each link of a graph is compared.
    chain = {"name": "chain", "duration": "4s", "warmup": "1s",
             "topology": {"kind": "graph", "nodes": ["a", "b", "c"], "links": [
                 {"from": "a", "to": "b", "rate": "20Mbps", "delay": "5ms"},
                 {"from": "b", "to": "c", "rate": "5Mbps", "delay": "15ms", "buffer": "50pkts"}]},
             "flows": [{"cc": "newreno", "src": "a", "dst": "c", "rwnd": 8, "stack": "linux"}]}
    t = crosscheck(chain, "ns3", seeds=1).table().set_index("metric")
    gp = t.loc["goodput, all flows (Mbit/s)"]
    assert 1.0 < gp["ns3"] < 5.0 and abs(gp["rel_diff"]) < 0.01, gp
    assert sum(1 for m in t.index if m.endswith(": utilization %")) == 4
