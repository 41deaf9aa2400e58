//! Control-flow analyses of one function: predecessors, reverse postorder, dominators.
//! Computed on demand from the blocks; passes that change the CFG simply recompute.

use std::collections::HashMap;

use super::inst::Id;
use super::module::Function;

pub struct Cfg {
    /// Block labels in layout order; indices below refer to this order.
    pub labels: Vec<Id>,
    pub index: HashMap<Id, usize>,
    pub succs: Vec<Vec<usize>>,
    pub preds: Vec<Vec<usize>>,
    /// Reachable blocks in reverse postorder from the entry.
    pub rpo: Vec<usize>,
    /// Immediate dominator per block (`None` for the entry and unreachable blocks).
    pub idom: Vec<Option<usize>>,
    rpo_number: Vec<usize>,
}

impl Cfg {
    pub fn new(f: &Function) -> Self {
        let labels: Vec<Id> = f.blocks.iter().map(|b| b.label).collect();
        let index: HashMap<Id, usize> = labels.iter().enumerate().map(|(i, l)| (*l, i)).collect();
        let n = labels.len();
        let mut succs = vec![Vec::new(); n];
        let mut preds = vec![Vec::new(); n];
        for (i, b) in f.blocks.iter().enumerate() {
            for t in b.successors() {
                if let Some(&j) = index.get(&t) {
                    if !succs[i].contains(&j) {
                        succs[i].push(j);
                        preds[j].push(i);
                    }
                }
            }
        }
        // Iterative DFS postorder.
        let mut post = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        if n > 0 {
            let mut stack = vec![(0usize, 0usize)];
            seen[0] = true;
            while let Some(&mut (b, ref mut next)) = stack.last_mut() {
                if *next < succs[b].len() {
                    let s = succs[b][*next];
                    *next += 1;
                    if !seen[s] {
                        seen[s] = true;
                        stack.push((s, 0));
                    }
                } else {
                    post.push(b);
                    stack.pop();
                }
            }
        }
        let rpo: Vec<usize> = post.into_iter().rev().collect();
        let mut rpo_number = vec![usize::MAX; n];
        for (k, &b) in rpo.iter().enumerate() {
            rpo_number[b] = k;
        }
        // Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm".
        let mut idom: Vec<Option<usize>> = vec![None; n];
        if n > 0 {
            idom[0] = Some(0);
            let mut changed = true;
            while changed {
                changed = false;
                for &b in rpo.iter().skip(1) {
                    let mut new_idom: Option<usize> = None;
                    for &p in &preds[b] {
                        if idom[p].is_none() {
                            continue;
                        }
                        new_idom = Some(match new_idom {
                            None => p,
                            Some(cur) => intersect(&idom, &rpo_number, p, cur),
                        });
                    }
                    if new_idom.is_some() && idom[b] != new_idom {
                        idom[b] = new_idom;
                        changed = true;
                    }
                }
            }
            idom[0] = None;
        }
        Cfg {
            labels,
            index,
            succs,
            preds,
            rpo,
            idom,
            rpo_number,
        }
    }

    pub fn reachable(&self, b: usize) -> bool {
        self.rpo_number[b] != usize::MAX
    }

    /// Whether block `a` dominates block `b` (every block dominates itself).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        if !self.reachable(b) {
            return true;
        }
        let mut cur = b;
        loop {
            if cur == a {
                return true;
            }
            match self.idom[cur] {
                Some(d) => cur = d,
                None => return false,
            }
        }
    }
}

fn intersect(idom: &[Option<usize>], rpo: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while rpo[a] > rpo[b] {
            a = idom[a].expect("processed");
        }
        while rpo[b] > rpo[a] {
            b = idom[b].expect("processed");
        }
    }
    a
}
