// The ns-3 side of `cclab crosscheck` (python/cclab/crosscheck/ns3.py): one program, compiled
// once per machine, that builds any network ns3.py describes and prints the counters the
// comparison reads. The description is plain text on stdin, one record per line:
//
//   ns3-crosscheck 1
//   run seed=S duration=T warmup=W nodes=N mtu=M
//   link id=I from=A to=B rate=BPS delay=S loss=P queue=droptail|<QueueDisc TypeId> limit=PKTS monitor=0|1
//        [qd.<Attr>=V ...]
//   flow id=I src=A dst=B cc=<TypeId> recovery=<TypeId> start=S bytes=N|0 payload=P
//        [tcp.<Attr>=V ...] [cc.<Attr>=V ...]
//
// `tcp.*` are TcpSocket / TcpSocketBase attributes set on both ends (the sender, and the
// listening socket whose accepted sockets copy them); `cc.*` are attributes of the flow's
// congestion-control object; `qd.*` of the link's queue disc (any ns-3 QueueDisc by its
// TypeId: ns3::RedQueueDisc, ns3::CoDelQueueDisc, ...). Every value is set by its ns-3
// attribute name, so the translation (and its reasons) lives in ns3.py; this program only
// builds and counts. Output, once at the warmup (W) and once at the end (E):
//
//   W|E <t> (F <rx_bytes> <retransmitted> <timeouts>)... (Q <link> <drops> <tx_bytes> <pkt_s>
//       [M <link> <marks>])...
//
// `M` follows the `Q` of a link with a queue disc: the packets it marked CE (its "Mark" trace,
// which a classful disc such as FqCoDel also fires for its children's marks).
//
// A malformed description ends the program with status 2 and one line naming the field.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "ns3_records.h"
#include "ns3_udp.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using cclab::InstallUdp;
using cclab::Record;
using cclab::Refuse;
using cclab::SetAll;

namespace
{

// A link direction's counters. Packets waiting are integrated over time as they change, so
// the mean queue needs no sampling; bytes are counted as transmission begins (the PPP header
// included: what occupies the link).
struct LinkCounters
{
    uint64_t drops{0};
    uint64_t marks{0};
    uint64_t txBytes{0};
    uint32_t waiting{0};
    double integral{0};
    Time last;

    void Change(int32_t delta)
    {
        Time now = Simulator::Now();
        integral += waiting * (now - last).GetSeconds();
        last = now;
        waiting = static_cast<uint32_t>(static_cast<int64_t>(waiting) + delta);
    }

    double IntegralNow() const
    {
        return integral + waiting * (Simulator::Now() - last).GetSeconds();
    }
};

struct FlowCounters
{
    uint64_t rxBytes{0};
    uint64_t retransmitted{0};
    uint64_t timeouts{0};
    bool established{false};
};

struct Link
{
    Record rec;
    uint32_t from, to;
    Ptr<PointToPointNetDevice> dev;  // the sending device of this direction
    Ptr<PointToPointNetDevice> peer; // the receiving one
    std::string qdisc;               // the queue disc's TypeId; empty: the device queue only
    bool monitor{false};
};

// A bulk sender: keeps the socket's buffer full until `total` bytes are written (0: for ever).
struct Sender
{
    Ptr<Socket> socket;
    uint64_t total{0};
    uint64_t written{0};
    uint32_t chunk{0};

    void Fill(Ptr<Socket> s, uint32_t available)
    {
        while (available > 0 && (total == 0 || written < total))
        {
            uint64_t n = std::min<uint64_t>(available, chunk);
            if (total != 0)
            {
                n = std::min<uint64_t>(n, total - written);
            }
            int sent = s->Send(Create<Packet>(static_cast<uint32_t>(n)));
            if (sent <= 0)
            {
                return;
            }
            written += sent;
            available = s->GetTxAvailable();
        }
    }
};

} // namespace

