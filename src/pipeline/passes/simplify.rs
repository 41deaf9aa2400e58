//! `simplify`: forwards the pieces of composites — `OpCompositeExtract` of an
//! `OpCompositeConstruct` with one part per member (a struct, or a vector built from
//! scalars) is the part itself, so the extract's uses take the part and `dce` can remove both.
//! It looks only through constructs in the same function and single-index extracts; it does
//! not touch anything else.

use std::collections::HashMap;

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::{Id, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError};

pub struct Simplify;

pub fn simplify(m: &mut Module) -> bool {
    let mut replace: HashMap<Id, Id> = HashMap::new();
    for f in &m.functions {
        let mut constructs: HashMap<Id, (Id, Vec<Id>)> = HashMap::new();
        for b in &f.blocks {
            for i in &b.insts {
                if let (Op::CompositeConstruct, Some(r), Some(ty)) = (i.op, i.result, i.ty) {
                    let parts: Vec<Id> = i.id_operands().collect();
                    constructs.insert(r, (ty, parts));
                }
            }
        }
        for b in &f.blocks {
            for i in &b.insts {
                let (Op::CompositeExtract, Some(r)) = (i.op, i.result) else {
                    continue;
                };
                let [Operand::IdRef(c), Operand::LiteralBit32(k)] = i.operands.as_slice() else {
                    continue;
                };
                let Some((ty, parts)) = constructs.get(c) else {
                    continue;
                };
                // One part per member: a struct always, a vector when the parts are scalars
                // (as many as its components).
                let members = m.global(*ty).map_or(0, |t| match t.op {
                    Op::TypeStruct => t.operands.len(),
                    Op::TypeVector => match t.operands.get(1) {
                        Some(Operand::LiteralBit32(n)) => *n as usize,
                        _ => 0,
                    },
                    _ => 0,
                });
                if members == parts.len() {
                    if let Some(&part) = parts.get(*k as usize) {
                        replace.insert(r, part);
                    }
                }
            }
        }
    }
    if replace.is_empty() {
        return false;
    }
    // Chains of extracts resolve to their end.
    let resolve = |mut id: Id| {
        for _ in 0..64 {
            match replace.get(&id) {
                Some(&n) => id = n,
                None => break,
            }
        }
        id
    };
    for f in &mut m.functions {
        for b in &mut f.blocks {
            b.insts
                .retain(|i| !i.result.is_some_and(|r| replace.contains_key(&r)));
        }
    }
    m.remap_ids(resolve);
    m.reindex();
    true
}

impl Pass for Simplify {
    fn name(&self) -> &'static str {
        "simplify"
    }
    fn description(&self) -> &'static str {
        "forward composite parts: an extract of a construct is the part it extracts"
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(simplify(module).into())
    }
}
