//! `gvn`: global value numbering. Two instructions that compute the same thing from the same
//! operands are one value: the second is replaced by the first wherever the first dominates
//! it. Blocks are visited in dominator-tree preorder, so a value is always found from a
//! dominating definition; operands are compared after the replacements already made, so
//! whole expressions collapse in one walk.
//!
//! What counts as "the same thing":
//! - a pure instruction (the op table's `pure`, neither `derivative` nor `wave`): same op,
//!   result type, operands and literals; the operands of a `commutative` op in a fixed order;
//!   the same decorations on both results (an `OpFMul` decorated `NoContraction` is not the
//!   undecorated one). `OpSampledImage` is left alone (its result must be used in its own
//!   block), and so is every value of a sampled-image type;
//! - a phi: same block and incoming pairs;
//! - an `OpImageTexelPointer`, and a sample, fetch, gather or query of an image nothing writes
//!   while the shader runs (a sampled image): like a pure instruction — an implicit level of
//!   detail reads derivatives, but the sample an equal one dominates reads the same
//!   coordinates in the same invocations;
//! - a load from memory no invocation writes while the shader runs (`UniformConstant`,
//!   `PushConstant`, `Input`, `Uniform` blocks that are not `BufferBlock`s), unless volatile
//!   or `HelperInvocation`: like a pure instruction;
//! - a load from a `Function` or `Private` variable: from the same pointer in the same extended
//!   basic block (each block after the first with one predecessor), with no write in between
//!   that may reach that variable (a store through another variable does not; a call or a
//!   write through a pointer of unknown origin does).
//!
//! Loads from buffers and workgroup memory are not reused (another invocation may write them;
//! spirv-opt does not either).

use rspirv::dr::Operand;
use spirv::{BuiltIn, Decoration, Op, StorageClass};

use crate::ir::func::Function;
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::ops::{self, Attrs, ExtSets};
use crate::ir::rewrite::{self, Replacer};
use crate::ir::types::{is_volatile, pointer_type};
use crate::ir::{Id, Inst, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct Gvn;

#[derive(Hash, PartialEq, Eq)]
struct Key {
    op: Op,
    ty: Option<Id>,
    // Inline: a key is made for nearly every instruction, most with few operands.
    args: smallvec::SmallVec<[Id; 4]>,
    lits: smallvec::SmallVec<[Operand; 1]>,
    /// The block, for phis.
    block: Option<usize>,
    /// Index of the result's decorations (0: none).
    decorations: usize,
    /// For loads of `Function`/`Private` memory: the memory state they read.
    memory: (u32, u32),
}

/// Where a pointer points, as far as reuse of its loads goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Memory {
    /// Nothing writes it while the shader runs.
    ReadOnly,
    /// Only this invocation writes it: the root variable.
    Own(Id),
    /// Anything else (buffers, workgroup, outputs, pointers of unknown origin).
    Other,
}

struct ModuleFacts {
    sets: ExtSets,
    /// Decoration lists by target (`Decorate` operands), interned: index 0 is "none".
    decoration_of: FxHashMap<Id, usize>,
    /// Module-level variables: their memory kind.
    global_memory: FxHashMap<Id, Memory>,
    sampled_image_types: FxHashSet<Id>,
    /// Image types of sampled images (`Sampled` 1: read-only while the shader runs) and
    /// sampled-image types.
    read_only_images: FxHashSet<Id>,
}

