//! The ABI both ways in one process: entries exported with `export!` are loaded by the host
//! and run, through every C call, to the same results as the same code built in.

use cclab_sim::cc::{reno, CongestionControl, ParamError, ParamReader, Params, SenderView};
use cclab_sim::registry::{Entry, Schema};
use cclab_sim::Scenario;

/// Reno that panics in `cong_avoid` once the window reaches `at` packets.
struct Panicky(f64);

impl CongestionControl for Panicky {
    fn name(&self) -> &str {
        "panicky"
    }
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        cclab_sim::cc::halve(v)
    }
    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        assert!(v.cwnd < self.0, "window {} reached the limit", v.cwnd);
        v.cwnd + acked as f64
    }
}

fn panicky(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let at = r.get("at", 20.0, 1.0, 1e6)?;
    r.finish()?;
    Ok(Box::new(Panicky(at)))
}

cclab_plugin::export! {
    Entry { name: "plugin-newreno", summary: "NewReno through the plugin ABI", params: Schema::Read, build: reno::build_newreno },
    Entry { name: "plugin-panicky", summary: "panics", params: Schema::Read, build: panicky },
}

const QUICK: &str = include_str!("../../../scenarios/quickstart.toml");

fn load() {
    use std::sync::Once;
    static ONCE: Once = Once::new();
    // SAFETY: the entry is this test binary's own, loaded for the whole process.
    ONCE.call_once(|| unsafe {
        let names = cclab_plugin::host::load(cclab_plugin_entry, "roundtrip-test").unwrap();
        assert_eq!(names, ["plugin-newreno", "plugin-panicky"]);
    });
}

fn dump_without_names(text: &str, seed: u64) -> String {
    let out = cclab_sim::run(&Scenario::from_toml(text).unwrap(), seed).unwrap();
    cclab_sim::dump::dump(&out, 0, 0).lines().filter(|l| !l.starts_with("flows.cc:")).collect::<Vec<_>>().join("\n")
}

#[test]
fn newreno_through_the_plugin_abi_gives_the_built_in_results_bit_for_bit() {
    load();
    let built_in = dump_without_names(QUICK, 1);
    let plugin = dump_without_names(&QUICK.replace("cc = \"newreno\"", "cc = \"plugin-newreno\""), 1);
    assert!(built_in.lines().count() > 50);
    assert!(built_in == plugin, "the plugin's run differs from the built-in's");
}

#[test]
fn a_plugins_parameters_are_listed_and_checked_in_the_plugin() {
    load();
    let p = cclab_sim::cc::params("plugin-newreno").unwrap();
    let names: Vec<&str> = p.iter().map(|s| s.name.as_ref()).collect();
    assert_eq!(names, ["a", "beta"]);
    let bad: Params = [("beta".to_string(), 2.0)].into_iter().collect();
    let e = cclab_sim::cc::build("plugin-newreno", &bad).err().unwrap();
    assert_eq!(e.param, "beta");
    assert!(e.accepted.contains("[0.000000001, 0.999999999]"), "{}", e.accepted);
}

#[test]
fn a_panic_in_a_plugin_hook_is_a_fault_naming_the_algorithm_and_hook_not_an_abort() {
    load();
    let text = QUICK.replace("cc = \"newreno\"", "cc = \"plugin-panicky\"");
    let sc = Scenario::from_toml(&text).unwrap();
    let (built, faults) = cclab_sim::cc::external::collect_faults(|| sc.build(1));
    let mut b = built.unwrap();
    assert_eq!(faults.len(), 5, "one per flow, plus the validating build");
    b.sim.run_until(b.duration);
    let msg = faults.iter().find_map(|f| f.get()).expect("a fault");
    assert!(msg.starts_with("cc 'plugin-panicky' (plugin roundtrip-test): cong_avoid panicked: window"), "{msg}");
    assert!(!msg.contains('\n'));
}

#[test]
fn a_second_load_of_the_same_names_is_refused_whole() {
    load();
    // SAFETY: as in load().
    let e = unsafe { cclab_plugin::host::load(cclab_plugin_entry, "again.so") }.unwrap_err();
    assert_eq!(
        e,
        "plugin again.so: cc 'plugin-newreno' is already registered (a built-in, a Python class or another plugin's)"
    );
}

/// A table from a plugin built for a later ABI: only its header is read.
extern "C" fn future_plugin() -> *const cclab_plugin::abi::Table {
    struct Shared(cclab_plugin::abi::Table);
    // SAFETY: read-only, and its pointers are null or static.
    unsafe impl Sync for Shared {}
    static T: Shared = Shared(cclab_plugin::abi::Table {
        abi_version: 99,
        cclab_version: cclab_plugin::abi::Str { ptr: b"9.9.9".as_ptr(), len: 5 },
        n_entries: 0,
        entries: std::ptr::null(),
        vtable: std::ptr::null(),
    });
    &T.0
}

#[test]
fn a_plugin_built_for_another_abi_is_refused_naming_both_versions() {
    // SAFETY: the table is static.
    let e = unsafe { cclab_plugin::host::load(future_plugin, "libfuture.so") }.unwrap_err();
    assert_eq!(
        e,
        format!(
            "plugin libfuture.so: built for cclab plugin ABI 99 (cclab 9.9.9); this cclab {} speaks ABI 1: rebuild the \
             plugin against this cclab",
            cclab_plugin::CCLAB_VERSION
        )
    );
}
