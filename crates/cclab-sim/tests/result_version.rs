//! Guards `cclab_sim::RESULT_VERSION`, the key finished runs are cached under.
//!
//! A set of reference runs (every scenario file, every congestion control, every
//! queue discipline, loss recoveries, random loss, send jitter, UDP and web
//! traffic) is dumped to full precision and hashed, run by run. `result_version.txt`
//! holds the version and each run's digest:
//! - digests unchanged: results unchanged, whatever else the change did;
//! - a recorded run's digest changed, version not bumped: the change moves results, so
//!   cached runs would be reused wrongly: bump `RESULT_VERSION` in src/lib.rs;
//! - a new run (a new algorithm) or a bumped version: record the digests with
//!   `CCLAB_BLESS=1 cargo test --release --test result_version`.
//!
//! `CCLAB_DUMP_DIR=DIR` also writes each reference run's full dump to `DIR/<name>.txt`, so that
//! a change meant to keep results is checked line by line against a dump taken before it.
//!
//! The runs named `stack NAME ...` follow a stack profile other than the default; the
//! run store keys a run that names such a stack on that profile's own version too
//! (`StackProfile::version`), so a change that moves only their results bumps that
//! version instead of RESULT_VERSION (which would discard every cached run). A change that
//! moves only the runs with a send overhead under a profile whose overhead has a version of
//! its own (`StackProfile::overhead_version`) bumps that one; `stack NAME no overhead ...`
//! runs guard the rest. Likewise a change that moves only the runs with a queue variant that has a
//! version of its own (`queue::VARIANT_VERSIONS`: RED with `ns2 = 1`) bumps that version, and
//! one that moves only the runs with a flow whose algorithm sets the window from rate samples
//! (bbr, bbr3) bumps `tcp::CONG_CONTROL_VERSION`.

use cclab_sim::queue::VARIANT_VERSIONS;
use cclab_sim::tcp::{StackProfile, CONG_CONTROL_VERSION};
use cclab_sim::{cc, dump, results, Scenario, RESULT_VERSION};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::Path;

const RECORD: &str = "tests/result_version.txt";

/// Two flows of `cc` at different RTTs on a small dumbbell, with `queue` and `extra`
/// bottleneck fields; short, so that the whole set runs in seconds.
fn pair(cc: &str, recovery: &str, queue: &str, extra: &str) -> String {
    format!(
        r#"
duration = "6s"
warmup = "1s"
sample_interval = "500ms"
[topology]
bottleneck = {{ rate = "20Mbps", delay = "10ms", buffer = "0.5bdp", queue = "{queue}"{extra} }}
[[flows]]
cc = "{cc}"
recovery = "{recovery}"
rtt = "30ms"
overhead = "0.05ms"
[[flows]]
cc = "{cc}"
recovery = "{recovery}"
rtt = "70ms"
start = "0.5s"
"#
    )
}