fn facts(m: &Module) -> ModuleFacts {
    let mut lists: FxHashMap<Id, Vec<Vec<Operand>>> = FxHashMap::default();
    for a in m.annotations() {
        if a.op() == Op::Decorate {
            if let Some(t) = a.arg(0) {
                lists.entry(t).or_default().push(a.lits().to_vec());
            }
        }
    }
    let mut interned: FxHashMap<Vec<Vec<Operand>>, usize> = FxHashMap::default();
    let mut decoration_of = FxHashMap::default();
    for (&t, l) in &lists {
        let mut l = l.clone();
        // Some order in which equal lists are alike (the operands have no `Ord`).
        if l.len() > 1 {
            l.sort_by_cached_key(|o| format!("{o:?}"));
        }
        let n = interned.len() + 1;
        let k = *interned.entry(l).or_insert(n);
        decoration_of.insert(t, k);
    }
    let decorated = |id: Id, d: Decoration| {
        lists.get(&id).is_some_and(|l| {
            l.iter()
                .any(|ops| matches!(ops.first(), Some(Operand::Decoration(x)) if *x == d))
        })
    };
    let builtin = |id: Id, b: BuiltIn| {
        lists.get(&id).is_some_and(|l| {
            l.iter().any(|ops| {
                matches!(ops.as_slice(), [Operand::Decoration(Decoration::BuiltIn), Operand::BuiltIn(x)] if *x == b)
            })
        })
    };
    let mut global_memory = FxHashMap::default();
    let mut sampled_image_types = FxHashSet::default();
    let mut read_only_images = FxHashSet::default();
    for g in m.globals() {
        let Some(r) = g.result() else { continue };
        if g.op() == Op::TypeSampledImage {
            sampled_image_types.insert(r);
            read_only_images.insert(r);
        }
        // OpTypeImage: sampled type, Dim, Depth, Arrayed, MS, Sampled, Format.
        if g.op() == Op::TypeImage && matches!(g.lits().get(4), Some(Operand::LiteralBit32(1))) {
            read_only_images.insert(r);
        }
        if g.op() != Op::Variable {
            continue;
        }
        let Some((class, pointee)) = g.ty().and_then(|t| pointer_type(m, t)) else {
            continue;
        };
        let volatile = decorated(r, Decoration::Volatile)
            || decorated(r, Decoration::Coherent)
            || builtin(r, BuiltIn::HelperInvocation);
        let memory = match class {
            _ if volatile => Memory::Other,
            StorageClass::UniformConstant | StorageClass::PushConstant | StorageClass::Input => {
                Memory::ReadOnly
            }
            StorageClass::Uniform if !decorated(pointee, Decoration::BufferBlock) => {
                Memory::ReadOnly
            }
            StorageClass::Private => Memory::Own(r),
            _ => Memory::Other,
        };
        global_memory.insert(r, memory);
    }
    ModuleFacts {
        sets: ExtSets::of(m),
        decoration_of,
        global_memory,
        sampled_image_types,
        read_only_images,
    }
}

/// What a pointer (resolved through the replacements so far) points into.
fn memory_of(f: &Function, facts: &ModuleFacts, replace: &Replacer, mut p: Id) -> Memory {
    for _ in 0..64 {
        p = replace.resolve(p);
        if let Some(&mem) = facts.global_memory.get(&p) {
            return mem;
        }
        let Some(i) = f.def_of(p) else {
            return Memory::Other;
        };
        match i.op() {
            Op::Variable => return Memory::Own(p),
            Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject => match i.args().first() {
                Some(&base) => p = base,
                None => return Memory::Other,
            },
            _ => return Memory::Other,
        }
    }
    Memory::Other
}

/// The memory state loads of `Function`/`Private` variables read in an extended basic block:
/// a counter for writes of unknown reach and one per variable written.
#[derive(Clone, Default)]
struct State {
    any: u32,
    own: FxHashMap<Id, u32>,
}

impl State {
    fn of(&self, v: Id) -> (u32, u32) {
        (self.any, self.own.get(&v).copied().unwrap_or(0))
    }
}

fn number_function(
    f: &Function,
    facts: &ModuleFacts,
    replace: &mut Replacer,
    removed: &mut FxHashSet<Id>,
) {
    let fid = f.id();
    let cfg = f.cfg();
    let dt = f.domtree();
    let mut table: FxHashMap<Key, smallvec::SmallVec<[(usize, Id); 1]>> = FxHashMap::default();
    table.reserve(f.arena_len());
    let mut end_state: Vec<Option<State>> = vec![None; cfg.len()];
    let mut counter = 0u32;
    for b in dt.preorder() {
        // An extended basic block continues through a block with one predecessor.
        let mut state = match cfg.preds[b].as_slice() {
            [p] => end_state[*p].clone().unwrap_or_default(),
            _ => {
                counter += 1;
                State {
                    any: counter,
                    own: FxHashMap::default(),
                }
            }
        };
        for inst in f.block_insts(b) {
            let attrs = ops::attrs_of(inst, &facts.sets);
            // Writes first: what they change, later loads see.
            let writes = match inst.op() {
                Op::Store | Op::CopyMemory | Op::CopyMemorySized => Some(
                    inst.args()
                        .first()
                        .map_or(Memory::Other, |&p| memory_of(f, facts, replace, p)),
                ),
                Op::Load => None,
                _ if attrs.contains(Attrs::WRITES_MEMORY) => Some(Memory::Other),
                // Non-semantic instructions (debug info, DebugPrintf) touch no memory.
                _ if !(attrs.contains(Attrs::PURE)
                    || attrs.contains(Attrs::READS_MEMORY)
                    || facts.sets.is_non_semantic_inst(inst)) =>
                {
                    Some(Memory::Other)
                }
                _ => None,
            };
            match writes {
                Some(Memory::Own(v)) => {
                    counter += 1;
                    state.own.insert(v, counter);
                }
                Some(Memory::Other) if inst.op() != Op::Store && inst.op() != Op::CopyMemory => {
                    counter += 1;
                    state.any = counter;
                }
                // A store through a pointer of unknown origin may reach any variable.
                Some(Memory::Other) => {
                    let unknown = inst
                        .args()
                        .first()
                        .is_none_or(|&p| !is_rooted_elsewhere(f, facts, replace, p));
                    if unknown {
                        counter += 1;
                        state.any = counter;
                    }
                }
                _ => {}
            }
            let Some(key) = key_of(f, facts, replace, inst, b, &state) else {
                continue;
            };
            let Some(r) = inst.result() else { continue };
            let candidates = table.entry(key).or_default();
            match candidates.iter().find(|(cb, _)| dt.dominates(*cb, b)) {
                Some(&(_, v)) => {
                    replace.replace_in(fid, r, v);
                    removed.insert(r);
                }
                None => candidates.push((b, r)),
            }
        }
        end_state[b] = Some(state);
    }
}

