//! A queue discipline that drops or marks at dequeue, as CoDel does: the link counts
//! its drops by cause, the flow counts them as its own losses and repairs them, and
//! the end-of-run accounting still balances. Marks reach the sender as ECN echoes.

use cclab_sim::packet::{Packet, CE, ECT};
use cclab_sim::queue::{self, DropCause, EnqueueContext, QueueDisc, QueueSettings};
use cclab_sim::registry::{Entry, ParamError, ParamReader, Params, Schema};
use cclab_sim::units::SimTime;
use cclab_sim::Scenario;
use std::cell::Cell;
use std::collections::VecDeque;

thread_local! {
    /// Data packets the test queue dropped (or marked) at its head, in this test's thread.
    static HEAD: Cell<u64> = const { Cell::new(0) };
}

/// FIFO of 100 packets that drops (or marks) every `every`-th data packet it dequeues.
struct HeadDrop {
    q: VecDeque<Packet>,
    every: u64,
    mark: bool,
    data_out: u64,
    marks: u64,
}

fn build(_s: &QueueSettings, p: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    let mut r = ParamReader::new(p);
    let every = r.get_int("every", 50, 2, 1_000_000)?;
    let mark = r.get_flag("mark", false)?;
    r.finish()?;
    Ok(Box::new(HeadDrop { q: VecDeque::new(), every: every as u64, mark, data_out: 0, marks: 0 }))
}

impl QueueDisc for HeadDrop {
    fn enqueue(&mut self, pkt: Packet, _ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        if self.q.len() >= 100 {
            return Err((pkt, DropCause::Overflow));
        }
        self.q.push_back(pkt);
        Ok(())
    }
    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.dequeue_or_drop(now, &mut Vec::new())
    }
    fn dequeue_or_drop(&mut self, _now: SimTime, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        while let Some(mut p) = self.q.pop_front() {
            if !p.is_data() {
                return Some(p);
            }
            self.data_out += 1;
            if !self.data_out.is_multiple_of(self.every) {
                return Some(p);
            }
            HEAD.with(|h| h.set(h.get() + 1));
            if self.mark && p.flags & ECT != 0 {
                p.flags |= CE;
                self.marks += 1;
                return Some(p);
            }
            dropped.push((p, DropCause::Early));
        }
        None
    }
    fn len_pkts(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.q.iter().map(|p| p.size as u64).sum()
    }
    fn packets(&self) -> Vec<Packet> {
        self.q.iter().copied().collect()
    }
    fn marks(&self) -> u64 {
        self.marks
    }
}

fn run(queue_params: &str, ecn: bool) -> cclab_sim::Simulation {
    let _ = queue::REGISTRY.register(Entry {
        name: "headdrop",
        summary: "test: drops or marks every n-th data packet at dequeue",
        params: Schema::Read,
        build: build as queue::Builder,
    });
    HEAD.with(|h| h.set(0));
    // A finite flow of 400 packets: it completes only if every head drop is repaired.
    let text = format!(
        r#"
        duration = "5s"
        [topology]
        kind = "graph"
        nodes = ["a", "b"]
        links = [{{ from = "a", to = "b", rate = "10Mbps", delay = "5ms", buffer = "100pkts", queue = "headdrop", queue_params = {{ {queue_params} }} }}]
        [[flows]]
        cc = "newreno"
        recovery = "sack"
        size = "600000B"
        ecn = {ecn}
        src = "a"
        dst = "b"
    "#
    );
    let mut b = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}")).build(1).unwrap();
    b.sim.run_until(b.duration);
    b.sim
}

#[test]
fn head_drops_are_counted_by_the_link_and_the_flow_and_repaired_by_loss_recovery() {
    let sim = run("every = 50", false);
    let head = HEAD.with(|h| h.get());
    assert!(head >= 7, "{head} head drops");
    let data_link = sim.links.iter().position(|l| l.tx_pkts > 0 && l.tx_bytes > 40 * l.tx_pkts).unwrap();
    let q = &sim.links[data_link].qstats;
    assert_eq!(q.drops[DropCause::Early as usize], head);
    assert_eq!(q.total_drops(), head, "no overflow at this window");
    let f = &sim.flows[0];
    assert_eq!(f.counters.data_drops, head);
    assert!(f.sender.stats.retransmits >= head);
    assert!(f.sender.completed_at.is_some(), "every dropped segment was repaired");
    assert_eq!(f.receiver.stats.received, f.sender.stats.sent - head);
    let (sent, received, dropped, queued, wired) = sim.data_accounting();
    assert_eq!(sent, received + dropped + queued + wired);
}

#[test]
fn head_marks_reach_an_ecn_sender_as_echoes_and_drop_nothing() {
    let sim = run("every = 50, mark = 1", true);
    let head = HEAD.with(|h| h.get());
    assert!(head >= 7, "{head} head marks");
    let f = &sim.flows[0];
    assert_eq!(f.counters.data_drops, 0);
    assert_eq!(f.sender.stats.retransmits, 0);
    assert!(f.sender.stats.ecn_reductions > 0);
    assert!(f.sender.completed_at.is_some());
    assert!(sim.links.iter().any(|l| l.queue.marks() == head));
}
