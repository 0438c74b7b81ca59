//! Static shortest-path routing over any graph of nodes.
//!
//! A route is the shortest path by propagation delay, ties broken by hop
//! count; what remains is settled exactly as one Dijkstra run from the source
//! settles it (`route` below, the specification): nodes leave the heap in
//! order of (delay, hops, node index), and a node keeps the first link that
//! reached it with its final (delay, hops), i.e. the link from the earliest
//! popped node, then the lowest link index.
//!
//! [`Routes`] gives the same paths at O(log n) a query on large topologies: it
//! keeps one shortest-path tree per root, kept up to date while links are added
//! (topologies grow flow by flow: each dumbbell flow adds two hosts), and a
//! source whose only outgoing link leads to another node (a dumbbell host) is
//! routed through that node's tree, so a dumbbell with any number of flows
//! holds two trees, one per router.

use super::Link;
use crate::units::SimTime;
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

/// (propagation delay, hops) from the root: what a route minimizes, in this order.
type Key = (SimTime, u32);
const UNREACHED: Key = (SimTime::MAX, u32::MAX);
const NO_LINK: u32 = u32::MAX;

/// The shortest path from `src` to `dst` as a list of link indices, by one
/// Dijkstra run from `src` (see the module comment for its tie-breaking).
/// `None` if `dst` cannot be reached. O(n + m log m) per call: [`Routes`]
/// answers the same questions for many flows.
pub fn route(n_nodes: usize, links: &[Link], src: u32, dst: u32) -> Option<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); n_nodes];
    for (i, l) in links.iter().enumerate() {
        out[l.from as usize].push(i as u32);
    }
    let mut best = vec![UNREACHED; n_nodes];
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

/// The shortest-path tree of one root: each node's key and the link it is reached by.
struct Tree {
    key: Vec<Key>,
    via: Vec<u32>,
    /// A link added since the tree was computed may have changed it: recompute before use.
    stale: bool,
}

impl Tree {
    /// The whole Dijkstra run of `route`, without stopping at a destination.
    fn compute(root: u32, links: &[Link], out: &[Vec<u32>]) -> Tree {
        let n = out.len();
        let mut t = Tree { key: vec![UNREACHED; n], via: vec![NO_LINK; n], stale: false };
        let mut heap = BinaryHeap::new();
        t.key[root as usize] = (SimTime::ZERO, 0);
        heap.push(Reverse((SimTime::ZERO, 0u32, root)));
        while let Some(Reverse((d, h, u))) = heap.pop() {
            if (d, h) > t.key[u as usize] {
                continue;
            }
            for &li in &out[u as usize] {
                let l = &links[li as usize];
                let cand = (d + l.delay, h + 1);
                let v = l.to as usize;
                if cand < t.key[v] {
                    t.key[v] = cand;
                    t.via[v] = li;
                    heap.push(Reverse((cand.0, cand.1, l.to)));
                }
            }
        }
        t
    }

    /// Takes link `li` (already in `out`) into account where that is cheap and
    /// certain to give what a new Dijkstra run would; marks the tree stale otherwise.
    fn add_link(&mut self, links: &[Link], out: &[Vec<u32>], li: u32) {
        if self.stale {
            return;
        }
        self.key.resize(out.len(), UNREACHED);
        self.via.resize(out.len(), NO_LINK);
        let l = &links[li as usize];
        let (a, b) = (l.from as usize, l.to as usize);
        let ka = self.key[a];
        if ka == UNREACHED {
            // Unreachable for now; should `a` become reachable, the link that reaches
            // it finds this one among its out-links and marks the tree stale.
            return;
        }
        let cand = (ka.0 + l.delay, ka.1 + 1);
        match cand.cmp(&self.key[b]) {
            Ordering::Greater => {}
            Ordering::Equal => {
                // Same key: the link relaxed first wins, i.e. the one whose tail
                // leaves the heap first (key, then node index), then the lower index.
                let cur = self.via[b];
                let u = links[cur as usize].from as usize;
                if (ka, a as u32, li) < (self.key[u], u as u32, cur) {
                    self.via[b] = li;
                }
            }
            Ordering::Less => {
                // `b` gets closer. Nothing else changes if none of its own links
                // reaches a node as well as that node is already reached (a new
                // leaf, such as a dumbbell host, has only its link back).
                for &lo in &out[b] {
                    let o = &links[lo as usize];
                    if (cand.0 + o.delay, cand.1 + 1) <= self.key[o.to as usize] {
                        self.stale = true;
                        return;
                    }
                }
                self.key[b] = cand;
                self.via[b] = li;
            }
        }
    }
}

/// Shortest paths for many (source, destination) pairs over a growing graph;
/// every path is the one [`route`] gives on the graph as it is at the query.
#[derive(Default)]
pub struct Routes {
    /// Each node's outgoing links, in index order.
    out: Vec<Vec<u32>>,
    /// Links already in `out` (a prefix of the simulation's links).
    seen: usize,
    trees: HashMap<u32, Tree>,
}

impl Routes {
    /// Takes in the nodes and links added since the last call, in order.
    fn sync(&mut self, n_nodes: usize, links: &[Link]) {
        if self.out.len() < n_nodes {
            self.out.resize_with(n_nodes, Vec::new);
        }
        for li in self.seen..links.len() {
            let l = &links[li];
            self.out[l.from as usize].push(li as u32);
            for t in self.trees.values_mut() {
                t.add_link(links, &self.out, li as u32);
            }
        }
        self.seen = links.len();
    }

