//! Dominator and post-dominator trees with O(1) dominance queries, and dominance frontiers.
//!
//! Trees are built by Cooper, Harvey and Kennedy's "A Simple, Fast Dominance Algorithm" on any
//! graph given as successor and predecessor lists; a DFS over the finished tree numbers every
//! node on the way in and out, so "a dominates b" is two comparisons.
//!
//! The post-dominator tree is the dominator tree of the reversed CFG rooted at a virtual exit
//! node (index `n`), which every block without successors (return, kill, unreachable) leads to.
//! Blocks that cannot reach any exit (an infinite loop) are tied to the virtual exit too, from
//! the first such block in reverse postorder, so every reachable block has a post-dominator.

use super::cfg::{reverse_postorder, Cfg, Edges};

#[derive(Debug)]
pub struct DomTree {
    /// Immediate dominator per node (`None` for the root and for nodes it does not reach).
    pub idom: Vec<Option<usize>>,
    /// Children of every node in one list, node by node, each node's in the order the graph
    /// reaches them: node `b`'s are `kids[kid_start[b]..kid_start[b + 1]]` (one allocation,
    /// not one per node).
    kids: Vec<usize>,
    kid_start: Vec<u32>,
    root: usize,
    /// Entry and exit numbers of a DFS over the tree (`u32::MAX` for unreached nodes).
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl DomTree {
    /// The tree of `succs`/`preds` from `root`.
    pub fn build(root: usize, succs: &[Edges], preds: &[Edges]) -> Self {
        let n = succs.len();
        let rpo = reverse_postorder(n, root, succs);
        let mut number = vec![usize::MAX; n];
        for (k, &b) in rpo.iter().enumerate() {
            number[b] = k;
        }
        let mut idom: Vec<Option<usize>> = vec![None; n];
        if root < n {
            idom[root] = Some(root);
        }
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
                        Some(cur) => intersect(&idom, &number, p, cur),
                    });
                }
                if new_idom.is_some() && idom[b] != new_idom {
                    idom[b] = new_idom;
                    changed = true;
                }
            }
        }
        if root < n {
            idom[root] = None;
        }
        let mut kid_start = vec![0u32; n + 1];
        for &b in &rpo {
            if let Some(d) = idom[b] {
                kid_start[d + 1] += 1;
            }
        }
        for k in 0..n {
            kid_start[k + 1] += kid_start[k];
        }
        let mut kids = vec![0; kid_start[n] as usize];
        let mut fill: Vec<u32> = kid_start[..n].to_vec();
        for &b in &rpo {
            if let Some(d) = idom[b] {
                kids[fill[d] as usize] = b;
                fill[d] += 1;
            }
        }
        let children = |b: usize| &kids[kid_start[b] as usize..kid_start[b + 1] as usize];
        let mut pre = vec![u32::MAX; n];
        let mut post = vec![u32::MAX; n];
        if root < n {
            let mut clock = 0u32;
            let mut stack = vec![(root, 0usize)];
            pre[root] = clock;
            while let Some(&mut (b, ref mut next)) = stack.last_mut() {
                if let Some(&c) = children(b).get(*next) {
                    *next += 1;
                    clock += 1;
                    pre[c] = clock;
                    stack.push((c, 0));
                } else {
                    clock += 1;
                    post[b] = clock;
                    stack.pop();
                }
            }
        }
        DomTree {
            idom,
            kids,
            kid_start,
            root,
            pre,
            post,
        }
    }

    pub fn root(&self) -> usize {
        self.root
    }

    /// `b`'s children in the tree, in the order the graph reaches them.
    pub fn children(&self, b: usize) -> &[usize] {
        match (self.kid_start.get(b), self.kid_start.get(b + 1)) {
            (Some(&from), Some(&to)) => &self.kids[from as usize..to as usize],
            _ => &[],
        }
    }

    /// Whether the tree reaches `b` (for a dominator tree: whether `b` is reachable).
    pub fn contains(&self, b: usize) -> bool {
        self.pre.get(b).is_some_and(|&p| p != u32::MAX)
    }

    /// Whether `a` dominates `b` (every node dominates itself); false when either is not in
    /// the tree.
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        self.contains(a)
            && self.contains(b)
            && self.pre[a] <= self.pre[b]
            && self.post[b] <= self.post[a]
    }

    pub fn strictly_dominates(&self, a: usize, b: usize) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The nodes of the tree in DFS preorder (a dominator before everything it dominates).
    pub fn preorder(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.pre.len()).filter(|&b| self.contains(b)).collect();
        order.sort_by_key(|&b| self.pre[b]);
        order
    }

    /// The nearest common dominator of `a` and `b`, when both are in the tree.
    pub fn common_dominator(&self, mut a: usize, b: usize) -> Option<usize> {
        if !self.contains(a) || !self.contains(b) {
            return None;
        }
        while !self.dominates(a, b) {
            a = self.idom[a]?;
        }
        Some(a)
    }
}

fn intersect(idom: &[Option<usize>], number: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while number[a] > number[b] {
            a = idom[a].expect("processed");
        }
        while number[b] > number[a] {
            b = idom[b].expect("processed");
        }
    }
    a
}

