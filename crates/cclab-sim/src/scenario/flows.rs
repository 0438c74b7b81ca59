//! Each flow group's, UDP source's and web traffic's settings, read and validated from the scenario.

use super::*;
use crate::tcp::profile::{AckCounting, CaRtt, LossDetection, RtoEstimator};

/// A flow group's settings resolved from the scenario (before topology specifics).
pub(super) struct GroupSettings {
    pub(super) count: u32,
    pub(super) cc_name: String,
    /// The registry name built for `cc_name` under the group's stack (`StackProfile::variant_of`).
    pub(super) build_name: String,
    pub(super) params: Params,
    pub(super) tcp: TcpConfig,
    pub(super) rcv: ReceiverConfig,
    pub(super) start: SimTime,
    pub(super) spread: SimTime,
    pub(super) stop: Option<SimTime>,
    pub(super) size_pkts: Option<u64>,
    pub(super) overhead: SimTime,
}

pub(super) fn group_settings(g: &FlowGroup, p: &str, duration: SimTime) -> Result<GroupSettings, ScenarioError> {
    let count = g.count.unwrap_or(1);
    if count == 0 || count > 1_000_000 {
        return Err(err(format!("{p}.count"), count, "a whole number from 1 to 1000000"));
    }
    let stack = match &g.stack {
        None => StackProfile::CCLAB,
        Some(s) => StackProfile::parse(s).ok_or_else(|| err(format!("{p}.stack"), s, StackProfile::NAMES))?,
    };
    // The stack's own flavour of the algorithm, where it has one (ns-2's Vegas).
    let build_name = stack.variant_of(&g.cc);
    let mut stack = stack.for_algorithm(&build_name);
    stack.syn = g.handshake.unwrap_or(stack.syn);
    if let Some(a) = &g.ack_counting {
        stack.ack_counting =
            AckCounting::parse(a).ok_or_else(|| err(format!("{p}.ack_counting"), a, AckCounting::NAMES))?;
    }
    if let Some(r) = &g.ca_rtt {
        stack.ca_rtt = CaRtt::parse(r).ok_or_else(|| err(format!("{p}.ca_rtt"), r, CaRtt::NAMES))?;
    }
    if let Some(q) = g.quickacks {
        if q > 1_000_000 {
            return Err(err(format!("{p}.quickacks"), q, "a whole number from 0 to 1000000"));
        }
        stack.quickacks = q;
    }
    stack.rcv_autotune = g.rcv_autotune.unwrap_or(stack.rcv_autotune);
    if let Some(l) = &g.loss_detection {
        stack.loss_detection =
            LossDetection::parse(l).ok_or_else(|| err(format!("{p}.loss_detection"), l, LossDetection::NAMES))?;
    }
    let params: Params = g.cc_params.clone().unwrap_or_default();
    // Build once to validate the name and the parameters.
    let built = cc::build(&build_name, &params).map_err(|e| {
        if e.param.is_empty() {
            err(format!("{p}.cc"), &g.cc, e.accepted)
        } else {
            // The value as written (1e300, not its 301 digits).
            let written = params.get(&e.param).map(|v| schema::num(*v)).unwrap_or(e.value);
            err(format!("{p}.cc_params.{}", e.param), written, e.accepted)
        }
    })?;
    // An algorithm that needs ECN (DCTCP) runs it unless told not to, which is refused:
    // without marks its reduction never acts (Linux turns ECN on for it, TCP_CONG_NEEDS_ECN).
    let needs_ecn = built.needs_ecn();
    // `ecn = "l4s"`: ECN with ECT(1) on the data (RFC 9331), for a DualQ's L queue.
    let (ecn, l4s) = match &g.ecn {
        Some(schema::EcnSetting::On(false)) if needs_ecn => {
            return Err(err(format!("{p}.ecn"), false, format!("true, \"l4s\" (or unset): {} needs ECN", g.cc)));
        }
        Some(schema::EcnSetting::On(b)) => (*b, false),
        Some(schema::EcnSetting::Name(n)) if n == "l4s" => (true, true),
        Some(schema::EcnSetting::Name(n)) => return Err(err(format!("{p}.ecn"), n, "true, false or \"l4s\"")),
        None => (needs_ecn, false),
    };
    let recovery = match &g.recovery {
        None => {
            if stack.sack {
                Recovery::Sack
            } else if g.cc == "reno" {
                Recovery::Reno
            } else {
                Recovery::NewReno
            }
        }
        Some(r) => Recovery::parse(r).ok_or_else(|| err(format!("{p}.recovery"), r, Recovery::NAMES))?,
    };
    let mss = match &g.packet_size {
        None => 1500,
        Some(s) => bytes(&format!("{p}.packet_size"), s)?,
    };
    if !(64..=65_535).contains(&mss) {
        return Err(err(format!("{p}.packet_size"), g.packet_size.clone().unwrap_or_default(), "64B to 65535B"));
    }
    let ack_size = match &g.ack_size {
        None => 40,
        Some(s) => bytes(&format!("{p}.ack_size"), s)?,
    };
    if !(20..=65_535).contains(&ack_size) {
        return Err(err(format!("{p}.ack_size"), g.ack_size.clone().unwrap_or_default(), "20B to 65535B"));
    }
    let init_cwnd = g.init_cwnd.unwrap_or(stack.init_cwnd);
    // The whole initial window leaves at once: bounded by the run's packet budget.
    if !(1.0..=limits::PACKET_BUDGET as f64).contains(&init_cwnd) {
        return Err(err(
            format!("{p}.init_cwnd"),
            schema::num(init_cwnd),
            format!("a number of packets from 1 to {} (the per-run packet budget)", limits::PACKET_BUDGET),
        ));
    }
    // Unset is unlimited; a written value is a finite number (TOML can write `inf`).
    let init_ssthresh = g.init_ssthresh.unwrap_or(f64::INFINITY);
    if g.init_ssthresh.is_some_and(|v| !v.is_finite()) || init_ssthresh.is_nan() || init_ssthresh < 2.0 {
        return Err(err(format!("{p}.init_ssthresh"), schema::num(init_ssthresh), "a finite number of packets >= 2"));
    }
    let rwnd = match g.rwnd {
        None => u64::MAX,
        Some(w) if (1.0..=1e12).contains(&w) && w.fract() == 0.0 => w as u64,
        Some(w) => return Err(err(format!("{p}.rwnd"), schema::num(w), "a whole number of packets from 1 to 1e12")),
    };
    let dupthresh = g.dupthresh.unwrap_or(3);
    if !(1..=1000).contains(&dupthresh) {
        return Err(err(format!("{p}.dupthresh"), dupthresh, "1 to 1000"));
    }
    let mut rto = RtoConfig {
        initial: SimTime::from_millis(stack.rto_initial_ms),
        max: SimTime::from_millis(stack.rto_max_ms),
        ns2_tick: match stack.rto {
            RtoEstimator::Ns2Ticks(ms) => Some(SimTime::from_millis(ms)),
            _ => None,
        },
        linux: stack.rto == RtoEstimator::Linux,
        ..RtoConfig::default()
    };
    if let Some(s) = &g.rto_min {
        rto.min = time(&format!("{p}.rto_min"), s)?;
    }
    if let Some(s) = &g.rto_initial {
        rto.initial = time(&format!("{p}.rto_initial"), s)?;
        if rto.initial == SimTime::ZERO {
            return Err(err(format!("{p}.rto_initial"), s, "a duration > 0"));
        }
    }
    let delack_timeout = match &g.delack_timeout {
        None => SimTime::from_millis(stack.delack_timeout_ms),
        Some(s) => time(&format!("{p}.delack_timeout"), s)?,
    };
    let start = match &g.start {
        None => SimTime::ZERO,
        Some(s) => time(&format!("{p}.start"), s)?,
    };
    let spread = match &g.start_spread {
        None => SimTime::ZERO,
        Some(s) => time(&format!("{p}.start_spread"), s)?,
    };
    if start > duration {
        return Err(err(format!("{p}.start"), g.start.clone().unwrap_or_default(), "a time within the duration"));
    }
    let stop = match &g.stop {
        None => None,
        Some(s) => {
            let t = time(&format!("{p}.stop"), s)?;
            if t <= start + spread {
                return Err(err(format!("{p}.stop"), s, "a time after the start (and after start + start_spread)"));
            }
            Some(t)
        }
    };
    let size_pkts = match &g.size {
        None => None,
        Some(s) => {
            let b = bytes(&format!("{p}.size"), s)?;
            if b == 0 {
                return Err(err(format!("{p}.size"), s, "a size > 0"));
            }
            Some(b.div_ceil(mss))
        }
    };
    let timestamps = g.timestamps.unwrap_or(stack.timestamps);
    let ts_clock = match &g.timestamp_clock {
        None => SimTime::ZERO,
        Some(s) => {
            let t = time(&format!("{p}.timestamp_clock"), s)?;
            if t > SimTime::from_millis(1000) {
                return Err(err(format!("{p}.timestamp_clock"), s, "a duration from 0s to 1s"));
            }
            t
        }
    };
    let overhead = match &g.overhead {
        None => SimTime::ZERO,
        Some(s) => time(&format!("{p}.overhead"), s)?,
    };
    Ok(GroupSettings {
        overhead,
        count,
        cc_name: g.cc.clone(),
        build_name,
        params,
        tcp: TcpConfig {
            mss: mss as u32,
            ack_size: ack_size as u32,
            recovery,
            init_cwnd,
            init_ssthresh,
            rwnd,
            rto,
            timestamps,
            ts_clock,
            dupthresh,
            sacked_retx_in_pipe: g.sacked_retx_in_pipe.unwrap_or(false),
            resend_below_high_sack: g.resend_below_high_sack.unwrap_or(false),
            ecn,
            l4s,
            stack,
        },
        rcv: ReceiverConfig {
            ack_size: ack_size as u32,
            sack: recovery == Recovery::Sack,
            delayed_ack: g.delayed_ack.unwrap_or(stack.delayed_ack),
            delack_timeout,
            quickacks: stack.quickacks,
            autotune_mss: stack.rcv_autotune.then_some(mss as u32),
            ecn_feedback: if needs_ecn { EcnFeedback::PerPacket } else { EcnFeedback::Rfc3168 },
        },
        start,
        spread,
        stop,
        size_pkts,
    })
}

