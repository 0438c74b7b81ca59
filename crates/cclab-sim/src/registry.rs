//! One way to add anything: congestion controls, add-ons that wrap them,
//! queue disciplines, topologies and traffic sources are all found by name in
//! a [`Registry`] of their kind.
//!
//! Each [`Entry`] is a name, a one-line summary, a parameter schema and a
//! constructor. Adding one is a new file holding its constructor plus one
//! line in its kind's built-in table (`cc::BUILTIN`, `cc::WRAPPERS`,
//! `queue::BUILTIN`, `net::topology::BUILTIN`, `scenario::source::BUILTIN`).
//! Code outside the crate adds entries at run time with [`Registry::register`]
//! (issue 16: user-written algorithms); they are looked up after the
//! built-ins, in the order they were registered, so lookup is deterministic.
//! A registry is process-wide (a `static`), like Linux's list of
//! `tcp_congestion_ops`: it holds constructors, never simulation state, so
//! many simulations still run side by side.
//!
//! Parameters arrive by name as numbers ([`Params`]); a constructor reads them
//! with a [`ParamReader`], which checks each against its range and refuses
//! names it did not read. The same reader, run once with every default,
//! gives the schema of constructors that do not declare theirs
//! ([`Schema::Read`]), so the listing cannot drift from what is accepted.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::RwLock;

/// Parameters given to a constructor by name, as they came from the scenario.
pub type Params = BTreeMap<String, f64>;

/// Why a constructor refused its parameters (or its name).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamError {
    /// The parameter's name (empty when the name of the entry itself is wrong).
    pub param: String,
    pub value: String,
    pub accepted: String,
}

/// One parameter an entry accepts, as text for people: `cclab algorithms`, the docs, errors.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    pub name: Cow<'static, str>,
    /// "number", "whole number", "flag (0 or 1)", "duration", "rate", "text", ...
    pub kind: Cow<'static, str>,
    /// The unit of a number ("s", "packets", "bytes"); empty when it has none or none was declared.
    pub unit: Cow<'static, str>,
    pub default: Cow<'static, str>,
    /// The accepted values, e.g. "[0, 1]".
    pub accepted: Cow<'static, str>,
}

impl ParamSpec {
    /// A parameter declared in a table (`const` so tables can be `static`).
    pub const fn new(
        name: &'static str,
        kind: &'static str,
        unit: &'static str,
        default: &'static str,
        accepted: &'static str,
    ) -> Self {
        ParamSpec {
            name: Cow::Borrowed(name),
            kind: Cow::Borrowed(kind),
            unit: Cow::Borrowed(unit),
            default: Cow::Borrowed(default),
            accepted: Cow::Borrowed(accepted),
        }
    }
}

/// Where an entry's parameter schema comes from.
#[derive(Clone, Copy, Debug)]
pub enum Schema {
    /// A table written beside the constructor.
    Declared(&'static [ParamSpec]),
    /// Read off the constructor: what its [`ParamReader`] asks for when given no parameters.
    Read,
}

/// One registered thing: its name, what it is, its parameters, and how to build it.
#[derive(Clone, Copy, Debug)]
pub struct Entry<B> {
    /// The lowercase name a scenario uses.
    pub name: &'static str,
    /// One line, naming the paper or RFC.
    pub summary: &'static str,
    pub params: Schema,
    /// The constructor; its type depends on the kind.
    pub build: B,
}

/// Why an entry could not be registered.
#[derive(Debug, Clone, PartialEq)]
pub struct RegisterError(pub String);

/// The entries of one kind: the built-ins, then those registered at run time.
pub struct Registry<B: 'static> {
    /// "cc", "add-on", "queue", "topology", "traffic".
    pub kind: &'static str,
    builtin: &'static [Entry<B>],
    extra: RwLock<Vec<Entry<B>>>,
    /// How to read the schema of an entry declared [`Schema::Read`].
    read: fn(&B) -> Vec<ParamSpec>,
}