/// The dominator tree of a function's CFG, rooted at the entry block.
pub fn dominators(cfg: &Cfg) -> DomTree {
    DomTree::build(0, &cfg.succs, &cfg.preds)
}

/// Dominance frontier of every node of a graph, from its tree and predecessors.
pub fn frontiers(tree: &DomTree, preds: &[Edges]) -> Vec<Vec<usize>> {
    let n = preds.len();
    let mut df: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, bp) in preds.iter().enumerate() {
        if bp.len() < 2 || !tree.contains(b) {
            continue;
        }
        let Some(idom) = tree.idom[b] else { continue };
        for &p in bp {
            let mut runner = p;
            while tree.contains(runner) && runner != idom {
                if !df[runner].contains(&b) {
                    df[runner].push(b);
                }
                match tree.idom[runner] {
                    Some(d) => runner = d,
                    None => break,
                }
            }
        }
    }
    df
}

/// The post-dominator tree of a function and the reversed graph it was built on (node `n` is
/// the virtual exit).
#[derive(Debug)]
pub struct PostDomTree {
    pub tree: DomTree,
    /// Successors in the reversed graph (the CFG's predecessors, and exit → exiting blocks).
    pub rsuccs: Vec<Edges>,
    /// Predecessors in the reversed graph (the CFG's successors, and exiting blocks → exit).
    pub rpreds: Vec<Edges>,
}

/// The strongly connected components of the subgraph on `nodes` that no edge leaves for
/// another component of it (Tarjan's algorithm, iterative).
fn sink_components(nodes: &[usize], succs: &[Edges]) -> Vec<Vec<usize>> {
    let n = succs.len();
    let mut inside = vec![false; n];
    for &b in nodes {
        inside[b] = true;
    }
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut comp_of = vec![usize::MAX; n];
    let mut comps: Vec<Vec<usize>> = Vec::new();
    let mut next = 0usize;
    for &root in nodes {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            if let Some(&w) = succs[v].get(*k) {
                *k += 1;
                if !inside[w] {
                    continue;
                }
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp_of[w] = comps.len();
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comps.push(comp);
            }
        }
    }
    comps
        .iter()
        .enumerate()
        .filter(|(c, comp)| {
            comp.iter()
                .all(|&b| succs[b].iter().all(|&w| !inside[w] || comp_of[w] == *c))
        })
        .map(|(_, comp)| comp.clone())
        .collect()
}

impl PostDomTree {
    pub fn new(cfg: &Cfg) -> Self {
        let n = cfg.len();
        let exit = n;
        let mut rsuccs: Vec<Edges> = cfg.preds.clone();
        let mut rpreds: Vec<Edges> = cfg.succs.clone();
        rsuccs.push(Edges::new());
        rpreds.push(Edges::new());
        for (b, rp) in rpreds.iter_mut().enumerate().take(n) {
            if cfg.reachable(b) && cfg.succs[b].is_empty() {
                rsuccs[exit].push(b);
                rp.push(exit);
            }
        }
        // Tie the blocks that never reach an exit to the virtual exit through the infinite
        // loops they end in: each region the CFG cannot leave (a sink among the strongly
        // connected components of those blocks) is tied by its first block in reverse
        // postorder, its loop header. Every other stuck block reaches one of them, so what
        // runs before an infinite loop keeps its ordinary post-dominators.
        let reached = reverse_postorder(n + 1, exit, &rsuccs);
        let mut seen = vec![false; n + 1];
        for b in reached {
            seen[b] = true;
        }
        let stuck: Vec<usize> = cfg.rpo.iter().copied().filter(|&b| !seen[b]).collect();
        if !stuck.is_empty() {
            let mut order = vec![usize::MAX; n];
            for (k, &b) in cfg.rpo.iter().enumerate() {
                order[b] = k;
            }
            for sink in sink_components(&stuck, &cfg.succs) {
                if let Some(&first) = sink.iter().min_by_key(|&&b| order[b]) {
                    rsuccs[exit].push(first);
                    rpreds[first].push(exit);
                }
            }
        }
        let tree = DomTree::build(exit, &rsuccs, &rpreds);
        PostDomTree {
            tree,
            rsuccs,
            rpreds,
        }
    }

    /// The virtual exit node.
    pub fn exit(&self) -> usize {
        self.rsuccs.len() - 1
    }

    /// Whether `a` post-dominates `b`.
    pub fn post_dominates(&self, a: usize, b: usize) -> bool {
        self.tree.dominates(a, b)
    }

    /// The immediate post-dominator of `b` (`None` when it is the virtual exit or unknown).
    pub fn ipdom(&self, b: usize) -> Option<usize> {
        self.tree.idom[b].filter(|&d| d != self.exit())
    }

    /// Control dependences: for every block, the blocks whose branch decides whether it runs
    /// (the reverse dominance frontier).
    pub fn control_dependences(&self) -> Vec<Vec<usize>> {
        let mut cd = frontiers(&self.tree, &self.rpreds);
        cd.pop();
        for deps in &mut cd {
            deps.retain(|&d| d != self.exit());
        }
        cd
    }
}
