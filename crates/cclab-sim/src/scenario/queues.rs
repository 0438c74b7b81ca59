//! The queue at each link: which discipline, its parameters and capacity, and random loss.

use super::*;

pub(super) const QUEUES: &str = "droptail, red, ared, gared, xcp";

/// What a queue discipline needs to know of its place.
pub(super) struct QueueSite<'a> {
    pub(super) field: &'a str,
    pub(super) kind: Option<&'a str>,
    pub(super) params: Option<&'a BTreeMap<String, f64>>,
    pub(super) cap: Capacity,
    pub(super) rate: Rate,
    /// Data packet size, bytes (RED's mean packet size by default).
    pub(super) pkt_size: u32,
    pub(super) seed: u64,
    pub(super) link_index: u64,
}

pub(super) fn make_queue(s: &QueueSite) -> Result<Box<dyn QueueDisc>, ScenarioError> {
    let kind = s.kind.unwrap_or("droptail");
    let empty = BTreeMap::new();
    let params = s.params.unwrap_or(&empty);
    let perr = |e: cc::ParamError| {
        let f = s.field.trim_end_matches(".queue");
        err(format!("{f}.queue_params.{}", e.param), e.value, e.accepted)
    };
    match kind {
        "droptail" => {
            cc::ParamReader::new(params).finish().map_err(perr)?;
            Ok(Box::new(DropTail::new(s.cap)))
        }
        "red" | "ared" | "gared" => {
            let mut r = cc::ParamReader::new(params);
            let mean = r.get("mean_pktsize", s.pkt_size as f64, 1.0, 1e6).map_err(perr)?;
            let target = SimTime::from_secs_f64(r.get("target_delay", 0.005, 1e-9, 100.0).map_err(perr)?);
            let base = match kind {
                "red" => RedConfig::red(),
                "ared" => RedConfig::ared(s.rate, mean, target),
                _ => RedConfig { adapt: Adapt::Gared, ..RedConfig::ared(s.rate, mean, target) },
            };
            let min_th = r.get("min_th", base.min_th, 0.0, 1e12).map_err(perr)?;
            // ARED's rule of thumb max_th = 3 min_th follows a given min_th.
            let max_th_default = if kind == "red" { base.max_th.max(min_th * 3.0) } else { 3.0 * min_th };
            let cfg = RedConfig {
                min_th,
                max_th: r.get("max_th", max_th_default, 0.0, 1e12).map_err(perr)?,
                max_p: r.get("max_p", base.max_p, 0.0, 1.0).map_err(perr)?,
                q_weight: r.get("q_weight", base.q_weight, 1e-12, 1.0).map_err(perr)?,
                gentle: r.get("gentle", 1.0, 0.0, 1.0).map_err(perr)? != 0.0,
                wait: r.get("wait", 1.0, 0.0, 1.0).map_err(perr)? != 0.0,
                mean_pktsize: mean,
                adapt: base.adapt,
                interval: SimTime::from_secs_f64(r.get("interval", 0.5, 1e-6, 1e6).map_err(perr)?),
                alpha: r.get("alpha", base.alpha, 0.0, 1.0).map_err(perr)?,
                beta: r.get("beta", base.beta, 0.0, 1.0).map_err(perr)?,
                top: r.get("top", base.top, 0.0, 1.0).map_err(perr)?,
                bottom: r.get("bottom", base.bottom, 0.0, 1.0).map_err(perr)?,
                bytes: r.get_flag("bytes", false).map_err(perr)?,
                ecn: r.get_flag("ecn", false).map_err(perr)?,
            };
            r.finish().map_err(perr)?;
            if cfg.max_th <= cfg.min_th {
                let f = s.field.trim_end_matches(".queue");
                return Err(err(
                    format!("{f}.queue_params.max_th"),
                    cfg.max_th,
                    format!("a value above min_th ({})", cfg.min_th),
                ));
            }
            let rng = stream_rng(s.seed, rng::stream::RED, s.link_index);
            Ok(Box::new(Red::new(cfg, s.cap, s.rate, rng)))
        }
        "xcp" => {
            let mut r = cc::ParamReader::new(params);
            let d = XcpConfig::default();
            let cfg = XcpConfig {
                alpha: r.get("alpha", d.alpha, 0.0, 10.0).map_err(perr)?,
                beta: r.get("beta", d.beta, 0.0, 10.0).map_err(perr)?,
                gamma: r.get("gamma", d.gamma, 0.0, 1.0).map_err(perr)?,
            };
            r.finish().map_err(perr)?;
            Ok(Box::new(Xcp::new(cfg, s.cap, s.rate)))
        }
        other => Err(err(s.field, other, QUEUES)),
    }
}

pub(super) fn loss_model(
    field: &str,
    p: Option<f64>,
    seed: u64,
    link_index: u64,
) -> Result<Option<(f64, rand_pcg::Pcg64)>, ScenarioError> {
    match p {
        None => Ok(None),
        Some(0.0) => Ok(None),
        Some(p) if (0.0..1.0).contains(&p) => Ok(Some((p, stream_rng(seed, rng::stream::LINK_LOSS, link_index)))),
        Some(p) => Err(err(field, p, "a probability in [0, 1)")),
    }
}

pub(super) fn capacity(b: BufferSize, bdp_pkts: Option<f64>, field: &str) -> Result<Capacity, ScenarioError> {
    Ok(match b {
        BufferSize::Packets(n) => Capacity::Packets(n),
        BufferSize::Bytes(n) => Capacity::Bytes(n),
        BufferSize::Unlimited => Capacity::Unlimited,
        BufferSize::Bdp(k) => match bdp_pkts {
            Some(bdp) => Capacity::Packets(((k * bdp).round() as u64).max(1)),
            None => {
                return Err(err(
                    field,
                    format!("{k}bdp"),
                    "a buffer in packets or bytes (a BDP is defined only on a dumbbell)",
                ))
            }
        },
    })
}
