//! A link's schedules, Gilbert-Elliott loss and Mahimahi trace, from the scenario's fields
//! (`rate_schedule`, `delay_schedule`, `loss_schedule`, `gilbert_elliott`, `mahimahi`) to the
//! link's `Varying` (net/link/vary.rs; docs/links.md).
//!
//! Files are read at build time; a relative path is taken against the working directory, and
//! `Scenario::resolve_paths` (called by the loaders of scenario files) makes it relative to the
//! scenario file instead. Each file is read once per build, however many links name it.

use super::limits::{MAX_SCHEDULE_STEPS, MAX_TRACE_FILE_BYTES, MAX_TRACE_LINES};
use super::schema::num;
use super::*;
use crate::net::link::vary::{parse_mahimahi, GilbertElliott, Opportunities, Steps};
use crate::net::link::{Link, Varying};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// The fields of one link that vary over time.
pub(crate) struct VarySpec<'a> {
    pub(crate) loss: Option<f64>,
    pub(crate) rate_schedule: &'a Option<Schedule<String>>,
    pub(crate) delay_schedule: &'a Option<Schedule<String>>,
    pub(crate) jitter: &'a Option<String>,
    pub(crate) loss_schedule: &'a Option<Schedule<f64>>,
    pub(crate) gilbert_elliott: &'a Option<BTreeMap<String, f64>>,
    pub(crate) mahimahi: &'a Option<String>,
}

impl<'a> VarySpec<'a> {
    pub(crate) fn of_bottleneck(b: &'a LinkParams) -> Self {
        VarySpec {
            loss: b.loss,
            rate_schedule: &b.rate_schedule,
            delay_schedule: &b.delay_schedule,
            jitter: &b.jitter,
            loss_schedule: &b.loss_schedule,
            gilbert_elliott: &b.gilbert_elliott,
            mahimahi: &b.mahimahi,
        }
    }

    pub(crate) fn of_graph_link(l: &'a GraphLink) -> Self {
        VarySpec {
            loss: l.loss,
            rate_schedule: &l.rate_schedule,
            delay_schedule: &l.delay_schedule,
            jitter: &l.jitter,
            loss_schedule: &l.loss_schedule,
            gilbert_elliott: &l.gilbert_elliott,
            mahimahi: &l.mahimahi,
        }
    }

    /// What applies to a dumbbell's reverse direction: the rate and delay schedules and the
    /// jitter (as `rate` and `delay`), not the loss or the trace (as `loss`).
    pub(crate) fn both_ways(&self) -> VarySpec<'a> {
        VarySpec {
            loss: None,
            rate_schedule: self.rate_schedule,
            delay_schedule: self.delay_schedule,
            jitter: self.jitter,
            loss_schedule: &None,
            gilbert_elliott: &None,
            mahimahi: &None,
        }
    }

    fn any(&self) -> bool {
        self.rate_schedule.is_some()
            || self.delay_schedule.is_some()
            || self.jitter.is_some()
            || self.loss_schedule.is_some()
            || self.gilbert_elliott.is_some()
            || self.mahimahi.is_some()
    }
}

/// The files read while building one scenario: each once, and their lines counted against
/// `MAX_TRACE_LINES` together.
#[derive(Default)]
pub(crate) struct Files {
    text: HashMap<String, Arc<str>>,
    traces: HashMap<String, Arc<[u32]>>,
    lines: usize,
}

impl Files {
    fn read(&mut self, field: &str, path: &str) -> Result<Arc<str>, ScenarioError> {
        if let Some(t) = self.text.get(path) {
            return Ok(t.clone());
        }
        let accepted = format!("a readable UTF-8 text file of at most {} MB", MAX_TRACE_FILE_BYTES / 1_000_000);
        let fail = |why: String| err(field, format!("({path}: {why})"), accepted.clone());
        let f = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
        let mut bytes = Vec::new();
        f.take(MAX_TRACE_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| fail(e.to_string()))?;
        if bytes.len() as u64 > MAX_TRACE_FILE_BYTES {
            return Err(fail("too large".into()));
        }
        let text: Arc<str> = String::from_utf8(bytes).map_err(|_| fail("not UTF-8 text".into()))?.into();
        self.count(field, path, text.lines().count())?;
        self.text.insert(path.to_string(), text.clone());
        Ok(text)
    }

    fn count(&mut self, field: &str, path: &str, n: usize) -> Result<(), ScenarioError> {
        self.lines += n;
        if self.lines > MAX_TRACE_LINES {
            return Err(err(
                field,
                path,
                format!(
                    "trace and schedule files of at most {MAX_TRACE_LINES} lines in all, so that a run fits in memory"
                ),
            ));
        }
        Ok(())
    }

