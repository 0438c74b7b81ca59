//! The registries: every kind is found by name, lists its entries and parameters, refuses
//! unknown names with the accepted ones, and takes new entries at run time.

use cclab_sim::cc::{self, CongestionControl, Params, SenderView};
use cclab_sim::queue::{self, QueueSettings};
use cclab_sim::registry::{catalog, Entry, ParamReader, ParamSpec, Schema};
use cclab_sim::Scenario;

const GRAPH: &str = r#"
    duration = "2s"
    [topology]
    kind = "graph"
    nodes = ["a", "b"]
    links = [{ from = "a", to = "b", rate = "10Mbps", delay = "5ms", buffer = "50pkts" }]
    [[flows]]
    cc = "CC"
    src = "a"
    dst = "b"
"#;

#[test]
fn every_algorithm_reports_its_registry_name_and_an_add_on_the_name_as_written() {
    for name in cc::names() {
        // NewReno too: Reno's file with another recovery by default, under its own name.
        assert_eq!(cc::build(name, &Params::new()).unwrap().name(), name);
    }
    assert_eq!(cc::build("highspeed+ktcp", &Params::new()).unwrap().name(), "highspeed+ktcp");
    assert_eq!(cc::build("w+cr+reno+ktcp", &Params::new()).unwrap().name(), "w+cr+reno+ktcp");
}

#[test]
fn the_catalog_lists_every_kind_with_its_built_ins() {
    let all = catalog();
    let has = |kind: &str, name: &str| all.iter().any(|d| d.kind == kind && d.name == name);
    for name in cc::names() {
        assert!(has("cc", name), "{name}");
    }
    for (kind, name) in [
        ("add-on", "ktcp"),
        ("queue", "droptail"),
        ("queue", "red"),
        ("queue", "ared"),
        ("queue", "gared"),
        ("queue", "xcp"),
        ("topology", "dumbbell"),
        ("topology", "graph"),
        ("traffic", "tcp"),
        ("traffic", "udp"),
        ("traffic", "web"),
    ] {
        assert!(has(kind, name), "{kind} {name}");
    }
    // Parameters read off the constructors: Reno's beta with its default and range.
    let reno = all.iter().find(|d| d.name == "reno").unwrap();
    let beta = reno.params.iter().find(|p| p.name == "beta").unwrap();
    assert_eq!((beta.default.as_ref(), beta.kind.as_ref()), ("0.5", "number"));
    let ktcp = all.iter().find(|d| d.kind == "add-on").unwrap();
    let names: Vec<&str> = ktcp.params.iter().map(|p| p.name.as_ref()).collect();
    assert_eq!(names, ["ktcp_alpha", "ktcp_low_window", "ktcp_tc_max"]);
}

#[test]
fn a_queue_declares_exactly_the_parameters_its_constructor_reads() {
    for e in queue::REGISTRY.entries() {
        let Schema::Declared(declared) = e.params else { panic!("{} declares no table", e.name) };
        let read = cclab_sim::registry::read_params(|| drop((e.build)(&QueueSettings::EXAMPLE, &Params::new())));
        let d: Vec<(&str, &str)> = declared.iter().map(|p| (p.name.as_ref(), p.kind.as_ref())).collect();
        let r: Vec<(&str, &str)> = read.iter().map(|p| (p.name.as_ref(), p.kind.as_ref())).collect();
        assert_eq!(d, r, "queue {}", e.name);
    }
}

/// Every queue's parameters at extreme values (a fuzz over the declared table): each is either
/// refused in one line naming it (or the parameter it constrains), or builds a queue that runs a short scenario without panic.
#[test]
fn every_queue_parameter_at_extreme_values_is_refused_by_name_or_runs() {
    let values = [f64::NAN, f64::INFINITY, -1.0, 0.0, 1e-300, 0.5, 1.0, 2.0, 300.0, 1e9, 1e300];
    for e in queue::REGISTRY.entries() {
        let Schema::Declared(declared) = e.params else { continue };
        for spec in declared {
            for v in values {
                let p: Params = [(spec.name.to_string(), v)].into_iter().collect();
                match (e.build)(&QueueSettings::EXAMPLE, &p) {
                    Err(err) => {
                        // The parameter, or one it constrains (RED's max_th above min_th).
                        assert!(declared.iter().any(|d| d.name == err.param), "{} {}: {err:?}", e.name, spec.name);
                        assert!(!err.accepted.contains('\n') && !err.accepted.is_empty());
                    }
                    Ok(_) => {
                        let text = GRAPH.replace("CC", "newreno").replace(
                            "buffer = \"50pkts\"",
                            &format!(
                                "buffer = \"50pkts\", queue = \"{}\", queue_params = {{ {} = {v:e} }}",
                                e.name, spec.name
                            ),
                        );
                        let sc = Scenario::from_toml(&text).unwrap_or_else(|err| panic!("{}: {err}", e.name));
                        let mut b = sc.build(1).unwrap_or_else(|err| panic!("{} {} = {v}: {err}", e.name, spec.name));
                        b.sim.run_until(b.duration);
                    }
                }
            }
        }
    }
}