fn reference_runs() -> Vec<(String, String)> {
    let mut runs = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    for f in files.into_iter().filter(|f| f.extension().is_some_and(|x| x == "toml")) {
        runs.push((f.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&f).unwrap()));
    }
    for name in cc::names() {
        let queue = if name == "xcp" { "xcp" } else { "droptail" };
        runs.push((format!("cc {name}"), pair(name, "sack", queue, "")));
    }
    for rec in ["reno", "newreno"] {
        runs.push((format!("recovery {rec}"), pair("reno", rec, "droptail", "")));
    }
    for wrapped in ["highspeed+ktcp", "cubic+ktcp"] {
        runs.push((wrapped.to_string(), pair(wrapped, "sack", "droptail", "")));
    }
    // Under linux the add-on wraps Linux's CUBIC.
    let linux_wrapped = pair("cubic+ktcp", "sack", "droptail", "")
        .replace("recovery = \"sack\"\n", "recovery = \"sack\"\nstack = \"linux\"\n");
    runs.push(("stack linux cubic+ktcp".to_string(), linux_wrapped));
    for q in ["red", "ared", "gared"] {
        runs.push((format!("queue {q}"), pair("highspeed", "sack", q, "")));
        runs.push((format!("queue {q} ns2"), pair("highspeed", "sack", q, ", queue_params = { ns2 = 1 }")));
    }
    for stack in StackProfile::ALL.iter().filter(|p| p.version > 0) {
        for name in cc::names() {
            let queue = if name == "xcp" { "xcp" } else { "droptail" };
            // The profile's own recovery (SACK for linux, NewReno or Reno for ns2).
            let text = pair(name, "", queue, "").replace("recovery = \"\"\n", &format!("stack = \"{}\"\n", stack.name));
            runs.push((format!("stack {} cc {name}", stack.name), text));
        }
        // SACK recovery under the profile (its default is NewReno or Reno under ns2).
        let sack = pair("newreno", "sack", "droptail", ", loss = 0.01")
            .replace("recovery = \"sack\"\n", &format!("recovery = \"sack\"\nstack = \"{}\"\n", stack.name));
        runs.push((format!("stack {} recovery sack", stack.name), sack));
    }
    // The runs above give their first flow a send overhead. Under a profile whose overhead has
    // a version of its own, the runs without one are guarded apart (`stack NAME no overhead`).
    for stack in StackProfile::ALL.iter().filter(|p| p.overhead_version > 0) {
        for name in cc::names() {
            let queue = if name == "xcp" { "xcp" } else { "droptail" };
            let text = pair(name, "", queue, "")
                .replace("recovery = \"\"\n", &format!("stack = \"{}\"\n", stack.name))
                .replace("overhead = \"0.05ms\"\n", "");
            runs.push((format!("stack {} no overhead cc {name}", stack.name), text));
        }
    }
    for q in ["codel", "fq_codel", "pie", "dualpi2"] {
        runs.push((format!("queue {q}"), pair("newreno", "sack", q, "")));
    }
    runs.push(("random loss".into(), pair("newreno", "sack", "droptail", ", loss = 0.001")));
    let ecn = pair("newreno", "sack", "red", ", queue_params = { ecn = 1 }")
        .replace("recovery = \"sack\"\n", "recovery = \"sack\"\necn = true\n");
    runs.push(("ecn".into(), ecn.clone()));
    runs.push(("stack ns2 ecn".into(), ecn.replace("ecn = true\n", "ecn = true\nstack = \"ns2\"\n")));
    // Links that vary over time (net/link/vary.rs): rate and delay steps with a loss schedule, and
    // the example's Mahimahi trace (by its absolute path: the digest does not depend on it).
    let steps =
        ", rate_schedule = [[\"2s\", \"5Mbps\"], [\"4s\", \"30Mbps\"]], delay_schedule = [[\"3s\", \"30ms\"]], \
                 loss_schedule = [[\"1s\", 0.001], [\"5s\", 0.0]]";
    runs.push(("rate schedule".into(), pair("cubic", "sack", "red", steps)));
    let trace = dir.join("links/cellular.trace");
    runs.push(("mahimahi".into(), pair("bbr", "sack", "droptail", &format!(", mahimahi = \"{}\"", trace.display()))));
    runs
}

/// Each reference run's dump without its event counts, by name.
fn dumps() -> Vec<(String, String)> {
    reference_runs()
        .into_iter()
        .map(|(name, text)| {
            let mut sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            if name.ends_with(".toml") {
                sc.duration = "12s".into();
            }
            let mut b = sc.build(1).unwrap_or_else(|e| panic!("{name}: {e}"));
            b.sim.run_until(b.duration);
            let r = results::collect(&b.sim, b.duration);
            let text = dump::dump(&r, b.sim.events_handled, b.sim.pending_events());
            if let Some(dir) = std::env::var_os("CCLAB_DUMP_DIR") {
                let file = name.replace(['/', ' '], "_");
                std::fs::write(Path::new(&dir).join(format!("{file}.txt")), &text).unwrap();
            }
            (name, results_only(&text))
        })
        .collect()
}

