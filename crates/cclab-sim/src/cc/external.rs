//! Algorithms that arrive while the process runs, from outside the Rust code compiled into
//! cclab: a Python class (`cclab.register_cc`, crates/cclab-py) or an entry of a plugin
//! library (`cclab.load_plugin`, crates/cclab-plugin). Issue 16, "writing an algorithm
//! without forking".
//!
//! Such an algorithm is registered in [`REGISTRY`](super::REGISTRY) like any other, so a
//! scenario names it, `cclab algorithms` lists it and its parameters are checked the same
//! way. Its constructor is not a plain function but a [`Factory`] holding what it needs (a
//! Python class, a library's function table); the registry's entries hold plain `fn`
//! pointers, so each registration takes one of [`MAX_EXTERNAL`] trampolines, `fn` items
//! that look up their own slot.
//!
//! Two differences from a built-in registration:
//! - an entry registered as `replaceable` (a Python class, which a notebook redefines while
//!   it tries an idea) may be registered again under the same name by another replaceable
//!   entry: the name then builds the new one. Built-ins and plugin entries are never replaced.
//! - its hooks may fail (a Python exception, a panic in a plugin) where the trait has no
//!   error to return. The hook then records the failure in its [`Fault`] and answers as if
//!   nothing changed; whoever runs the simulation checks the faults of what it built
//!   ([`collect_faults`]) between steps and stops the run with the first one.
//!
//! The schema of an external entry is read off its factory ([`Schema::Read`]): a factory
//! reads its parameters with a [`ParamReader`](super::ParamReader) or notes them
//! ([`crate::registry::note_param`]), so the listing follows a replacement.

use super::{Builder, CongestionControl, ParamError, Params, REGISTRY};
use crate::registry::{Entry, RegisterError, Schema};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, RwLock};

/// What builds an external algorithm from its parameters.
pub trait Factory: Send + Sync {
    fn build(&self, params: &Params) -> Result<Box<dyn CongestionControl>, ParamError>;
}

/// Algorithms a process may register at run time (each takes a trampoline for good; a
/// replacement reuses its name's).
pub const MAX_EXTERNAL: usize = 256;

struct Slot {
    name: &'static str,
    factory: Arc<dyn Factory>,
    replaceable: bool,
}

static SLOTS: RwLock<Vec<Slot>> = RwLock::new(Vec::new());

fn factory(i: usize) -> Option<Arc<dyn Factory>> {
    // The lock is released before building: a factory may run code that registers.
    SLOTS.read().unwrap_or_else(|e| e.into_inner()).get(i).map(|s| s.factory.clone())
}

fn trampoline<const N: usize>(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    match factory(N) {
        Some(f) => f.build(p),
        None => {
            Err(ParamError { param: String::new(), value: format!("external slot {N}"), accepted: REGISTRY.accepted() })
        }
    }
}

macro_rules! row {
    ($hi:literal) => {
        [
            trampoline::<{ $hi * 16 }>,
            trampoline::<{ $hi * 16 + 1 }>,
            trampoline::<{ $hi * 16 + 2 }>,
            trampoline::<{ $hi * 16 + 3 }>,
            trampoline::<{ $hi * 16 + 4 }>,
            trampoline::<{ $hi * 16 + 5 }>,
            trampoline::<{ $hi * 16 + 6 }>,
            trampoline::<{ $hi * 16 + 7 }>,
            trampoline::<{ $hi * 16 + 8 }>,
            trampoline::<{ $hi * 16 + 9 }>,
            trampoline::<{ $hi * 16 + 10 }>,
            trampoline::<{ $hi * 16 + 11 }>,
            trampoline::<{ $hi * 16 + 12 }>,
            trampoline::<{ $hi * 16 + 13 }>,
            trampoline::<{ $hi * 16 + 14 }>,
            trampoline::<{ $hi * 16 + 15 }>,
        ]
    };
}

static TRAMPOLINES: [[Builder; 16]; 16] = [
    row!(0),
    row!(1),
    row!(2),
    row!(3),
    row!(4),
    row!(5),
    row!(6),
    row!(7),
    row!(8),
    row!(9),
    row!(10),
    row!(11),
    row!(12),
    row!(13),
    row!(14),
    row!(15),
];

/// Registers `factory` as the algorithm `name`, listed with `summary`. A name already
/// registered is refused, unless both it and this registration are `replaceable`: then the
/// name builds `factory` from now on (simulations already built keep what they built).
pub fn register(name: &str, summary: &str, factory: Arc<dyn Factory>, replaceable: bool) -> Result<(), RegisterError> {
    let mut slots = SLOTS.write().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = slots.iter_mut().find(|s| s.name == name) {
        if !(s.replaceable && replaceable) {
            return Err(RegisterError(format!("cc '{name}' is already registered")));
        }
        s.factory = factory;
        return Ok(());
    }
    let i = slots.len();
    if i >= MAX_EXTERNAL {
        return Err(RegisterError(format!(
            "cc '{name}': this process has registered {MAX_EXTERNAL} algorithms at run time, the most it takes"
        )));
    }
    // Names and summaries live as long as the registry: leaked once per slot, at most MAX_EXTERNAL.
    let entry = Entry {
        name: Box::leak(name.to_string().into_boxed_str()),
        summary: Box::leak(summary.replace('\n', " ").into_boxed_str()),
        params: Schema::Read,
        build: TRAMPOLINES[i / 16][i % 16],
    };
    REGISTRY.register(entry)?;
    slots.push(Slot { name: entry.name, factory, replaceable });
    Ok(())
}

