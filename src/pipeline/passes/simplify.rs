//! `simplify`: forwards the pieces of composites — `OpCompositeExtract` of an
//! `OpCompositeConstruct` with one part per member (a struct, or a vector built from
//! scalars) is the part itself, so the extract's uses take the part and `dce` can remove both.
//! It looks only through constructs in the same function and single-index extracts; it does
//! not touch anything else.

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::fxhash::FxHashMap;
use crate::ir::rewrite::Replacer;
use crate::ir::{Id, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct Simplify;

pub fn simplify(m: &mut Module) -> bool {
    let mut replace = Replacer::new();
    for f in m.functions() {
        let mut constructs: FxHashMap<Id, (Id, &[Id])> = FxHashMap::default();
        for i in f.body() {
            if let (Op::CompositeConstruct, Some(r), Some(ty)) = (i.op, i.result, i.ty) {
                constructs.insert(r, (ty, &i.args));
            }
        }
        for i in f.body() {
            let (Op::CompositeExtract, Some(r), [c], [Operand::LiteralBit32(k)]) =
                (i.op, i.result, i.args.as_slice(), i.lits())
            else {
                continue;
            };
            let Some((ty, parts)) = constructs.get(c) else {
                continue;
            };
            // One part per member: a struct always, a vector when the parts are scalars
            // (as many as its components).
            let members = m.global(*ty).map_or(0, |t| match (t.op, t.lits()) {
                (Op::TypeStruct, _) => t.args.len(),
                (Op::TypeVector, [Operand::LiteralBit32(n)]) => *n as usize,
                _ => 0,
            });
            if members == parts.len() {
                if let Some(&part) = parts.get(*k as usize) {
                    replace.replace_in(f.id(), r, part);
                }
            }
        }
    }
    if replace.is_empty() {
        return false;
    }
    for f in m.functions_mut() {
        f.retain_all(|i| !i.result.is_some_and(|r| replace.is_replaced(r)));
    }
    replace.apply(m, "simplify");
    true
}

impl Pass for Simplify {
    fn name(&self) -> &'static str {
        "simplify"
    }
    fn description(&self) -> &'static str {
        "forward composite parts: an extract of a construct is the part it extracts"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(simplify(module).into())
    }
}
