//! `local-redundant-load`: within a block, a load of a pointer that was just stored to or
//! loaded from, with nothing in between that may write that memory, is the value stored or
//! loaded before. What may write it: a store to the same pointer (the value changes), a store
//! to another pointer into the same variable, or, for memory other invocations or calls can
//! see, a call, a barrier, an atomic, an image or memory copy — any instruction the op table
//! says writes memory.
//!
//! It only forwards memory no other invocation writes between two of this invocation's
//! accesses without synchronization it could see: `Function` and `Private` variables, and the
//! read-only `Input`, `UniformConstant`, `PushConstant` and `Uniform` (block) memory. It does
//! not look across blocks (`gvn` does), and treats volatile accesses as writes.

use spirv::{Decoration, Op, StorageClass};

use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::ops::{self, Attrs, ExtSets};
use crate::ir::rewrite::{self, Replacer};
use crate::ir::types::{is_volatile, pointer_type};
use crate::ir::{Function, Id, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct LocalRedundantLoad;

/// The variable a pointer is into (through access chains), and its storage class.
fn root(m: &Module, f: &Function, mut p: Id) -> Option<(Id, StorageClass)> {
    for _ in 0..64 {
        if let Some(g) = m.global(p) {
            return match g.op() {
                Op::Variable => Some((p, pointer_type(m, g.ty()?)?.0)),
                _ => None,
            };
        }
        let i = f.def_of(p)?;
        match i.op() {
            Op::Variable => return Some((p, pointer_type(m, i.ty()?)?.0)),
            Op::AccessChain | Op::InBoundsAccessChain => p = *i.args().first()?,
            _ => return None,
        }
    }
    None
}

/// Storage classes whose memory only this invocation writes, or nobody does.
fn private_memory(c: StorageClass) -> bool {
    matches!(
        c,
        StorageClass::Function
            | StorageClass::Private
            | StorageClass::Input
            | StorageClass::UniformConstant
            | StorageClass::PushConstant
            | StorageClass::Uniform
    )
}

pub fn local_redundant_load(m: &mut Module) -> bool {
    let sets = ExtSets::of(m);
    // `Uniform` variables of `BufferBlock` structs are storage buffers in old SPIR-V.
    let buffer_blocks: FxHashSet<Id> = m
        .annotations()
        .iter()
        .filter(|a| {
            matches!(
                a.lits(),
                [rspirv::dr::Operand::Decoration(Decoration::BufferBlock)]
            )
        })
        .filter_map(|a| a.arg(0))
        .collect();
    let mut replace = Replacer::new();
    for fi in 0..m.functions().len() {
        let f = &m.functions()[fi];
        let fid = f.id();
        let mut roots: FxHashMap<Id, Option<(Id, StorageClass)>> = FxHashMap::default();
        let mut root_of = |p: Id| *roots.entry(p).or_insert_with(|| root(m, f, p));
        let forwardable = |r: Option<(Id, StorageClass)>| {
            r.is_some_and(|(v, c)| {
                private_memory(c)
                    && !(c == StorageClass::Uniform
                        && m.global(v)
                            .and_then(|g| g.ty())
                            .and_then(|t| pointer_type(m, t))
                            .is_some_and(|(_, s)| buffer_blocks.contains(&s)))
            })
        };
        for b in 0..f.blocks().len() {
            // Pointer → the value it holds, by what this block did.
            let mut known: FxHashMap<Id, Id> = FxHashMap::default();
            for inst in f.block_insts(b) {
                match inst.op() {
                    Op::Load if !is_volatile(inst) => {
                        let (Some(r), Some(&p)) = (inst.result(), inst.args().first()) else {
                            continue;
                        };
                        if let Some(&v) = known.get(&p) {
                            replace.replace_in(fid, r, v);
                        } else if forwardable(root_of(p)) {
                            known.insert(p, r);
                        }
                    }
                    Op::Store => {
                        let (Some(&p), Some(&v)) = (inst.args().first(), inst.args().get(1)) else {
                            continue;
                        };
                        // Pointers into the same variable may overlap this one.
                        let r = root_of(p);
                        match r {
                            Some((var, _)) => {
                                let drop: Vec<Id> = known
                                    .keys()
                                    .copied()
                                    .filter(|&q| root_of(q).is_none_or(|(w, _)| w == var))
                                    .collect();
                                for q in drop {
                                    known.remove(&q);
                                }
                            }
                            None => known.clear(),
                        }
                        if !is_volatile(inst) && forwardable(r) {
                            known.insert(p, v);
                        } else if r.is_none_or(|(_, c)| c != StorageClass::Function) {
                            // A store to shared memory: keep only function-local knowledge.
                            known.retain(|q, _| {
                                root_of(*q).is_some_and(|(_, c)| c == StorageClass::Function)
                            });
                        }
                    }
                    _ => {
                        let a = ops::attrs_of(inst, &sets);
                        let writes = a.contains(Attrs::WRITES_MEMORY)
                            || a.contains(Attrs::BARRIER)
                            || inst.op() == Op::FunctionCall
                            || inst.op() == Op::Load
                            || !(a.contains(Attrs::PURE)
                                || a.contains(Attrs::READS_MEMORY)
                                || a.contains(Attrs::WAVE)
                                // Debug info and DebugPrintf touch no memory.
                                || sets.is_non_semantic_inst(inst)
                                || matches!(inst.op(), Op::Phi | Op::Variable | Op::Nop));
                        if writes {
                            known.clear();
                        }
                    }
                }
            }
        }
    }
    if replace.is_empty() {
        return false;
    }
    for f in rewrite::functions_mut(m) {
        f.retain_all(|i| {
            !(i.op() == Op::Load && i.result().is_some_and(|r| replace.is_replaced(r)))
        });
    }
    replace.apply(m, "local-redundant-load");
    true
}

impl Pass for LocalRedundantLoad {
    fn name(&self) -> &'static str {
        "local-redundant-load"
    }
    fn description(&self) -> &'static str {
        "reuse a value stored or loaded earlier in the block instead of loading it again"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(local_redundant_load(m).into())
    }
}
