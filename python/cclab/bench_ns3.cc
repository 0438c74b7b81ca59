// ns-3 (3.44) dumbbell benchmark for TCP congestion-control simulator performance anchoring.
//
// Native C++ program (no Python bindings). `cclab bench --ns3 auto` compiles it against the ns3
// wheel's headers and libraries (cclab/bench.py, find_ns3) and runs it on each case.
//
// Topology (classic dumbbell, one sender and one receiver node per flow):
//
//   S_i --(access, 10x C, dA)-- R1 ==(bottleneck, C, dB)== R2 --(access, 10x C, dA)-- D_i
//
//   Round-trip propagation delay RTT = 2 * (2*dA + dB); dA = 1 ms by default, dB = RTT/2 - 2*dA.
//
// Where the bottleneck buffer lives (deliberate, see RESULTS.md):
//   * All point-to-point links are created with PointToPointHelper::DisableFlowControl(), so no
//     NetDeviceQueueInterface is aggregated and Ipv4AddressHelper therefore installs NO default
//     traffic-control queue disc (FqCoDel) on any device. Every packet goes IP -> TC layer (pass
//     through) -> device DropTailQueue.
//   * DropTail scenarios: the bottleneck buffer is the DropTailQueue<Packet> of R1's bottleneck
//     PointToPointNetDevice, MaxSize = N packets (N excludes the packet being serialized).
//   * RED scenario: a RedQueueDisc is installed as root queue disc on R1's bottleneck device, the
//     device queue is shrunk to 1 packet and flow control (NetDeviceQueueInterface) is enabled on
//     that single device only, so the backlog builds in the RED queue disc (as in ns-3's
//     tcp-validation.cc pattern) and the device queue is a 1-packet staging slot.
//   * All other device queues are made huge (never drop); their drop counters are reported as a check.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

double
WallNow()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// 64-bit accumulator over a QueueBase whose byte counters are only uint32 (they wrap at 4 GiB,
// which a 10 Gb/s link reaches in ~3.4 s). Sampled every second, deltas taken modulo 2^32.
struct QueueAccumulator
{
    Ptr<QueueBase> q;
    uint32_t lastRxPkts{0};
    uint32_t lastRxBytes{0};
    uint32_t lastDropPkts{0};
    uint64_t rxPkts{0};
    uint64_t rxBytes{0};
    uint64_t dropPkts{0};

    void Sample()
    {
        uint32_t p = q->GetTotalReceivedPackets();
        uint32_t b = q->GetTotalReceivedBytes();
        uint32_t d = q->GetTotalDroppedPackets();
        rxPkts += static_cast<uint32_t>(p - lastRxPkts);
        rxBytes += static_cast<uint32_t>(b - lastRxBytes);
        dropPkts += static_cast<uint32_t>(d - lastDropPkts);
        lastRxPkts = p;
        lastRxBytes = b;
        lastDropPkts = d;
    }

    // packets/bytes that have left the queue (i.e. started serialization on the link)
    uint64_t TxPkts() const
    {
        return rxPkts - q->GetNPackets();
    }

    uint64_t TxBytes() const
    {
        return rxBytes - q->GetNBytes();
    }
};

struct Snapshot
{
    double simTime{0};
    uint64_t bnTxPkts{0};
    uint64_t bnTxBytes{0};
    uint64_t bnDrops{0};
    uint64_t sinkBytes{0};
};

} // namespace

