//! Functions: what each instruction is (the arena, Cranelift's `DataFlowGraph`) kept apart from
//! where it is (the blocks' order of instruction ids, Cranelift's `Layout`).
//!
//! An `InstId` names an instruction of one function for as long as it lives: moving it to
//! another block or inserting others around it does not change it, so analyses (use lists,
//! placement) and passes can hold on to it. A removed instruction leaves an empty slot in the
//! arena; its id is not reused.
//!
//! Invariants (the verifier checks them):
//! - every id in a block's `insts` and every terminator names a live instruction of this
//!   function, and each appears once in the layout;
//! - `values` maps exactly the result ids of live instructions to them (it is kept up to date
//!   by every method here that adds, removes or renumbers instructions: change `result` only
//!   through `set_result`);
//! - a block's `insts` hold no terminator and no merge instruction (the merge annotation is
//!   `Block::merge`), and its `terminator` is one.
//!
//! Every method that can change the control-flow graph bumps the function's CFG stamp, every
//! method that can change an instruction bumps its code stamp: analyses cached for a stamp are
//! recomputed when it moves (see `analysis`).

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use rspirv::dr::Operand;
use spirv::Op;

use super::fxhash::FxHashMap;
use super::inst::{Id, Inst};
use super::loc::{Loc, Location, Locations};
use super::markers::{Emitter, Place};

/// An instruction of one function (an index into its arena).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);

impl InstId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for InstId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "i{}", self.0)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Merge {
    Selection {
        merge: Id,
        control: Operand,
    },
    Loop {
        merge: Id,
        continue_target: Id,
        /// LoopControl mask followed by its parameters.
        control: Vec<Operand>,
    },
}

impl Merge {
    pub fn merge_block(&self) -> Id {
        match self {
            Merge::Selection { merge, .. } | Merge::Loop { merge, .. } => *merge,
        }
    }
    pub fn continue_target(&self) -> Option<Id> {
        match self {
            Merge::Loop {
                continue_target, ..
            } => Some(*continue_target),
            _ => None,
        }
    }
    /// Renames the blocks the annotation names.
    pub fn remap(&mut self, mut f: impl FnMut(Id) -> Id) {
        match self {
            Merge::Selection { merge, .. } => *merge = f(*merge),
            Merge::Loop {
                merge,
                continue_target,
                ..
            } => {
                *merge = f(*merge);
                *continue_target = f(*continue_target);
            }
        }
    }
    /// The `OpSelectionMerge`/`OpLoopMerge` instruction this annotation stands for.
    pub fn to_inst(&self) -> Inst {
        match self {
            Merge::Selection { merge, control } => Inst::new(
                Op::SelectionMerge,
                None,
                None,
                vec![Operand::IdRef(*merge), control.clone()],
            ),
            Merge::Loop {
                merge,
                continue_target,
                control,
            } => {
                let mut ops = vec![Operand::IdRef(*merge), Operand::IdRef(*continue_target)];
                ops.extend(control.iter().cloned());
                Inst::new(Op::LoopMerge, None, None, ops)
            }
        }
    }
}

/// A block in the layout: its label, its instructions in order, its merge annotation and its
/// terminator (both instructions live in the function's arena).
#[derive(Clone, Debug)]
pub struct Block {
    /// `OpLine`/`OpNoLine` between the previous block's terminator and this block's label.
    pub lines: Vec<Inst>,
    pub label: Id,
    /// Phis, variables, ordinary and debug-line instructions, in order.
    pub insts: Vec<InstId>,
    pub merge: Option<Merge>,
    pub terminator: InstId,
}

/// A stamp no function has had: stamps say which change a function is at, across functions
/// too (a function built afresh never looks like an older one).
fn fresh_stamp() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// How far a function has changed since an analysis was computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamps {
    /// Moves when a block, an edge or a merge annotation may have changed.
    pub cfg: u64,
    /// Moves when any instruction may have changed (and with every CFG change).
    pub code: u64,
}