/// Whether `name` is an algorithm registered at run time (not a built-in).
pub fn is_external(name: &str) -> bool {
    SLOTS.read().unwrap_or_else(|e| e.into_inner()).iter().any(|s| s.name == name)
}

/// Where a hook of an external algorithm records that it failed: the first failure, in one
/// line, with what the host may want back (a Python exception). Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct Fault(Arc<Mutex<Option<Failure>>>);

/// A failure's one-line message and what the host keeps with it.
type Failure = (String, Option<Payload>);

/// What a host keeps with a failure's message (the binding keeps the Python exception).
pub type Payload = Box<dyn std::any::Any + Send>;

impl Fault {
    /// A new fault cell, handed to the [`collect_faults`] running on this thread, if any.
    pub fn new() -> Self {
        let f = Fault::default();
        COLLECTING.with(|c| {
            if let Some(v) = c.borrow_mut().as_mut() {
                v.push(f.clone());
            }
        });
        f
    }

    /// Records `msg` unless a failure is recorded already (the first one is the cause).
    pub fn set(&self, msg: String) {
        self.set_with(msg, None)
    }

    /// Records `msg` and `payload` unless a failure is recorded already.
    pub fn set_with(&self, msg: String, payload: Option<Payload>) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if m.is_none() {
            *m = Some((msg, payload));
        }
    }

    /// The message of the failure, if one is recorded.
    pub fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|(m, _)| m.clone())
    }

    /// The payload of the failure (once: it is taken), if one was recorded with it.
    pub fn take_payload(&self) -> Option<Payload> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).as_mut().and_then(|(_, p)| p.take())
    }

    pub fn is_set(&self) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }
}

thread_local! {
    static COLLECTING: RefCell<Option<Vec<Fault>>> = const { RefCell::new(None) };
}

/// Runs `f` (which builds a simulation) and returns the faults of every external algorithm it
/// built on this thread.
pub fn collect_faults<T>(f: impl FnOnce() -> T) -> (T, Vec<Fault>) {
    let outer = COLLECTING.with(|c| c.replace(Some(Vec::new())));
    let out = f();
    let faults = COLLECTING.with(|c| c.replace(outer)).unwrap_or_default();
    (out, faults)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::reno;

    struct Beta(f64);

    impl Factory for Beta {
        fn build(&self, p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
            let mut r = crate::registry::ParamReader::new(p);
            let a = r.get("a", 1.0, 0.0, 10.0)?;
            r.finish()?;
            Ok(Box::new(reno::Reno::new(reno::RenoConfig { a, beta: self.0 })))
        }
    }

    fn ssthresh_of(name: &str) -> f64 {
        let mut cc = crate::cc::build(name, &Params::new()).unwrap();
        cc.ssthresh(&crate::cc::testing::view(100.0, 1e9))
    }

    #[test]
    fn a_replaceable_registration_is_replaced_and_a_fixed_one_is_refused() {
        register("ext-test-a", "test", Arc::new(Beta(0.5)), true).unwrap();
        assert_eq!(ssthresh_of("ext-test-a"), 50.0);
        register("ext-test-a", "test", Arc::new(Beta(0.7)), true).unwrap();
        assert_eq!(ssthresh_of("ext-test-a"), 70.0);
        register("ext-test-b", "test", Arc::new(Beta(0.5)), false).unwrap();
        assert!(register("ext-test-b", "test", Arc::new(Beta(0.7)), true).is_err());
        assert!(register("ext-test-a", "test", Arc::new(Beta(0.7)), false).is_err());
        assert!(register("reno", "test", Arc::new(Beta(0.7)), true).unwrap_err().0.contains("already"));
        assert!(is_external("ext-test-a") && !is_external("reno"));
        // The schema is read off the factory.
        let p = crate::cc::params("ext-test-a").unwrap();
        assert_eq!(p[0].name, "a");
    }

    #[test]
    fn faults_made_while_collecting_are_collected_and_the_first_message_stays() {
        let ((), faults) = collect_faults(|| {
            let f = Fault::new();
            f.set("first".into());
            f.set("second".into());
        });
        assert_eq!(faults.len(), 1);
        assert_eq!(faults[0].get().as_deref(), Some("first"));
        assert!(!Fault::new().is_set());
    }
}
