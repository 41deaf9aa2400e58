//! `copy-prop-arrays`: a function variable that is written once, whole, with a value loaded
//! from memory that nothing writes, and afterwards only read, is that memory: its reads become
//! reads of the source (as spirv-opt's copy-propagate-arrays does). HLSL and GLSL copy a
//! constant buffer's array to a local before indexing it dynamically (`float4 w[4] = cb.w;
//! w[i]`), which `sroa` cannot split; reading `cb.w[i]` in place saves the copy.
//!
//! What must hold:
//! - the variable is an array, struct or matrix, has no initializer, and its only whole-object
//!   store stores an `OpLoad` of a pointer of the same pointee type, which dominates every read;
//! - every other use of the variable is a load, or an access chain whose uses are loads and
//!   access chains of the same kind;
//! - nothing writes the source memory while the function may read it: `Uniform` blocks,
//!   `PushConstant`, `Input` and `UniformConstant` memory is read-only; `Private` and `Function`
//!   variables qualify when nothing in the module writes to them at all (no store, atomic, copy
//!   or call through a pointer into them). Storage buffers, workgroup and physical memory do
//!   not (other invocations may write them).
//!
//! The store and the copy are left for `adce` (a variable nobody reads is dead).

use rspirv::dr::Operand;
use spirv::{Decoration, Op, StorageClass};

