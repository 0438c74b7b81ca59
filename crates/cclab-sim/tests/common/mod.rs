//! Helpers shared by the scenario tests.
#![allow(dead_code)]

use cclab_sim::{run, RunOutput, Scenario};

pub fn run_toml(text: &str, seed: u64) -> RunOutput {
    let sc = Scenario::from_toml(text).unwrap_or_else(|e| panic!("{e}"));
    run(&sc, seed).unwrap_or_else(|e| panic!("{e}"))
}

/// A single-bottleneck dumbbell scenario.
pub fn dumbbell(rate: &str, delay: &str, buffer: &str, duration: &str, warmup: &str, flows: &str) -> String {
    format!(
        r#"
duration = "{duration}"
warmup = "{warmup}"
[topology]
bottleneck = {{ rate = "{rate}", delay = "{delay}", buffer = "{buffer}" }}
{flows}
"#
    )
}
