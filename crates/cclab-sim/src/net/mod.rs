//! The network: links (`link.rs`) and static shortest-path routing over any
//! graph of nodes (`routes`). Topology builders (dumbbell, general graph)
//! live in `topology/`, one per file, found by name in its registry.

pub mod link;
pub mod topology;

pub use link::{Link, QueueStats};

use crate::units::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The shortest path from `src` to `dst` as a list of link indices, by
/// propagation delay, ties broken by hop count and then by link index so the
/// choice is the same on every run. `None` if `dst` cannot be reached.
pub fn route(n_nodes: usize, links: &[Link], src: u32, dst: u32) -> Option<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); n_nodes];
    for (i, l) in links.iter().enumerate() {
        out[l.from as usize].push(i as u32);
    }
    let inf = (SimTime::MAX, u32::MAX);
    let mut best = vec![inf; n_nodes];
    let mut via: Vec<Option<u32>> = vec![None; n_nodes];
    let mut heap = BinaryHeap::new();
    best[src as usize] = (SimTime::ZERO, 0);
    heap.push(Reverse((SimTime::ZERO, 0u32, src)));
    while let Some(Reverse((d, h, u))) = heap.pop() {
        if (d, h) > best[u as usize] {
            continue;
        }
        if u == dst {
            break;
        }
        for &li in &out[u as usize] {
            let l = &links[li as usize];
            let cand = (d + l.delay, h + 1);
            let v = l.to as usize;
            if cand < best[v] {
                best[v] = cand;
                via[v] = Some(li);
                heap.push(Reverse((cand.0, cand.1, l.to)));
            }
        }
    }
    if src == dst {
        return Some(Vec::new());
    }
    via[dst as usize]?;
    let mut path = Vec::new();
    let mut at = dst;
    while at != src {
        let li = via[at as usize]?;
        path.push(li);
        at = links[li as usize].from;
    }
    path.reverse();
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{droptail::DropTail, Capacity};
    use crate::units::Rate;

    fn link(from: u32, to: u32, ms: u64) -> Link {
        Link::new(
            format!("{from}->{to}"),
            from,
            to,
            Rate(1_000_000),
            SimTime::from_millis(ms),
            Box::new(DropTail::new(Capacity::Unlimited)),
        )
    }

    #[test]
    fn route_takes_the_lowest_delay_path() {
        // 0 -> 1 -> 3 costs 2 ms; 0 -> 2 -> 3 costs 10 ms; 0 -> 3 direct costs 5 ms.
        let links = vec![link(0, 1, 1), link(1, 3, 1), link(0, 2, 5), link(2, 3, 5), link(0, 3, 5)];
        assert_eq!(route(4, &links, 0, 3), Some(vec![0, 1]));
        assert_eq!(route(4, &links, 3, 0), None);
    }

    #[test]
    fn equal_delay_prefers_fewer_hops() {
        let links = vec![link(0, 1, 1), link(1, 2, 1), link(0, 2, 2)];
        assert_eq!(route(3, &links, 0, 2), Some(vec![2]));
    }
}