/// A UDP group's settings.
pub(super) struct UdpSettings {
    pub(super) count: u32,
    pub(super) rate: Rate,
    pub(super) size: u32,
    pub(super) start: SimTime,
    pub(super) stop: Option<SimTime>,
    pub(super) on_off: Option<(Dist, Dist)>,
}

pub(super) fn udp_settings(u: &UdpGroup, p: &str, duration: SimTime) -> Result<UdpSettings, ScenarioError> {
    let count = u.count.unwrap_or(1);
    if count == 0 || count > 1_000_000 {
        return Err(err(format!("{p}.count"), count, "a whole number from 1 to 1000000"));
    }
    let r = rate(&format!("{p}.rate"), &u.rate)?;
    let size = match &u.packet_size {
        None => 1000,
        Some(s) => bytes(&format!("{p}.packet_size"), s)?,
    };
    if !(20..=65_535).contains(&size) {
        return Err(err(format!("{p}.packet_size"), u.packet_size.clone().unwrap_or_default(), "20B to 65535B"));
    }
    let start = match &u.start {
        None => SimTime::ZERO,
        Some(s) => time(&format!("{p}.start"), s)?,
    };
    if start > duration {
        return Err(err(format!("{p}.start"), u.start.clone().unwrap_or_default(), "a time within the duration"));
    }
    let stop = match &u.stop {
        None => None,
        Some(s) => {
            let t = time(&format!("{p}.stop"), s)?;
            if t <= start {
                return Err(err(format!("{p}.stop"), s, "a time after the start"));
            }
            Some(t)
        }
    };
    let on_off = match (&u.on_time, &u.off_time) {
        (None, None) => None,
        (Some(on), Some(off)) => {
            let on_t = time(&format!("{p}.on_time"), on)?;
            let off_t = time(&format!("{p}.off_time"), off)?;
            if on_t == SimTime::ZERO {
                return Err(err(format!("{p}.on_time"), on, "a duration > 0"));
            }
            Some((Dist::Exponential { mean: on_t.secs_f64() }, Dist::Exponential { mean: off_t.secs_f64() }))
        }
        (Some(on), None) => {
            return Err(err(format!("{p}.off_time"), "(missing)", format!("off_time with on_time = {on}")))
        }
        (None, Some(off)) => {
            return Err(err(format!("{p}.on_time"), "(missing)", format!("on_time with off_time = {off}")))
        }
    };
    Ok(UdpSettings { count, rate: r, size: size as u32, start, stop, on_off })
}

