//! `copy-prop`: copy propagation. A value that is only another value under a new name is
//! replaced by that value everywhere, and its instruction goes:
//! - `OpCopyObject %x` is `%x`;
//! - a phi whose incoming values are all one value (or the phi itself, around a loop) is that
//!   value — `mem2reg` leaves such phis where a variable was stored with the same value on
//!   every path. Phis of such phis resolve in the same run.
//!
//! It does not look through loads or composites (`local-redundant-load` and `simplify` do).

use spirv::Op;

use crate::ir::rewrite::{self, Replacer};
use crate::ir::{Id, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct CopyProp;

/// The one value a copy or phi stands for, given the replacements found so far.
fn copied_value(inst: &crate::ir::Inst, replace: &Replacer) -> Option<Id> {
    let r = inst.result()?;
    match inst.op() {
        Op::CopyObject => inst.args().first().map(|&a| replace.resolve(a)),
        Op::Phi => {
            let mut value = None;
            for pair in inst.args().chunks(2) {
                let v = replace.resolve(pair[0]);
                if v == r {
                    continue;
                }
                match value {
                    None => value = Some(v),
                    Some(x) if x == v => {}
                    Some(_) => return None,
                }
            }
            value
        }
        _ => None,
    }
}

pub fn copy_prop(m: &mut Module) -> bool {
    let mut changed = false;
    let mut replace = Replacer::new();
    for f in rewrite::functions_mut(m) {
        let fid = f.id();
        let mut found = false;
        // To a fixed point: a phi may become trivial once its operands are resolved.
        loop {
            let mut more = false;
            for inst in f.body() {
                let Some(r) = inst.result() else { continue };
                if replace.is_replaced(r) {
                    continue;
                }
                if let Some(v) = copied_value(inst, &replace) {
                    more |= replace.replace_in(fid, r, v);
                }
            }
            if !more {
                break;
            }
            found = true;
        }
        if found {
            f.retain_all(|i| !i.result().is_some_and(|r| replace.is_replaced(r)));
            replace.apply_to_function(f);
            changed = true;
        }
    }
    replace.apply(m, "copy-prop");
    changed
}

impl Pass for CopyProp {
    fn name(&self) -> &'static str {
        "copy-prop"
    }
    fn description(&self) -> &'static str {
        "replace copies and phis of a single value by that value"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(copy_prop(m).into())
    }
}
