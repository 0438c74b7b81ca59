//! Web-like traffic after ns-2's PagePool/WebTraf: sessions of pages of
//! objects, each object a finite TCP transfer from a server to a client.
//!
//! The model is open-loop, as WebTraf is: a session's first page starts at
//! the session's start, each next page an inter-page time after the previous
//! page started; a page's objects start an inter-object time apart, without
//! waiting for each other. Each page picks its server and its client
//! uniformly at random. The whole schedule is drawn before the run from its
//! own random stream, so the network cannot change it.
//!
//! Choices: the client's request is not simulated (the response time is
//! measured from the object's start to the arrival of its last byte; a real
//! request would add one client-to-server one-way delay); objects per page is
//! rounded to the nearest whole number, at least 1; object sizes are rounded
//! up to whole packets.

use super::dist::Dist;
use crate::units::SimTime;
use rand::Rng;
use rand_pcg::Pcg64;

#[derive(Clone, Copy, Debug)]
pub struct WebConfig {
    pub sessions: u32,
    pub pages_per_session: u32,
    /// Sessions start uniformly in `[session_start, session_start + session_spread]`.
    pub session_start: SimTime,
    pub session_spread: SimTime,
    /// Seconds.
    pub inter_page: Dist,
    pub objects_per_page: Dist,
    /// Seconds.
    pub inter_object: Dist,
    /// Bytes.
    pub object_size: Dist,
    pub servers: u32,
    pub clients: u32,
}

/// One object transfer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WebObject {
    pub start: SimTime,
    pub session: u32,
    pub page: u32,
    pub server: u32,
    pub client: u32,
    pub size_bytes: u64,
}

/// Draws every object that starts before `end`, in order of start time.
pub fn schedule(cfg: &WebConfig, rng: &mut Pcg64, end: SimTime) -> Vec<WebObject> {
    let mut objs = Vec::new();
    for session in 0..cfg.sessions {
        let mut page_t = SimTime(cfg.session_start.0 + rng.gen_range(0..=cfg.session_spread.0));
        for page in 0..cfg.pages_per_session {
            if page > 0 {
                page_t += SimTime::from_secs_f64(cfg.inter_page.sample(rng));
            }
            if page_t >= end {
                break;
            }
            let server = rng.gen_range(0..cfg.servers);
            let client = rng.gen_range(0..cfg.clients);
            let n = cfg.objects_per_page.sample(rng).round().max(1.0) as u32;
            let mut t = page_t;
            for k in 0..n {
                if k > 0 {
                    t += SimTime::from_secs_f64(cfg.inter_object.sample(rng));
                }
                let size = cfg.object_size.sample(rng).ceil().max(1.0) as u64;
                if t < end {
                    objs.push(WebObject { start: t, session, page, server, client, size_bytes: size });
                }
            }
        }
    }
    // Stable: ties keep session order, so the schedule is the same on every run.
    objs.sort_by_key(|o| o.start);
    objs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;

    fn cfg() -> WebConfig {
        WebConfig {
            sessions: 200,
            pages_per_session: 50,
            session_start: SimTime::ZERO,
            session_spread: SimTime::from_millis(10_000),
            inter_page: Dist::Exponential { mean: 4.0 },
            objects_per_page: Dist::Constant(10.0),
            inter_object: Dist::Exponential { mean: 0.01 },
            object_size: Dist::Pareto { mean: 3000.0, shape: 1.2 },
            servers: 5,
            clients: 20,
        }
    }

    #[test]
    fn schedule_is_sorted_and_keeps_pages_and_objects_counts() {
        let c = cfg();
        let objs = schedule(&c, &mut stream_rng(1, 5, 0), SimTime::from_millis(1_000_000));
        assert_eq!(objs.len(), 200 * 50 * 10);
        assert!(objs.windows(2).all(|w| w[0].start <= w[1].start));
        assert!(objs.iter().all(|o| o.server < 5 && o.client < 20));
    }

    #[test]
    fn inter_page_times_have_the_configured_mean() {
        let c = WebConfig { objects_per_page: Dist::Constant(1.0), ..cfg() };
        let objs = schedule(&c, &mut stream_rng(2, 5, 0), SimTime::from_millis(1_000_000_000));
        // Per session, (last page start - first) / (pages - 1) estimates the mean inter-page time.
        let mut sum = 0.0;
        for s in 0..c.sessions {
            let t: Vec<f64> = objs.iter().filter(|o| o.session == s).map(|o| o.start.secs_f64()).collect();
            sum += (t[t.len() - 1] - t[0]) / (t.len() - 1) as f64;
        }
        let mean = sum / c.sessions as f64;
        // 200 x 49 exponential samples of mean 4: standard error 4/sqrt(9800) = 0.04.
        assert!((mean - 4.0).abs() < 0.16, "{mean}");
    }

    #[test]
    fn nothing_starts_after_the_end() {
        let end = SimTime::from_millis(20_000);
        let objs = schedule(&cfg(), &mut stream_rng(3, 5, 0), end);
        assert!(!objs.is_empty() && objs.iter().all(|o| o.start < end));
    }
}