/// The queue variants with versions of their own (`VARIANT_VERSIONS`) a reference run uses.
fn variants_of(text: &str) -> Vec<&'static str> {
    if text.contains("ns2 = 1") {
        vec!["red ns2"]
    } else {
        vec![]
    }
}

/// Whether a reference run has a flow whose algorithm sets the window from rate samples.
fn has_cong_control(text: &str) -> bool {
    let sc = Scenario::from_toml(text).unwrap_or_else(|e| panic!("{e}"));
    let web = sc.web.iter().filter_map(|w| Some((w.cc.as_deref()?, &w.cc_params)));
    sc.flows
        .iter()
        .map(|g| (g.cc.as_str(), &g.cc_params))
        .chain(web)
        .any(|(name, params)| cc::uses_rate_samples(name, &params.clone().unwrap_or_default()))
}

/// A dump line's key: `flows.goodput_bps`, `summary.jain_index`.
fn key(line: &str) -> &str {
    line.split_once(':').map_or(line, |(k, _)| k)
}

/// The digest of the lines of `dump` whose key is in `keys` (every line when `keys` is None).
fn digest(dump: &str, keys: Option<&BTreeSet<String>>) -> String {
    let mut h = Sha256::new();
    for l in dump.lines().filter(|l| keys.is_none_or(|k| k.contains(key(l)))) {
        h.update(l.as_bytes());
        h.update(b"\n");
    }
    format!("{:x}", h.finalize())
}

/// A dump without its event counts: how many events a run takes is the engine's business (it
/// falls when the engine finds a shorter way to the same results), not a result.
fn results_only(dump: &str) -> String {
    let counts = ["summary.events:", "events_handled:", "pending_events:"];
    dump.lines().filter(|l| !counts.iter().any(|c| l.starts_with(c))).map(|l| format!("{l}\n")).collect()
}

/// The record: `version N`, a `stack NAME version N` line per profile with a version of
/// its own, `keys` and the result columns the digests cover, then one `digest<TAB>name` line
/// per reference run. A column added later (a new metric) is not in `keys`: the recorded
/// digests still cover exactly the columns they did, so the test says whether those moved
/// before it asks for the new column to be recorded.
fn record(version: u32, keys: &BTreeSet<String>, runs: &[(String, String)]) -> String {
    let mut s = format!("version {version}\n");
    for p in StackProfile::ALL.iter().filter(|p| p.version > 0) {
        s += &format!("stack {} version {}\n", p.name, p.version);
    }
    for p in StackProfile::ALL.iter().filter(|p| p.overhead_version > 0) {
        s += &format!("stack {} overhead {}\n", p.name, p.overhead_version);
    }
    for (name, v) in VARIANT_VERSIONS {
        s += &format!("queue {name} version {v}\n");
    }
    s += &format!("cong_control version {CONG_CONTROL_VERSION}\n");
    s += "keys";
    for k in keys {
        s += &format!(" {k}");
    }
    s += "\n";
    for (name, d) in runs {
        s += &format!("{d}\t{name}\n");
    }
    s
}

