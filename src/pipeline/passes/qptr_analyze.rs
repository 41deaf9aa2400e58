//! `qptr-analyze`: records, for every pointer that untyped pointers are made from or accessed
//! through, how it is used — the tree of offsets reached from it and the types loaded, stored
//! and copied at each (`ir::qptr::Usage`) — as an attribute the IR text shows under the pointer
//! (`; @usage {load %v4float, +16 {store %float}}`). A variable used by several functions gets
//! the union of their uses. It changes no instruction; `qptr-lift` checks the usage it lifts
//! from against these.

use std::collections::BTreeMap;

use crate::ir::module::Attribute;
use crate::ir::qptr::{self, Layout};
use crate::ir::usage::Usage;
use crate::ir::{Id, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct QptrAnalyze;

/// The usage of every pointer in the module: the union over the functions that use it.
pub fn module_usage(m: &Module) -> BTreeMap<Id, Usage> {
    let mut all: BTreeMap<Id, Usage> = BTreeMap::new();
    let layout = Layout::new(m);
    for f in m.functions() {
        for (p, u) in qptr::analyze(m, f, &layout) {
            all.entry(p).or_default().merge(u);
        }
    }
    all
}

pub fn qptr_analyze(m: &mut Module) -> bool {
    let all = module_usage(m);
    let before = m.attributes.clone();
    m.attributes
        .retain(|_, a| !matches!(a, Attribute::QptrUsage(_)));
    for (p, u) in all {
        m.attributes.insert(p, Attribute::QptrUsage(u));
    }
    m.attributes != before
}

impl Pass for QptrAnalyze {
    fn name(&self) -> &'static str {
        "qptr-analyze"
    }
    fn description(&self) -> &'static str {
        "attach to every pointer the tree of offsets and types accessed through it"
    }
    fn preserves(&self) -> Preserves {
        Preserves::All
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(qptr_analyze(module).into())
    }
}
