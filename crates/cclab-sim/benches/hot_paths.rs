//! Criterion benchmarks of the simulator's hot paths: the event queue, a link's
//! DropTail queue, and the TCP sender's ACK path with a large SACK scoreboard.
//! `cargo bench -p cclab-sim` prints the time per operation; whole scenarios are
//! `cclab bench`.

use cclab_sim::cc::{self, CcHeader, Params};
use cclab_sim::engine::{Event, EventQueue};
use cclab_sim::packet::{Kind, Packet, SackBlock};
use cclab_sim::queue::{droptail::DropTail, Capacity, EnqueueContext, QueueDisc};
use cclab_sim::tcp::{Recovery, Sender, TcpConfig};
use cclab_sim::units::SimTime;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;

fn packet(seq: u64, kind: Kind) -> Packet {
    Packet {
        seq,
        ts_val: SimTime::ZERO,
        ts_ecr: SimTime::ZERO,
        sack: [SackBlock::default(); 3],
        cc: CcHeader::default(),
        flow: 0,
        size: 1500,
        hop: 0,
        kind,
        n_sack: 0,
        retx: false,
        flags: 0,
    }
}

fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    // A steady state with 10,000 pending events: pop the earliest, push one a little later.
    g.throughput(Throughput::Elements(1));
    g.bench_function("pop_push_10k_pending", |b| {
        let mut q = EventQueue::new();
        let mut x: u64 = 1;
        for i in 0..10_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            q.push(SimTime(i * 1000 + (x >> 54)), Event::WireHead(i as u32));
        }
        b.iter(|| {
            let (t, ev) = q.pop().expect("never empty");
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            q.push(SimTime(t.0 + 10_000_000 + (x >> 44)), ev);
            black_box(t)
        })
    });
    g.finish();
}

fn droptail(c: &mut Criterion) {
    let mut g = c.benchmark_group("link_queue");
    g.throughput(Throughput::Elements(1));
    g.bench_function("droptail_enqueue_dequeue_at_500", |b| {
        let mut q = DropTail::new(Capacity::Packets(1000));
        let ctx = EnqueueContext { now: SimTime::ZERO, idle_since: None };
        for i in 0..500 {
            q.enqueue(packet(i, Kind::Data), &ctx).unwrap();
        }
        let mut i = 500;
        b.iter(|| {
            q.enqueue(packet(i, Kind::Data), &ctx).unwrap();
            i += 1;
            black_box(q.dequeue(SimTime::ZERO))
        })
    });
    g.finish();
}

/// A SACK sender with `window` segments in flight and a hole at `snd_una`:
/// each ACK SACKs one more segment above the hole and releases new data.
fn sender_with_hole(window: u64) -> (Sender, u64) {
    let cfg =
        TcpConfig { recovery: Recovery::Sack, init_cwnd: window as f64, init_ssthresh: 1e12, ..TcpConfig::default() };
    let cc = cc::build("newreno", &Params::new()).unwrap();
    let mut s = Sender::new(0, cfg, cc, u64::MAX);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    (s, window)
}

fn ack_path(c: &mut Criterion) {
    let mut g = c.benchmark_group("sender_ack_path");
    for window in [100u64, 10_000] {
        // Throughput per ACK: the cost per ACK should not grow with the window.
        g.throughput(Throughput::Elements(window.min(2000) - 1));
        g.bench_function(format!("sack_block_grows_window_{window}"), |b| {
            b.iter_batched(
                || sender_with_hole(window),
                |(mut s, w)| {
                    // Segment 0 is lost; ACKs for 1..w arrive as duplicate ACKs with a growing SACK block.
                    let mut out = Vec::with_capacity(16);
                    for k in 1..w.min(2000) {
                        let mut a = packet(0, Kind::Ack);
                        a.n_sack = 1;
                        a.sack[0] = SackBlock { start: 1, end: (k + 1) as u32 };
                        a.ts_ecr = SimTime::ZERO;
                        s.on_ack(&a, SimTime::from_micros(k), &mut out);
                        out.clear();
                    }
                    black_box(s.cwnd)
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, event_queue, droptail, ack_path);
criterion_main!(benches);