#[test]
fn a_change_of_results_comes_with_a_new_result_version() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORD);
    let dumps = dumps();
    let all_keys: BTreeSet<String> = dumps.iter().flat_map(|(_, d)| d.lines().map(|l| key(l).to_string())).collect();
    if std::env::var_os("CCLAB_BLESS").is_some() {
        let now: Vec<(String, String)> = dumps.iter().map(|(n, d)| (n.clone(), digest(d, Some(&all_keys)))).collect();
        std::fs::write(&path, record(RESULT_VERSION, &all_keys, &now)).unwrap();
        return;
    }
    let saved = std::fs::read_to_string(&path).unwrap_or_default();
    let mut lines = saved.lines();
    let version: u32 = lines.next().and_then(|l| l.strip_prefix("version ")).and_then(|v| v.parse().ok()).unwrap_or(0);
    let lines: Vec<&str> = lines.collect();
    // The columns the recorded digests cover (a record without the line: every column).
    let recorded_keys: Option<BTreeSet<String>> =
        lines.iter().find_map(|l| l.strip_prefix("keys ")).map(|k| k.split(' ').map(str::to_string).collect());
    let now: Vec<(String, String)> =
        dumps.iter().map(|(n, d)| (n.clone(), digest(d, recorded_keys.as_ref()))).collect();
    let stack_versions: std::collections::BTreeMap<&str, u32> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("stack ")?.split_once(" version "))
        .filter_map(|(name, v)| Some((name, v.parse().ok()?)))
        .collect();
    let overhead_versions: std::collections::BTreeMap<&str, u32> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("stack ")?.split_once(" overhead "))
        .filter_map(|(name, v)| Some((name, v.parse().ok()?)))
        .collect();
    let variant_versions: std::collections::BTreeMap<&str, u32> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("queue ")?.rsplit_once(" version "))
        .filter_map(|(name, v)| Some((name, v.parse().ok()?)))
        .collect();
    let bumped_variants: Vec<&str> =
        VARIANT_VERSIONS.iter().filter(|(n, v)| variant_versions.get(n) != Some(v)).map(|(n, _)| *n).collect();
    // The reference runs with a queue of a variant, and those with one whose version was bumped.
    let variants: std::collections::BTreeMap<String, Vec<&str>> =
        reference_runs().into_iter().map(|(n, text)| (n, variants_of(&text))).collect();
    let runs_with_variant: BTreeSet<String> = variants
        .iter()
        .filter(|(_, vs)| vs.iter().any(|v| bumped_variants.contains(v)))
        .map(|(n, _)| n.clone())
        .collect();
    // The reference runs with a flow that sets its window from rate samples, if that version was bumped.
    let recorded_cong_control: u32 =
        lines.iter().find_map(|l| l.strip_prefix("cong_control version ")).and_then(|v| v.parse().ok()).unwrap_or(0);
    let cong_control_bumped = recorded_cong_control != CONG_CONTROL_VERSION;
    let runs_with_cong_control: BTreeSet<String> = if cong_control_bumped {
        reference_runs().into_iter().filter(|(_, text)| has_cong_control(text)).map(|(n, _)| n).collect()
    } else {
        BTreeSet::new()
    };
    let bumped_overheads: Vec<&str> = StackProfile::ALL
        .iter()
        .filter(|p| p.overhead_version > 0 && overhead_versions.get(p.name) != Some(&p.overhead_version))
        .map(|p| p.name)
        .collect();
    // The reference runs whose flows have a send overhead.
    let with_overhead: BTreeSet<String> =
        reference_runs().into_iter().filter(|(_, text)| text.contains("overhead = ")).map(|(n, _)| n).collect();
    let was: std::collections::BTreeMap<&str, &str> =
        lines.iter().filter_map(|l| l.split_once('\t')).map(|(d, name)| (name, d)).collect();
    let bumped_stacks: Vec<&str> = StackProfile::ALL
        .iter()
        .filter(|p| p.version > 0 && stack_versions.get(p.name) != Some(&p.version))
        .map(|p| p.name)
        .collect();
    // A run that was recorded and now gives other results: cached runs may be stale.
    let changed: Vec<&str> =
        now.iter().filter(|(n, d)| was.get(n.as_str()).is_some_and(|w| w != d)).map(|(n, _)| n.as_str()).collect();
    // A changed run is excused by RESULT_VERSION's bump, or, for a run under a stack of its
    // own, by that stack's.
    let default_bumped = version != RESULT_VERSION;
    let stack_of = |n: &str| n.strip_prefix("stack ").and_then(|r| r.split(' ').next()).map(str::to_owned);
    let unexcused: Vec<&str> = changed
        .iter()
        .copied()
        .filter(|n| !default_bumped && stack_of(n).is_none_or(|st| !bumped_stacks.contains(&st.as_str())))
        .filter(|n| {
            // Excused too by the bump of the profile's overhead version, if the run has an overhead.
            !(with_overhead.contains(*n) && stack_of(n).is_some_and(|st| bumped_overheads.contains(&st.as_str())))
        })
        // And by the bump of the version of a queue variant the run has.
        .filter(|n| !runs_with_variant.contains(*n))
        // And by the bump of CONG_CONTROL_VERSION, if a flow of the run sets its window itself.
        .filter(|n| !runs_with_cong_control.contains(*n))
        .collect();
    let stack_only = unexcused.iter().all(|n| stack_of(n).is_some());
    let variant_only = unexcused.iter().all(|n| variants.get(*n).is_some_and(|v| !v.is_empty()));
    // Only when something is unexcused: the message names the version to bump.
    let cong_control_only = !unexcused.is_empty() && {
        let texts: std::collections::BTreeMap<String, String> = reference_runs().into_iter().collect();
        unexcused.iter().all(|n| texts.get(*n).is_some_and(|t| has_cong_control(t)))
    };
    assert!(
        unexcused.is_empty(),
        "the results of {unexcused:?} changed but no version covering them was bumped: bump {} so that cached runs \
         are redone, then record the digests (CCLAB_BLESS=1 cargo test --release --test result_version)",
        if stack_only {
            "the version of the stack named (StackProfile::version in src/tcp/profile.rs)"
        } else if variant_only {
            "the version of the queue variant they use (queue::VARIANT_VERSIONS in src/queue/mod.rs)"
        } else if cong_control_only {
            "the version of the flows that set the window from rate samples (CONG_CONTROL_VERSION in src/tcp/mod.rs)"
        } else {
            "RESULT_VERSION in src/lib.rs"
        }
    );
    assert!(
        !default_bumped
            && bumped_stacks.is_empty()
            && bumped_overheads.is_empty()
            && bumped_variants.is_empty()
            && !cong_control_bumped,
        "RESULT_VERSION is {RESULT_VERSION} (recorded {version}), stack versions bumped: {bumped_stacks:?}, stack \
         overhead versions bumped: {bumped_overheads:?}, queue variant versions bumped: {bumped_variants:?}, \
         CONG_CONTROL_VERSION {CONG_CONTROL_VERSION} (recorded {recorded_cong_control}): record \
         the new digests in {RECORD} (run with CCLAB_BLESS=1)"
    );
    // A new reference run (a new algorithm, say) changes no earlier result, only the record.
    let added: Vec<&str> = now.iter().filter(|(n, _)| !was.contains_key(n.as_str())).map(|(n, _)| n.as_str()).collect();
    assert!(added.is_empty(), "new reference runs {added:?}: record them with CCLAB_BLESS=1 ({RECORD})");
    // A new result column (a new metric) moves no recorded result, only the record.
    let new_keys: Vec<&String> =
        all_keys.iter().filter(|k| recorded_keys.as_ref().is_some_and(|r| !r.contains(*k))).collect();
    assert!(
        new_keys.is_empty() && recorded_keys.is_some(),
        "new result columns {new_keys:?} (every recorded column unchanged): record them with CCLAB_BLESS=1 ({RECORD})"
    );
}

#[test]
fn a_digest_covers_the_recorded_columns_only() {
    let dump = "summary.jain_index: 1.0/3ff0000000000000\nflows.drops: 3 4\n";
    let keys: BTreeSet<String> = ["summary.jain_index", "flows.drops"].iter().map(|s| s.to_string()).collect();
    let with_new_column = format!("{dump}flows.drops_measured: 1 2\n");
    assert_eq!(digest(dump, Some(&keys)), digest(&with_new_column, Some(&keys)));
    assert_ne!(digest(dump, None), digest(&with_new_column, None));
    assert_ne!(digest(dump, Some(&keys)), digest(&dump.replace("3 4", "3 5"), Some(&keys)));
}