use crate::ir::debug::DebugSets;
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::rewrite;
use crate::ir::types::{members, pointer_type};
use crate::ir::{Function, Id, InstId, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct CopyPropArrays;

/// The variable a pointer is into (through access chains), global or local.
fn root(m: &Module, f: &Function, mut p: Id) -> Option<Id> {
    for _ in 0..64 {
        if let Some(g) = m.global(p) {
            return (g.op() == Op::Variable).then_some(p);
        }
        let i = f.def_of(p)?;
        match i.op() {
            Op::Variable => return Some(p),
            Op::AccessChain | Op::InBoundsAccessChain => p = *i.args().first()?,
            _ => return None,
        }
    }
    None
}

/// Whether every use of pointer `p` in `f` (through access chains) only reads; the chains
/// and loads are pushed to `chains` and `loads`. A `DebugDeclare` or `DebugValue` is no use
/// (the kit says the variable undefined once it goes).
fn only_read(
    f: &Function,
    dsets: &DebugSets,
    p: Id,
    chains: &mut Vec<InstId>,
    loads: &mut Vec<InstId>,
    skip: Option<InstId>,
) -> bool {
    let du = f.def_use(dsets);
    let mut work = vec![p];
    while let Some(q) = work.pop() {
        for u in du.uses(q) {
            if Some(u.inst) == skip {
                continue;
            }
            let inst = f.inst(u.inst);
            match inst.op() {
                Op::Load if u.arg == 0 => loads.push(u.inst),
                Op::AccessChain | Op::InBoundsAccessChain if u.arg == 0 => {
                    chains.push(u.inst);
                    work.extend(inst.result());
                }
                _ => return false,
            }
        }
    }
    true
}

/// Global `Private` variables nothing in the module writes to.
fn never_written_globals(m: &Module) -> FxHashSet<Id> {
    let mut candidates: FxHashSet<Id> = m
        .globals()
        .iter()
        .filter(|g| g.op() == Op::Variable)
        .filter(|g| {
            g.ty()
                .and_then(|t| pointer_type(m, t))
                .is_some_and(|(c, _)| c == StorageClass::Private)
        })
        .filter_map(|g| g.result())
        .collect();
    let dsets = DebugSets::of(m);
    for f in m.functions() {
        if f.is_declaration() {
            continue;
        }
        let list: Vec<Id> = candidates.iter().copied().collect();
        for v in list {
            let (mut chains, mut loads) = (Vec::new(), Vec::new());
            if !only_read(f, &dsets, v, &mut chains, &mut loads, None) {
                candidates.remove(&v);
            }
        }
    }
    candidates
}

/// Storage classes whose memory nobody writes while a shader runs.
fn read_only(m: &Module, var: Id, class: StorageClass, buffer_blocks: &FxHashSet<Id>) -> bool {
    match class {
        StorageClass::PushConstant | StorageClass::Input | StorageClass::UniformConstant => true,
        // A `Uniform` variable of a `BufferBlock` struct is a storage buffer in old SPIR-V.
        StorageClass::Uniform => !m
            .global(var)
            .and_then(|g| g.ty())
            .and_then(|t| pointer_type(m, t))
            .is_some_and(|(_, s)| buffer_blocks.contains(&s)),
        _ => false,
    }
}

fn pointer(m: &mut Module, class: StorageClass, pointee: Id) -> Option<Id> {
    m.pointer_to(class, pointee)
}

/// One variable to replace by its source.
struct Copy {
    var: Id,
    source: Id,
    class: StorageClass,
    chains: Vec<InstId>,
    loads: Vec<InstId>,
}

fn find_copies(
    m: &Module,
    f: &Function,
    never_written: &FxHashSet<Id>,
    buffer_blocks: &FxHashSet<Id>,
    dsets: &DebugSets,
) -> Vec<Copy> {
    let du = f.def_use(dsets);
    let dom = f.domtree();
    let mut out = Vec::new();
    for (_, i) in f.layout() {
        let v = f.inst(i);
        if v.op() != Op::Variable || v.args().len() > 1 {
            continue;
        }
        let (Some(var), Some(vty)) = (v.result(), v.ty()) else {
            continue;
        };
        let Some((_, pointee)) = pointer_type(m, vty) else {
            continue;
        };
        let aggregate = m
            .global(pointee)
            .is_some_and(|t| matches!(t.op(), Op::TypeArray | Op::TypeStruct | Op::TypeMatrix))
            && members(m, pointee).is_some();
        if !aggregate {
            continue;
        }
        // The one whole store.
        let stores: Vec<InstId> = du
            .uses(var)
            .iter()
            .filter(|u| u.arg == 0 && f.inst(u.inst).op() == Op::Store)
            .map(|u| u.inst)
            .collect();
        let [store] = stores[..] else { continue };
        let Some(&value) = f.inst(store).args().get(1) else {
            continue;
        };
        let Some(load) = f.value(value).map(|l| f.inst(l)) else {
            continue;
        };
        if load.op() != Op::Load
            || load
                .lits()
                .iter()
                .any(|o| matches!(o, Operand::MemoryAccess(a) if !a.is_empty()))
        {
            continue;
        }
        let Some(&source) = load.args().first() else {
            continue;
        };
        let Some((class, src_pointee)) = f
            .def_of(source)
            .or_else(|| m.global(source))
            .and_then(|d| d.ty())
            .and_then(|t| pointer_type(m, t))
        else {
            continue;
        };
        if src_pointee != pointee {
            continue;
        }
        let Some(src_root) = root(m, f, source) else {
            continue;
        };
        let source_ok = match class {
            StorageClass::Private => never_written.contains(&src_root),
            StorageClass::Function => {
                let (mut c, mut l) = (Vec::new(), Vec::new());
                src_root != var && only_read(f, dsets, src_root, &mut c, &mut l, None)
            }
            _ => read_only(m, src_root, class, buffer_blocks),
        };
        if !source_ok {
            continue;
        }
        let (mut chains, mut loads) = (Vec::new(), Vec::new());
        if !only_read(f, dsets, var, &mut chains, &mut loads, Some(store)) {
            continue;
        }
        // The store comes before every read: in a block that dominates it, or earlier in its
        // own block.
        let Some((sb, spos)) = du.place(store) else {
            continue;
        };
        let dominated = loads.iter().chain(&chains).all(|&r| {
            du.place(r).is_some_and(|(rb, rpos)| {
                if rb == sb {
                    rpos > spos
                } else {
                    dom.dominates(sb, rb)
                }
            })
        });
        if dominated {
            out.push(Copy {
                var,
                source,
                class,
                chains,
                loads,
            });
        }
    }
    out
}

pub fn copy_prop_arrays(m: &mut Module) -> bool {
    let buffer_blocks: FxHashSet<Id> = m
        .annotations()
        .iter()
        .filter(|a| matches!(a.lits(), [Operand::Decoration(Decoration::BufferBlock)]))
        .filter_map(|a| a.arg(0))
        .collect();
    let never_written = never_written_globals(m);
    let dsets = DebugSets::of(m);
    let mut changed = false;
    for k in 0..m.functions().len() {
        if m.functions()[k].is_declaration() {
            continue;
        }
        let copies = find_copies(m, &m.functions()[k], &never_written, &buffer_blocks, &dsets);
        if copies.is_empty() {
            continue;
        }
        // Pointer types of the chains, now into the source's storage class.
        let mut retyped: FxHashMap<InstId, Id> = FxHashMap::default();
        let mut ok = true;
        for c in &copies {
            for &ch in &c.chains {
                let f = &m.functions()[k];
                let Some(elem) = f
                    .inst(ch)
                    .ty()
                    .and_then(|t| pointer_type(m, t))
                    .map(|(_, e)| e)
                else {
                    ok = false;
                    break;
                };
                match pointer(m, c.class, elem) {
                    Some(p) => {
                        retyped.insert(ch, p);
                    }
                    None => ok = false,
                }
            }
        }
        if !ok {
            continue;
        }
        let f = rewrite::function_at_mut(m, k);
        for c in &copies {
            let sources: FxHashMap<Id, Id> = [(c.var, c.source)].into_iter().collect();
            for &ch in &c.chains {
                let ty = retyped[&ch];
                rewrite::retype(f, ch, Some(ty));
                if let Some(&s) = f.inst(ch).args().first().and_then(|a| sources.get(a)) {
                    f.set_arg(ch, 0, s);
                }
            }
            for &l in &c.loads {
                if f.inst(l).args().first() == Some(&c.var) {
                    f.set_arg(l, 0, c.source);
                }
            }
        }
        changed = true;
    }
    changed
}

impl Pass for CopyPropArrays {
    fn name(&self) -> &'static str {
        "copy-prop-arrays"
    }
    fn description(&self) -> &'static str {
        "a local copy of read-only memory that is only read is read in place"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(copy_prop_arrays(m).into())
    }
}
