//! The program the interpreter runs: each function decoded once, before the first
//! instruction executes. Every instruction is classified once (what `Machine::step` does with
//! it: the op table's evaluation, a load, a derivative that waits for its quad…), every value
//! an instruction defines gets a numbered slot in its call's frame, and each block's phis are
//! gathered with the incoming value per predecessor block. Running, an instruction costs a
//! match on its kind and reads its operands by slot: no lookup of ops, sets or ids in maps.

use spirv::{ExecutionModel, Op};

use super::super::ext_sets::{ExtSets, SetKind};
use super::super::func::{Function, InstId};
use super::super::idmap::IdMap;
use super::super::inst::{Id, Inst};
use super::super::module::Module;
use super::subgroup;

/// What running an instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Nothing: phis (evaluated on entering the block), line markers, non-semantic
    /// instructions, assumptions, memory barriers, interlocks.
    Nothing,
    /// A derivative in a fragment stage: it waits for its quad.
    Derivative,
    /// A subgroup operation in a compute stage: it waits for its subgroup.
    Subgroup,
    Demote,
    IsHelper,
    ControlBarrier,
    Variable,
    AccessChain,
    Load,
    Store,
    CopyMemory,
    ArrayLength,
    Call,
    Image,
    Atomic,
    CopyObject,
    TexelPointer,
    /// GLSL.std.450 `Modf` or `Frexp`: a result and a store.
    ModfFrexp,
    PtrEqual,
    /// Anything else: a conversion of a buffer address or the op table's evaluation.
    Pure,
}

/// An instruction ready to run (its result's slot: `Slots`).
pub(super) struct Decoded<'m> {
    pub inst: &'m Inst,
    pub at: InstId,
    pub kind: Kind,
}

/// A phi of a block: its slot and the value it takes from each predecessor (by block index).
pub(super) struct Phi {
    pub id: Id,
    pub slot: u32,
    pub incoming: Vec<(usize, Id)>,
}

pub(super) struct Block<'m> {
    /// Parallel to the IR block's `insts`: `ip` indexes both.
    pub insts: Vec<Decoded<'m>>,
    pub phis: Vec<Phi>,
    pub terminator: &'m Inst,
    /// Block indices of the terminator's targets, in operand order (a switch's default
    /// first); `None` for a label that is no block of the function.
    pub targets: Vec<Option<usize>>,
}

/// A function ready to run.
pub(super) struct Code<'m> {
    pub f: &'m Function,
    pub blocks: Vec<Block<'m>>,
    /// Values a call of it holds: parameters and instruction results.
    pub slots: u32,
    /// The slots of its parameters, in order.
    pub params: Vec<u32>,
}

/// Where an id's value lives: the slot of a function-local value, by id (`NOT_LOCAL` for
/// any other).
pub(super) type Slots = IdMap<u32>;

/// Not a function-local value: a global variable, a constant, or nothing.
pub(super) const NOT_LOCAL: u32 = u32::MAX;

pub(super) fn decode<'m>(
    m: &'m Module,
    sets: &ExtSets,
    model: ExecutionModel,
) -> (Vec<Code<'m>>, Slots) {
    let mut slots = Slots::new(m, NOT_LOCAL);
    let code = m
        .functions()
        .iter()
        .map(|f| decode_function(f, sets, model, &mut slots))
        .collect();
    (code, slots)
}