int
main(int argc, char* argv[])
{
    const double wallStart = WallNow();

    std::string scenario = "single-reno";
    double simTimeOverride = -1;
    uint32_t seed = 1;
    uint32_t run = 1;
    uint32_t segmentSize = 1448; // 1448 payload + 20 TCP + 12 TS option + 20 IP = 1500 B IP packet
    uint32_t sendSize = 1448 * 45; // BulkSend write size (multiple of MSS, ~64 KB)
    double sockBufFactor = 4.0;     // socket buffers = factor * (BDP + bottleneck buffer) bytes
    double warmup = 5.0;            // steady-state utilization measured over [warmup, T]
    double accessDelayMs = 1.0;
    double accessRateFactor = 10.0;
    std::string redMode = "default";
    std::string scheduler = "ns3::MapScheduler"; // ns-3 default scheduler
    bool verbose = false;
    bool traceFlow0 = false;
    bool progress = true;
    bool maxCwnd = false;
    double ssthresh0Pkts = 0; // 0: ns-3 default (UINT32_MAX, i.e. unbounded slow start)
    bool fairSsthresh0 = false;
    bool strongEs = false;    // ns-3 default Ipv4::StrongEndSystemModel = false
    double sampleInterval = 1.0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("scenario",
                 "single-reno | dumbbell-50 | highspeed-10g | red-10  (aliases B1..B4)",
                 scenario);
    cmd.AddValue("simTime", "override simulated duration [s]", simTimeOverride);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.AddValue("sendSize", "BulkSendApplication SendSize [bytes]", sendSize);
    cmd.AddValue("sockBufFactor", "socket buffer = factor*(BDP+buffer) bytes", sockBufFactor);
    cmd.AddValue("warmup", "start of steady-state window [s]", warmup);
    cmd.AddValue("accessDelayMs", "one-way delay of each access link [ms]", accessDelayMs);
    cmd.AddValue("accessRateFactor", "access link rate / bottleneck rate", accessRateFactor);
    cmd.AddValue("red",
                 "RED variant for red-10: 'default' (ARED=true, all other RedQueueDisc attributes "
                 "at ns-3 defaults) or 'linkaware' (ARED=true, LinkBandwidth/LinkDelay/"
                 "MeanPktSize set to the real link, MaxSize = 1 BDP)",
                 redMode);
    cmd.AddValue("scheduler", "event scheduler TypeId", scheduler);
    cmd.AddValue("verbose", "print per-second bottleneck utilization", verbose);
    cmd.AddValue("maxCwnd",
                 "diagnostic: record every flow's maximum cwnd (costs a callback per cwnd "
                 "change; not for timing runs)",
                 maxCwnd);
    cmd.AddValue("ssthresh0Pkts",
                 "NON-DEFAULT: TcpSocket::InitialSlowStartThreshold in segments (0 = ns-3 default)",
                 ssthresh0Pkts);
    cmd.AddValue("fairSsthresh0",
                 "NON-DEFAULT: initial ssthresh = (BDP+buffer)/flows (caps the slow-start "
                 "overshoot)",
                 fairSsthresh0);
    cmd.AddValue("strongEs",
                 "NON-DEFAULT if true: Ipv4::StrongEndSystemModel (routers then only compare the "
                 "destination with the incoming interface's address instead of all interfaces)",
                 strongEs);
    cmd.AddValue("progress", "print one progress line per sample to stderr", progress);
    cmd.AddValue("sampleInterval", "bottleneck counter sampling interval [s]", sampleInterval);
    cmd.AddValue("traceFlow0",
                 "diagnostic: print cwnd/ssthresh/congestion-state changes of flow 0 to stderr "
                 "(not for timing runs)",
                 traceFlow0);
    cmd.Parse(argc, argv);

    // ----------------------------------------------------------------- scenario table
    std::string cc;
    uint32_t nFlows = 1;
    double bnBps = 0;
    double rtt = 0;
    bool useRed = false;
    double bufBdpFraction = 0;
    double simTime = 0;
    double startSpread = 0;
    if (scenario == "single-reno" || scenario == "B1")
    {
        scenario = "single-reno";
        cc = "ns3::TcpNewReno";
        nFlows = 1;
        bnBps = 100e6;
        rtt = 0.080;
        bufBdpFraction = 0.25;
        simTime = 120;
        startSpread = 0;
    }
    else if (scenario == "dumbbell-50" || scenario == "B2")
    {
        scenario = "dumbbell-50";
        cc = "ns3::TcpCubic";
        nFlows = 50;
        bnBps = 500e6;
        rtt = 0.080;
        bufBdpFraction = 1.0;
        simTime = 60;
        startSpread = 1.0;
    }
    else if (scenario == "highspeed-10g" || scenario == "B3")
    {
        scenario = "highspeed-10g";
        cc = "ns3::TcpHighSpeed";
        nFlows = 100;
        bnBps = 10e9;
        rtt = 0.100;
        bufBdpFraction = 0.1;
        simTime = 20;
        startSpread = 1.0;
    }
    else if (scenario == "red-10" || scenario == "B4")
    {
        scenario = "red-10";
        cc = "ns3::TcpNewReno";
        nFlows = 10;
        bnBps = 1e9;
        rtt = 0.050;
        useRed = true;
        bufBdpFraction = 0; // RED: MaxSize from RedQueueDisc default (25p) unless red=linkaware
        simTime = 60;
        startSpread = 1.0;
    }
    else
    {
        NS_FATAL_ERROR("unknown scenario " << scenario);
    }
    if (simTimeOverride > 0)
    {
        simTime = simTimeOverride;
    }
    if (warmup >= simTime)
    {
        warmup = simTime / 2;
    }

    const double ipPktBytes = 1500.0;
    const double bdpPkts = bnBps * rtt / (8.0 * ipPktBytes);
    uint32_t bufPkts = 0;
    if (!useRed)
    {
        bufPkts = static_cast<uint32_t>(std::llround(bdpPkts * bufBdpFraction));
    }
    else if (redMode == "linkaware")
    {
        bufPkts = static_cast<uint32_t>(std::llround(bdpPkts));
    }
    else if (redMode == "default")
    {
        bufPkts = 25; // RedQueueDisc::MaxSize default, informational only
    }
    else
    {
        NS_FATAL_ERROR("unknown red mode " << redMode);
    }
    const double bdpBytes = bnBps * rtt / 8.0;
    const double sockBufD = sockBufFactor * (bdpBytes + bufPkts * ipPktBytes);
    NS_ABORT_MSG_IF(sockBufD > 4.0e9, "socket buffer exceeds uint32");
    const auto sockBuf = static_cast<uint32_t>(std::ceil(sockBufD));

    const double accBps = bnBps * accessRateFactor;
    const Time accDelay = Seconds(accessDelayMs / 1000.0);
    const Time bnDelay = Seconds(rtt / 2.0 - 2.0 * accessDelayMs / 1000.0);
    NS_ABORT_MSG_IF(bnDelay.IsNegative(), "access delay too large for RTT");

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    {
        ObjectFactory sf;
        sf.SetTypeId(scheduler);
        Simulator::SetScheduler(sf);
    }

    // ----------------------------------------------------------------- TCP defaults
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(cc)));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentSize));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sockBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(sockBuf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    if (fairSsthresh0)
    {
        ssthresh0Pkts = (bdpPkts + bufPkts) / nFlows;
    }
    if (ssthresh0Pkts > 0)
    {
        Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                           UintegerValue(static_cast<uint32_t>(ssthresh0Pkts * segmentSize)));
    }
    Config::SetDefault("ns3::Ipv4::StrongEndSystemModel", BooleanValue(strongEs));

    // ----------------------------------------------------------------- topology
    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(nFlows);
    NodeContainer receivers;
    receivers.Create(nFlows);

    const uint32_t hugeQ = 10000000; // access / reverse queues: effectively infinite

    PointToPointHelper bnHelper;
    bnHelper.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(bnBps))));
    bnHelper.SetChannelAttribute("Delay", TimeValue(bnDelay));
    bnHelper.SetQueue("ns3::DropTailQueue<Packet>",
                      "MaxSize",
                      QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, hugeQ)));
    bnHelper.DisableFlowControl();
    NetDeviceContainer bnDevs = bnHelper.Install(routers.Get(0), routers.Get(1));
    Ptr<PointToPointNetDevice> bnDev = DynamicCast<PointToPointNetDevice>(bnDevs.Get(0));
    Ptr<Queue<Packet>> bnDevQueue = bnDev->GetQueue();
    if (!useRed)
    {
        bnDevQueue->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, bufPkts));
    }
    else
    {
        // 1-packet staging queue in the device, flow control on this device only, so that the
        // RED queue disc holds the backlog.
        bnDevQueue->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, 1));
        Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
        ndqi->GetTxQueue(0)->ConnectQueueTraces(bnDevQueue);
        bnDev->AggregateObject(ndqi);
    }

    PointToPointHelper accHelper;
    accHelper.SetDeviceAttribute("DataRate",
                                 DataRateValue(DataRate(static_cast<uint64_t>(accBps))));
    accHelper.SetChannelAttribute("Delay", TimeValue(accDelay));
    accHelper.SetQueue("ns3::DropTailQueue<Packet>",
                       "MaxSize",
                       QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, hugeQ)));
    accHelper.DisableFlowControl();
    std::vector<NetDeviceContainer> leftDevs(nFlows);
    std::vector<NetDeviceContainer> rightDevs(nFlows);
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        leftDevs[i] = accHelper.Install(senders.Get(i), routers.Get(0));
        rightDevs[i] = accHelper.Install(routers.Get(1), receivers.Get(i));
    }

    InternetStackHelper stack;
    stack.InstallAll();

    Ptr<QueueDisc> redQdisc;
    if (useRed)
    {
        TrafficControlHelper tch;
        if (redMode == "default")
        {
            tch.SetRootQueueDisc("ns3::RedQueueDisc", "ARED", BooleanValue(true));
        }
        else
        {
            tch.SetRootQueueDisc(
                "ns3::RedQueueDisc",
                "ARED",
                BooleanValue(true),
                "LinkBandwidth",
                DataRateValue(DataRate(static_cast<uint64_t>(bnBps))),
                "LinkDelay",
                TimeValue(bnDelay),
                "MeanPktSize",
                UintegerValue(static_cast<uint32_t>(ipPktBytes)),
                "MaxSize",
                QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, bufPkts)));
        }
        QueueDiscContainer qdc = tch.Install(bnDevs.Get(0));
        redQdisc = qdc.Get(0);
    }

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(bnDevs);
    std::vector<Ipv4Address> rxAddr(nFlows);
    addr.SetBase("10.1.0.0", "255.255.255.0");
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        addr.Assign(leftDevs[i]);
        addr.NewNetwork();
    }
    addr.SetBase("10.2.0.0", "255.255.255.0");
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        Ipv4InterfaceContainer ifc = addr.Assign(rightDevs[i]);
        rxAddr[i] = ifc.GetAddress(1);
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Check: exactly the intended queue discs exist (none, or RED on R1's bottleneck device).
    uint32_t nQdiscs = 0;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (tc && tc->GetRootQueueDiscOnDevice(node->GetDevice(d)))
            {
                ++nQdiscs;
            }
        }
    }
    NS_ABORT_MSG_IF(nQdiscs != (useRed ? 1u : 0u), "unexpected queue discs: " << nQdiscs);

    // ----------------------------------------------------------------- applications
    const uint16_t port = 5000;
    std::vector<Ptr<PacketSink>> sinks(nFlows);
    std::vector<uint32_t> flowMaxCwnd(nFlows, 0);
    std::vector<uint32_t> flowLastCwnd(nFlows, 0);
    Ptr<UniformRandomVariable> startRv = CreateObject<UniformRandomVariable>();
    startRv->SetAttribute("Min", DoubleValue(0.0));
    startRv->SetAttribute("Max", DoubleValue(startSpread));
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkHelper.Install(receivers.Get(i));
        sa.Start(Seconds(0));
        sinks[i] = DynamicCast<PacketSink>(sa.Get(0));

        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(rxAddr[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(sendSize));
        ApplicationContainer ca = bulk.Install(senders.Get(i));
        double st = startSpread > 0 ? startRv->GetValue() : 0.0;
        ca.Start(Seconds(st));
        if (maxCwnd)
        {
            Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(ca.Get(0));
            Simulator::Schedule(Seconds(st) + NanoSeconds(1), [app, i, &flowMaxCwnd, &flowLastCwnd]() {
                app->GetSocket()->TraceConnectWithoutContext(
                    "CongestionWindow",
                    Callback<void, uint32_t, uint32_t>(
                        [i, &flowMaxCwnd, &flowLastCwnd](uint32_t, uint32_t v) {
                            flowMaxCwnd[i] = std::max(flowMaxCwnd[i], v);
                            flowLastCwnd[i] = v;
                        }));
            });
        }
        if (traceFlow0 && i == 0)
        {
            Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(ca.Get(0));
            Simulator::Schedule(Seconds(st) + NanoSeconds(1), [app]() {
                Ptr<Socket> s = app->GetSocket();
                s->TraceConnectWithoutContext(
                    "CongestionWindow",
                    Callback<void, uint32_t, uint32_t>([](uint32_t, uint32_t v) {
                        std::cerr << Simulator::Now().GetSeconds() << " cwnd " << v / 1448.0
                                  << "\n";
                    }));
                s->TraceConnectWithoutContext(
                    "SlowStartThreshold",
                    Callback<void, uint32_t, uint32_t>([](uint32_t, uint32_t v) {
                        std::cerr << Simulator::Now().GetSeconds() << " ssth " << v / 1448.0
                                  << "\n";
                    }));
                s->TraceConnectWithoutContext(
                    "CongState",
                    Callback<void, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t>(
                        [](TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v) {
                            std::cerr << Simulator::Now().GetSeconds() << " state "
                                      << TcpSocketState::TcpCongStateName[v] << "\n";
                        }));
                s->TraceConnectWithoutContext(
                    "AdvWND",
                    Callback<void, uint32_t, uint32_t>([](uint32_t, uint32_t v) {
                        static uint32_t last = 0;
                        if (v / 100000 != last / 100000)
                        {
                            std::cerr << Simulator::Now().GetSeconds() << " advwnd " << v
                                      << "\n";
                        }
                        last = v;
                    }));
            });
        }
    }

    // ----------------------------------------------------------------- measurement
    // Bottleneck counters: for DropTail the device queue; for RED the qdisc (arrivals / drops)
    // and the 1-packet device queue (departures onto the wire).
    QueueAccumulator bnAcc;
    bnAcc.q = bnDevQueue;
    // All other device queues (must never drop).
    std::vector<Ptr<QueueBase>> otherQueues;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<PointToPointNetDevice> p2p =
                DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
            if (p2p && p2p != bnDev)
            {
                otherQueues.push_back(p2p->GetQueue());
            }
        }
    }
    if (traceFlow0)
    {
        bnDevQueue->TraceConnectWithoutContext(
            "Drop",
            Callback<void, Ptr<const Packet>>([](Ptr<const Packet>) {
                std::cerr << Simulator::Now().GetSeconds() << " drop\n";
            }));
    }
    uint64_t tcDrops = 0;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<TrafficControlLayer> tc = NodeList::GetNode(n)->GetObject<TrafficControlLayer>();
        if (tc)
        {
            tc->TraceConnectWithoutContext(
                "Drop",
                Callback<void, Ptr<const Packet>>([&tcDrops](Ptr<const Packet>) { ++tcDrops; }));
        }
    }

    auto sumSinks = [&sinks]() {
        uint64_t s = 0;
        for (auto& k : sinks)
        {
            s += k->GetTotalRx();
        }
        return s;
    };
    auto bnDropsNow = [&]() -> uint64_t {
        if (redQdisc)
        {
            return redQdisc->GetStats().nTotalDroppedPackets;
        }
        return bnAcc.dropPkts;
    };

    std::vector<double> perSecUtil;
    uint64_t lastTxBytes = 0;
    Snapshot warm;
    bool warmTaken = false;
    // 1 s sampler (also needed so the uint32 byte counters never wrap unnoticed)
    std::function<void()> sampler;
    sampler = [&]() {
        bnAcc.Sample();
        uint64_t tx = bnAcc.TxBytes();
        perSecUtil.push_back(static_cast<double>(tx - lastTxBytes) * 8.0 /
                             (bnBps * sampleInterval));
        lastTxBytes = tx;
        double now = Simulator::Now().GetSeconds();
        if (progress)
        {
            std::cerr << "progress sim_t=" << now << " wall_s=" << (WallNow() - wallStart)
                      << " util_last_s=" << perSecUtil.back()
                      << " drops=" << bnDropsNow() << " events=" << Simulator::GetEventCount()
                      << std::endl;
        }
        if (!warmTaken && now + 1e-9 >= warmup)
        {
            warm.simTime = now;
            warm.bnTxPkts = bnAcc.TxPkts();
            warm.bnTxBytes = bnAcc.TxBytes();
            warm.bnDrops = bnDropsNow();
            warm.sinkBytes = sumSinks();
            warmTaken = true;
        }
        if (now + sampleInterval < simTime + 1e-9)
        {
            Simulator::Schedule(Seconds(sampleInterval), sampler);
        }
    };
    Simulator::Schedule(Seconds(sampleInterval), sampler);

    // Print the effective RED parameters once the queue disc has been initialized.
    std::string redParams;
    if (redQdisc)
    {
        Simulator::Schedule(MilliSeconds(1), [&]() {
            DoubleValue minTh;
            DoubleValue maxTh;
            DoubleValue qw;
            QueueSizeValue maxSize;
            DataRateValue bw;
            UintegerValue mps;
            redQdisc->GetAttribute("MinTh", minTh);
            redQdisc->GetAttribute("MaxTh", maxTh);
            redQdisc->GetAttribute("QW", qw);
            redQdisc->GetAttribute("MaxSize", maxSize);
            redQdisc->GetAttribute("LinkBandwidth", bw);
            redQdisc->GetAttribute("MeanPktSize", mps);
            std::ostringstream os;
            os << "minTh=" << minTh.Get() << " maxTh=" << maxTh.Get() << " qW=" << qw.Get()
               << " MaxSize=" << maxSize.Get() << " LinkBandwidth=" << bw.Get()
               << " MeanPktSize=" << mps.Get();
            redParams = os.str();
        });
    }

    Simulator::Stop(Seconds(simTime));

    const double wallSetupEnd = WallNow();
    Simulator::Run();
    const double wallRunEnd = WallNow();

    // ----------------------------------------------------------------- results
    bnAcc.Sample();
    const uint64_t events = Simulator::GetEventCount();
    const uint64_t bnTxPkts = bnAcc.TxPkts();
    const uint64_t bnTxBytes = bnAcc.TxBytes();
    const uint64_t bnDrops = bnDropsNow();
    // reverse direction of the bottleneck (R2 -> R1): pure ACKs (plus SYN-ACK), one per data
    // segment with DelAckCount=1
    const uint64_t revPkts =
        DynamicCast<PointToPointNetDevice>(bnDevs.Get(1))->GetQueue()->GetTotalReceivedPackets();
    uint64_t otherDrops = 0;
    for (auto& q : otherQueues)
    {
        otherDrops += q->GetTotalDroppedPackets();
    }
    std::vector<uint64_t> perFlow(nFlows);
    double sumX = 0;
    double sumX2 = 0;
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        perFlow[i] = sinks[i]->GetTotalRx();
        sumX += perFlow[i];
        sumX2 += static_cast<double>(perFlow[i]) * perFlow[i];
    }
    const uint64_t sinkBytes = sumSinks();
    const double jain = sumX2 > 0 ? sumX * sumX / (nFlows * sumX2) : 0;
    const double deliveredPkts = static_cast<double>(sinkBytes) / segmentSize;
    const double utilWire = bnTxBytes * 8.0 / (bnBps * simTime);
    const double steadyDur = simTime - warm.simTime;
    const double utilWireSteady =
        warmTaken ? (bnTxBytes - warm.bnTxBytes) * 8.0 / (bnBps * steadyDur) : 0;
    const double goodputUtilSteady =
        warmTaken ? (sinkBytes - warm.sinkBytes) * 8.0 * (ipPktBytes / segmentSize) /
                        (bnBps * steadyDur)
                  : 0;

    std::string redStats;
    if (redQdisc)
    {
        const QueueDisc::Stats& st = redQdisc->GetStats();
        std::ostringstream os;
        os << "arrivals=" << st.nTotalReceivedPackets
           << " unforced(early)=" << st.GetNDroppedPackets(RedQueueDisc::UNFORCED_DROP)
           << " forced=" << st.GetNDroppedPackets(RedQueueDisc::FORCED_DROP)
           << " qlimit=" << st.GetNDroppedPackets(QueueDisc::INTERNAL_QUEUE_DROP);
        redStats = os.str();
    }

    Simulator::Destroy();
    const double wallEnd = WallNow();

    std::cout << std::fixed;
    std::cout << "scenario=" << scenario << " cc=" << cc << " flows=" << nFlows
              << " C_bps=" << std::setprecision(0) << bnBps << " rtt_ms=" << std::setprecision(1)
              << rtt * 1000 << " T_s=" << simTime << "\n";
    std::cout << "bdp_pkts=" << std::setprecision(2) << bdpPkts << " buffer_pkts=" << bufPkts
              << " sockbuf_bytes=" << sockBuf << " sendSize=" << sendSize
              << " access_bps=" << std::setprecision(0) << accBps
              << " access_delay_ms=" << std::setprecision(3) << accessDelayMs
              << " bottleneck_delay_ms=" << bnDelay.GetMilliSeconds()
              << " scheduler=" << scheduler << " seed=" << seed << " run=" << run
              << " ssthresh0_pkts=" << std::setprecision(1) << ssthresh0Pkts
              << " strongEs=" << strongEs << "\n";
    if (redQdisc)
    {
        std::cout << "red_mode=" << redMode << " red_params: " << redParams << "\n";
        std::cout << "red_stats: " << redStats << "\n";
    }
    if (maxCwnd)
    {
        auto mx = std::max_element(flowMaxCwnd.begin(), flowMaxCwnd.end());
        uint64_t sumLast = 0;
        for (auto v : flowLastCwnd)
        {
            sumLast += v;
        }
        std::cout << "max_cwnd_over_flows_pkts=" << std::setprecision(1) << *mx / double(segmentSize)
                  << " (flow " << (mx - flowMaxCwnd.begin()) << ") = "
                  << std::setprecision(3) << double(*mx) / sockBuf
                  << " of sockbuf; sum_of_final_cwnd_pkts=" << std::setprecision(1)
                  << sumLast / double(segmentSize) << "\n";
        std::cout << "per_flow_max_cwnd_pkts:";
        for (auto v : flowMaxCwnd)
        {
            std::cout << " " << std::setprecision(0) << v / double(segmentSize);
        }
        std::cout << "\n";
    }
    if (verbose)
    {
        std::cout << "per_second_util:";
        for (double u : perSecUtil)
        {
            std::cout << " " << std::setprecision(3) << u;
        }
        std::cout << "\n";
    }
    std::cout << std::setprecision(6);
    std::cout << "RESULT {\"scenario\":\"" << scenario << "\",\"red\":\""
              << (useRed ? redMode : std::string("-")) << "\",\"sim_time_s\":" << simTime
              << ",\"flows\":" << nFlows << ",\"buffer_pkts\":" << bufPkts
              << ",\"sockbuf_bytes\":" << sockBuf << ",\"send_size\":" << sendSize
              << ",\"strong_es\":" << (strongEs ? "true" : "false")
              << ",\"ssthresh0_pkts\":" << ssthresh0Pkts << ",\"events\":" << events
              << ",\"bottleneck_tx_pkts\":" << bnTxPkts
              << ",\"bottleneck_tx_bytes\":" << bnTxBytes << ",\"reverse_acks\":" << revPkts << ",\"bottleneck_drops\":" << bnDrops
              << ",\"other_queue_drops\":" << otherDrops << ",\"tc_layer_drops\":" << tcDrops
              << ",\"sink_bytes\":" << sinkBytes << ",\"delivered_pkts\":" << deliveredPkts
              << ",\"util_wire\":" << utilWire << ",\"util_wire_steady\":" << utilWireSteady
              << ",\"goodput_util_steady\":" << goodputUtilSteady
              << ",\"steady_from_s\":" << warm.simTime << ",\"jain\":" << jain
              << ",\"wall_setup_s\":" << (wallSetupEnd - wallStart)
              << ",\"wall_run_s\":" << (wallRunEnd - wallSetupEnd)
              << ",\"wall_destroy_s\":" << (wallEnd - wallRunEnd)
              << ",\"wall_total_s\":" << (wallEnd - wallStart) << "}" << std::endl;
    return 0;
}