#[derive(Clone, Debug)]
pub struct Function {
    /// The `OpFunction` instruction: result type, result id, control, function type.
    pub(in crate::ir) def: Inst,
    pub(in crate::ir) params: Vec<Inst>,
    /// `OpLine`/`OpNoLine` (and non-semantic debug instructions such as `DebugScope`) between
    /// `OpFunction` and the first label, kept in place.
    pub(in crate::ir) prologue_debug: Vec<Inst>,
    /// The same between the previous `OpFunctionEnd` and this `OpFunction`.
    pub(in crate::ir) leading_debug: Vec<Inst>,
    /// The same between the last block's terminator and `OpFunctionEnd` (spirv-opt puts a
    /// `DebugNoScope` there).
    pub(in crate::ir) epilogue_debug: Vec<Inst>,
    insts: Vec<Inst>,
    /// The source locations its instructions' `loc` index (see `ir::loc`).
    pub locs: Locations,
    /// Result ids for the `OpExtInst` location markers the writer says (`DebugScope`,
    /// `DebugLine`...), in the order it says them: those the reader took in, then fresh ones
    /// (`Module::settle_markers`). No instruction defines or uses them.
    pub marker_ids: Vec<Id>,
    /// Empty for a declaration (an imported function).
    blocks: Vec<Block>,
    block_index: OnceLock<FxHashMap<Id, usize>>,
    values: FxHashMap<Id, InstId>,
    stamps: Stamps,
    pub(crate) cache: Cache,
}

impl PartialEq for Function {
    /// Equal when they print the same: arenas may differ in removed slots and order.
    fn eq(&self, other: &Self) -> bool {
        self.def == other.def
            && self.params == other.params
            && self.prologue_debug == other.prologue_debug
            && self.leading_debug == other.leading_debug
            && self.epilogue_debug == other.epilogue_debug
            && self.blocks.len() == other.blocks.len()
            && self.blocks.iter().zip(&other.blocks).all(|(a, b)| {
                a.label == b.label
                    && a.lines == b.lines
                    && a.merge == b.merge
                    && a.insts.len() == b.insts.len()
                    && self.same_inst(a.terminator, other, b.terminator)
                    && a.insts
                        .iter()
                        .zip(&b.insts)
                        .all(|(x, y)| self.same_inst(*x, other, *y))
            })
    }
}

/// The location written markers carry (see `Function::for_each_written_in`); no table has it.
const MARKER: Loc = Loc(u32::MAX);

/// What writing a function's blocks in order carries from one to the next: the result ids
/// given to `OpExtInst` markers (markers said end with their block).
pub struct MarkerIds {
    emitter: Emitter,
    taken: usize,
    next: Id,
}

impl MarkerIds {
    /// For writing a function's blocks: ids from its `marker_ids`, then from `next` up.
    pub fn new(next: Id) -> Self {
        MarkerIds {
            emitter: Emitter::new(MARKER),
            taken: 0,
            next,
        }
    }

    /// One past the last id taken from beyond the function's own.
    pub fn next(&self) -> Id {
        self.next
    }
}

/// What an emptied arena slot holds: an `OpNop` with a result type, which no real `OpNop` has.
fn tombstone() -> Inst {
    Inst::with_args(Op::Nop, Some(u32::MAX), None, Vec::new())
}

/// An analysis of one function, computed on demand and cached in the function until the
/// part of it the analysis reads changes (see `Function::analysis`).
pub trait Analysis: Cached {
    fn compute(f: &Function) -> Self;
}

/// Something cached in a function as analyses are: an [`Analysis`], or what is computed from
/// more than the function (`Function::analysis_where`).
pub trait Cached: Any + Send + Sync + Sized {
    /// Whether it reads only the control-flow graph (blocks, edges, merge annotations);
    /// otherwise it reads instructions too.
    const CFG_ONLY: bool;
}

/// How much location information writing a body says (`Function::for_each_written_in`): the
/// marker ids it takes and the markers in all, with the locations they were counted with (a
/// function's table of locations can change without its code). Cached, as the pipeline counts
/// after every pass, most passes leave most functions as they were, and counting writes the
/// body out: on debug builds, counting again after every pass was a third of a run.
struct SaidCounts {
    locs: Locations,
    ids: usize,
    markers: usize,
}

impl Cached for SaidCounts {
    const CFG_ONLY: bool = false;
}

