//! Analyses of a function, computed on demand and cached in it (`Function::analysis`) until
//! what they read changes: the CFG with reverse postorder, dominator and post-dominator trees
//! with O(1) dominance queries, dominance frontiers, control dependences, def-use chains, the
//! structured construct tree with the loop nest; and the module's call graph.
//!
//! A pass says what it keeps by how it changes the function: `Function`'s methods that can
//! change the CFG move its CFG stamp, the others only its code stamp, so a pass that rewrites
//! instructions keeps every CFG analysis and one that leaves a function alone keeps them all.

pub mod callgraph;
pub mod cfg;
pub mod defuse;
pub mod dom;
pub mod live_parts;
pub mod liveness;
pub mod structure;

use std::sync::Arc;

use super::func::{Analysis, Cached, Function};

pub use callgraph::CallGraph;
pub use cfg::Cfg;
pub use defuse::{DefUse, Use};
pub use dom::{DomTree, PostDomTree};
pub use structure::{Construct, ConstructKind, Structure};

impl Cached for Cfg {
    const CFG_ONLY: bool = true;
}

impl Analysis for Cfg {
    fn compute(f: &Function) -> Self {
        Cfg::new(f)
    }
}

impl Cached for DomTree {
    const CFG_ONLY: bool = true;
}

impl Analysis for DomTree {
    fn compute(f: &Function) -> Self {
        dom::dominators(&f.cfg())
    }
}

impl Cached for PostDomTree {
    const CFG_ONLY: bool = true;
}

impl Analysis for PostDomTree {
    fn compute(f: &Function) -> Self {
        PostDomTree::new(&f.cfg())
    }
}

/// Dominance frontier of every block.
#[derive(Debug)]
pub struct Frontiers(pub Vec<Vec<usize>>);

impl Cached for Frontiers {
    const CFG_ONLY: bool = true;
}

impl Analysis for Frontiers {
    fn compute(f: &Function) -> Self {
        Frontiers(dom::frontiers(&f.domtree(), &f.cfg().preds))
    }
}

/// For every block, the blocks whose branches decide whether it runs.
#[derive(Debug)]
pub struct ControlDeps(pub Vec<Vec<usize>>);

impl Cached for ControlDeps {
    const CFG_ONLY: bool = true;
}

impl Analysis for ControlDeps {
    fn compute(f: &Function) -> Self {
        ControlDeps(f.postdom().control_dependences())
    }
}

impl Cached for Structure {
    const CFG_ONLY: bool = true;
}

impl Analysis for Structure {
    fn compute(f: &Function) -> Self {
        Structure::new(f, &f.cfg(), &f.domtree())
    }
}

impl Cached for DefUse {
    const CFG_ONLY: bool = false;
}

impl Function {
    pub fn cfg(&self) -> Arc<Cfg> {
        self.analysis()
    }
    pub fn domtree(&self) -> Arc<DomTree> {
        self.analysis()
    }
    pub fn postdom(&self) -> Arc<PostDomTree> {
        self.analysis()
    }
    pub fn frontiers(&self) -> Arc<Frontiers> {
        self.analysis()
    }
    pub fn control_deps(&self) -> Arc<ControlDeps> {
        self.analysis()
    }
    pub fn structure(&self) -> Arc<Structure> {
        self.analysis()
    }
    /// The def-use chains, code uses apart from debug uses by `sets` (the module's, see
    /// `DefUse`).
    pub fn def_use(&self, sets: &super::ext_sets::ExtSets) -> Arc<DefUse> {
        self.analysis_where(|d: &DefUse| d.built_with(sets), |f| DefUse::new(f, sets))
    }
}