    /// The shortest path from `src` to `dst` over `links` (whose ends are below
    /// `n_nodes`), as `route(n_nodes, links, src, dst)` gives it.
    pub fn path(&mut self, n_nodes: usize, links: &[Link], src: u32, dst: u32) -> Option<Vec<u32>> {
        self.sync(n_nodes, links);
        if src == dst {
            return Some(Vec::new());
        }
        if src as usize >= n_nodes || dst as usize >= n_nodes {
            return None;
        }
        // A node with a single outgoing link reaches everything through it, and
        // along the same paths as the node it leads to (a shortest path never
        // comes back through the node it started from): route from there.
        let mut prefix = Vec::new();
        let mut root = src;
        while self.out[root as usize].len() == 1 {
            let li = self.out[root as usize][0];
            let next = links[li as usize].to;
            if next == src || prefix.iter().any(|&p: &u32| links[p as usize].to == next) {
                break; // a cycle of single links: stop at its last node
            }
            prefix.push(li);
            root = next;
            if root == dst {
                return Some(prefix);
            }
        }
        let out = &self.out;
        let tree = self.trees.entry(root).or_insert_with(|| Tree::compute(root, links, out));
        if tree.stale {
            *tree = Tree::compute(root, links, out);
        }
        // A node added after the tree's last update has no links into it yet.
        if tree.key.get(dst as usize).is_none_or(|&k| k == UNREACHED) {
            return None;
        }
        let start = prefix.len();
        let mut at = dst;
        while at != root {
            let li = tree.via[at as usize];
            prefix.push(li);
            at = links[li as usize].from;
        }
        prefix[start..].reverse();
        Some(prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{droptail::DropTail, Capacity};
    use crate::units::Rate;
    use rand::{Rng, SeedableRng};

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
        let mut r = Routes::default();
        assert_eq!(r.path(4, &links, 0, 3), Some(vec![0, 1]));
        assert_eq!(r.path(4, &links, 3, 0), None);
    }

    #[test]
    fn equal_delay_prefers_fewer_hops() {
        let links = vec![link(0, 1, 1), link(1, 2, 1), link(0, 2, 2)];
        assert_eq!(route(3, &links, 0, 2), Some(vec![2]));
        assert_eq!(Routes::default().path(3, &links, 0, 2), Some(vec![2]));
    }

    #[test]
    fn equal_keys_go_to_the_earlier_popped_node_then_the_lower_link() {
        // 3 is reached in 2 ms and 2 hops through 1 (links 0, 2) and through 2 (links
        // 1, 3), and twice more from 1 by parallel links 4 and 5 added later, in
        // another order: the reference keeps link 2 (from node 1, popped before node 2).
        let links = vec![link(0, 2, 1), link(0, 1, 1), link(2, 3, 1), link(1, 3, 1), link(1, 3, 1)];
        let want = route(4, &links, 0, 3);
        assert_eq!(want, Some(vec![1, 3]));
        let mut r = Routes::default();
        for k in 1..=links.len() {
            for dst in 0..4 {
                assert_eq!(r.path(4, &links[..k], 0, dst), route(4, &links[..k], 0, dst), "{k} links, to {dst}");
            }
        }
    }

    /// Random graphs with few distinct delays (many ties), parallel links and
    /// loops, grown link by link with queries in between, as topologies are
    /// built: every path equals the reference's on the graph of that moment.
    #[test]
    fn routes_equal_the_reference_on_growing_random_graphs() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let mut stale_free = 0;
        for case in 0..300 {
            let n: u32 = rng.gen_range(2..12);
            let mut links: Vec<Link> = Vec::new();
            let mut r = Routes::default();
            // Some cases grow like a dumbbell: hosts hung on two routers.
            let dumbbell = case % 3 == 0;
            let mut nodes = if dumbbell { 2 } else { n };
            if dumbbell {
                links.push(link(0, 1, 3));
                links.push(link(1, 0, 3));
            }
            for _ in 0..40 {
                if dumbbell {
                    let side = rng.gen_range(0..2);
                    let d = rng.gen_range(0..3);
                    links.push(link(nodes, side, d));
                    links.push(link(side, nodes, d));
                    nodes += 1;
                } else {
                    let (a, b) = (rng.gen_range(0..n), rng.gen_range(0..n));
                    links.push(link(a, b, rng.gen_range(0..3)));
                }
                for _ in 0..3 {
                    let (s, d) = (rng.gen_range(0..nodes), rng.gen_range(0..nodes));
                    let want = route(nodes as usize, &links, s, d);
                    assert_eq!(r.path(nodes as usize, &links, s, d), want, "case {case}: {s} -> {d}");
                }
            }
            stale_free += r.trees.values().filter(|t| !t.stale).count();
        }
        assert!(stale_free > 0);
    }

    #[test]
    fn a_dumbbell_keeps_one_tree_per_router() {
        let mut links = vec![link(0, 1, 10), link(1, 0, 10)];
        let mut r = Routes::default();
        let mut nodes = 2;
        for _ in 0..100 {
            for (side, d) in [(0, 1), (1, 2)] {
                links.push(link(nodes, side, d));
                links.push(link(side, nodes, d));
                nodes += 1;
            }
            let (s, d) = (nodes - 2, nodes - 1);
            let p = r.path(nodes as usize, &links, s, d).unwrap();
            assert_eq!(p.len(), 3);
            assert_eq!(r.path(nodes as usize, &links, d, s).unwrap().len(), 3);
        }
        assert_eq!(r.trees.len(), 2);
        assert!(r.trees.values().all(|t| !t.stale), "hosts hung on a router keep its tree current");
    }
}
