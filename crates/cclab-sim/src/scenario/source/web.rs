//! Web traffic (`[web]`, ns-2 PagePool/WebTraf): servers on the left, clients on the
//! right, the whole schedule of objects drawn up front; each object is a finite TCP
//! flow started when it falls due.

use super::{p, SourceInput};
use crate::net::topology::Network;
use crate::registry::ParamSpec;
use crate::rng::{self, stream_rng};
use crate::scenario::{kit::err, traffic, OneOrRange, ScenarioError};
use crate::sim::WebState;
use crate::traffic::web::schedule;

/// The fields of the `[web]` section.
pub(super) static PARAMS: &[ParamSpec] = &[
    p("sessions", "whole number", "(required)", "1 to 10000000"),
    p("pages_per_session", "whole number", "(required)", "1 to 10000000"),
    p("session_start", "duration", "0s", "a duration"),
    p("session_spread", "duration", "0s", "a duration"),
    p(
        "inter_page",
        "distribution, s",
        "(required)",
        "{ dist = \"pareto\" | \"exponential\" | \"constant\", mean, shape }",
    ),
    p("objects_per_page", "distribution", "(required)", "as inter_page"),
    p("inter_object", "distribution, s", "(required)", "as inter_page"),
    p("object_size", "distribution, bytes", "(required)", "as inter_page"),
    p("servers", "whole number", "(required)", "1 to 10000000"),
    p("clients", "whole number", "(required)", "1 to 10000000"),
    p("cc", "name", "newreno", "a registered congestion control"),
    p("cc_params", "table", "{}", "the algorithm's parameters"),
    p("recovery", "name", "newreno", "reno, newreno, sack"),
    p("packet_size", "bytes", "1500B", "64B to 65535B"),
    p("server_rate | client_rate", "rate or [lo, hi]", "10 x the bottleneck", "a rate, or a uniform range"),
    p("server_delay | client_delay", "duration or [lo, hi]", "1ms", "a duration, or a uniform range"),
];

/// Adds the web servers and clients and the drawn schedule of objects.
pub(super) fn build(input: &SourceInput, net: &mut Network) -> Result<(), ScenarioError> {
    let (sc, seed) = (input.sc, input.seed);
    let (Some(w), Some(spec)) = (&input.settings.web, &sc.web) else { return Ok(()) };
    let Some(ten_x) = net.place.host_rate() else {
        return Err(err("web", "(set)", "web traffic on a dumbbell topology (servers left, clients right)"));
    };
    let sim = &mut net.sim;
    let mut host_rng = stream_rng(seed, rng::stream::WEB, 0);
    let one_ms = OneOrRange::One("1ms".into());
    let mut servers = Vec::new();
    for i in 0..w.servers {
        let r = match &spec.server_rate {
            None => ten_x,
            Some(x) => traffic::draw_rate("web.server_rate", x, &mut host_rng)?,
        };
        let d = traffic::draw_time("web.server_delay", spec.server_delay.as_ref().unwrap_or(&one_ms), &mut host_rng)?;
        servers.push(net.place.add_host(sim, false, r, d, &format!("ws{i}")));
    }
    let mut clients = Vec::new();
    for i in 0..w.clients {
        let r = match &spec.client_rate {
            None => ten_x,
            Some(x) => traffic::draw_rate("web.client_rate", x, &mut host_rng)?,
        };
        let d = traffic::draw_time("web.client_delay", spec.client_delay.as_ref().unwrap_or(&one_ms), &mut host_rng)?;
        clients.push(net.place.add_host(sim, true, r, d, &format!("wc{i}")));
    }
    let objects = schedule(&w.cfg, &mut stream_rng(seed, rng::stream::WEB, 1), input.duration);
    let mut web = WebState::new(objects, servers, clients, w.tcp, w.rcv, w.cc_name.clone(), w.params.clone());
    web.seed = seed;
    sim.web = Some(web);
    Ok(())
}