impl Analysis for SaidCounts {
    fn compute(f: &Function) -> Self {
        let mut markers = 0;
        let mut ids = MarkerIds::new(0);
        for b in 0..f.blocks.len() {
            f.for_each_written_in(b, &mut ids, &mut |i| {
                markers += usize::from(i.loc == MARKER)
            });
        }
        SaidCounts {
            locs: f.locs.clone(),
            ids: ids.taken,
            markers,
        }
    }
}

struct Slot {
    kind: TypeId,
    stamp: u64,
    value: Arc<dyn Any + Send + Sync>,
}

/// Analyses cached for the stamp they were computed at.
#[derive(Default)]
pub(crate) struct Cache {
    slots: Mutex<Vec<Slot>>,
}

impl Clone for Cache {
    fn clone(&self) -> Self {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        Cache {
            slots: Mutex::new(
                slots
                    .iter()
                    .map(|s| Slot {
                        kind: s.kind,
                        stamp: s.stamp,
                        value: s.value.clone(),
                    })
                    .collect(),
            ),
        }
    }
}

impl fmt::Debug for Cache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cache")
    }
}

impl Function {
    /// A function without a body (a declaration until blocks are pushed).
    pub fn new(def: Inst, params: Vec<Inst>) -> Self {
        Function {
            def,
            params,
            prologue_debug: Vec::new(),
            leading_debug: Vec::new(),
            epilogue_debug: Vec::new(),
            insts: Vec::new(),
            locs: Locations::default(),
            marker_ids: Vec::new(),
            blocks: Vec::new(),
            block_index: OnceLock::new(),
            values: FxHashMap::default(),
            stamps: Stamps {
                cfg: fresh_stamp(),
                code: fresh_stamp(),
            },
            cache: Cache::default(),
        }
    }

    pub fn id(&self) -> Id {
        self.def.result.unwrap_or(0)
    }

    /// The `OpFunction` instruction: result type, result id, control, function type.
    pub fn def(&self) -> &Inst {
        &self.def
    }

    /// The `OpFunctionParameter`s, in order.
    pub fn params(&self) -> &[Inst] {
        &self.params
    }

    /// Line info and non-semantic debug instructions between `OpFunction` and the first
    /// label.
    pub fn prologue_debug(&self) -> &[Inst] {
        &self.prologue_debug
    }

    /// The same between the previous `OpFunctionEnd` and this `OpFunction`.
    pub fn leading_debug(&self) -> &[Inst] {
        &self.leading_debug
    }

    /// The same between the last block's terminator and `OpFunctionEnd`.
    pub fn epilogue_debug(&self) -> &[Inst] {
        &self.epilogue_debug
    }

    pub fn is_declaration(&self) -> bool {
        self.blocks.is_empty()
    }

    pub fn stamps(&self) -> Stamps {
        self.stamps
    }

    /// Analysis `A` of this function: the cached one when nothing it reads has changed since
    /// it was computed, else computed now and cached.
    pub fn analysis<A: Analysis>(&self) -> Arc<A> {
        self.analysis_where(|_: &A| true, A::compute)
    }

    /// An analysis computed from more than the function (`compute`), cached as `analysis`
    /// caches, and taken from the cache only when `fits` says it was computed from the same
    /// (the def-use chains are built with the module's classification of its sets).
    pub fn analysis_where<A: Cached>(
        &self,
        fits: impl Fn(&A) -> bool,
        compute: impl FnOnce(&Function) -> A,
    ) -> Arc<A> {
        let stamp = if A::CFG_ONLY {
            self.stamps.cfg
        } else {
            self.stamps.code
        };
        let kind = TypeId::of::<A>();
        {
            let slots = self.cache.slots.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(s) = slots.iter().find(|s| s.kind == kind && s.stamp == stamp) {
                if let Ok(a) = s.value.clone().downcast::<A>() {
                    if fits(&a) {
                        return a;
                    }
                }
            }
        }
        // Computed without the lock: an analysis may ask for others.
        let a = Arc::new(compute(self));
        let mut slots = self.cache.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.retain(|s| s.kind != kind);
        slots.push(Slot {
            kind,
            stamp,
            value: a.clone(),
        });
        a
    }

    /// Whether analysis `A` is cached and current.
    pub fn has_analysis<A: Cached>(&self) -> bool {
        let stamp = if A::CFG_ONLY {
            self.stamps.cfg
        } else {
            self.stamps.code
        };
        let slots = self.cache.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots
            .iter()
            .any(|s| s.kind == TypeId::of::<A>() && s.stamp == stamp)
    }

