//! The share of time each gHSTCP flow of a scenario spends in Reno mode, sampled as the Linux
//! engine samples its BPF version's mode (docs/linux.md, "gHSTCP, four flows"):
//! `cargo run --release --example ghstcp_mode -- SCENARIO.toml [SEED] [INTERVAL_S]`.
//!
//! Runs the scenario in steps of INTERVAL_S (default 0.1 s; stepping changes no result) and at
//! each step after the warm-up reads every `ghstcp` flow's mode; prints, per flow, the samples
//! in each mode and the share in Reno mode.

use cclab_sim::cc::ghstcp::{Ghstcp, Mode};
use cclab_sim::units::SimTime;
use cclab_sim::Scenario;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: ghstcp_mode SCENARIO.toml [SEED] [INTERVAL_S]");
        std::process::exit(2);
    };
    let fail = |what: String| -> ! {
        eprintln!("error: {what}");
        std::process::exit(2)
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let seed = args.get(2).map_or(1, |s| s.parse().unwrap_or_else(|_| fail(format!("seed: {s}"))));
    let step: f64 = args.get(3).map_or(0.1, |s| s.parse().unwrap_or_else(|_| fail(format!("interval: {s}"))));
    if !(step > 0.0 && step.is_finite()) {
        fail(format!("interval: {step}: accepted: seconds > 0"));
    }
    let sc = Scenario::from_toml(&text).unwrap_or_else(|e| fail(e.to_string()));
    let warmup = sc.warmup.as_deref().map_or(SimTime::ZERO, |w| {
        cclab_sim::units::parse_time(w).unwrap_or_else(|e| fail(format!("warmup: {w}: {e:?}")))
    });
    let mut b = sc.build(seed).unwrap_or_else(|e| fail(e.to_string()));
    let n = b.sim.flows.len();
    let (mut reno, mut hstcp) = (vec![0u64; n], vec![0u64; n]);
    let mut k = 1u64;
    loop {
        let t = SimTime::from_secs_f64(k as f64 * step).min(b.duration);
        b.sim.run_until(t);
        if t >= warmup {
            for (i, f) in b.sim.flows.iter().enumerate() {
                match f.sender.cc.as_any().and_then(|a| a.downcast_ref::<Ghstcp>()).map(|g| g.mode()) {
                    Some(Mode::Reno) => reno[i] += 1,
                    Some(Mode::Hstcp) => hstcp[i] += 1,
                    None => {}
                }
            }
        }
        if t >= b.duration {
            break;
        }
        k += 1;
    }
    println!("flow,hstcp_samples,reno_samples,reno_share");
    for i in 0..n {
        let all = reno[i] + hstcp[i];
        if all > 0 {
            println!("{i},{},{},{:.4}", hstcp[i], reno[i], reno[i] as f64 / all as f64);
        }
    }
}