int
main(int argc, char* argv[])
{
    std::vector<Record> recs;
    std::string text;
    int lineNo = 0;
    bool header = false;
    while (std::getline(std::cin, text))
    {
        ++lineNo;
        std::istringstream is(text);
        Record r;
        r.line = lineNo;
        if (!(is >> r.kind) || r.kind[0] == '#')
        {
            continue;
        }
        if (!header)
        {
            std::string version;
            is >> version;
            if (r.kind != "ns3-crosscheck" || version != "1")
            {
                Refuse(lineNo, "header", text, "ns3-crosscheck 1");
            }
            header = true;
            continue;
        }
        std::string tok;
        while (is >> tok)
        {
            auto eq = tok.find('=');
            if (eq == std::string::npos || eq == 0)
            {
                Refuse(lineNo, r.kind, tok, "key=value");
            }
            r.kv[tok.substr(0, eq)] = tok.substr(eq + 1);
        }
        if (r.kind != "run" && r.kind != "link" && r.kind != "flow" && r.kind != "udp")
        {
            Refuse(lineNo, "record", r.kind, "run, link, flow or udp");
        }
        recs.push_back(r);
    }
    if (recs.empty() || recs[0].kind != "run")
    {
        Refuse(lineNo, "run", "(missing)", "a run record first");
    }
    const Record& run = recs[0];
    const auto seed = static_cast<uint32_t>(run.Num("seed", 1, 4294967295.0));
    const double duration = run.Num("duration", 1e-9, 1e7);
    const double warmup = run.Num("warmup", 0, duration);
    const auto nNodes = static_cast<uint32_t>(run.Num("nodes", 1, 1e6));
    const auto mtu = static_cast<uint16_t>(run.Num("mtu", 576, 65535));
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(1);

    NodeContainer nodes;
    nodes.Create(nNodes);

    // One point-to-point channel per pair of directions: ns-3's channel has one delay, each
    // device its own rate and transmit queue.
    std::vector<Link> links;
    std::map<std::pair<uint32_t, uint32_t>, size_t> byPair;
    for (const Record& r : recs)
    {
        if (r.kind != "link")
        {
            continue;
        }
        Link l;
        l.rec = r;
        l.from = static_cast<uint32_t>(r.Num("from", 0, nNodes - 1));
        l.to = static_cast<uint32_t>(r.Num("to", 0, nNodes - 1));
        if (static_cast<size_t>(r.Num("id", 0, 1e9)) != links.size())
        {
            Refuse(r.line, "link.id", r.Str("id"), "links numbered from 0 in order");
        }
        const std::string& q = r.Str("queue");
        TypeId qd;
        if (q != "droptail" &&
            (!TypeId::LookupByNameFailSafe(q, &qd) || !qd.IsChildOf(QueueDisc::GetTypeId())))
        {
            Refuse(r.line, "link.queue", q, "droptail or an ns-3 QueueDisc TypeId");
        }
        if (q != "droptail")
        {
            l.qdisc = q;
        }
        l.monitor = r.Num("monitor", 0, 1) != 0;
        byPair[{l.from, l.to}] = links.size();
        links.push_back(l);
    }
    std::vector<NetDeviceContainer> pairs;
    for (Link& l : links)
    {
        if (l.dev)
        {
            continue;
        }
        auto back = byPair.find({l.to, l.from});
        if (back == byPair.end() || l.from == l.to)
        {
            Refuse(l.rec.line, "link", l.rec.Str("id"), "a link with its reverse direction");
        }
        Link& r = links[back->second];
        if (r.rec.Str("delay") != l.rec.Str("delay"))
        {
            Refuse(l.rec.line, "link.delay", l.rec.Str("delay"), "the delay of its reverse direction");
        }
        PointToPointHelper p2p;
        p2p.SetChannelAttribute("Delay", TimeValue(Seconds(l.rec.Num("delay", 0, 1e4))));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
        // Without flow control no queue disc is installed by default (ns-3 would put FqCoDel
        // on every device): the device queue is the link's queue unless a disc is asked for.
        p2p.DisableFlowControl();
        NetDeviceContainer d = p2p.Install(nodes.Get(l.from), nodes.Get(l.to));
        l.dev = DynamicCast<PointToPointNetDevice>(d.Get(0));
        l.peer = DynamicCast<PointToPointNetDevice>(d.Get(1));
        r.dev = l.peer;
        r.peer = l.dev;
        pairs.push_back(d);
    }

    InternetStackHelper internet;
    internet.InstallAll();

    std::vector<LinkCounters> lc(links.size());
    for (size_t i = 0; i < links.size(); ++i)
    {
        Link& l = links[i];
        const Record& r = l.rec;
        l.dev->SetDataRate(DataRate(static_cast<uint64_t>(r.Num("rate", 1, 1e13))));
        const auto limit = static_cast<uint32_t>(r.Num("limit", 1, 4294967295.0));
        Ptr<Queue<Packet>> dq = l.dev->GetQueue();
        if (l.qdisc.empty())
        {
            dq->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, limit));
        }
        else
        {
            // A queue disc needs the backlog: the device keeps one packet staged behind the one
            // it sends and stops its queue (flow control) until that one is taken.
            dq->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, 1));
            Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
            ndqi->GetTxQueue(0)->ConnectQueueTraces(dq);
            l.dev->AggregateObject(ndqi);
            TrafficControlHelper tch;
            tch.SetRootQueueDisc(l.qdisc);
            Ptr<QueueDisc> qd = tch.Install(l.dev).Get(0);
            qd->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, limit));
            SetAll(*qd, r.With("qd."), r, "qd.");
            // The root's count: a classful disc (FqCoDel) counts its children's packets in it.
            qd->TraceConnectWithoutContext(
                "PacketsInQueue",
                MakeCallback(+[](LinkCounters* c, uint32_t o, uint32_t n) {
                    c->Change(static_cast<int32_t>(n) - static_cast<int32_t>(o));
                }).Bind(&lc[i]));
            // Drops before enqueue and after dequeue (CoDel's), the children's included.
            qd->TraceConnectWithoutContext(
                "Drop",
                MakeCallback(+[](LinkCounters* c, Ptr<const QueueDiscItem>) { ++c->drops; })
                    .Bind(&lc[i]));
            qd->TraceConnectWithoutContext(
                "Mark",
                MakeCallback(+[](LinkCounters* c, Ptr<const QueueDiscItem>, const char*) {
                    ++c->marks;
                }).Bind(&lc[i]));
        }
        dq->TraceConnectWithoutContext(
            "PacketsInQueue",
            MakeCallback(+[](LinkCounters* c, uint32_t o, uint32_t n) {
                c->Change(static_cast<int32_t>(n) - static_cast<int32_t>(o));
            }).Bind(&lc[i]));
        dq->TraceConnectWithoutContext(
            "Drop",
            MakeCallback(+[](LinkCounters* c, Ptr<const Packet>) { ++c->drops; }).Bind(&lc[i]));
        l.dev->TraceConnectWithoutContext(
            "PhyTxBegin",
            MakeCallback(+[](LinkCounters* c, Ptr<const Packet> p) { c->txBytes += p->GetSize(); })
                .Bind(&lc[i]));
        const double loss = r.Num("loss", 0, 1);
        if (loss > 0)
        {
            // ns-3's only per-link loss hook is the receiving device's error model: the packet
            // has crossed the queue and the link before it is lost.
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
            em->SetAttribute("ErrorRate", DoubleValue(loss));
            l.peer->SetAttribute("ReceiveErrorModel", PointerValue(em));
            l.peer->TraceConnectWithoutContext(
                "PhyRxDrop",
                MakeCallback(+[](LinkCounters* c, Ptr<const Packet>) { ++c->drops; }).Bind(&lc[i]));
        }
    }

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    for (auto& d : pairs)
    {
        addr.Assign(d);
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<FlowCounters> fc;
    std::vector<Sender> senders;
    std::vector<Ptr<Socket>> listeners;
    size_t nFlows = 0;
    for (const Record& r : recs)
    {
        nFlows += r.kind == "flow";
    }
    fc.resize(nFlows);
    senders.resize(nFlows);
    size_t fi = 0;
    for (const Record& r : recs)
    {
        if (r.kind != "flow")
        {
            continue;
        }
        if (static_cast<size_t>(r.Num("id", 0, 1e9)) != fi)
        {
            Refuse(r.line, "flow.id", r.Str("id"), "flows numbered from 0 in order");
        }
        Ptr<Node> src = nodes.Get(static_cast<uint32_t>(r.Num("src", 0, nNodes - 1)));
        Ptr<Node> dst = nodes.Get(static_cast<uint32_t>(r.Num("dst", 0, nNodes - 1)));
        const auto port = static_cast<uint16_t>(1000 + fi);
        const double start = r.Num("start", 0, duration);
        const auto payload = static_cast<uint32_t>(r.Num("payload", 1, 65535));
        TypeId cc;
        TypeId rec;
        if (!TypeId::LookupByNameFailSafe(r.Str("cc"), &cc))
        {
            Refuse(r.line, "flow.cc", r.Str("cc"), "an ns-3 congestion control TypeId");
        }
        if (!TypeId::LookupByNameFailSafe(r.Str("recovery"), &rec))
        {
            Refuse(r.line, "flow.recovery", r.Str("recovery"), "an ns-3 recovery TypeId");
        }
        // TcpL4Protocol makes each new socket's congestion control and recovery from these
        // two attributes, so they are set just before this flow's sockets are made.
        Ptr<TcpL4Protocol> l4 = src->GetObject<TcpL4Protocol>();
        l4->SetAttribute("SocketType", TypeIdValue(cc));
        l4->SetAttribute("RecoveryType", TypeIdValue(rec));
        Ptr<Socket> s = Socket::CreateSocket(src, TcpSocketFactory::GetTypeId());
        Ptr<TcpL4Protocol> dl4 = dst->GetObject<TcpL4Protocol>();
        dl4->SetAttribute("SocketType", TypeIdValue(cc));
        dl4->SetAttribute("RecoveryType", TypeIdValue(rec));
        Ptr<Socket> listen = Socket::CreateSocket(dst, TcpSocketFactory::GetTypeId());
        const auto tcpAttrs = r.With("tcp.");
        SetAll(*s, tcpAttrs, r, "tcp.");
        SetAll(*listen, tcpAttrs, r, "tcp.");
        PointerValue ops;
        s->GetAttribute("CongestionOps", ops);
        SetAll(*ops.Get<Object>(), r.With("cc."), r, "cc.");

        listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        listen->Listen();
        FlowCounters* c = &fc[fi];
        listen->SetAcceptCallback(
            MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
            MakeCallback(+[](FlowCounters* c, Ptr<Socket> a, const Address&) {
                a->SetRecvCallback(MakeCallback(+[](FlowCounters* c, Ptr<Socket> a) {
                                                    while (Ptr<Packet> p = a->Recv())
                                                    {
                                                        c->rxBytes += p->GetSize();
                                                    }
                                                }).Bind(c));
            }).Bind(c));
        listeners.push_back(listen);

        s->TraceConnectWithoutContext(
            "Retransmission",
            MakeCallback(+[](FlowCounters* c,
                             Ptr<const Packet>,
                             const TcpHeader&,
                             const Address&,
                             const Address&,
                             Ptr<const TcpSocketBase>) { ++c->retransmitted; })
                .Bind(c));
        s->TraceConnectWithoutContext(
            "State",
            MakeCallback(+[](FlowCounters* c, TcpSocket::TcpStates_t, TcpSocket::TcpStates_t n) {
                c->established = c->established || n == TcpSocket::ESTABLISHED;
            }).Bind(c));
        // ns-3 has no timeout counter. ReTxTimeout (tcp-socket-base.cc) doubles m_rto, capped
        // at 60 s, before it retransmits; the other writers of m_rto set it from the RTT
        // estimate. So a doubling once the connection is up is a timeout (SYN retries also
        // double it, before ESTABLISHED; a timeout at the 60 s cap is missed).
        s->TraceConnectWithoutContext(
            "RTO",
            MakeCallback(+[](FlowCounters* c, Time o, Time n) {
                if (c->established && n > o && n == Min(o + o, Seconds(60)))
                {
                    ++c->timeouts;
                }
            }).Bind(c));

        if (fi == 0 && std::getenv("CCLAB_NS3_TRACE"))
        {
            // Diagnosis only: flow 0's window, state and timer as they change, on stderr.
            s->TraceConnectWithoutContext("CongestionWindow",
                                          MakeCallback(+[](uint32_t, uint32_t n) {
                                              std::cerr << Simulator::Now().GetSeconds()
                                                        << " cwnd " << n << "\n";
                                          }));
            s->TraceConnectWithoutContext(
                "CongState",
                MakeCallback(+[](TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t n) {
                    std::cerr << Simulator::Now().GetSeconds() << " state "
                              << TcpSocketState::TcpCongStateName[n] << "\n";
                }));
            s->TraceConnectWithoutContext("RTO", MakeCallback(+[](Time, Time n) {
                                              std::cerr << Simulator::Now().GetSeconds()
                                                        << " rto " << n.GetSeconds() << "\n";
                                          }));
        }
        Sender* snd = &senders[fi];
        snd->socket = s;
        snd->total = static_cast<uint64_t>(r.Num("bytes", 0, 1e18));
        // Written in whole segments so that the send buffer never holds a partial one.
        snd->chunk = payload * std::max<uint32_t>(1, 65536 / payload);
        Ipv4Address to = dst->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
        s->Bind();
        s->SetSendCallback(MakeCallback(&Sender::Fill, snd));
        Simulator::Schedule(Seconds(start), [s, to, port, snd]() {
            s->Connect(InetSocketAddress(to, port));
            snd->Fill(s, s->GetTxAvailable());
        });
        ++fi;
    }

    uint16_t udpPort = 9000;
    for (const Record& r : recs)
    {
        if (r.kind == "udp")
        {
            InstallUdp(r, nodes, nNodes, duration, udpPort++);
        }
    }

    auto report = [&](const char* tag) {
        std::ostringstream os;
        os.precision(17);
        os << tag << " " << Simulator::Now().GetSeconds();
        for (const FlowCounters& c : fc)
        {
            os << " F " << c.rxBytes << " " << c.retransmitted << " " << c.timeouts;
        }
        for (size_t i = 0; i < links.size(); ++i)
        {
            if (links[i].monitor)
            {
                os << " Q " << i << " " << lc[i].drops << " " << lc[i].txBytes << " "
                   << lc[i].IntegralNow();
                if (!links[i].qdisc.empty())
                {
                    os << " M " << i << " " << lc[i].marks;
                }
            }
        }
        std::cout << os.str() << std::endl;
    };
    if (warmup > 0)
    {
        Simulator::Schedule(Seconds(warmup), [&]() { report("W"); });
    }
    Simulator::Schedule(Seconds(duration), [&]() { report("E"); });
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    Simulator::Destroy();
    return 0;
}