fn decode_function<'m>(
    f: &'m Function,
    sets: &ExtSets,
    model: ExecutionModel,
    slots: &mut Slots,
) -> Code<'m> {
    let mut next = 0u32;
    let mut slot_for = |id: Id, slots: &mut Slots| {
        let s = next;
        next += 1;
        *slots.get_mut(id) = s;
        s
    };
    let params = f
        .params()
        .iter()
        .filter_map(|p| p.result())
        .map(|r| slot_for(r, slots))
        .collect();
    let mut blocks = Vec::with_capacity(f.blocks().len());
    for b in f.blocks() {
        let mut insts = Vec::with_capacity(b.insts.len());
        let mut phis = Vec::new();
        for &i in &b.insts {
            let inst = f.inst(i);
            let slot = inst.result().map(|r| slot_for(r, slots));
            if let (Op::Phi, Some(slot), Some(id)) = (inst.op(), slot, inst.result()) {
                let incoming = inst
                    .args()
                    .chunks(2)
                    .filter_map(|pair| match pair {
                        &[value, label] => Some((f.block_index(label)?, value)),
                        _ => None,
                    })
                    .collect();
                phis.push(Phi { id, slot, incoming });
            }
            insts.push(Decoded {
                inst,
                at: i,
                kind: kind(inst, sets, model),
            });
        }
        let terminator = f.inst(b.terminator);
        let labels: Vec<Id> = match terminator.op() {
            Op::Branch => terminator.args().to_vec(),
            Op::BranchConditional => terminator.args().get(1..3).unwrap_or_default().to_vec(),
            // The selector, the default, then (literal, label) pairs.
            Op::Switch => terminator.args().get(1..).unwrap_or_default().to_vec(),
            _ => Vec::new(),
        };
        blocks.push(Block {
            insts,
            phis,
            terminator,
            targets: labels.iter().map(|&l| f.block_index(l)).collect(),
        });
    }
    Code {
        f,
        blocks,
        slots: next,
        params,
    }
}

fn kind(inst: &Inst, sets: &ExtSets, model: ExecutionModel) -> Kind {
    let ext = inst.ext_inst().map(|(s, n)| (sets.kind(s), n));
    match inst.op() {
        Op::Phi
        | Op::Nop
        | Op::Line
        | Op::NoLine
        | Op::MemoryBarrier
        | Op::AssumeTrueKHR
        | Op::BeginInvocationInterlockEXT
        | Op::EndInvocationInterlockEXT => Kind::Nothing,
        Op::ExtInst if ext.is_some_and(|(k, _)| k.is_some_and(SetKind::is_non_semantic)) => {
            Kind::Nothing
        }
        Op::DPdx
        | Op::DPdy
        | Op::Fwidth
        | Op::DPdxFine
        | Op::DPdyFine
        | Op::FwidthFine
        | Op::DPdxCoarse
        | Op::DPdyCoarse
        | Op::FwidthCoarse
            if model == ExecutionModel::Fragment =>
        {
            Kind::Derivative
        }
        op if subgroup::is_subgroup_op(op) && model == ExecutionModel::GLCompute => Kind::Subgroup,
        Op::DemoteToHelperInvocation => Kind::Demote,
        Op::IsHelperInvocationEXT => Kind::IsHelper,
        Op::ControlBarrier => Kind::ControlBarrier,
        Op::Variable => Kind::Variable,
        Op::AccessChain
        | Op::InBoundsAccessChain
        | Op::PtrAccessChain
        | Op::InBoundsPtrAccessChain => Kind::AccessChain,
        Op::Load => Kind::Load,
        Op::Store => Kind::Store,
        Op::CopyMemory => Kind::CopyMemory,
        Op::ArrayLength => Kind::ArrayLength,
        Op::FunctionCall => Kind::Call,
        Op::SampledImage
        | Op::Image
        | Op::ImageSampleImplicitLod
        | Op::ImageSampleExplicitLod
        | Op::ImageSampleProjImplicitLod
        | Op::ImageSampleProjExplicitLod
        | Op::ImageSampleDrefImplicitLod
        | Op::ImageSampleDrefExplicitLod
        | Op::ImageSampleProjDrefImplicitLod
        | Op::ImageSampleProjDrefExplicitLod
        | Op::ImageFetch
        | Op::ImageRead
        | Op::ImageWrite
        | Op::ImageGather
        | Op::ImageDrefGather
        | Op::ImageQuerySize
        | Op::ImageQuerySizeLod
        | Op::ImageQueryLevels
        | Op::ImageQueryLod
        | Op::ImageQuerySamples => Kind::Image,
        op if super::super::inst::is_atomic(op) => Kind::Atomic,
        Op::CopyObject => Kind::CopyObject,
        Op::ImageTexelPointer => Kind::TexelPointer,
        // GLSL.std.450 Modf (35) and Frexp (51).
        Op::ExtInst if matches!(ext, Some((Some(SetKind::Glsl), 35 | 51))) => Kind::ModfFrexp,
        Op::PtrEqual | Op::PtrNotEqual => Kind::PtrEqual,
        _ => Kind::Pure,
    }
}