#[test]
fn unknown_names_are_refused_with_the_accepted_ones() {
    let e = Scenario::from_toml(&GRAPH.replace("CC", "renoo")).unwrap().build(1).err().unwrap();
    assert_eq!(e.field, "flows[0].cc");
    assert!(e.accepted.starts_with("reno, newreno, highspeed"), "{}", e.accepted);
    let text = GRAPH.replace("CC", "reno").replace("buffer = \"50pkts\"", "buffer = \"50pkts\", queue = \"rde\"");
    let e = Scenario::from_toml(&text).unwrap().build(1).err().unwrap();
    assert_eq!(
        e.to_string(),
        "topology.links[0].queue: invalid value 'rde'; accepted: droptail, red, ared, gared, xcp, codel, fq_codel, pie, dualpi2"
    );
    let text = GRAPH.replace("CC", "reno").replace("kind = \"graph\"", "kind = \"ring\"");
    let e = Scenario::from_toml(&text).unwrap().build(1).err().unwrap();
    assert_eq!(e.to_string(), "topology.kind: invalid value 'ring'; accepted: dumbbell, graph");
}

/// A congestion control from outside the crate: Reno with a window that never exceeds 4.
struct Capped(Box<dyn CongestionControl>);

impl CongestionControl for Capped {
    fn name(&self) -> &str {
        "capped"
    }
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.0.ssthresh(v)
    }
    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        self.0.cong_avoid(v, acked).min(4.0)
    }
}

fn capped(p: &Params) -> Result<Box<dyn CongestionControl>, cc::ParamError> {
    let mut r = ParamReader::new(p);
    let _cap = r.get("cap", 4.0, 4.0, 4.0)?;
    r.finish()?;
    Ok(Box::new(Capped(cc::build("reno", &Params::new())?)))
}

static CAPPED_PARAMS: &[ParamSpec] = &[ParamSpec::new("cap", "number", "packets", "4", "[4, 4]")];

#[test]
fn an_algorithm_registered_at_run_time_is_used_by_name_and_listed_after_the_built_ins() {
    let entry = Entry {
        name: "capped",
        summary: "Reno, at most 4 packets",
        params: Schema::Declared(CAPPED_PARAMS),
        build: capped as cc::Builder,
    };
    cc::REGISTRY.register(entry).unwrap();
    assert!(cc::REGISTRY.register(entry).is_err(), "a name is registered once");
    assert_eq!(cc::names().last(), Some(&"capped"));
    let out = cclab_sim::run(&Scenario::from_toml(&GRAPH.replace("CC", "capped")).unwrap(), 1).unwrap();
    let out_reno = cclab_sim::run(&Scenario::from_toml(&GRAPH.replace("CC", "reno")).unwrap(), 1).unwrap();
    // 10 Mbit/s for 2 s with a 10 ms RTT: Reno fills the link, 4 packets per RTT cannot.
    let goodput = |o: &cclab_sim::RunOutput| o.summary_value("total_goodput_bps").unwrap();
    assert!(goodput(&out) < 0.6 * goodput(&out_reno), "{} vs {}", goodput(&out), goodput(&out_reno));
    // Add-ons wrap it too, and the catalog lists it with its declared parameters.
    assert_eq!(cc::build("capped+ktcp", &Params::new()).unwrap().name(), "capped+ktcp");
    let d = catalog().into_iter().find(|d| d.name == "capped").unwrap();
    assert_eq!(d.params[0].unit, "packets");
}
