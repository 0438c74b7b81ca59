// ns3_crosscheck.cc's UDP sources (python/cclab/crosscheck/ns3.py writes their records).
#pragma once

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include "ns3_records.h"

#include <sstream>

namespace cclab
{

using namespace ns3;

// A UDP source (record "udp"): ns-3's OnOffApplication over a UDP socket, its payload and the
// rate of that payload as the description gives them (ns3.py keeps cclab's bytes on the wire),
// constant (CBR) or exponential on and off periods; a PacketSink takes the packets so that the
// destination sends no ICMP back.
inline void
InstallUdp(const Record& r, ns3::NodeContainer& nodes, uint32_t nNodes, double duration, uint16_t port)
{
    Ptr<Node> src = nodes.Get(static_cast<uint32_t>(r.Num("src", 0, nNodes - 1)));
    Ptr<Node> dst = nodes.Get(static_cast<uint32_t>(r.Num("dst", 0, nNodes - 1)));
    Ipv4Address to = dst->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
    PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    sink.Install(dst).Start(Seconds(0));
    OnOffHelper app("ns3::UdpSocketFactory", InetSocketAddress(to, port));
    app.SetAttribute("PacketSize", UintegerValue(static_cast<uint32_t>(r.Num("payload", 1, 65507))));
    app.SetAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(r.Num("rate", 1, 1e15)))));
    if (r.kv.count("on"))
    {
        std::ostringstream on, off;
        on << "ns3::ExponentialRandomVariable[Mean=" << r.Num("on", 1e-9, 1e9) << "]";
        off << "ns3::ExponentialRandomVariable[Mean=" << r.Num("off", 1e-9, 1e9) << "]";
        app.SetAttribute("OnTime", StringValue(on.str()));
        app.SetAttribute("OffTime", StringValue(off.str()));
    }
    else
    {
        app.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1e9]"));
        app.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
    }
    ApplicationContainer a = app.Install(src);
    a.Start(Seconds(r.Num("start", 0, duration)));
    a.Stop(Seconds(r.kv.count("stop") ? r.Num("stop", 0, duration) : duration));
}

} // namespace cclab