    fn mahimahi(&mut self, field: &str, path: &str) -> Result<Arc<[u32]>, ScenarioError> {
        if let Some(t) = self.traces.get(path) {
            return Ok(t.clone());
        }
        let text = self.read(field, path)?;
        let ms = parse_mahimahi(&text, MAX_TRACE_LINES).map_err(|why| {
            err(field, format!("({path}: {why})"), "a Mahimahi trace: one whole number of milliseconds per line")
        })?;
        let ms: Arc<[u32]> = ms.into();
        self.traces.insert(path.to_string(), ms.clone());
        Ok(ms)
    }
}

/// The (time, value) pairs of a schedule, from the scenario or its file, each with the names of
/// where its time and value were written (`field[i][0]`, or `field (file:line) time`).
type Pair<V> = ((String, String), String, V);
fn pairs<V: Clone>(
    field: &str,
    s: &Schedule<V>,
    files: &mut Files,
    value: impl Fn(&str) -> Option<V>,
) -> Result<Vec<Pair<V>>, ScenarioError> {
    match s {
        Schedule::Steps(steps) => Ok(steps
            .iter()
            .enumerate()
            .map(|(i, (t, v))| ((format!("{field}[{i}][0]"), format!("{field}[{i}][1]")), t.clone(), v.clone()))
            .collect()),
        Schedule::File(path) => {
            let text = files.read(field, path)?;
            let mut out = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let line = line.split('#').next().unwrap_or("").trim();
                if line.is_empty() {
                    continue;
                }
                let mut words = line.split(|c: char| c == ',' || c.is_whitespace()).filter(|w| !w.is_empty());
                let (Some(t), Some(v), None) = (words.next(), words.next(), words.next()) else {
                    return Err(err(
                        field,
                        format!("({path}:{}: '{line}')", i + 1),
                        "lines of a time and a value (\"10s 20Mbps\"); # starts a comment",
                    ));
                };
                let Some(v) = value(v) else {
                    return Err(err(
                        field,
                        format!("({path}:{}: value '{v}')", i + 1),
                        "a value of the field's kind: a rate, a delay, or a probability in [0, 1)",
                    ));
                };
                let at = format!("{field} ({path}:{})", i + 1);
                out.push(((format!("{at} time"), format!("{at} value")), t.to_string(), v));
            }
            Ok(out)
        }
    }
}

/// A schedule's steps, checked: times in increasing order, each value accepted by `check`.
fn steps<V: Clone, T: Copy>(
    field: &str,
    s: &Schedule<V>,
    files: &mut Files,
    parse_file_value: impl Fn(&str) -> Option<V>,
    check: impl Fn(&str, &V) -> Result<T, ScenarioError>,
) -> Result<Steps<T>, ScenarioError> {
    let raw = pairs(field, s, files, parse_file_value)?;
    if raw.is_empty() {
        return Err(err(field, "[]", "at least one [time, value] step"));
    }
    if raw.len() > MAX_SCHEDULE_STEPS {
        return Err(err(field, raw.len(), format!("at most {MAX_SCHEDULE_STEPS} steps")));
    }
    let mut out: Vec<(SimTime, T)> = Vec::with_capacity(raw.len());
    for ((tf, vf), t, v) in &raw {
        let when = time(tf, t)?;
        if let Some(&(before, _)) = out.last() {
            if when <= before {
                return Err(err(
                    tf.as_str(),
                    t,
                    format!("a time after the step before ({before}): steps in increasing order of time"),
                ));
            }
        }
        out.push((when, check(vf, v)?));
    }
    Ok(Steps::new(out))
}

fn probability(field: &str, p: f64) -> Result<f64, ScenarioError> {
    if (0.0..1.0).contains(&p) {
        Ok(p)
    } else {
        Err(err(field, num(p), "a probability in [0, 1)"))
    }
}

fn gilbert_elliott(
    field: &str,
    m: &BTreeMap<String, f64>,
    rng: rand_pcg::Pcg64,
) -> Result<GilbertElliott, ScenarioError> {
    const KEYS: &str = "p and r (per-packet probabilities of going bad and of going good, in (0, 1]), \
                        loss_good (default 0) and loss_bad (default 1), in [0, 1]";
    if let Some(k) = m.keys().find(|k| !["p", "r", "loss_good", "loss_bad"].contains(&k.as_str())) {
        return Err(err(format!("{field}.{k}"), "(unknown key)", KEYS));
    }
    let get = |k: &str, default: Option<f64>, lo_open: bool| -> Result<f64, ScenarioError> {
        let v = match (m.get(k), default) {
            (Some(&v), _) => v,
            (None, Some(d)) => d,
            (None, None) => return Err(err(format!("{field}.{k}"), "(missing)", KEYS)),
        };
        let ok = if lo_open { v > 0.0 && v <= 1.0 } else { (0.0..=1.0).contains(&v) };
        if !ok {
            return Err(err(
                format!("{field}.{k}"),
                num(v),
                if lo_open { "a number in (0, 1]" } else { "a number in [0, 1]" },
            ));
        }
        Ok(v)
    };
    Ok(GilbertElliott::new(
        get("p", None, true)?,
        get("r", None, true)?,
        get("loss_good", Some(0.0), false)?,
        get("loss_bad", Some(1.0), false)?,
        rng,
    ))
}