/// Whether `p` is rooted at a variable that is neither `Function` nor `Private` memory (a
/// store through it cannot change those).
fn is_rooted_elsewhere(f: &Function, facts: &ModuleFacts, replace: &Replacer, mut p: Id) -> bool {
    for _ in 0..64 {
        p = replace.resolve(p);
        if facts.global_memory.contains_key(&p) {
            return true;
        }
        match f.def_of(p) {
            Some(i) if matches!(i.op(), Op::AccessChain | Op::InBoundsAccessChain) => {
                match i.args().first() {
                    Some(&base) => p = base,
                    None => return false,
                }
            }
            _ => return false,
        }
    }
    false
}

fn key_of(
    f: &Function,
    facts: &ModuleFacts,
    replace: &Replacer,
    inst: &Inst,
    b: usize,
    state: &State,
) -> Option<Key> {
    let r = inst.result()?;
    // A sampled image made in a block is used there; a loaded one may be shared.
    if inst.op() != Op::Load
        && inst
            .ty()
            .is_some_and(|t| facts.sampled_image_types.contains(&t))
    {
        return None;
    }
    let mut memory = (0, 0);
    let mut block = None;
    match inst.op() {
        Op::SampledImage | Op::Variable | Op::Undef | Op::FunctionCall => return None,
        // An address, computed from its operands.
        Op::ImageTexelPointer => {}
        // Reads of images nothing writes while the shader runs: the same texels for the same
        // operands. An implicit level of detail reads derivatives, but a sample that an equal
        // one dominates reads the same coordinates in the same invocations, and where it is
        // in control flow that is not uniform its derivatives were undefined anyway.
        _ if ops::attrs_of(inst, &facts.sets).contains(Attrs::IMAGE_READ) => {
            let image = replace.resolve(*inst.args().first()?);
            let ty = f.def_of(image).and_then(|d| d.ty())?;
            if !facts.read_only_images.contains(&ty) {
                return None;
            }
        }
        Op::Phi => block = Some(b),
        Op::Load => {
            if is_volatile(inst) {
                return None;
            }
            let p = *inst.args().first()?;
            match memory_of(f, facts, replace, p) {
                Memory::ReadOnly => {}
                Memory::Own(v) => memory = state.of(v),
                Memory::Other => return None,
            }
        }
        _ => {
            let a = ops::attrs_of(inst, &facts.sets);
            if !a.contains(Attrs::PURE)
                || a.contains(Attrs::DERIVATIVE)
                || a.contains(Attrs::WAVE)
                || a.contains(Attrs::WRITES_MEMORY)
            {
                return None;
            }
        }
    }
    let mut args: smallvec::SmallVec<[Id; 4]> =
        inst.args().iter().map(|&a| replace.resolve(a)).collect();
    if args.len() == 2 && ops::attrs_of(inst, &facts.sets).contains(Attrs::COMMUTATIVE) {
        args.sort_unstable();
    }
    Some(Key {
        op: inst.op(),
        ty: inst.ty(),
        args,
        lits: inst.lits().iter().cloned().collect(),
        block,
        decorations: facts.decoration_of.get(&r).copied().unwrap_or(0),
        memory,
    })
}

pub fn gvn(m: &mut Module) -> bool {
    let facts = facts(m);
    let mut replace = Replacer::new();
    let mut changed = false;
    for f in rewrite::functions_mut(m) {
        if f.is_declaration() {
            continue;
        }
        let mut removed = FxHashSet::default();
        number_function(f, &facts, &mut replace, &mut removed);
        if !removed.is_empty() {
            f.retain_all(|i| !i.result().is_some_and(|r| removed.contains(&r)));
            replace.apply_to_function(f);
            changed = true;
        }
    }
    replace.apply(m, "gvn");
    changed
}

impl Pass for Gvn {
    fn name(&self) -> &'static str {
        "gvn"
    }
    fn description(&self) -> &'static str {
        "global value numbering: a value computed again where an equal one dominates is that one"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(gvn(m).into())
    }
}