/// The web section's settings.
pub(super) struct WebSettings {
    pub(super) cfg: WebConfig,
    pub(super) servers: u32,
    pub(super) clients: u32,
    pub(super) tcp: TcpConfig,
    pub(super) rcv: ReceiverConfig,
    pub(super) cc_name: String,
    pub(super) params: Params,
}

pub(super) fn web_settings(w: &WebSpec, duration: SimTime) -> Result<WebSettings, ScenarioError> {
    for (name, v) in [
        ("sessions", w.sessions),
        ("pages_per_session", w.pages_per_session),
        ("servers", w.servers),
        ("clients", w.clients),
    ] {
        if v == 0 || v > 10_000_000 {
            return Err(err(format!("web.{name}"), v, "a whole number from 1 to 10000000"));
        }
    }
    // The object transfers are TCP flows: validate them as a flow group.
    let as_group = FlowGroup {
        cc: w.cc.clone().unwrap_or_else(|| "newreno".into()),
        cc_params: w.cc_params.clone(),
        recovery: w.recovery.clone(),
        packet_size: w.packet_size.clone(),
        stack: w.stack.clone(),
        ..FlowGroup::default()
    };
    let g = group_settings(&as_group, "web", duration)?;
    let session_start = match &w.session_start {
        None => SimTime::ZERO,
        Some(s) => time("web.session_start", s)?,
    };
    let session_spread = match &w.session_spread {
        None => SimTime::ZERO,
        Some(s) => time("web.session_spread", s)?,
    };
    let cfg = WebConfig {
        sessions: w.sessions,
        pages_per_session: w.pages_per_session,
        session_start,
        session_spread,
        inter_page: traffic::dist("web.inter_page", &w.inter_page)?,
        objects_per_page: traffic::dist("web.objects_per_page", &w.objects_per_page)?,
        inter_object: traffic::dist("web.inter_object", &w.inter_object)?,
        object_size: traffic::dist("web.object_size", &w.object_size)?,
        servers: w.servers,
        clients: w.clients,
    };
    Ok(WebSettings {
        cfg,
        servers: w.servers,
        clients: w.clients,
        tcp: g.tcp,
        rcv: g.rcv,
        cc_name: g.build_name,
        params: g.params,
    })
}