/// Makes `link` vary as the fields at `p` (`topology.bottleneck`, `topology.links[3]`) say; a
/// link without such fields is left untouched.
pub(crate) fn apply(
    link: &mut Link,
    p: &str,
    s: &VarySpec,
    seed: u64,
    link_index: u64,
    files: &mut Files,
) -> Result<(), ScenarioError> {
    if !s.any() {
        return Ok(());
    }
    if s.mahimahi.is_some() && s.rate_schedule.is_some() {
        return Err(err(
            format!("{p}.rate_schedule"),
            "(set with mahimahi)",
            "either a rate_schedule or a mahimahi trace",
        ));
    }
    if s.gilbert_elliott.is_some() && (s.loss.is_some() || s.loss_schedule.is_some()) {
        let other = if s.loss.is_some() { "loss" } else { "loss_schedule" };
        return Err(err(
            format!("{p}.{other}"),
            "(set with gilbert_elliott)",
            "either loss and loss_schedule, or gilbert_elliott",
        ));
    }
    let rate = match s.rate_schedule {
        None => None,
        Some(sch) => Some(steps(
            &format!("{p}.rate_schedule"),
            sch,
            files,
            |v| Some(v.to_string()),
            |f, v: &String| super::rate(f, v),
        )?),
    };
    let delay = match s.delay_schedule {
        None => None,
        Some(sch) => Some(steps(
            &format!("{p}.delay_schedule"),
            sch,
            files,
            |v| Some(v.to_string()),
            |f, v: &String| time(f, v),
        )?),
    };
    let loss = match s.loss_schedule {
        None => None,
        Some(sch) => {
            let parse = |v: &str| v.parse::<f64>().ok().filter(|x| x.is_finite());
            Some(steps(&format!("{p}.loss_schedule"), sch, files, parse, |f, v: &f64| probability(f, *v))?)
        }
    };
    let rng = || stream_rng(seed, rng::stream::LINK_LOSS, link_index);
    if loss.is_some() {
        // The loss in force before the first step, with the link's loss stream even when 0.
        link.loss = Some((s.loss.unwrap_or(0.0), rng()));
    }
    let ge = match s.gilbert_elliott {
        None => None,
        Some(m) => Some(gilbert_elliott(&format!("{p}.gilbert_elliott"), m, rng())?),
    };
    let jitter = match s.jitter {
        None => None,
        Some(j) => {
            let field = format!("{p}.jitter");
            let jit = time(&field, j)?;
            // A delay is never drawn below zero: the jitter stays within every delay the link has.
            let least = delay.as_ref().map_or(link.delay, |d| d.steps().map(|(_, v)| v).fold(link.delay, SimTime::min));
            if jit > least {
                return Err(err(field, j, format!("a duration of at most the link's least delay ({least})")));
            }
            Some((jit, stream_rng(seed, rng::stream::LINK_JITTER, link_index)))
        }
    };
    let trace = match s.mahimahi {
        None => None,
        Some(path) => Some(Opportunities::new(files.mahimahi(&format!("{p}.mahimahi"), path)?)),
    };
    link.set_varying(Varying::new(rate, delay, loss, ge, trace).with_jitter(jitter));
    Ok(())
}

impl Scenario {
    /// Makes the relative paths of trace and schedule files relative to `dir` (the scenario
    /// file's directory), as the loaders of scenario files do.
    pub fn resolve_paths(&mut self, dir: &Path) {
        let fix = |p: &mut String| {
            if Path::new(p.as_str()).is_relative() {
                *p = dir.join(p.as_str()).to_string_lossy().into_owned();
            }
        };
        let fix_schedule_s = |s: &mut Option<Schedule<String>>| {
            if let Some(Schedule::File(p)) = s {
                fix(p)
            }
        };
        let fix_schedule_f = |s: &mut Option<Schedule<f64>>| {
            if let Some(Schedule::File(p)) = s {
                fix(p)
            }
        };
        if let Some(b) = &mut self.topology.bottleneck {
            fix_schedule_s(&mut b.rate_schedule);
            fix_schedule_s(&mut b.delay_schedule);
            fix_schedule_f(&mut b.loss_schedule);
            if let Some(m) = &mut b.mahimahi {
                fix(m);
            }
        }
        for l in self.topology.links.iter_mut().flatten() {
            fix_schedule_s(&mut l.rate_schedule);
            fix_schedule_s(&mut l.delay_schedule);
            fix_schedule_f(&mut l.loss_schedule);
            if let Some(m) = &mut l.mahimahi {
                fix(m);
            }
        }
    }
}
