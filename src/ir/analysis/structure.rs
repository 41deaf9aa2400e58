//! The structured construct tree and the loop nest of one function.
//!
//! SPIR-V's structured control flow names its regions by their headers: a selection or loop
//! construct is the set of blocks its header dominates, less those its merge block dominates;
//! a loop's continue construct is the part of the loop construct its continue target dominates.
//! A branch out of a construct to the merge block or continue target of an enclosing one (a
//! break or continue) leaves it, so those blocks, and what they dominate, are not part of it
//! either. In valid SPIR-V these regions nest, which makes them a tree: every construct has a
//! parent (the innermost construct containing its header) and every block an innermost
//! construct. The loop nest is the subtree of loop constructs.

use super::super::func::{Function, Merge};
use super::cfg::Cfg;
use super::dom::DomTree;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstructKind {
    Selection,
    Loop,
    Continue,
}

#[derive(Clone, Debug)]
pub struct Construct {
    pub kind: ConstructKind,
    /// The header block (for a continue construct: the continue target).
    pub header: usize,
    /// The merge block of the header (of the loop, for a continue construct), when it is a
    /// block of this function.
    pub merge: Option<usize>,
    /// For loop and continue constructs: the loop's continue target.
    pub continue_target: Option<usize>,
    /// The enclosing construct.
    pub parent: Option<usize>,
    /// The blocks of the construct in layout order.
    pub blocks: Vec<usize>,
}

#[derive(Debug)]
pub struct Structure {
    pub constructs: Vec<Construct>,
    /// Per block: the innermost construct containing it (a header is in its own construct).
    pub innermost: Vec<Option<usize>>,
    /// Per block: how many loop constructs contain it.
    pub loop_depth: Vec<u32>,
}

impl Structure {
    pub fn new(f: &Function, cfg: &Cfg, dom: &DomTree) -> Self {
        let n = cfg.len();
        let mut constructs: Vec<Construct> = Vec::new();
        let mut innermost: Vec<Option<usize>> = vec![None; n];
        let mut loop_depth = vec![0u32; n];
        // Continue targets of reachable loops, by block: (loop header, merge).
        let mut continue_of: Vec<Option<(usize, Option<usize>)>> = vec![None; n];
        for b in 0..n {
            if let Some(Merge::Loop {
                merge,
                continue_target,
                ..
            }) = &f.block(b).merge
            {
                if let Some(c) = cfg.block(*continue_target) {
                    continue_of[c] = Some((b, cfg.block(*merge)));
                }
            }
        }
        for b in dom.preorder() {
            let mut here = Vec::new();
            if let Some((header, merge)) = continue_of[b] {
                here.push((ConstructKind::Continue, merge, Some(header)));
            }
            match &f.block(b).merge {
                Some(Merge::Selection { merge, .. }) => {
                    here.push((ConstructKind::Selection, cfg.block(*merge), None));
                }
                Some(Merge::Loop {
                    merge,
                    continue_target,
                    ..
                }) => {
                    here.push((
                        ConstructKind::Loop,
                        cfg.block(*merge),
                        cfg.block(*continue_target),
                    ));
                }
                None => {}
            }
            for (kind, merge, extra) in here {
                let continue_target = match kind {
                    ConstructKind::Continue => Some(b),
                    _ => extra,
                };
                let parent = innermost[b];
                // Exits: its own merge, and the merges and continue targets around it.
                let mut stops: Vec<usize> = merge.into_iter().collect();
                let mut p = parent;
                while let Some(k) = p {
                    let outer: &Construct = &constructs[k];
                    stops.extend(outer.merge);
                    if outer.kind == ConstructKind::Loop {
                        stops.extend(outer.continue_target);
                    }
                    p = outer.parent;
                }
                let blocks = region(dom, b, &stops);
                let c = constructs.len();
                for &x in &blocks {
                    innermost[x] = Some(c);
                    if kind == ConstructKind::Loop {
                        loop_depth[x] += 1;
                    }
                }
                constructs.push(Construct {
                    kind,
                    header: b,
                    merge,
                    continue_target,
                    parent,
                    blocks,
                });
            }
        }
        Structure {
            constructs,
            innermost,
            loop_depth,
        }
    }

    /// The innermost loop construct containing block `b`.
    pub fn loop_of(&self, b: usize) -> Option<usize> {
        let mut c = self.innermost.get(b).copied().flatten();
        while let Some(k) = c {
            if self.constructs[k].kind == ConstructKind::Loop {
                return Some(k);
            }
            c = self.constructs[k].parent;
        }
        None
    }

    /// The loop constructs, outer loops before the loops they contain.
    pub fn loops(&self) -> impl Iterator<Item = &Construct> + '_ {
        self.constructs
            .iter()
            .filter(|c| c.kind == ConstructKind::Loop)
    }

    /// Whether block `b` is inside construct `c`.
    pub fn contains(&self, c: usize, b: usize) -> bool {
        self.constructs[c].blocks.binary_search(&b).is_ok()
    }
}

/// The blocks `header` dominates less those the `stops` dominate, sorted.
fn region(dom: &DomTree, header: usize, stops: &[usize]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack = vec![header];
    while let Some(b) = stack.pop() {
        if b != header && stops.contains(&b) {
            continue;
        }
        out.push(b);
        stack.extend(dom.children(b).iter().copied());
    }
    out.sort_unstable();
    out
}