impl<B: Copy + 'static> Registry<B> {
    pub const fn new(kind: &'static str, builtin: &'static [Entry<B>], read: fn(&B) -> Vec<ParamSpec>) -> Self {
        Registry { kind, builtin, extra: RwLock::new(Vec::new()), read }
    }

    fn extra(&self) -> std::sync::RwLockReadGuard<'_, Vec<Entry<B>>> {
        // Entries are plain data: a writer that panicked left the list whole.
        self.extra.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds an entry after the built-ins and those registered before it. A name
    /// already taken is refused, so no registration changes what a name meant.
    pub fn register(&self, e: Entry<B>) -> Result<(), RegisterError> {
        let mut extra = self.extra.write().unwrap_or_else(|e| e.into_inner());
        let valid = !e.name.is_empty()
            && e.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_+".contains(c));
        if !valid {
            return Err(RegisterError(format!(
                "{} name '{}': lowercase letters, digits, '-', '_' or '+' only",
                self.kind, e.name
            )));
        }
        if self.builtin.iter().chain(extra.iter()).any(|x| x.name == e.name) {
            return Err(RegisterError(format!("{} '{}' is already registered", self.kind, e.name)));
        }
        extra.push(e);
        Ok(())
    }

    /// The entry named `name`: built-ins first, then registrations in their order.
    pub fn get(&self, name: &str) -> Option<Entry<B>> {
        if let Some(e) = self.builtin.iter().find(|e| e.name == name) {
            return Some(*e);
        }
        self.extra().iter().find(|e| e.name == name).copied()
    }

    /// Every entry, built-ins first.
    pub fn entries(&self) -> Vec<Entry<B>> {
        self.builtin.iter().copied().chain(self.extra().iter().copied()).collect()
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.entries().iter().map(|e| e.name).collect()
    }

    /// The accepted names, for an error message: "reno, newreno, ...".
    pub fn accepted(&self) -> String {
        self.names().join(", ")
    }

    /// An entry's parameters.
    pub fn params(&self, e: &Entry<B>) -> Vec<ParamSpec> {
        match e.params {
            Schema::Declared(t) => t.to_vec(),
            Schema::Read => (self.read)(&e.build),
        }
    }

    /// Every entry as plain data, for listings.
    pub fn describe(&self) -> Vec<Description> {
        self.entries()
            .iter()
            .map(|e| Description { kind: self.kind, name: e.name, summary: e.summary, params: self.params(e) })
            .collect()
    }
}

/// An entry as plain data: what `cclab algorithms` prints.
#[derive(Clone, Debug, PartialEq)]
pub struct Description {
    pub kind: &'static str,
    pub name: &'static str,
    pub summary: &'static str,
    pub params: Vec<ParamSpec>,
}

/// Every kind's entries, in a fixed order: cc, add-on, queue, topology, traffic.
pub fn catalog() -> Vec<Description> {
    let mut all = crate::cc::REGISTRY.describe();
    all.extend(crate::cc::WRAPPER_REGISTRY.describe());
    all.extend(crate::queue::REGISTRY.describe());
    all.extend(crate::net::topology::REGISTRY.describe());
    all.extend(crate::scenario::source::REGISTRY.describe());
    all
}

thread_local! {
    /// While [`read_params`] runs: the parameters every [`ParamReader`] was asked for.
    static READING: RefCell<Option<Vec<ParamSpec>>> = const { RefCell::new(None) };
}

/// Runs `f` (a constructor given no parameters) and returns what its readers asked for, in order.
pub fn read_params(f: impl FnOnce()) -> Vec<ParamSpec> {
    let outer = READING.with(|r| r.replace(Some(Vec::new())));
    f();
    READING.with(|r| r.replace(outer)).unwrap_or_default()
}

fn note(name: &'static str, kind: &'static str, default: String, accepted: String) {
    READING.with(|r| {
        if let Some(v) = r.borrow_mut().as_mut() {
            if !v.iter().any(|p| p.name == name) {
                v.push(ParamSpec {
                    name: name.into(),
                    kind: kind.into(),
                    unit: "".into(),
                    default: default.into(),
                    accepted: accepted.into(),
                });
            }
        }
    });
}

/// Notes a parameter for a schema being read ([`Schema::Read`]) by a constructor that does not
/// read it with a [`ParamReader`] (a plugin's entry, whose reader runs in the plugin's own copy
/// of this crate). Outside [`read_params`] it does nothing.
pub fn note_param(spec: ParamSpec) {
    READING.with(|r| {
        if let Some(v) = r.borrow_mut().as_mut() {
            if !v.iter().any(|p| p.name == spec.name) {
                v.push(spec);
            }
        }
    });
}

/// Reads a parameter with a default and a valid range, rejecting unknown names afterwards.
pub struct ParamReader<'a> {
    params: &'a Params,
    seen: Vec<&'static str>,
}

