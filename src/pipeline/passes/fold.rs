//! `fold`: constant folding in one walk. An instruction whose operands are all constants is
//! replaced by the interned constant it computes — scalar rules from the op table (SPIR-V core
//! and GLSL.std.450), component-wise on vectors, and composite construction and extraction —
//! and an `OpSelect` on a constant condition by the operand it picks. Folded values feed later
//! folds in the same walk (blocks are in dominance order). Names and decorations of folded
//! values go with them. The evaluation is `ir::consts`'s, the one `ccp` uses: `fold` is its
//! straight-line form, without the lattice over branches.
//!
//! Bit-vector constants (after `untype`) are read as the op reads its operands — `OpFAdd` as
//! floats, `OpIAdd` as integers — and a bit-vector result is stored as its bits.
//!
//! It does not fold spec constants (their values come later), anything the rule leaves
//! undefined (division by zero, oversized shifts), or a constant of a type the module's
//! capabilities do not allow constants of (the instruction stays).

use crate::ir::consts::{Const, Consts, Eval};
use crate::ir::rewrite::{self, Replacer};
use crate::ir::Module;
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct Fold;

pub fn fold(m: &mut Module) -> bool {
    let mut consts = Consts::new(m);
    let mut replace = Replacer::new();
    rewrite::edit_functions(m, |m, f| {
        let fid = f.id();
        for b in 0..f.blocks().len() {
            for iid in f.block(b).insts.clone() {
                replace.rewrite_inst(f, iid);
                let inst = f.inst(iid);
                let (Some(result), Some(ty)) = (inst.result(), inst.ty()) else {
                    continue;
                };
                let args: Vec<Option<&Const>> = inst.args().iter().map(|&a| consts.of(a)).collect();
                let folded = match consts.eval(inst, &args) {
                    Eval::Operand(k) => inst.args().get(k).copied(),
                    Eval::Const(c) => consts.materialize(m, ty, &c),
                    Eval::Unknown => None,
                };
                // (A value folded into itself, only in a broken module, stays.)
                if let Some(v) = folded {
                    replace.replace_in(fid, result, v);
                }
            }
        }
        // Folded instructions leave; phis and terminators may use values folded later in the
        // walk (loop back edges), which `apply` below rewrites.
        f.retain_all(|i| !i.result().is_some_and(|r| replace.is_replaced(r)));
    });
    if replace.is_empty() {
        return false;
    }
    replace.apply(m, "fold");
    true
}

impl Pass for Fold {
    fn name(&self) -> &'static str {
        "fold"
    }
    fn description(&self) -> &'static str {
        "fold operations on scalar constants with the op table's folding rules"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(fold(module).into())
    }
}
