//! The queue at each link: which discipline, its parameters and capacity, and random loss.

use super::*;

/// What a queue discipline needs to know of its place.
pub(crate) struct QueueSite<'a> {
    pub(crate) field: &'a str,
    pub(crate) kind: Option<&'a str>,
    pub(crate) params: Option<&'a BTreeMap<String, f64>>,
    pub(crate) cap: Capacity,
    pub(crate) rate: Rate,
    /// The link's propagation delay.
    pub(crate) delay: SimTime,
    /// Data packet size, bytes (RED's mean packet size by default).
    pub(crate) pkt_size: u32,
    pub(crate) seed: u64,
    pub(crate) link_index: u64,
}

/// Builds the discipline registered as the site's `queue` (default DropTail).
pub(crate) fn make_queue(s: &QueueSite) -> Result<Box<dyn QueueDisc>, ScenarioError> {
    let kind = s.kind.unwrap_or("droptail");
    let empty = BTreeMap::new();
    let params = s.params.unwrap_or(&empty);
    let Some(entry) = queue::REGISTRY.get(kind) else {
        return Err(err(s.field, kind, queue::REGISTRY.accepted()));
    };
    let settings = QueueSettings {
        cap: s.cap,
        rate: s.rate,
        delay: s.delay,
        pkt_size: s.pkt_size,
        seed: s.seed,
        link_index: s.link_index,
    };
    let refused = |e: crate::registry::ParamError| {
        let f = s.field.trim_end_matches(".queue");
        err(format!("{f}.queue_params.{}", e.param), e.value, e.accepted)
    };
    // Step marking at K is every discipline's option (queue/step_mark.rs): taken out of the
    // parameters, the rest built as the discipline, and wrapped when set.
    let (k, params) = queue::step_mark::split(params).map_err(refused)?;
    let q = (entry.build)(&settings, &params).map_err(refused)?;
    Ok(match k {
        Some(k) => Box::new(queue::step_mark::StepMark::new(q, k)),
        None => q,
    })
}

pub(crate) fn loss_model(
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

pub(crate) fn capacity(b: BufferSize, bdp_pkts: Option<f64>, field: &str) -> Result<Capacity, ScenarioError> {
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