impl<'a> ParamReader<'a> {
    pub fn new(params: &'a Params) -> Self {
        ParamReader { params, seen: Vec::new() }
    }

    /// The value of `name`, or `default`, checked against `[lo, hi]`.
    pub fn get(&mut self, name: &'static str, default: f64, lo: f64, hi: f64) -> Result<f64, ParamError> {
        self.seen.push(name);
        note(name, "number", default.to_string(), format!("[{lo}, {hi}]"));
        match self.params.get(name) {
            None => Ok(default),
            Some(&v) if v >= lo && v <= hi => Ok(v),
            Some(&v) => Err(ParamError {
                param: name.to_string(),
                value: v.to_string(),
                accepted: format!("a number in [{lo}, {hi}] (default {default})"),
            }),
        }
    }

    /// A whole-number parameter (a count or a choice), checked against `[lo, hi]`.
    pub fn get_int(&mut self, name: &'static str, default: u32, lo: u32, hi: u32) -> Result<u32, ParamError> {
        self.seen.push(name);
        // A flag reads through here; `get_flag` has noted it already.
        note(name, "whole number", default.to_string(), format!("[{lo}, {hi}]"));
        match self.params.get(name) {
            None => Ok(default),
            Some(&v) if v.fract() == 0.0 && v >= lo as f64 && v <= hi as f64 => Ok(v as u32),
            Some(&v) => Err(ParamError {
                param: name.to_string(),
                value: v.to_string(),
                accepted: format!("a whole number in [{lo}, {hi}] (default {default})"),
            }),
        }
    }

    /// An on/off switch written 1 or 0.
    pub fn get_flag(&mut self, name: &'static str, default: bool) -> Result<bool, ParamError> {
        note(name, "flag", (default as u32).to_string(), "0 or 1".into());
        Ok(self.get_int(name, default as u32, 0, 1)? == 1)
    }

    /// Fails on any parameter that was not read.
    pub fn finish(self) -> Result<(), ParamError> {
        for k in self.params.keys() {
            if !self.seen.contains(&k.as_str()) {
                let known = if self.seen.is_empty() { "none".to_string() } else { self.seen.join(", ") };
                return Err(ParamError {
                    param: k.clone(),
                    value: self.params[k].to_string(),
                    accepted: format!("known parameters: {known}"),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Build = fn() -> u32;

    static BUILTIN: &[Entry<Build>] = &[
        Entry { name: "one", summary: "the first", params: Schema::Read, build: || 1 },
        Entry { name: "two", summary: "the second", params: Schema::Declared(&[]), build: || 2 },
    ];

    fn read(b: &Build) -> Vec<ParamSpec> {
        read_params(|| {
            let p = Params::new();
            let mut r = ParamReader::new(&p);
            let _ = r.get("x", b() as f64, 0.0, 10.0);
            let _ = r.get_flag("on", true);
        })
    }

    #[test]
    fn registered_entries_come_after_the_built_ins_and_names_stay_unique() {
        let reg = Registry::new("thing", BUILTIN, read);
        reg.register(Entry { name: "three", summary: "", params: Schema::Read, build: || 3 }).unwrap();
        assert_eq!(reg.names(), ["one", "two", "three"]);
        assert_eq!((reg.get("three").unwrap().build)(), 3);
        let e = reg.register(Entry { name: "one", summary: "", params: Schema::Read, build: || 4 }).unwrap_err();
        assert!(e.0.contains("already registered"), "{e:?}");
        assert!(reg.register(Entry { name: "Bad Name", summary: "", params: Schema::Read, build: || 5 }).is_err());
        assert_eq!((reg.get("one").unwrap().build)(), 1);
        assert_eq!(reg.accepted(), "one, two, three");
    }

    #[test]
    fn a_read_schema_is_what_the_reader_was_asked_for() {
        let reg = Registry::new("thing", BUILTIN, read);
        let p = reg.params(&reg.get("one").unwrap());
        let names: Vec<_> = p.iter().map(|s| (s.name.as_ref(), s.kind.as_ref(), s.default.as_ref())).collect();
        assert_eq!(names, [("x", "number", "1"), ("on", "flag", "1")]);
        assert_eq!(p[0].accepted, "[0, 10]");
        assert!(reg.params(&reg.get("two").unwrap()).is_empty());
        // Outside read_params, readers note nothing.
        assert!(READING.with(|r| r.borrow().is_none()));
    }
}
