//! `dead-insert`: an `OpCompositeInsert` whose inserted part nothing reads is its composite
//! operand — into a struct, an array, a matrix or a vector, through phis, extracts and
//! constructs (see `ir::analysis::live_parts`). Chains of inserts that build a value part by
//! part, of which only some parts are read, shrink to the inserts of those parts; an insert
//! that a later insert at the same place overwrites goes.

use spirv::Op;

use crate::ir::analysis::live_parts::LiveParts;
use crate::ir::fxhash::FxHashSet;
use crate::ir::ops::ExtSets;
use crate::ir::rewrite::{self, Replacer};
use crate::ir::types::literal_path;
use crate::ir::{Id, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct DeadInsert;

/// Records, for every insert of `f` whose inserted part `live` says nobody reads, that it is
/// its composite; `only` filters the inserts by result type. Returns the replaced inserts.
pub fn dead_inserts(
    f: &crate::ir::func::Function,
    live: &LiveParts,
    only: impl Fn(Id) -> bool,
    replace: &mut Replacer,
) -> FxHashSet<Id> {
    let mut dead = FxHashSet::default();
    for inst in f.body() {
        if inst.op() != Op::CompositeInsert || !inst.ty().is_some_and(&only) {
            continue;
        }
        let (Some(r), Some(&composite)) = (inst.result(), inst.args().get(1)) else {
            continue;
        };
        if !live.of(r).reads(&literal_path(inst)) && replace.replace_in(f.id(), r, composite) {
            dead.insert(r);
        }
    }
    dead
}

pub fn dead_insert(m: &mut Module) -> bool {
    let sets = ExtSets::of(m);
    let mut replace = Replacer::new();
    let mut changed = false;
    for k in 0..m.functions().len() {
        let f = &m.functions()[k];
        // What reads the parts is worth finding only where something inserts one.
        if f.is_declaration() || !f.body().any(|i| i.op() == Op::CompositeInsert) {
            continue;
        }
        let live = LiveParts::new(m, f, &sets);
        let dead = dead_inserts(f, &live, |_| true, &mut replace);
        if !dead.is_empty() {
            let f = rewrite::function_at_mut(m, k);
            f.retain_all(|i| !i.result().is_some_and(|r| dead.contains(&r)));
            replace.apply_to_function(f);
            changed = true;
        }
    }
    replace.apply(m, "dead-insert");
    changed
}

impl Pass for DeadInsert {
    fn name(&self) -> &'static str {
        "dead-insert"
    }
    fn description(&self) -> &'static str {
        "composite inserts of parts nobody reads are removed"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(dead_insert(m).into())
    }
}
