//! The control-flow graph of one function: successors and predecessors by layout position, and
//! the reverse postorder of the blocks reachable from the entry.

use super::super::func::Function;
use super::super::fxhash::FxHashMap;
use super::super::inst::Id;

/// A block's successors or predecessors: two at most in most blocks, kept inline (a
/// vector each took an allocation per block, at every pass that asked for the graph).
pub type Edges = smallvec::SmallVec<[usize; 2]>;

#[derive(Debug)]
pub struct Cfg {
    /// Block labels in layout order; indices below refer to this order.
    pub labels: Vec<Id>,
    pub index: FxHashMap<Id, usize>,
    /// Distinct successors, in the terminator's operand order.
    pub succs: Vec<Edges>,
    /// Distinct predecessors, in layout order of the branching block.
    pub preds: Vec<Edges>,
    /// Reachable blocks in reverse postorder from the entry.
    pub rpo: Vec<usize>,
    /// Position of each block in `rpo` (`usize::MAX` when unreachable).
    pub rpo_number: Vec<usize>,
}

impl Cfg {
    pub fn new(f: &Function) -> Self {
        let labels: Vec<Id> = f.blocks().iter().map(|b| b.label).collect();
        let index: FxHashMap<Id, usize> = labels.iter().enumerate().map(|(i, l)| (*l, i)).collect();
        let n = labels.len();
        let mut succs = vec![Edges::new(); n];
        let mut preds = vec![Edges::new(); n];
        for (i, out) in succs.iter_mut().enumerate() {
            for t in f.successors(i) {
                if let Some(&j) = index.get(t) {
                    if !out.contains(&j) {
                        out.push(j);
                        preds[j].push(i);
                    }
                }
            }
        }
        let rpo = reverse_postorder(n, 0, &succs);
        let mut rpo_number = vec![usize::MAX; n];
        for (k, &b) in rpo.iter().enumerate() {
            rpo_number[b] = k;
        }
        Cfg {
            labels,
            index,
            succs,
            preds,
            rpo,
            rpo_number,
        }
    }

    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    pub fn reachable(&self, b: usize) -> bool {
        self.rpo_number[b] != usize::MAX
    }

    /// The layout position of the block labelled `label`.
    pub fn block(&self, label: Id) -> Option<usize> {
        self.index.get(&label).copied()
    }
}

/// Reverse postorder of the nodes reachable from `entry` (iterative DFS, successors in order).
pub fn reverse_postorder(n: usize, entry: usize, succs: &[Edges]) -> Vec<usize> {
    let mut post = Vec::with_capacity(n);
    if entry >= n {
        return post;
    }
    let mut seen = vec![false; n];
    let mut stack = vec![(entry, 0usize)];
    seen[entry] = true;
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
    post.reverse();
    post
}