    fn touch_code(&mut self) {
        self.stamps.code = fresh_stamp();
    }

    fn touch_cfg(&mut self) {
        let s = fresh_stamp();
        self.stamps.cfg = s;
        self.stamps.code = s;
    }

    /// Whether this is `other` unchanged since one was copied from the other: every change of
    /// a body moves its stamps (and stamps are never reused), the rest is compared.
    pub fn unchanged_from(&self, other: &Function) -> bool {
        self.stamps == other.stamps
            && self.def == other.def
            && self.params == other.params
            && self.prologue_debug == other.prologue_debug
            && self.leading_debug == other.leading_debug
            && self.epilogue_debug == other.epilogue_debug
            && self.marker_ids == other.marker_ids
            && self.locs == other.locs
    }

    // ---- Reading ----

    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    pub fn block(&self, b: usize) -> &Block {
        &self.blocks[b]
    }

    /// The layout position of the block labelled `label`.
    pub fn block_index(&self, label: Id) -> Option<usize> {
        self.block_index
            .get_or_init(|| {
                self.blocks
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (b.label, i))
                    .collect()
            })
            .get(&label)
            .copied()
    }

    pub fn block_by_label(&self, label: Id) -> Option<&Block> {
        self.block_index(label).map(|b| &self.blocks[b])
    }

    /// The arena id of `inst` when it is a reference into this function's arena (not a copy,
    /// as the location markers and merges `for_each_written_in` makes are).
    pub fn arena_id_of(&self, inst: &Inst) -> Option<InstId> {
        let size = std::mem::size_of::<Inst>();
        let base = self.insts.as_ptr() as usize;
        let at = inst as *const Inst as usize;
        let offset = at.checked_sub(base)?;
        (offset % size == 0 && offset / size < self.insts.len())
            .then(|| InstId((offset / size) as u32))
    }

    pub fn inst(&self, i: InstId) -> &Inst {
        &self.insts[i.index()]
    }

    /// The terminator of block `b`.
    pub fn terminator(&self, b: usize) -> &Inst {
        self.inst(self.blocks[b].terminator)
    }

    /// The successors of block `b`, as labels.
    pub fn successors(&self, b: usize) -> &[Id] {
        self.terminator(b).branch_targets()
    }

    /// The instructions of block `b` before its terminator.
    pub fn block_insts(
        &self,
        b: usize,
    ) -> impl DoubleEndedIterator<Item = &Inst> + ExactSizeIterator + '_ {
        self.blocks[b].insts.iter().map(|&i| &self.insts[i.index()])
    }

    /// Every instruction of the body in layout order, terminators included, with its block.
    pub fn layout(&self) -> impl Iterator<Item = (usize, InstId)> + '_ {
        self.blocks.iter().enumerate().flat_map(|(b, block)| {
            block
                .insts
                .iter()
                .copied()
                .chain(std::iter::once(block.terminator))
                .map(move |i| (b, i))
        })
    }

    /// Every instruction of the body in layout order, terminators excepted.
    pub fn insts(&self) -> impl Iterator<Item = &Inst> + '_ {
        self.blocks
            .iter()
            .flat_map(|b| b.insts.iter().map(|&i| &self.insts[i.index()]))
    }

    /// Every instruction of the body in layout order, terminators included.
    pub fn body(&self) -> impl Iterator<Item = &Inst> + '_ {
        self.layout().map(|(_, i)| &self.insts[i.index()])
    }

    /// The instruction defining `value` in the body (not a parameter).
    pub fn value(&self, value: Id) -> Option<InstId> {
        self.values.get(&value).copied()
    }

    /// The instruction defining `value`: a body instruction or a parameter.
    pub fn def_of(&self, value: Id) -> Option<&Inst> {
        match self.value(value) {
            Some(i) => Some(self.inst(i)),
            None => self.params.iter().find(|p| p.result == Some(value)),
        }
    }

    /// Every id the function defines: itself, its parameters, its blocks and its values.
    pub fn defined_ids(&self) -> impl Iterator<Item = Id> + '_ {
        std::iter::once(self.id())
            .chain(self.params.iter().filter_map(|p| p.result))
            .chain(self.blocks.iter().map(|b| b.label))
            .chain(self.body().filter_map(|i| i.result))
    }

    /// Size of the arena: every `InstId` of this function is below it.
    pub fn arena_len(&self) -> usize {
        self.insts.len()
    }

    pub fn is_live(&self, i: InstId) -> bool {
        self.insts
            .get(i.index())
            .is_some_and(|inst| inst.op != Op::Nop || inst.ty != Some(u32::MAX))
    }

    pub fn inst_count(&self) -> usize {
        // OpFunction + params + per block: label, insts, merge, terminator + OpFunctionEnd.
        2 + self.params.len()
            + self.prologue_debug.len()
            + self.leading_debug.len()
            + self.epilogue_debug.len()
            + self
                .blocks
                .iter()
                .map(|b| 2 + b.lines.len() + b.insts.len() + usize::from(b.merge.is_some()))
                .sum::<usize>()
            + self.all_markers_said()
    }

    // ---- Locations ----

    /// The source location of an instruction of this function.
    pub fn location(&self, loc: Loc) -> &Location {
        self.locs.get(loc)
    }

    /// The source location of instruction `i`.
    pub fn location_of(&self, i: InstId) -> &Location {
        self.locs.get(self.insts[i.index()].loc)
    }

    /// Gives instruction `i` the location `location` (interned in this function's table).
    pub fn set_location(&mut self, i: InstId, location: Location) {
        let loc = self.locs.intern(location);
        if self.insts[i.index()].loc != loc {
            self.touch_code();
            self.insts[i.index()].loc = loc;
        }
    }

    /// Whether `a` of this function and `b` of `other` are the same instruction at the same
    /// source location.
    fn same_inst(&self, a: InstId, other: &Function, b: InstId) -> bool {
        let (x, y) = (self.inst(a), other.inst(b));
        x == y && self.location(x.loc) == other.location(y.loc)
    }

    /// How many `OpExtInst` location markers the writer says for this body.
    pub fn markers_said(&self) -> usize {
        self.said_counts().0
    }

    /// How many location markers of any kind the writer says for this body.
    fn all_markers_said(&self) -> usize {
        self.said_counts().1
    }

    /// The marker ids writing the body takes, and the markers it says in all.
    fn said_counts(&self) -> (usize, usize) {
        // Without locations (a build without debug info) there is nothing to say.
        if self.locs.is_empty() {
            return (0, 0);
        }
        let cached = self.analysis::<SaidCounts>();
        if cached.locs == self.locs {
            return (cached.ids, cached.markers);
        }
        // The table of locations changed under the same code.
        let fresh = SaidCounts::compute(self);
        (fresh.ids, fresh.markers)
    }

    /// The body as written: for each block its leading line info, label, instructions (each
    /// after the location markers that say where it is), merge and terminator. The markers'
    /// result ids are `marker_ids` in order, then `*next` and up.
    pub fn for_each_written(&self, next: &mut Id, f: &mut impl FnMut(&Inst)) {
        let mut ids = MarkerIds::new(*next);
        for (b, block) in self.blocks.iter().enumerate() {
            block.lines.iter().for_each(&mut *f);
            f(&Inst::label(block.label));
            self.for_each_written_in(b, &mut ids, f);
        }
        *next = ids.next;
    }

    /// Block `b` as written after its label: its instructions, each after the location markers
    /// that say where it is, its merge and its terminator. Markers said in one block end with
    /// it; `ids` gives the marker result ids, shared by every block in layout order.
    pub fn for_each_written_in(&self, b: usize, ids: &mut MarkerIds, f: &mut impl FnMut(&Inst)) {
        let block = &self.blocks[b];
        let emitter = &mut ids.emitter;
        emitter.start_block();
        let mut prefix = true;
        let pool = &self.marker_ids;
        let (taken, next) = (&mut ids.taken, &mut ids.next);
        let mut id = || {
            *taken += 1;
            pool.get(*taken - 1).copied().unwrap_or_else(|| {
                *next += 1;
                *next - 1
            })
        };
        let mut say = |emitter: &mut Emitter, loc: Loc, place: Place, f: &mut dyn FnMut(&Inst)| {
            emitter.say(self.locs.get(loc), place, &mut id, &mut |m: &Inst| f(m))
        };
        for &i in &block.insts {
            let inst = &self.insts[i.index()];
            prefix &= inst.op == Op::Phi || (b == 0 && inst.op == Op::Variable);
            let place = if prefix {
                Place::LinesOnly
            } else {
                Place::Anywhere
            };
            say(emitter, inst.loc, place, &mut *f);
            f(inst);
        }
        let t = &self.insts[block.terminator.index()];
        say(emitter, t.loc, Place::Anywhere, &mut *f);
        if let Some(m) = &block.merge {
            f(&m.to_inst());
        }
        f(t);
    }

    // ---- Changing ----

    /// Adds `inst` to the arena (not yet to a block) and returns its id.
    pub fn add_inst(&mut self, inst: Inst) -> InstId {
        let id = InstId(self.insts.len() as u32);
        if let Some(r) = inst.result {
            self.values.insert(r, id);
        }
        self.insts.push(inst);
        self.touch_code();
        id
    }

    /// `add_inst` for code made where `like` stands: without a location of its own, it takes
    /// `like`'s.
    pub fn add_inst_like(&mut self, mut inst: Inst, like: InstId) -> InstId {
        if inst.loc.is_none() {
            inst.loc = self.insts[like.index()].loc;
        }
        self.add_inst(inst)
    }

    /// The instruction, to change in place. Change its result only through `set_result`.
    pub(in crate::ir) fn inst_mut(&mut self, i: InstId) -> &mut Inst {
        if self.insts[i.index()].is_terminator() {
            self.touch_cfg();
        } else {
            self.touch_code();
        }
        &mut self.insts[i.index()]
    }

    /// Renames the id operands of instruction `i` through `rename`; returns whether any
    /// changed. Only a changed branch target moves the CFG stamp (a branch's condition or a
    /// returned value is code).
    pub fn map_args(&mut self, i: InstId, rename: impl Fn(Id) -> Id) -> bool {
        let inst = &self.insts[i.index()];
        let new: Vec<Id> = inst.args.iter().map(|&a| rename(a)).collect();
        if *new == *inst.args {
            return false;
        }
        let range = inst.target_range();
        let targets_changed = new.get(range.clone()) != inst.args.get(range);
        if targets_changed {
            self.touch_cfg();
        } else {
            self.touch_code();
        }
        self.insts[i.index()].args = new.into();
        true
    }

    /// Sets id operand `k` of instruction `i` (see `map_args` for what it counts as a change
    /// of the CFG).
    pub fn set_arg(&mut self, i: InstId, k: usize, id: Id) {
        let inst = &self.insts[i.index()];
        if inst.args.get(k) == Some(&id) {
            return;
        }
        if inst.target_range().contains(&k) {
            self.touch_cfg();
        } else {
            self.touch_code();
        }
        self.insts[i.index()].args[k] = id;
    }

    /// Replaces the instruction `i` by `inst` (keeping its place), updating the value index.
    /// Replacing a terminator by one with the same opcode and targets is a change of code, not
    /// of the CFG.
    /// An instruction without a location takes the one it replaces.
    pub fn replace_inst(&mut self, i: InstId, mut inst: Inst) -> Inst {
        if inst.loc.is_none() {
            inst.loc = self.insts[i.index()].loc;
        }
        if let Some(r) = inst.result {
            self.values.insert(r, i);
        }
        let current = &self.insts[i.index()];
        let same_flow = current.op == inst.op && current.branch_targets() == inst.branch_targets();
        if (current.is_terminator() || inst.is_terminator()) && !same_flow {
            self.touch_cfg();
        } else {
            self.touch_code();
        }
        let old = std::mem::replace(&mut self.insts[i.index()], inst);
        if let Some(r) = old.result {
            if self.insts[i.index()].result != Some(r) {
                self.values.remove(&r);
            }
        }
        old
    }

    pub fn set_result(&mut self, i: InstId, result: Option<Id>) {
        if let Some(old) = self.insts[i.index()].result {
            self.values.remove(&old);
        }
        if let Some(r) = result {
            self.values.insert(r, i);
        }
        self.inst_mut(i).result = result;
    }

    /// Empties the arena slot of an instruction that is no longer in the layout.
    pub fn free_inst(&mut self, i: InstId) -> Inst {
        let old = std::mem::replace(&mut self.insts[i.index()], tombstone());
        if let Some(r) = old.result {
            if self.values.get(&r) == Some(&i) {
                self.values.remove(&r);
            }
        }
        self.touch_code();
        old
    }

    /// Inserts `inst` into block `b` at position `pos` of its instruction list. An instruction
    /// without a location takes the one in force there, as a marker-based reader would see it:
    /// the instruction's before it (or, at the head of the block, after it). Code made where
    /// other code stands belongs to the same source.
    pub fn insert_inst(&mut self, b: usize, pos: usize, mut inst: Inst) -> InstId {
        if inst.loc.is_none() {
            inst.loc = self.loc_at(b, pos);
        }
        let id = self.add_inst(inst);
        self.blocks[b].insts.insert(pos, id);
        id
    }

    /// Appends `inst` to block `b`, before its terminator (taking the location in force there
    /// if it has none, see `insert_inst`).
    pub fn append_inst(&mut self, b: usize, mut inst: Inst) -> InstId {
        if inst.loc.is_none() {
            inst.loc = self.loc_at(b, self.blocks[b].insts.len());
        }
        let id = self.add_inst(inst);
        self.blocks[b].insts.push(id);
        id
    }

    /// The location in force at position `pos` of block `b`: the instruction's before it with
    /// a location, else the one's at `pos` (or the terminator's).
    fn loc_at(&self, b: usize, pos: usize) -> Loc {
        let block = &self.blocks[b];
        let before = pos
            .checked_sub(1)
            .and_then(|p| block.insts.get(p))
            .map(|i| self.insts[i.index()].loc)
            .filter(|l| !l.is_none());
        before.unwrap_or_else(|| {
            let next = block.insts.get(pos).copied().unwrap_or(block.terminator);
            self.insts[next.index()].loc
        })
    }

    /// Removes the instruction at `pos` of block `b` from the layout and the arena.
    pub fn remove_inst(&mut self, b: usize, pos: usize) -> Inst {
        let id = self.blocks[b].insts.remove(pos);
        self.free_inst(id)
    }

    /// Keeps the instructions of block `b` (terminator excepted) for which `keep` holds; the
    /// others leave the layout and the arena.
    pub fn retain_insts(&mut self, b: usize, mut keep: impl FnMut(&Inst) -> bool) -> usize {
        self.retain_ids(b, |_, i| keep(i))
    }

    /// `retain_insts`, with each instruction's id.
    pub fn retain_ids(&mut self, b: usize, mut keep: impl FnMut(InstId, &Inst) -> bool) -> usize {
        let ids = std::mem::take(&mut self.blocks[b].insts);
        let mut kept = Vec::with_capacity(ids.len());
        let mut removed = 0;
        for id in ids {
            if keep(id, &self.insts[id.index()]) {
                kept.push(id);
            } else {
                self.free_inst(id);
                removed += 1;
            }
        }
        self.blocks[b].insts = kept;
        if removed > 0 {
            self.touch_code();
        }
        removed
    }

    /// `retain_insts` over every block.
    pub fn retain_all(&mut self, mut keep: impl FnMut(&Inst) -> bool) -> usize {
        (0..self.blocks.len())
            .map(|b| self.retain_insts(b, &mut keep))
            .sum()
    }

    /// The instruction list of block `b`, to reorder or to take instructions out of (what is
    /// taken out stays in the arena until `free_inst`).
    pub(in crate::ir) fn block_insts_mut(&mut self, b: usize) -> &mut Vec<InstId> {
        self.touch_code();
        &mut self.blocks[b].insts
    }

    /// Replaces the terminator of block `b`.
    pub fn set_terminator(&mut self, b: usize, inst: Inst) -> Inst {
        let t = self.blocks[b].terminator;
        self.touch_cfg();
        self.replace_inst(t, inst)
    }

    pub fn set_merge(&mut self, b: usize, merge: Option<Merge>) {
        self.touch_cfg();
        self.blocks[b].merge = merge;
    }

    /// Appends a block: `insts` in order, then `terminator`. Returns its layout position.
    pub fn push_block(
        &mut self,
        label: Id,
        insts: Vec<Inst>,
        merge: Option<Merge>,
        terminator: Inst,
    ) -> usize {
        let b = self.blocks.len();
        let block = self.new_block(label, insts, merge, terminator);
        self.blocks.push(block);
        if let Some(index) = self.block_index.get_mut() {
            index.insert(label, b);
        }
        self.touch_cfg();
        b
    }

    /// A block whose instructions are in the arena but which is not yet in the layout: put it
    /// there with `blocks_mut`.
    pub fn new_block(
        &mut self,
        label: Id,
        insts: Vec<Inst>,
        merge: Option<Merge>,
        terminator: Inst,
    ) -> Block {
        let insts = insts.into_iter().map(|i| self.add_inst(i)).collect();
        let terminator = self.add_inst(terminator);
        Block {
            lines: Vec::new(),
            label,
            insts,
            merge,
            terminator,
        }
    }

    /// One block, to change anything of it (its instructions stay in the arena).
    pub(in crate::ir) fn block_mut(&mut self, b: usize) -> &mut Block {
        self.touch_cfg();
        self.block_index = OnceLock::new();
        &mut self.blocks[b]
    }

    /// The layout, to add, remove or reorder blocks. The instructions of a block taken out
    /// stay in the arena (unreachable from the layout) until `free_block`.
    pub(in crate::ir) fn blocks_mut(&mut self) -> &mut Vec<Block> {
        self.touch_cfg();
        self.block_index = OnceLock::new();
        &mut self.blocks
    }

    /// Frees the instructions of a block that has left the layout.
    pub fn free_block(&mut self, block: &Block) {
        for &i in block.insts.iter().chain(std::iter::once(&block.terminator)) {
            self.free_inst(i);
        }
    }

    /// Drops every source location, and the line info between blocks (a change of debug info,
    /// not of the CFG).
    pub fn clear_locations(&mut self) {
        if self.blocks.iter().any(|b| !b.lines.is_empty()) || !self.locs.is_empty() {
            self.touch_code();
            for b in &mut self.blocks {
                b.lines.clear();
            }
            for i in &mut self.insts {
                i.loc = Loc::NONE;
            }
            self.locs = Locations::default();
            self.marker_ids.clear();
        }
    }

    /// Renames every id of the function (definition, parameters, body, labels, merge
    /// annotations) through `f`.
    pub(in crate::ir) fn remap_ids(&mut self, f: &impl Fn(Id) -> Id) {
        self.def.remap_ids(f);
        for p in &mut self.params {
            p.remap_ids(f);
        }
        for i in self
            .prologue_debug
            .iter_mut()
            .chain(&mut self.leading_debug)
            .chain(&mut self.epilogue_debug)
        {
            i.remap_ids(f);
        }
        for i in &mut self.insts {
            i.remap_ids(f);
        }
        // Ids the writer would not say stay unmapped (they may clash once renumbered).
        let said = self.markers_said();
        self.marker_ids.truncate(said);
        for id in &mut self.marker_ids {
            *id = f(*id);
        }
        self.locs.remap_ids(f);
        for b in &mut self.blocks {
            b.label = f(b.label);
            for l in &mut b.lines {
                l.remap_ids(f);
            }
            if let Some(m) = &mut b.merge {
                m.remap(f);
            }
        }
        self.reindex();
    }

    /// Rebuilds the value and block indexes from the arena and layout.
    pub fn reindex(&mut self) {
        self.values.clear();
        for (k, i) in self.insts.iter().enumerate() {
            if let Some(r) = i.result {
                self.values.insert(r, InstId(k as u32));
            }
        }
        self.block_index = OnceLock::new();
        self.touch_cfg();
    }

    /// Drops the empty slots of the arena, renumbering the instructions in layout order.
    pub fn compact(&mut self) {
        let mut insts = Vec::with_capacity(self.insts.len());
        for b in &mut self.blocks {
            for i in b.insts.iter_mut().chain(std::iter::once(&mut b.terminator)) {
                let new = InstId(insts.len() as u32);
                insts.push(std::mem::replace(&mut self.insts[i.index()], tombstone()));
                *i = new;
            }
        }
        self.insts = insts;
        self.reindex();
    }
}
