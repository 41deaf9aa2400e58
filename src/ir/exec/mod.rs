//! An interpreter of the IR: runs a compute entry point of any step over every invocation of
//! a dispatch, on buffers given as bytes, and says what each executed instruction computed and
//! where the shader does what SPIR-V leaves undefined. It knows nothing of Vulkan: whoever
//! runs it (`pipeline`) gives it the same bytes the driver harness gives the driver.
//!
//! Values are `consts::Const` and every pure instruction is evaluated by `Consts::eval`, the
//! constant folder's evaluator (the op table's rules applied component-wise), so the folder
//! and the interpreter share one evaluation of each op. Where a rule declines an operand
//! (division by zero, a shift by the width or more) the result is undefined: a finding, and
//! the value is `Undef` from there on. Memory is a tree per variable (`memory::Mem`). What
//! runs is each function decoded once (`decode`): instructions classified, values in numbered
//! slots of their call's frame, phis and branch targets resolved.
//!
//! Invocations of a workgroup run one after the other, each until it ends or reaches a
//! workgroup barrier; when every one has reached it, they go on. The order is fixed (x, then
//! y, then z; workgroups likewise), so two runs execute the same instructions in the same
//! order, which is what comparing two steps value by value relies on.

mod addresses;
mod decode;
mod draw;
mod images;
mod memory;
mod partly;
pub mod raster;
mod subgroup;

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rspirv::dr::Operand;
use spirv::{BuiltIn, ExecutionMode, ExecutionModel, Op, StorageClass};

use super::consts::{self, Const, Consts, Eval};
use super::ext_sets::ExtSets;
use super::func::Function;
use super::fxhash::{FxHashMap, FxHashSet};
use super::inst::{Id, Inst};
use super::module::Module;
use super::ops;
use super::qptr::{Layout, Place};
pub use addresses::address_of;
use decode::{Code, Kind, Slots, NOT_LOCAL};
pub use draw::{draw, Attachment, Attribute, DrawExecution, DrawInputs, Who};
pub use images::{
    f32c as texel_float, int as texel_int, Dim as ImageDim, Encoding, Image, Sampler,
    SamplerBinding,
};
use memory::Bytes;
pub use memory::Mem;

/// What a dispatch reads: the bytes of each buffer binding, push constants, images and
/// samplers, and how many workgroups run.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub buffers: Vec<Buffer>,
    pub push_constants: Vec<u8>,
    pub images: Vec<Image>,
    pub samplers: Vec<SamplerBinding>,
    /// Bindings the caller could not describe, with why: a shader that uses one is refused
    /// with that reason.
    pub unsupported: Vec<(u32, u32, String)>,
    pub groups: [u32; 3],
    /// The bytes of the buffers behind buffer addresses: buffer `k` is at `address_of(k)`,
    /// and whatever holds an address (buffers, push constants, these) holds such numbers.
    pub pointees: Vec<Vec<u8>>,
}

/// The bytes of the buffer at a descriptor set and binding (and element of an array of
/// buffers bound there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub set: u32,
    pub binding: u32,
    pub element: u32,
    pub bytes: Vec<u8>,
}

impl Buffer {
    /// Whether it is the buffer `other` is (the same set, binding and element).
    pub fn is(&self, other: &Buffer) -> bool {
        (self.set, self.binding, self.element) == (other.set, other.binding, other.element)
    }

    /// `set S binding B`, with `[E]` for an element of an array.
    pub fn name(&self) -> String {
        match self.element {
            0 => format!("set {} binding {}", self.set, self.binding),
            e => format!("set {} binding {}[{e}]", self.set, self.binding),
        }
    }
}

/// Limits of a run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Instructions executed in all invocations together before the run stops (a loop that
    /// does not end is a finding, never a hang).
    pub budget: u64,
    /// Results recorded in the trace before recording stops (the run goes on).
    pub trace_limit: usize,
    /// Record only this invocation's results and blocks (by number, as the trace numbers
    /// them): a whole run of a big draw would not fit the trace.
    pub trace_only: Option<u32>,
    /// A fragment stage's 32-bit float arithmetic reads denormal operands as zero and
    /// flushes denormal results to zero, unless the entry point asks for `DenormPreserve`.
    /// Vulkan lets a driver do either; lavapipe flushes in its fragment shading threads and
    /// not in compute or vertex processing. Moving bits (bitcasts, composites, selects)
    /// flushes nothing.
    pub flush_denormals: bool,
    /// Invocations of a subgroup in a compute dispatch (`subgroup`): the driver's. 8 is
    /// lavapipe's on x86-64 with AVX2 (its SIMD width in 32-bit lanes).
    pub subgroup_size: u32,
    /// A draw shades only the 2×2 quads holding these pixels (a pixel may repeat); the rest
    /// of every attachment keeps its clear value. A reducer asks whether a candidate still
    /// computes otherwise where its input did, at a fraction of a whole draw's cost.
    pub only_quads_of: Option<[[u32; 2]; 4]>,
    /// With `trace_only`, in the stage of this model: the run stops once nothing more of that
    /// invocation would be recorded (it has ended, or the trace is full), its outputs left
    /// unfinished. A second run for one invocation's values needs no more: the first gave
    /// the outputs.
    pub stop_once_traced: Option<ExecutionModel>,
    /// Set by another thread when the run is no longer wanted: it stops within a few
    /// thousand instructions, and says it was cancelled.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget: 20_000_000,
            trace_limit: 2_000_000,
            trace_only: None,
            flush_denormals: true,
            subgroup_size: 8,
            only_quads_of: None,
            stop_once_traced: None,
            cancel: None,
        }
    }
}

/// A value an instruction computed.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Const(Const),
    /// Where a pointer points: a variable and the path into it.
    Pointer(Pointer),
    /// An image, a sampler or both (`OpSampledImage`).
    Handle(Handle),
    /// A composite some of whose parts are undefined (each part a `Const`, `Partly` or
    /// `Undef`).
    Partly(Vec<Value>),
    /// An undefined value: `OpUndef`, an unwritten variable, an undefined result.
    Undef,
}

impl Value {
    /// A pointer's root (`Execution::root_vars` names its variable) and the indices into it.
    pub fn pointer_parts(&self) -> Option<(usize, &[u32])> {
        match self {
            Value::Pointer(p) => Some((p.root, &p.path)),
            _ => None,
        }
    }
}

/// What an image or sampler variable holds: the image (its number among the run's) and the
/// sampler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle {
    image: Option<usize>,
    sampler: Option<Sampler>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pointer {
    root: usize,
    path: Path,
}

/// The indices from a variable's root to a part of it: inline, as most are short and every
/// load and store copies one.
type Path = smallvec::SmallVec<[u32; 4]>;

/// One executed instruction's result, in execution order.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The invocation: its index in the dispatch (`Execution::invocation_of` gives its id).
    pub invocation: u32,
    pub id: Id,
    pub value: Value,
}

/// What SPIR-V leaves undefined, seen while running.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FindingKind {
    /// An op's result is undefined for its operands (division by zero, an over-wide shift…).
    UndefinedResult,
    /// An index past the end of what it indexes.
    OutOfBounds,
    /// A load of memory never written.
    UninitialisedRead,
    /// An undefined value stored to memory the dispatch hands back.
    UndefinedOutput,
    /// `OpUnreachable` executed.
    Unreachable,
    /// The instruction budget ran out (a loop that may not end).
    Budget,
    /// Some invocations of a workgroup ended while others wait at a barrier.
    DivergentBarrier,
    /// Two invocations access the same memory, one of them writing, with neither a barrier
    /// nor atomics between them (invocations of different workgroups are never ordered).
    Race,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: FindingKind,
    pub invocation: u32,
    /// The instruction's result id, or for one without a result the id of its block.
    pub at: Id,
    /// The function it is in.
    pub function: Id,
    /// The source line, from the location the instruction carries.
    pub line: Option<u32>,
    pub detail: String,
    /// How many times it happened (findings of one kind at one instruction are counted).
    pub count: u64,
}

/// Why a module cannot be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

/// What a run stopped by `Options::cancel` refuses with.
pub const CANCELLED: &str = "cancelled: the run is no longer wanted";

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Execution {
    /// The buffers afterwards, as given (words holding an undefined value keep their bytes).
    pub buffers: Vec<Buffer>,
    /// The images afterwards (storage images as the shader left them).
    pub images: Vec<Image>,
    /// The same as the shader's types see them, an undefined value an empty leaf (for
    /// `compare_buffer`: a driver may put anything there).
    pub contents: Vec<Mem>,
    pub findings: Vec<Finding>,
    pub trace: Vec<Event>,
    /// Whether the trace stopped at `Options::trace_limit`.
    pub trace_cut: bool,
    /// How many times each invocation entered each block: (invocation, label) to count. It
    /// says which code ran, results or not (a block of stores and a branch), and how many
    /// times a loop went round. Bounded as the trace is: past `Options::trace_limit` pairs,
    /// new pairs are not counted (`trace_cut` says so).
    pub entered: FxHashMap<(u32, Id), u32>,
    /// The variable behind each pointer's root (`Pointer::root`), for showing pointers.
    pub root_vars: Vec<Id>,
    pub executed: u64,
    pub local_size: [u32; 3],
    pub groups: [u32; 3],
    /// For a vertex or fragment stage, whose each invocation is (empty for compute).
    pub who: Vec<Who>,
    /// The buffers behind addresses afterwards, and the bytes of them an undefined value was
    /// stored to (buffer, offset), sorted.
    pub pointees: Vec<Vec<u8>>,
    pub undefined_pointee_bytes: Vec<(usize, u64)>,
}

impl Execution {
    /// An invocation as a person names it: `invocation 3,0,0`, `vertex 5`, `pixel 3,4`.
    pub fn describe(&self, k: u32) -> String {
        match self.who.get(k as usize) {
            Some(w) => w.to_string(),
            None => {
                let [x, y, z] = self.invocation_of(k);
                format!("invocation {x},{y},{z}")
            }
        }
    }

    /// The global invocation id of invocation number `k`.
    pub fn invocation_of(&self, k: u32) -> [u32; 3] {
        invocation_id(self.local_size, self.groups, k)
    }

    /// The number of the invocation with global id `id`.
    pub fn invocation_number(&self, id: [u32; 3]) -> Option<u32> {
        let [lx, ly, lz] = self.local_size;
        let [gx, gy, gz] = self.groups;
        if id[0] >= gx * lx || id[1] >= gy * ly || id[2] >= gz * lz {
            return None;
        }
        let g = [id[0] / lx, id[1] / ly, id[2] / lz];
        let l = [id[0] % lx, id[1] % ly, id[2] % lz];
        let group = g[0] + gx * (g[1] + gy * g[2]);
        let local = l[0] + lx * (l[1] + ly * l[2]);
        Some(group * lx * ly * lz + local)
    }
}

/// Where two runs of the same inputs first part: the earliest result of `a`, in its
/// execution order, whose counterpart in `b` (the same invocation, the same id, its same
/// occurrence) holds another value.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub invocation: u32,
    pub id: Id,
    pub value: Value,
    pub against: Value,
}

pub fn first_difference(a: &Execution, b: &Execution) -> Option<Difference> {
    first_difference_matched(a, b, &|id| id, &|id| id)
}

/// `first_difference` of runs of two modules that number some values differently: `a_id`
/// and `b_id` give each run's ids in one numbering. The answer's id is `a`'s own.
pub fn first_difference_matched(
    a: &Execution,
    b: &Execution,
    a_id: &dyn Fn(Id) -> Id,
    b_id: &dyn Fn(Id) -> Id,
) -> Option<Difference> {
    differences_matched(a, b, a_id, b_id, 1).pop()
}

/// The first difference of each invocation whose values differ, in the order of `a`'s
/// trace, at most `limit` of them (as `first_difference_matched`).
pub fn differences_matched(
    a: &Execution,
    b: &Execution,
    a_id: &dyn Fn(Id) -> Id,
    b_id: &dyn Fn(Id) -> Id,
    limit: usize,
) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut differing: FxHashSet<u32> = FxHashSet::default();
    // The k-th result of each (invocation, id) in b.
    let mut seen: FxHashMap<(u32, Id), Vec<&Value>> = FxHashMap::default();
    for e in &b.trace {
        seen.entry((e.invocation, b_id(e.id)))
            .or_default()
            .push(&e.value);
    }
    let mut counts: FxHashMap<(u32, Id), usize> = FxHashMap::default();
    for e in &a.trace {
        if out.len() >= limit {
            break;
        }
        if differing.contains(&e.invocation) {
            continue;
        }
        let key = (e.invocation, a_id(e.id));
        let n = counts.entry(key).or_default();
        let k = *n;
        *n += 1;
        let Some(other) = seen.get(&key).and_then(|v| v.get(k)) else {
            continue;
        };
        if !same(&e.value, other) {
            differing.insert(e.invocation);
            out.push(Difference {
                invocation: e.invocation,
                id: e.id,
                value: e.value.clone(),
                against: (*other).clone(),
            });
        }
    }
    out
}

/// Values compare by what they are, pointers by where they point within their variable
/// (variables are numbered per run).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Pointer(p), Value::Pointer(q)) => p.path == q.path,
        _ => a == b,
    }
}

/// Runs the compute entry point `entry` (or the first one) of `m` over `inputs`.
pub fn run(
    m: &Module,
    entry: Option<&str>,
    inputs: &Inputs,
    options: &Options,
) -> Result<Execution, Refusal> {
    let mut machine = Machine::new(m, ExecutionModel::GLCompute, entry, inputs, options)?;
    machine.dispatch()?;
    machine.finish()
}

/// A call in progress.
struct Frame {
    func: usize,
    block: usize,
    /// The next instruction of the block (its length: the terminator).
    ip: usize,
    /// The call's values, by slot (`decode::Code`).
    values: Vec<Value>,
    /// The caller's id the return value goes to.
    result: Option<Id>,
    /// The loops of this call the invocation is in, innermost last: (header block, merge
    /// label, back edges taken to the header). Invocations of a subgroup are active together
    /// where they are in the same iterations (`subgroup`).
    loops: Vec<(usize, Id, u32)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    AtBarrier,
    /// At a derivative, waiting for the rest of its quad.
    AtQuad,
    /// At a subgroup operation, waiting for the rest of its subgroup.
    AtSubgroup,
    Done,
}

struct Invocation {
    number: u32,
    local: [u32; 3],
    group: [u32; 3],
    frames: Vec<Frame>,
    /// Root of each global variable, as this invocation sees it.
    globals: FxHashMap<Id, usize>,
    state: State,
    /// Workgroup barriers passed: accesses of a workgroup in different phases are ordered.
    phase: u32,
    /// A fragment's helper invocation: it runs for its quad's derivatives, and its writes
    /// to memory others see have no effect.
    helper: bool,
    /// It ended at `OpKill` or `OpTerminateInvocation`: its outputs are discarded.
    killed: bool,
    /// A fragment's pixel, where its input attachments are read.
    pixel: Option<[u32; 2]>,
}

/// Who accessed memory: (invocation, workgroup number, phase).
type Accessor = (u32, u32, u32);

/// The last write and the last read of a place other invocations can reach.
#[derive(Default)]
struct Accesses {
    writer: Option<Accessor>,
    reader: Option<Accessor>,
}

fn ordered(a: Accessor, b: Accessor) -> bool {
    a.0 == b.0 || (a.1 == b.1 && a.2 != b.2)
}

/// Which variables hand their contents back (buffers the caller gave).
struct BufferRoot {
    root: usize,
    var: Id,
    /// The buffer's type (an element's, for an array of buffers).
    pointee: Id,
    input: usize,
    /// For an array of buffers, the element's index in the variable.
    element: Option<u32>,
}

struct Machine<'m> {
    m: &'m Module,
    model: ExecutionModel,
    /// Whether float arithmetic flushes denormals (`Options::flush_denormals`, unless the
    /// entry point asks `DenormPreserve`).
    flush: bool,
    consts: Consts,
    sets: ExtSets,
    layout: Layout<'m>,
    code: Vec<Code<'m>>,
    /// Where each function-local value is in its frame.
    slots: Slots,
    /// Scratch for a block's phis, evaluated before any is set.
    phi_values: Vec<(Id, u32, Value)>,
    func_index: FxHashMap<Id, usize>,
    entry: usize,
    local_size: [u32; 3],
    groups: [u32; 3],
    inputs: &'m Inputs,
    options: Options,
    memory: Vec<Mem>,
    /// The variable each root of `memory` is.
    root_vars: Vec<Id>,
    /// Roots shared by every invocation (buffers, push constants).
    shared: FxHashMap<Id, usize>,
    buffers: Vec<BufferRoot>,
    builtins: FxHashMap<Id, BuiltIn>,
    findings: Vec<Finding>,
    finding_index: FxHashMap<(u8, Id, u32), usize>,
    trace: Vec<Event>,
    trace_cut: bool,
    entered: FxHashMap<(u32, Id), u32>,
    executed: u64,
    /// The run stops: the budget is spent, or (`Options::stop_once_traced`) the invocation
    /// traced has been recorded as far as it will be, or the run was cancelled.
    stopped: bool,
    /// `Options::cancel` was set: the run ends with no answer.
    cancelled: bool,
    /// Roots several invocations reach (buffers, workgroup memory).
    shared_roots: FxHashSet<usize>,
    accesses: FxHashMap<(usize, Path), Accesses>,
    /// Places a race (or, for texels, a write of an undefined value) left undefined.
    raced: FxHashSet<(usize, Path)>,
    /// The entry point's interface (its `OpEntryPoint` operands after the name).
    interface: Vec<Id>,
    /// Whose each invocation of a vertex or fragment stage is.
    who: Vec<Who>,
    images: Vec<Image>,
    /// Roots of image and sampler variables: what each element holds.
    handles: FxHashMap<usize, Vec<Option<Handle>>>,
    /// The buffers behind addresses (`addresses`) and the bytes of them left undefined.
    phys: Vec<Vec<u8>>,
    phys_undefined: FxHashSet<(usize, u64)>,
    /// Buffers (by input) that variables of different types view: each view's own root,
    /// kept in step through the bytes, and the view stored to last (what goes back).
    aliased: FxHashMap<usize, Aliased>,
    /// A fragment stage's inputs and triangles, for `InterpolateAt*`.
    interpolation: Option<draw::Interpolation>,
}

/// The bytes of a buffer several variables view as different types, as they are now.
struct Aliased {
    bytes: Vec<u8>,
    /// The root and array element of the view stored to last.
    last: (usize, Option<u32>),
}

/// Control leaving an instruction.
enum Step {
    Next,
    Barrier,
    /// A derivative: it needs the values of the rest of the quad.
    Quad,
    /// A subgroup operation: it needs the values of the rest of the subgroup.
    Subgroup,
    Done,
}

impl<'m> Machine<'m> {
    fn new(
        m: &'m Module,
        model: ExecutionModel,
        entry: Option<&str>,
        inputs: &'m Inputs,
        options: &Options,
    ) -> Result<Self, Refusal> {
        let stage = match model {
            ExecutionModel::GLCompute => "compute",
            ExecutionModel::Vertex => "vertex",
            ExecutionModel::Fragment => "fragment",
            other => return Err(Refusal(format!("exec does not run {other:?} shaders"))),
        };
        let ep = m
            .entry_points()
            .iter()
            .filter(|e| matches!(e.lits().first(), Some(Operand::ExecutionModel(x)) if *x == model))
            .find(|e| entry.is_none_or(|name| entry_name(e) == Some(name)))
            .ok_or_else(|| {
                Refusal(match entry {
                    Some(name) => format!("no {stage} entry point named {name:?}"),
                    None => format!("no {stage} entry point"),
                })
            })?;
        let entry_fn = ep
            .arg(0)
            .ok_or_else(|| Refusal("a broken OpEntryPoint".into()))?;
        let consts = Consts::with_spec_defaults(m);
        let sets = ExtSets::of(m);
        let (code, slots) = decode::decode(m, &sets, model);
        let func_index: FxHashMap<Id, usize> = m
            .functions()
            .iter()
            .enumerate()
            .map(|(k, f)| (f.id(), k))
            .collect();
        let &entry_index = func_index
            .get(&entry_fn)
            .ok_or_else(|| Refusal("the entry point's function is not defined".into()))?;
        let builtins = super::types::builtins(m);
        let local_size = if model == ExecutionModel::GLCompute {
            local_size(m, entry_fn, &consts, &builtins)?
        } else {
            [1, 1, 1]
        };
        if local_size.contains(&0) {
            return Err(Refusal(format!("a workgroup size of {local_size:?}")));
        }
        let groups = inputs.groups.map(|g| g.max(1));
        let invocations = u64::from(local_size.iter().product::<u32>())
            * u64::from(groups.iter().product::<u32>());
        if invocations > 1 << 20 {
            return Err(Refusal(format!(
                "{invocations} invocations: more than exec runs"
            )));
        }
        let preserve = m.execution_modes().iter().any(|mode| {
            mode.arg(0) == Some(entry_fn)
                && matches!(
                    mode.lits().first(),
                    Some(Operand::ExecutionMode(ExecutionMode::DenormPreserve))
                )
        });
        let mut machine = Machine {
            m,
            model,
            flush: options.flush_denormals && model == ExecutionModel::Fragment && !preserve,
            sets,
            layout: Layout::new(m),
            consts,
            code,
            slots,
            phi_values: Vec::new(),
            func_index,
            entry: entry_index,
            local_size,
            groups,
            inputs,
            options: options.clone(),
            memory: Vec::new(),
            root_vars: Vec::new(),
            shared: FxHashMap::default(),
            buffers: Vec::new(),
            builtins,
            findings: Vec::new(),
            finding_index: FxHashMap::default(),
            trace: Vec::new(),
            trace_cut: false,
            entered: FxHashMap::default(),
            executed: 0,
            stopped: false,
            cancelled: false,
            shared_roots: FxHashSet::default(),
            accesses: FxHashMap::default(),
            raced: FxHashSet::default(),
            interface: ep.args().get(1..).unwrap_or_default().to_vec(),
            who: Vec::new(),
            images: inputs.images.clone(),
            handles: FxHashMap::default(),
            phys: inputs.pointees.clone(),
            phys_undefined: FxHashSet::default(),
            aliased: FxHashMap::default(),
            interpolation: None,
        };
        let images = machine.images.len();
        machine
            .shared_roots
            .extend((0..images).map(|k| images::IMAGE_ROOTS + k));
        let pointees = machine.phys.len();
        machine
            .shared_roots
            .extend((0..pointees).map(|k| addresses::PHYS_ROOTS + k));
        machine.bind_buffers()?;
        Ok(machine)
    }

    /// Reads every buffer and push-constant variable from the inputs.
    fn bind_buffers(&mut self) -> Result<(), Refusal> {
        let m = self.m;
        for g in m.globals() {
            if g.op() != Op::Variable {
                continue;
            }
            let (Some(var), Some(ptr_ty)) = (g.result(), g.ty()) else {
                continue;
            };
            let Some((class, pointee)) = super::types::pointer_type(m, ptr_ty) else {
                continue;
            };
            let bytes = match class {
                StorageClass::StorageBuffer | StorageClass::Uniform
                    if block_array(&self.layout, pointee).is_some() =>
                {
                    self.bind_buffer_array(var, pointee)?;
                    continue;
                }
                StorageClass::StorageBuffer | StorageClass::Uniform => {
                    let (set, binding) = binding_of(self.m, var);
                    let Some(k) = self
                        .inputs
                        .buffers
                        .iter()
                        .position(|b| b.set == set && b.binding == binding)
                    else {
                        let why = self.unsupported_why(set, binding, "no bytes are given for it");
                        return Err(Refusal(format!(
                            "the buffer at set {set}, binding {binding} (%{var}): {why}"
                        )));
                    };
                    // Variables bound to one binding are one buffer: of one type, one
                    // root; of different types (HLSL's aliased views), a root each, kept in
                    // step through the buffer's bytes after every store (`sync_aliases`).
                    let same = self
                        .buffers
                        .iter()
                        .find(|b| b.input == k && b.pointee == pointee && b.element.is_none());
                    if let Some(other) = same {
                        self.shared.insert(var, other.root);
                        continue;
                    }
                    self.alias(k);
                    self.buffers.push(BufferRoot {
                        root: self.memory.len(),
                        var,
                        pointee,
                        input: k,
                        element: None,
                    });
                    &self.inputs.buffers[k].bytes
                }
                StorageClass::PushConstant => &self.inputs.push_constants,
                StorageClass::UniformConstant => {
                    self.bind_handles(var, pointee)?;
                    continue;
                }
                StorageClass::Image | StorageClass::PhysicalStorageBuffer => {
                    if self.is_used(var) {
                        return Err(Refusal(format!(
                            "%{var} is a {class:?} variable: exec does not run device addresses yet"
                        )));
                    }
                    continue;
                }
                _ => continue,
            };
            let mem = Bytes {
                layout: &self.layout,
                consts: &self.consts,
            }
            .read(Place::of(pointee), bytes, 0)
            .ok_or_else(|| Refusal(format!("cannot lay out the buffer %{var}")))?;
            let root = self.push_root(var, mem);
            self.shared.insert(var, root);
            self.shared_roots.insert(root);
        }
        Ok(())
    }

    /// Why the caller gave nothing at a binding (`Inputs::unsupported`), else `otherwise`.
    fn unsupported_why(&self, set: u32, binding: u32, otherwise: &str) -> String {
        self.inputs
            .unsupported
            .iter()
            .find(|u| (u.0, u.1) == (set, binding))
            .map_or(otherwise.to_string(), |u| u.2.clone())
    }

    /// An array of buffers: one variable whose elements are the buffers the inputs give at
    /// its binding, element by element.
    fn bind_buffer_array(&mut self, var: Id, pointee: Id) -> Result<(), Refusal> {
        let (set, binding) = binding_of(self.m, var);
        let block = block_array(&self.layout, pointee).unwrap_or(0);
        let mut given: Vec<(u32, usize)> = (0..self.inputs.buffers.len())
            .filter(|&k| {
                let b = &self.inputs.buffers[k];
                (b.set, b.binding) == (set, binding)
            })
            .map(|k| (self.inputs.buffers[k].element, k))
            .collect();
        given.sort_unstable();
        let declared = self
            .layout
            .element_count(pointee)
            .map_or(given.len(), |n| n as usize);
        if given.is_empty()
            || given.len() < declared
            || given.iter().enumerate().any(|(e, &(x, _))| x as usize != e)
        {
            let why = self.unsupported_why(set, binding, "not every element is given");
            return Err(Refusal(format!(
                "the buffers at set {set}, binding {binding} (%{var}): {why}"
            )));
        }
        for &(_, k) in &given {
            self.alias(k);
        }
        let root = self.memory.len();
        let mut parts = Vec::new();
        for &(element, k) in &given {
            let mem = Bytes {
                layout: &self.layout,
                consts: &self.consts,
            }
            .read(Place::of(block), &self.inputs.buffers[k].bytes, 0)
            .ok_or_else(|| Refusal(format!("cannot lay out the buffer %{var}[{element}]")))?;
            parts.push(mem);
            self.buffers.push(BufferRoot {
                root,
                var,
                pointee: block,
                input: k,
                element: Some(element),
            });
        }
        self.push_root(var, Mem::Parts(parts));
        self.shared.insert(var, root);
        self.shared_roots.insert(root);
        Ok(())
    }

    /// Gives an image or sampler variable (or an array of them) what the inputs bind there.
    fn bind_handles(&mut self, var: Id, pointee: Id) -> Result<(), Refusal> {
        let (set, binding) = binding_of(self.m, var);
        let ty = self.layout.type_inst(pointee);
        let (elem, count) = match ty.map(|t| (t.op(), t)) {
            Some((Op::TypeArray, t)) => {
                let n = t.arg(1).and_then(|n| self.layout.constant(n)).unwrap_or(0);
                (t.arg(0).unwrap_or(0), Some(n as u32))
            }
            Some((Op::TypeRuntimeArray, t)) => (t.arg(0).unwrap_or(0), None),
            _ => (pointee, None),
        };
        let kind = self.layout.type_inst(elem).map(|t| t.op());
        if !matches!(
            kind,
            Some(Op::TypeImage | Op::TypeSampledImage | Op::TypeSampler)
        ) {
            // Acceleration structures and the like: refused where used.
            if self.is_used(var) {
                return Err(Refusal(format!(
                    "%{var} is a {} variable, which exec does not run",
                    kind.map_or("typeless".into(), |k| format!("Op{k:?}"))
                )));
            }
            return Ok(());
        }
        let arrayed = ty.is_some_and(|t| matches!(t.op(), Op::TypeArray | Op::TypeRuntimeArray));
        let given = self
            .inputs
            .images
            .iter()
            .filter(|i| (i.set, i.binding) == (set, binding))
            .map(|i| i.element + 1)
            .chain(
                self.inputs
                    .samplers
                    .iter()
                    .filter(|s| (s.set, s.binding) == (set, binding))
                    .map(|s| s.element + 1),
            )
            .max()
            .unwrap_or(0);
        let count = count.unwrap_or(given).max(1);
        let mut handles = Vec::new();
        for element in 0..count {
            let image = self
                .inputs
                .images
                .iter()
                .position(|i| (i.set, i.binding, i.element) == (set, binding, element));
            let sampler = match image {
                Some(k) => self.inputs.images[k].sampler,
                None => self
                    .inputs
                    .samplers
                    .iter()
                    .find(|s| (s.set, s.binding, s.element) == (set, binding, element))
                    .map(|s| s.sampler),
            };
            let bound = match kind {
                Some(Op::TypeSampler) => sampler.is_some(),
                _ => image.is_some(),
            };
            handles.push(bound.then_some(Handle { image, sampler }));
        }
        if handles.iter().any(Option::is_none) && self.is_used(var) {
            let why = self.unsupported_why(set, binding, "nothing is bound there");
            return Err(Refusal(format!(
                "set {set} binding {binding} (%{var}): {why}"
            )));
        }
        let root = self.push_root(
            var,
            if arrayed {
                Mem::Parts(vec![Mem::Leaf(None); handles.len()])
            } else {
                Mem::Leaf(None)
            },
        );
        self.handles.insert(root, handles);
        self.shared.insert(var, root);
        Ok(())
    }

    /// An unwritten variable of a type `Mem::fresh` does not make: where a part is a buffer
    /// address (a 64-bit integer in memory) or `void` (nothing), the parts around it by hand,
    /// at most `memory::MAX_SCALARS` leaves in all (`budget`).
    fn fresh_variable(&self, ty: Id, budget: &mut usize) -> Option<Mem> {
        if self.is_address_type(ty) {
            *budget = budget.checked_sub(1)?;
            return Some(Mem::Leaf(None));
        }
        if let Some(mem) = Mem::fresh(&self.consts, ty, None) {
            *budget = budget.checked_sub(leaves(&mem))?;
            return Some(mem);
        }
        let t = self.layout.type_inst(ty)?;
        match (t.op(), self.consts.shape(ty)) {
            (Op::TypeVoid, _) => Some(Mem::Parts(Vec::new())),
            (Op::TypeArray, Some(&consts::Shape::Array { elem, n })) => (0..n)
                .map(|_| self.fresh_variable(elem, budget))
                .collect::<Option<Vec<_>>>()
                .map(Mem::Parts),
            (Op::TypeStruct, _) => t
                .args()
                .iter()
                .map(|&m| self.fresh_variable(m, budget))
                .collect::<Option<Vec<_>>>()
                .map(Mem::Parts),
            _ => None,
        }
    }

    fn is_used(&self, var: Id) -> bool {
        self.m
            .functions()
            .iter()
            .any(|f| f.insts().any(|i| i.args().contains(&var)))
    }

    fn dispatch(&mut self) -> Result<(), Refusal> {
        let [gx, gy, gz] = self.groups;
        let [lx, ly, lz] = self.local_size;
        let per_group = lx * ly * lz;
        let mut group_number = 0;
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    let group = [x, y, z];
                    let workgroup = self.fresh_globals(&[StorageClass::Workgroup])?;
                    self.shared_roots.extend(workgroup.values().copied());
                    let mut invs = Vec::with_capacity(per_group as usize);
                    for k in 0..per_group {
                        let local = [k % lx, k / lx % ly, k / (lx * ly)];
                        let mut globals = self.shared.clone();
                        globals.extend(workgroup.iter().map(|(&a, &b)| (a, b)));
                        globals.extend(
                            self.fresh_globals(&[StorageClass::Private, StorageClass::Function])?,
                        );
                        let mut inv = Invocation {
                            number: group_number * per_group + k,
                            local,
                            group,
                            frames: Vec::new(),
                            globals,
                            state: State::Running,
                            phase: 0,
                            helper: false,
                            killed: false,
                            pixel: None,
                        };
                        self.builtin_inputs(&mut inv);
                        inv.frames.push(self.entry_frame(inv.number));
                        invs.push(inv);
                    }
                    self.run_group(&mut invs)?;
                    group_number += 1;
                    if self.stopped {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    /// Fresh roots for the module's variables of the given classes (initializers applied).
    fn fresh_globals(&mut self, classes: &[StorageClass]) -> Result<FxHashMap<Id, usize>, Refusal> {
        let mut out = FxHashMap::default();
        for g in self.m.globals() {
            if g.op() != Op::Variable {
                continue;
            }
            let (Some(var), Some(ptr_ty)) = (g.result(), g.ty()) else {
                continue;
            };
            let Some((class, pointee)) = super::types::pointer_type(self.m, ptr_ty) else {
                continue;
            };
            if !classes.contains(&class) {
                continue;
            }
            let init = g.arg(0).and_then(|i| self.consts.of(i).cloned());
            let mem = Mem::fresh(&self.consts, pointee, init.as_ref())
                .ok_or_else(|| Refusal(format!("cannot make the variable %{var}")))?;
            out.insert(var, self.push_root(var, mem));
        }
        Ok(out)
    }

    /// Input variables decorated as built-ins hold the invocation's ids.
    fn builtin_inputs(&mut self, inv: &mut Invocation) {
        let [lx, ly, lz] = self.local_size;
        let uvec3 = |v: [u32; 3]| {
            Const::Composite(
                v.iter()
                    .map(|&x| {
                        Const::Scalar(ops::fold::Value::Int {
                            bits: u64::from(x),
                            width: 32,
                        })
                    })
                    .collect(),
            )
        };
        let uint = |x: u32| {
            Const::Scalar(ops::fold::Value::Int {
                bits: u64::from(x),
                width: 32,
            })
        };
        let size = self.options.subgroup_size.max(1);
        let index = inv.local[0] + lx * (inv.local[1] + ly * inv.local[2]);
        // A `uvec4` of the lanes of a subgroup `pick` takes.
        let mask = |pick: &dyn Fn(u32) -> bool| {
            Const::Composite(
                (0..4)
                    .map(|w| {
                        let bits = (0..32)
                            .filter(|&b| w * 32 + b < size && pick(w * 32 + b))
                            .fold(0u64, |acc, b| acc | 1 << b);
                        uint(bits as u32)
                    })
                    .collect(),
            )
        };
        let mut made = Vec::new();
        for (&var, &b) in &self.builtins {
            let l = inv.local;
            let g = inv.group;
            let value = match b {
                BuiltIn::LocalInvocationId => uvec3(l),
                BuiltIn::WorkgroupId => uvec3(g),
                BuiltIn::NumWorkgroups => uvec3(self.groups),
                BuiltIn::WorkgroupSize => uvec3(self.local_size),
                BuiltIn::GlobalInvocationId => {
                    uvec3([g[0] * lx + l[0], g[1] * ly + l[1], g[2] * lz + l[2]])
                }
                BuiltIn::LocalInvocationIndex => uint(l[0] + lx * (l[1] + ly * l[2])),
                BuiltIn::SubgroupSize => uint(size),
                BuiltIn::SubgroupLocalInvocationId => uint(index % size),
                BuiltIn::SubgroupId => uint(index / size),
                BuiltIn::NumSubgroups => uint((lx * ly * lz).div_ceil(size)),
                BuiltIn::SubgroupEqMask => mask(&|l| l == index % size),
                BuiltIn::SubgroupGeMask => mask(&|l| l >= index % size),
                BuiltIn::SubgroupGtMask => mask(&|l| l > index % size),
                BuiltIn::SubgroupLeMask => mask(&|l| l <= index % size),
                BuiltIn::SubgroupLtMask => mask(&|l| l < index % size),
                _ => continue,
            };
            made.push((var, value));
        }
        for (var, value) in made {
            let root = self.push_root(var, Mem::of(&value));
            inv.globals.insert(var, root);
        }
    }

    fn run_group(&mut self, invs: &mut [Invocation]) -> Result<(), Refusal> {
        loop {
            for inv in invs.iter_mut() {
                while inv.state == State::Running {
                    match self.step(inv)? {
                        Step::Next => {}
                        Step::Barrier => inv.state = State::AtBarrier,
                        Step::Quad => inv.state = State::AtQuad,
                        Step::Subgroup => inv.state = State::AtSubgroup,
                        Step::Done => {
                            inv.state = State::Done;
                            if self.options.trace_only == Some(inv.number) {
                                self.stop_if_traced();
                            }
                        }
                    }
                    if self.stopped {
                        return Ok(());
                    }
                }
            }
            if invs.iter().any(|i| i.state == State::AtQuad) {
                self.derivatives(invs);
                continue;
            }
            if invs.iter().any(|i| i.state == State::AtSubgroup) {
                self.subgroups(invs);
                continue;
            }
            let waiting: Vec<usize> = (0..invs.len())
                .filter(|&k| invs[k].state == State::AtBarrier)
                .collect();
            if waiting.is_empty() {
                return Ok(());
            }
            if waiting.len() < invs.len() {
                let inv = &invs[waiting[0]];
                let (func, at) = self.position(inv);
                self.find(
                    FindingKind::DivergentBarrier,
                    inv.number,
                    func,
                    at,
                    None,
                    format!(
                        "{} of {} invocations wait at a barrier the others never reach",
                        waiting.len(),
                        invs.len()
                    ),
                );
            }
            for k in waiting {
                invs[k].state = State::Running;
                invs[k].phase += 1;
            }
        }
    }

    /// A fresh call of function `func`, at its first block.
    fn frame(&self, func: usize) -> Frame {
        Frame {
            func,
            block: 0,
            ip: 0,
            values: vec![Value::Undef; self.code[func].slots as usize],
            result: None,
            loops: Vec::new(),
        }
    }

    /// The instruction `inv` is at.
    fn current(&self, inv: &Invocation) -> Option<(&'m Function, super::func::InstId)> {
        let fr = inv.frames.last()?;
        let f = self.code[fr.func].f;
        let block = f.block(fr.block);
        Some((f, *block.insts.get(fr.ip)?))
    }

    /// Gives every invocation of a quad (`invs`: (0,0), (1,0), (0,1), (1,1)) waiting at a
    /// derivative its result, from the operand's values in the quad's invocations waiting at
    /// the same instruction. A partner elsewhere (ended, or in other control flow) leaves the
    /// result undefined, as SPIR-V does.
    fn derivatives(&mut self, invs: &mut [Invocation]) {
        let at: Vec<Option<(Id, super::func::InstId)>> = invs
            .iter()
            .map(|i| {
                (i.state == State::AtQuad)
                    .then(|| self.current(i).map(|(f, k)| (f.id(), k)))
                    .flatten()
            })
            .collect();
        let mut results = Vec::new();
        for k in 0..invs.len() {
            let Some((f, i)) = self.current(&invs[k]).filter(|_| at[k].is_some()) else {
                continue;
            };
            let inst = f.inst(i);
            let operand = |j: usize| -> Option<Const> {
                (at[j] == at[k])
                    .then(|| match self.value(&invs[j], inst.arg(0).unwrap_or(0)) {
                        Value::Const(c) => Some(c),
                        _ => None,
                    })
                    .flatten()
            };
            // Every derivative is a fine one: Vulkan lets coarse ones be computed as fine,
            // and lavapipe does so.
            let (row, col) = (k / 2 * 2, k % 2);
            let (dx, dy) = ((row, row + 1), (col, col + 2));
            let diff = |(a, b): (usize, usize)| -> Option<Const> {
                let (a, b) = (operand(a)?, operand(b)?);
                floats2(Op::FSub, &b, &a)
            };
            let v = match inst.op() {
                Op::DPdx | Op::DPdxFine | Op::DPdxCoarse => diff(dx),
                Op::DPdy | Op::DPdyFine | Op::DPdyCoarse => diff(dy),
                _ => diff(dx)
                    .zip(diff(dy))
                    .and_then(|(x, y)| floats2(Op::FAdd, &abs(&x)?, &abs(&y)?)),
            };
            results.push((k, inst, v.map_or(Value::Undef, Value::Const)));
        }
        for (k, inst, v) in results {
            self.resume(&mut invs[k], inst, v);
        }
    }

    /// An invocation waiting at `inst` (for its quad or subgroup) gets its result and goes on.
    fn resume(&mut self, inv: &mut Invocation, inst: &Inst, v: Value) {
        self.set(inv, inst, v);
        inv.frames.last_mut().expect("waiting at an instruction").ip += 1;
        inv.state = State::Running;
    }

    fn position(&self, inv: &Invocation) -> (Id, Id) {
        match inv.frames.last() {
            Some(fr) => {
                let f = self.code[fr.func].f;
                (f.id(), f.block(fr.block).label)
            }
            None => (0, 0),
        }
    }

    /// Runs one instruction of `inv`.
    fn step(&mut self, inv: &mut Invocation) -> Result<Step, Refusal> {
        self.executed += 1;
        if self.executed > self.options.budget {
            let (func, at) = self.position(inv);
            self.find(
                FindingKind::Budget,
                inv.number,
                func,
                at,
                None,
                format!(
                    "{} instructions executed: the run stops here",
                    self.options.budget
                ),
            );
            self.stopped = true;
            return Ok(Step::Done);
        }
        // Often enough to stop within a millisecond, rarely enough to cost nothing.
        if self.executed.is_multiple_of(4096)
            && self
                .options
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            self.cancelled = true;
            self.stopped = true;
            return Ok(Step::Done);
        }
        let fr = inv
            .frames
            .last_mut()
            .expect("a running invocation has a frame");
        let code = &self.code[fr.func];
        let func_id = code.f.id();
        let block = &code.blocks[fr.block];
        let Some(d) = block.insts.get(fr.ip) else {
            let terminator = block.terminator;
            return self.terminator(inv, terminator, func_id);
        };
        let (inst, at, kind) = (d.inst, d.at, d.kind);
        fr.ip += 1;
        match kind {
            // Phis were evaluated on entering the block. An assumption tells the compiler
            // something; running, there is nothing to do. Fragments run one after another,
            // in primitive order, so an interlock's critical section is already ordered.
            Kind::Nothing => Ok(Step::Next),
            Kind::Derivative => {
                // Run when the whole quad is here (`derivatives`).
                inv.frames.last_mut().expect("checked").ip -= 1;
                Ok(Step::Quad)
            }
            Kind::Subgroup => {
                // Run when the rest of the subgroup is here (`subgroups`).
                inv.frames.last_mut().expect("checked").ip -= 1;
                Ok(Step::Subgroup)
            }
            Kind::Demote => {
                inv.helper = true;
                Ok(Step::Next)
            }
            Kind::IsHelper => {
                let v = Value::Const(Const::Scalar(ops::fold::Value::Bool(inv.helper)));
                self.set(inv, inst, v);
                Ok(Step::Next)
            }
            Kind::ControlBarrier => {
                let scope = inst
                    .arg(0)
                    .and_then(|s| self.consts.of(s))
                    .and_then(Const::as_int_bits);
                // Execution scope Subgroup (3) or wider waits for the workgroup, as lavapipe
                // does at any control barrier.
                Ok(match scope {
                    Some((s, _)) if s <= 3 => Step::Barrier,
                    _ => Step::Next,
                })
            }
            Kind::Variable => {
                let ty = inst
                    .ty()
                    .and_then(|t| super::types::pointer_type(self.m, t));
                let init = match inst.arg(0) {
                    Some(i) => match self.value(inv, i) {
                        Value::Const(c) => Some(c),
                        _ => None,
                    },
                    None => None,
                };
                let mem = ty
                    .and_then(|(_, pointee)| match init {
                        Some(c) => Some(Mem::of(&c)),
                        None => Mem::fresh(&self.consts, pointee, None)
                            .or_else(|| self.fresh_variable(pointee, &mut { memory::MAX_SCALARS })),
                    })
                    .ok_or_else(|| Refusal(format!("cannot make the variable %{}", id_of(inst))))?;
                let root = self.push_root(id_of(inst), mem);
                self.set(
                    inv,
                    inst,
                    Value::Pointer(Pointer {
                        root,
                        path: Path::new(),
                    }),
                );
                Ok(Step::Next)
            }
            Kind::AccessChain => {
                let base = self.value(inv, inst.arg(0).unwrap_or(0));
                let v = match addresses::as_address(&base) {
                    Some(address) => self.address_chain(inv, inst, address),
                    None => self.access_chain(inv, inst, func_id),
                };
                self.set(inv, inst, v);
                Ok(Step::Next)
            }
            Kind::Load => {
                let ptr = self.value(inv, inst.arg(0).unwrap_or(0));
                if let (Some(address), Some(ty)) = (addresses::as_address(&ptr), inst.ty()) {
                    let v = self.load_address(inv, address, ty, func_id, at, inst);
                    self.set(inv, inst, v);
                    return Ok(Step::Next);
                }
                if let Value::Pointer(p) = &ptr {
                    self.access(inv, p, false, func_id, at, inst);
                }
                let v = match ptr {
                    Value::Pointer(p) if self.handles.contains_key(&p.root) => {
                        let k = p.path.first().copied().unwrap_or(0) as usize;
                        self.handles[&p.root]
                            .get(k)
                            .copied()
                            .flatten()
                            .map_or(Value::Undef, Value::Handle)
                    }
                    // What a racing read gets is undefined.
                    Value::Pointer(p) if self.raced.contains(&(p.root, p.path.clone())) => {
                        Value::Undef
                    }
                    Value::Pointer(p) => {
                        match self
                            .memory
                            .get(p.root)
                            .and_then(|m| m.at(&p.path))
                            .map(partly::mem_value)
                        {
                            Some(v @ (Value::Const(_) | Value::Partly(_))) => v,
                            Some(_) => {
                                self.find(
                                    FindingKind::UninitialisedRead,
                                    inv.number,
                                    func_id,
                                    id_of(inst),
                                    Some(at),
                                    "a load of memory nothing wrote".into(),
                                );
                                Value::Undef
                            }
                            None => Value::Undef,
                        }
                    }
                    _ => Value::Undef,
                };
                self.set(inv, inst, v);
                Ok(Step::Next)
            }
            Kind::Store => {
                let ptr = self.value(inv, inst.arg(0).unwrap_or(0));
                let value = self.value(inv, inst.arg(1).unwrap_or(0));
                if let Some(address) = addresses::as_address(&ptr) {
                    if let Some(ty) = self.address_pointee(inv, inst.arg(0).unwrap_or(0)) {
                        self.store_address(inv, address, ty, &value, func_id, at, inst);
                    }
                    return Ok(Step::Next);
                }
                self.store(inv, &ptr, &value, func_id, at, inst);
                Ok(Step::Next)
            }
            Kind::CopyMemory => {
                let dst = self.value(inv, inst.arg(0).unwrap_or(0));
                let src = self.value(inv, inst.arg(1).unwrap_or(0));
                let v = match src {
                    Value::Pointer(p) => self
                        .memory
                        .get(p.root)
                        .and_then(|m| m.at(&p.path))
                        .map_or(Value::Undef, partly::mem_value),
                    _ => Value::Undef,
                };
                self.store(inv, &dst, &v, func_id, at, inst);
                Ok(Step::Next)
            }
            Kind::ArrayLength => {
                let k = inst.lit_u32(0).unwrap_or(0);
                let v = match self.value(inv, inst.arg(0).unwrap_or(0)) {
                    Value::Pointer(p) => {
                        let mut path = p.path.clone();
                        path.push(k);
                        self.memory.get(p.root).and_then(|m| m.at(&path)).map_or(
                            Value::Undef,
                            |m| {
                                Value::Const(Const::Scalar(ops::fold::Value::Int {
                                    bits: m.parts() as u64,
                                    width: 32,
                                }))
                            },
                        )
                    }
                    _ => Value::Undef,
                };
                self.set(inv, inst, v);
                Ok(Step::Next)
            }
            Kind::Call => {
                let callee = inst.arg(0).unwrap_or(0);
                let &k = self
                    .func_index
                    .get(&callee)
                    .filter(|&&k| !self.code[k].f.blocks().is_empty())
                    .ok_or_else(|| Refusal(format!("a call of %{callee}, which is not defined")))?;
                if inv.frames.len() > 256 {
                    return Err(Refusal("calls nested more than 256 deep".into()));
                }
                let mut frame = self.frame(k);
                frame.result = inst.result();
                let args = inst.args().get(1..).unwrap_or_default();
                for (&slot, &a) in self.code[k].params.iter().zip(args) {
                    frame.values[slot as usize] = self.value(inv, a);
                }
                inv.frames.push(frame);
                self.enter_block(inv, 0, None);
                Ok(Step::Next)
            }
            Kind::Image => {
                let v = self.image_op(inv, inst, func_id, at)?;
                self.set(inv, inst, v);
                Ok(Step::Next)
            }
            Kind::Atomic => {
                self.atomic(inv, inst, func_id, at)?;
                Ok(Step::Next)
            }
            Kind::CopyObject => {
                let v = self.value(inv, inst.arg(0).unwrap_or(0));
                self.set(inv, inst, v);
                Ok(Step::Next)
            }
            Kind::TexelPointer => {
                let v = self.texel_pointer(inv, inst, func_id)?;
                self.set(inv, inst, v);
                Ok(Step::Next)
            }
            // GLSL.std.450 Modf(x, i) and Frexp(x, e): the first part of ModfStruct's and
            // FrexpStruct's rules, the second stored through the pointer.
            Kind::ModfFrexp => {
                let x = self.value(inv, inst.arg(1).unwrap_or(0));
                let ptr = self.value(inv, inst.arg(2).unwrap_or(0));
                let number = inst.ext_inst().map_or(0, |(_, n)| n);
                let parts = match (&x, ops::fold::glsl_pair_rule(number + 1)) {
                    (Value::Const(c), Some(rule)) => pair_parts(rule, c),
                    _ => None,
                };
                let (first, second) = match parts {
                    Some((a, b)) => (Value::Const(a), Value::Const(b)),
                    None => (Value::Undef, Value::Undef),
                };
                self.store(inv, &ptr, &second, func_id, at, inst);
                self.set(inv, inst, first);
                Ok(Step::Next)
            }
            Kind::PtrEqual => {
                let v = self.pointers_equal(inv, inst);
                self.set(inv, inst, v);
                Ok(Step::Next)
            }
            Kind::Pure => {
                // Conversions to and from buffer addresses, else the op table's evaluation.
                let v = match self.convert_address(inv, inst) {
                    Some(v) => v,
                    None => self.evaluate(inv, inst, func_id, at)?,
                };
                self.set(inv, inst, v);
                Ok(Step::Next)
            }
        }
    }

    /// A pure instruction, by the constant folder's evaluator.
    fn evaluate(
        &mut self,
        inv: &Invocation,
        inst: &Inst,
        func: Id,
        at: super::func::InstId,
    ) -> Result<Value, Refusal> {
        if let Some(v) = self.evaluate_in_place(inv, inst) {
            return Ok(v);
        }
        let skip = usize::from(inst.op() == Op::ExtInst);
        let values: Vec<Value> = inst.args().iter().map(|&a| self.value(inv, a)).collect();
        if let Some((set, n @ 76..=78)) = ops::ext_inst_parts(inst) {
            if self.sets.kind(set) == Some(super::ext_sets::SetKind::Glsl) {
                return self.interpolate_at(inv, n, &values[1], values.get(2));
            }
        }
        if values.iter().any(|v| matches!(v, Value::Pointer(_))) {
            if inst.op() == Op::Select {
                let cond = match &values[0] {
                    Value::Const(c) => c.as_bool(),
                    _ => None,
                };
                return Ok(match cond {
                    Some(true) => values[1].clone(),
                    Some(false) => values[2].clone(),
                    None => Value::Undef,
                });
            }
            return Err(Refusal(format!(
                "{} on pointers is not run yet",
                op_name(inst, &self.sets)
            )));
        }
        if values
            .iter()
            .any(|v| matches!(v, Value::Partly(_) | Value::Undef))
        {
            if let Some(v) = self.move_parts(inv, inst, &values) {
                return Ok(v);
            }
        }
        let flush = self.flush && !moves_bits(inst.op());
        // Flushed copies only where flushing happens: most runs read the values in place.
        let flushed: Vec<Option<Const>> = if flush {
            values
                .iter()
                .map(|v| match v {
                    Value::Const(c) => Some(flush_denormal(c)),
                    _ => None,
                })
                .collect()
        } else {
            Vec::new()
        };
        let args: Vec<Option<&Const>> = if flush {
            flushed.iter().map(Option::as_ref).collect()
        } else {
            values
                .iter()
                .map(|v| match v {
                    Value::Const(c) => Some(c),
                    // An extended instruction's set is not a value.
                    _ => None,
                })
                .collect()
        };
        let eval = match self.consts.eval(inst, &args) {
            Eval::Unknown => self.consts.eval_linear_algebra(inst, &args),
            Eval::Const(c) if flush => Eval::Const(flush_denormal(&c)),
            e => e,
        };
        match eval {
            Eval::Const(c) => Ok(Value::Const(c)),
            Eval::Operand(k) => Ok(values.get(k).cloned().unwrap_or(Value::Undef)),
            Eval::Unknown => {
                if values[skip..]
                    .iter()
                    .any(|v| matches!(v, Value::Undef | Value::Partly(_)))
                {
                    return Ok(Value::Undef);
                }
                // The evaluator computes the op but not on these operands: undefined.
                if self.consts.evaluates(inst) {
                    self.find(
                        FindingKind::UndefinedResult,
                        inv.number,
                        func,
                        id_of(inst),
                        Some(at),
                        format!(
                            "{} of {} is undefined",
                            op_name(inst, &self.sets),
                            values[skip..]
                                .iter()
                                .map(show)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    );
                    Ok(Value::Undef)
                } else {
                    Err(Refusal(format!(
                        "{} is not run yet",
                        op_name(inst, &self.sets)
                    )))
                }
            }
        }
    }

    /// `evaluate`'s common case, where every operand is a constant and none is a denormal
    /// to flush: the operands read where they are, not copied. `None` sends the instruction
    /// the whole way (an undefined, pointer or denormal operand, an op the evaluator does not
    /// compute here).
    fn evaluate_in_place(&self, inv: &Invocation, inst: &Inst) -> Option<Value> {
        let frame = inv.frames.last()?;
        let set = usize::from(inst.op() == Op::ExtInst);
        let flush = self.flush && !moves_bits(inst.op());
        let mut args: smallvec::SmallVec<[Option<&Const>; 4]> =
            smallvec::SmallVec::with_capacity(inst.args().len());
        for (k, &a) in inst.args().iter().enumerate() {
            if k < set {
                // An extended instruction's set is not a value.
                args.push(None);
                continue;
            }
            let slot = *self.slots.get(a);
            let c = if slot != NOT_LOCAL {
                match frame.values.get(slot as usize)? {
                    Value::Const(c) => c,
                    _ => return None,
                }
            } else if inv.globals.contains_key(&a) {
                return None;
            } else {
                self.consts.of(a)?
            };
            if flush && has_denormal(c) {
                return None;
            }
            args.push(Some(c));
        }
        let eval = match self.consts.eval(inst, &args) {
            Eval::Unknown => self.consts.eval_linear_algebra(inst, &args),
            e => e,
        };
        match eval {
            Eval::Const(c) if flush && has_denormal(&c) => Some(Value::Const(flush_denormal(&c))),
            Eval::Const(c) => Some(Value::Const(c)),
            Eval::Operand(k) => args.get(k).copied().flatten().cloned().map(Value::Const),
            Eval::Unknown => None,
        }
    }

    fn access_chain(&mut self, inv: &Invocation, inst: &Inst, func: Id) -> Value {
        let Value::Pointer(base) = self.value(inv, inst.arg(0).unwrap_or(0)) else {
            return Value::Undef;
        };
        let mut path = base.path.clone();
        // `OpPtrAccessChain`'s first index moves along the array the base points into: it
        // adds to the base's last index (a pointer to a whole variable has none to move).
        let ptr_chain = matches!(inst.op(), Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
        let mut element = ptr_chain.then(|| path.pop()).flatten();
        if ptr_chain && element.is_none() {
            match self.value(inv, inst.arg(1).unwrap_or(0)) {
                Value::Const(c) if c.as_int_bits().is_some_and(|(b, _)| b == 0) => {}
                _ => return Value::Undef,
            }
        }
        let skip = if ptr_chain && element.is_none() { 2 } else { 1 };
        for &ix in inst.args().get(skip..).unwrap_or_default() {
            let index = match self.value(inv, ix) {
                Value::Const(c) => c.as_int_bits().map(|(bits, width)| {
                    // Indices are signed or unsigned by their type; a negative one is out
                    // of bounds either way, so read them as signed.
                    let shift = 64 - width.min(64);
                    ((bits << shift) as i64) >> shift
                }),
                _ => None,
            };
            let index = index.map(|k| k + element.take().map_or(0, i64::from));
            let len = self
                .memory
                .get(base.root)
                .and_then(|m| m.at(&path))
                .map_or(0, Mem::parts);
            match index {
                Some(k) if k >= 0 && (k as usize) < len => path.push(k as u32),
                Some(k) => {
                    self.find(
                        FindingKind::OutOfBounds,
                        inv.number,
                        func,
                        id_of(inst),
                        None,
                        format!("index {k} of something {len} long"),
                    );
                    return Value::Undef;
                }
                None => return Value::Undef,
            }
        }
        Value::Pointer(Pointer {
            root: base.root,
            path,
        })
    }

    fn store(
        &mut self,
        inv: &Invocation,
        ptr: &Value,
        value: &Value,
        func: Id,
        at: super::func::InstId,
        inst: &Inst,
    ) {
        let Value::Pointer(p) = ptr else {
            // Through an out-of-bounds or undefined pointer: already a finding, or undefined.
            return;
        };
        let defined = matches!(value, Value::Const(_));
        // A helper invocation's writes to memory others see have no effect.
        if inv.helper && self.shared_roots.contains(&p.root) {
            return;
        }
        if inst.op() == Op::Store || inst.op() == Op::CopyMemory {
            self.access(inv, p, true, func, at, inst);
        }
        if !defined && self.buffers.iter().any(|b| b.root == p.root) {
            self.find(
                FindingKind::UndefinedOutput,
                inv.number,
                func,
                inst.arg(1).unwrap_or(0),
                Some(at),
                "an undefined value is stored to a buffer".into(),
            );
        }
        if let Some(slot) = self.memory.get_mut(p.root).and_then(|m| m.at_mut(&p.path)) {
            partly::store_value(slot, value);
        }
        self.sync_aliases(p.root, &p.path);
    }

    /// Before a second view of input buffer `k` is bound: the buffer is aliased, when
    /// another variable views it already.
    fn alias(&mut self, k: usize) {
        if let Some(other) = self.buffers.iter().find(|b| b.input == k) {
            let last = (other.root, other.element);
            self.aliased.entry(k).or_insert_with(|| Aliased {
                bytes: self.inputs.buffers[k].bytes.clone(),
                last,
            });
        }
    }

    /// After a store at `path` of `root`: when that is a view of an aliased buffer, the
    /// buffer's bytes as the view now holds them, read again by every other view. (Races are
    /// seen within a view only.)
    fn sync_aliases(&mut self, root: usize, path: &[u32]) {
        if self.aliased.is_empty() {
            return;
        }
        let Some(b) = self
            .buffers
            .iter()
            .find(|b| b.root == root && b.element.is_none_or(|e| path.first() == Some(&e)))
        else {
            return;
        };
        let (input, pointee, element) = (b.input, b.pointee, b.element);
        let Some(alias) = self.aliased.get_mut(&input) else {
            return;
        };
        let bytes = Bytes {
            layout: &self.layout,
            consts: &self.consts,
        };
        let within: Vec<u32> = element.into_iter().collect();
        let Some(view) = self.memory[root].at(&within) else {
            return;
        };
        if bytes
            .write(Place::of(pointee), view, &mut alias.bytes, 0)
            .is_none()
        {
            return;
        }
        alias.last = (root, element);
        for other in &self.buffers {
            if other.input != input || (other.root, other.element) == (root, element) {
                continue;
            }
            let Some(mem) = bytes.read(Place::of(other.pointee), &alias.bytes, 0) else {
                continue;
            };
            let within: Vec<u32> = other.element.into_iter().collect();
            if let Some(slot) = self.memory[other.root].at_mut(&within) {
                *slot = mem;
            }
        }
    }

    /// Notes a plain (not atomic) access of shared memory; a race with an earlier one of
    /// another invocation, unordered with it, is a finding and leaves the place undefined.
    fn access(
        &mut self,
        inv: &Invocation,
        p: &Pointer,
        write: bool,
        func: Id,
        at: super::func::InstId,
        inst: &Inst,
    ) {
        if !self.shared_roots.contains(&p.root) {
            return;
        }
        let per_group = self.local_size.iter().product::<u32>();
        let me: Accessor = (inv.number, inv.number / per_group, inv.phase);
        let a = self.accesses.entry((p.root, p.path.clone())).or_default();
        let other = match (a.writer, a.reader) {
            (Some(w), _) if !ordered(w, me) => Some((w, "wrote")),
            (_, Some(r)) if write && !ordered(r, me) => Some((r, "read")),
            _ => None,
        };
        if write {
            a.writer = Some(me);
        } else {
            a.reader = Some(me);
        }
        if let Some((o, what)) = other {
            self.raced.insert((p.root, p.path.clone()));
            let other = match self.who.get(o.0 as usize) {
                Some(w) => w.to_string(),
                None => {
                    let [x, y, z] = invocation_id(self.local_size, self.groups, o.0);
                    format!("invocation {x},{y},{z}")
                }
            };
            self.find(
                FindingKind::Race,
                inv.number,
                func,
                inst.result().unwrap_or_else(|| inst.arg(0).unwrap_or(0)),
                Some(at),
                format!("{other} {what} this place with no barrier or atomics between"),
            );
        }
    }

    fn atomic(
        &mut self,
        inv: &mut Invocation,
        inst: &Inst,
        func: Id,
        at: super::func::InstId,
    ) -> Result<(), Refusal> {
        let ptr = self.value(inv, inst.arg(0).unwrap_or(0));
        let address =
            addresses::as_address(&ptr).zip(self.address_pointee(inv, inst.arg(0).unwrap_or(0)));
        // A texel of a storage image (`OpImageTexelPointer`): image and texel.
        let texel = match &ptr {
            Value::Pointer(p) if (images::IMAGE_ROOTS..addresses::PHYS_ROOTS).contains(&p.root) => {
                p.path
                    .first()
                    .map(|&t| (p.root - images::IMAGE_ROOTS, t as usize))
            }
            _ => None,
        };
        // A helper invocation's atomics are not done; their results are undefined.
        let old = match (&ptr, address, inv.helper) {
            (_, _, true) => {
                self.set(inv, inst, Value::Undef);
                return Ok(());
            }
            (_, Some((a, ty)), _) => match self.load_address(inv, a, ty, func, at, inst) {
                Value::Const(c) => Some(c),
                _ => None,
            },
            (_, None, _) if texel.is_some() => {
                let (k, t) = texel.unwrap_or_default();
                let raced = self
                    .raced
                    .contains(&(images::IMAGE_ROOTS + k, smallvec::smallvec![t as u32]));
                self.images[k]
                    .read_texel(t)
                    .filter(|_| !raced)
                    .map(|[c, ..]| c)
            }
            (Value::Pointer(p), None, _) => self
                .memory
                .get(p.root)
                .and_then(|m| m.at(&p.path))
                .and_then(Mem::value),
            _ => {
                self.set(inv, inst, Value::Undef);
                return Ok(());
            }
        };
        // Operands after pointer, scope and semantics (two semantics for a compare-exchange).
        let operand = |k: usize| inst.args().get(k).copied();
        let value_at = |s: &Self, k: usize| match operand(k).map(|a| s.value(inv, a)) {
            Some(Value::Const(c)) => Some(c),
            _ => None,
        };
        let one = |c: &Const| match c {
            Const::Scalar(ops::fold::Value::Int { width, .. }) => {
                Some(Const::Scalar(ops::fold::Value::Int {
                    bits: 1,
                    width: *width,
                }))
            }
            _ => None,
        };
        // The op table's rule of the arithmetic the atomic does.
        let binary = |op: Op, a: &Const, b: &Const| -> Option<Const> {
            let rule = ops::fold::rule(op)?;
            let (Const::Scalar(x), Const::Scalar(y)) = (a, b) else {
                return None;
            };
            rule(&[*x, *y]).map(Const::Scalar)
        };
        let (new, result) = match inst.op() {
            Op::AtomicLoad => (None, old.clone()),
            Op::AtomicStore => (value_at(self, 3), None),
            Op::AtomicExchange => (value_at(self, 3), old.clone()),
            Op::AtomicCompareExchange => {
                let (value, comparator) = (value_at(self, 4), value_at(self, 5));
                let swap = old.is_some() && old == comparator;
                (if swap { value } else { None }, old.clone())
            }
            Op::AtomicIIncrement | Op::AtomicIDecrement => {
                let op = if inst.op() == Op::AtomicIIncrement {
                    Op::IAdd
                } else {
                    Op::ISub
                };
                let new = old.as_ref().and_then(|o| binary(op, o, &one(o)?));
                (new, old.clone())
            }
            op => {
                let rule_op = match op {
                    Op::AtomicIAdd => Op::IAdd,
                    Op::AtomicISub => Op::ISub,
                    Op::AtomicSMin => Op::SLessThan,
                    Op::AtomicUMin => Op::ULessThan,
                    Op::AtomicSMax => Op::SGreaterThan,
                    Op::AtomicUMax => Op::UGreaterThan,
                    Op::AtomicAnd => Op::BitwiseAnd,
                    Op::AtomicOr => Op::BitwiseOr,
                    Op::AtomicXor => Op::BitwiseXor,
                    Op::AtomicFAddEXT => Op::FAdd,
                    Op::AtomicFMinEXT => Op::FOrdLessThan,
                    Op::AtomicFMaxEXT => Op::FOrdGreaterThan,
                    _ => {
                        return Err(Refusal(format!(
                            "{} is not run yet",
                            op_name(inst, &self.sets)
                        )))
                    }
                };
                let v = value_at(self, 3);
                let new = match (old.as_ref(), v.as_ref()) {
                    (Some(o), Some(v)) => match rule_op {
                        // Min and max keep the old value unless the new one is past it.
                        Op::SLessThan
                        | Op::ULessThan
                        | Op::SGreaterThan
                        | Op::UGreaterThan
                        | Op::FOrdLessThan
                        | Op::FOrdGreaterThan => {
                            let keep = binary(rule_op, o, v).and_then(|b| b.as_bool());
                            keep.map(|k| if k { o.clone() } else { v.clone() })
                        }
                        _ => binary(rule_op, o, v),
                    },
                    _ => None,
                };
                (new, old.clone())
            }
        };
        if inst.op() != Op::AtomicLoad {
            let stored = new.map_or(Value::Undef, Value::Const);
            match (address, texel) {
                (Some((a, ty)), _) => self.store_address(inv, a, ty, &stored, func, at, inst),
                (None, Some((k, t))) => match &stored {
                    Value::Const(c) => {
                        self.images[k].write_texel(t, c);
                    }
                    // What an undefined result leaves in a texel is undefined.
                    _ => {
                        self.raced
                            .insert((images::IMAGE_ROOTS + k, smallvec::smallvec![t as u32]));
                    }
                },
                (None, None) => self.store(inv, &ptr, &stored, func, at, inst),
            }
        }
        if inst.result().is_some() {
            self.set(inv, inst, result.map_or(Value::Undef, Value::Const));
        }
        Ok(())
    }

    fn terminator(
        &mut self,
        inv: &mut Invocation,
        inst: &'m Inst,
        func: Id,
    ) -> Result<Step, Refusal> {
        let fr = inv.frames.last().expect("a running invocation has a frame");
        let code = &self.code[fr.func];
        let targets = &code.blocks[fr.block].targets;
        let target = match inst.op() {
            Op::Branch => targets.first().copied().flatten(),
            Op::BranchConditional | Op::Switch => {
                let Value::Const(c) = self.value(inv, inst.arg(0).unwrap_or(0)) else {
                    // Which way control goes is undefined: this invocation stops here.
                    let at = self.position(inv).1;
                    self.find(
                        FindingKind::UndefinedResult,
                        inv.number,
                        func,
                        at,
                        None,
                        format!("{} on an undefined value", op_name(inst, &self.sets)),
                    );
                    return Ok(Step::Done);
                };
                if inst.op() == Op::Switch {
                    consts::switch_target(inst, &c).and_then(|l| code.f.block_index(l))
                } else {
                    match c.as_bool() {
                        Some(true) => targets.first().copied().flatten(),
                        Some(false) => targets.get(1).copied().flatten(),
                        None => None,
                    }
                }
            }
            Op::Return | Op::ReturnValue => {
                let value = if inst.op() == Op::ReturnValue {
                    Some(self.value(inv, inst.arg(0).unwrap_or(0)))
                } else {
                    None
                };
                let done = inv.frames.pop().expect("a running invocation has a frame");
                if inv.frames.is_empty() {
                    return Ok(Step::Done);
                }
                if let (Some(r), Some(v)) = (done.result, value) {
                    self.record(inv.number, r, &v);
                    let slot = *self.slots.get(r) as usize;
                    if let Some(s) = inv.frames.last_mut().expect("checked").values.get_mut(slot) {
                        *s = v;
                    }
                }
                return Ok(Step::Next);
            }
            Op::Unreachable => {
                let at = self.position(inv).1;
                self.find(
                    FindingKind::Unreachable,
                    inv.number,
                    func,
                    at,
                    None,
                    "OpUnreachable executed".into(),
                );
                return Ok(Step::Done);
            }
            Op::Kill | Op::TerminateInvocation => {
                inv.killed = true;
                return Ok(Step::Done);
            }
            _ => {
                return Err(Refusal(format!(
                    "{} is not run yet",
                    op_name(inst, &self.sets)
                )))
            }
        };
        let from = inv.frames.last().expect("checked").block;
        let Some(to) = target else {
            return Err(Refusal("a branch to no block".into()));
        };
        self.enter_block(inv, to, Some(from));
        Ok(Step::Next)
    }

    /// Moves the top frame to block `to` and evaluates its phis, all at once, for the edge
    /// from `from`.
    fn enter_block(&mut self, inv: &mut Invocation, to: usize, from: Option<usize>) {
        let fr = inv.frames.last().expect("a running invocation has a frame");
        let code = &self.code[fr.func];
        let block = code.f.block(to);
        let mut phis = std::mem::take(&mut self.phi_values);
        for phi in &code.blocks[to].phis {
            let incoming = phi
                .incoming
                .iter()
                .find(|&&(pred, _)| Some(pred) == from)
                .map(|&(_, v)| v);
            let v = incoming.map_or(Value::Undef, |v| self.value(inv, v));
            phis.push((phi.id, phi.slot, v));
        }
        let fr = inv.frames.last_mut().expect("checked");
        // Leaving loops through their merge, entering one through its header, or going round.
        if let Some(k) = fr
            .loops
            .iter()
            .rposition(|&(_, merge, _)| merge == block.label)
        {
            fr.loops.truncate(k);
        }
        if let Some(merge) = block
            .merge
            .as_ref()
            .filter(|m| m.continue_target().is_some())
        {
            match fr.loops.iter().rposition(|&(header, _, _)| header == to) {
                // Round again (a `continue` out of inner loops leaves them too).
                Some(k) => {
                    fr.loops.truncate(k + 1);
                    fr.loops[k].2 += 1;
                }
                None => fr.loops.push((to, merge.merge_block(), 0)),
            }
        }
        fr.block = to;
        fr.ip = 0;
        self.count_entry(inv.number, block.label);
        for (id, slot, v) in phis.drain(..) {
            self.record(inv.number, id, &v);
            inv.frames.last_mut().expect("checked").values[slot as usize] = v;
        }
        self.phi_values = phis;
    }

    /// A new root of memory, for variable `var`.
    fn push_root(&mut self, var: Id, mem: Mem) -> usize {
        self.memory.push(mem);
        self.root_vars.push(var);
        self.memory.len() - 1
    }

    /// Counts invocation `number` entering the block labelled `label` (`Execution::entered`).
    fn count_entry(&mut self, number: u32, label: Id) {
        if self.options.trace_only.is_some_and(|k| k != number) {
            return;
        }
        let room = self.entered.len() < self.options.trace_limit;
        match self.entered.get_mut(&(number, label)) {
            Some(n) => *n += 1,
            None if room => {
                self.entered.insert((number, label), 1);
            }
            None => {
                self.trace_cut = true;
                self.stop_if_traced();
            }
        }
    }

    /// A fresh call of the entry point, for invocation `number`, in its first block.
    fn entry_frame(&mut self, number: u32) -> Frame {
        if let Some(b) = self.code[self.entry].f.blocks().first() {
            let label = b.label;
            self.count_entry(number, label);
        }
        self.frame(self.entry)
    }

    /// The value of id `id` for `inv`: a result of its current call, a constant, a global.
    fn value(&self, inv: &Invocation, id: Id) -> Value {
        let slot = *self.slots.get(id);
        if slot != NOT_LOCAL {
            return inv
                .frames
                .last()
                .and_then(|fr| fr.values.get(slot as usize))
                .cloned()
                .unwrap_or(Value::Undef);
        }
        if let Some(&root) = inv.globals.get(&id) {
            return Value::Pointer(Pointer {
                root,
                path: Path::new(),
            });
        }
        match self.consts.of(id) {
            Some(c) => Value::Const(c.clone()),
            None => Value::Undef,
        }
    }

    fn set(&mut self, inv: &mut Invocation, inst: &Inst, v: Value) {
        if let Some(r) = inst.result() {
            self.record(inv.number, r, &v);
            let slot = *self.slots.get(r) as usize;
            let fr = inv
                .frames
                .last_mut()
                .expect("a running invocation has a frame");
            if let Some(s) = fr.values.get_mut(slot) {
                *s = v;
            }
        }
    }

    fn record(&mut self, invocation: u32, id: Id, value: &Value) {
        if self.options.trace_only.is_some_and(|k| k != invocation) {
            return;
        }
        if self.trace.len() < self.options.trace_limit {
            self.trace.push(Event {
                invocation,
                id,
                value: value.clone(),
            });
        } else {
            self.trace_cut = true;
            self.stop_if_traced();
        }
    }

    /// Stops the run where `Options::stop_once_traced` asks for no more than the invocation
    /// traced: called when its trace is full, or when it ends.
    fn stop_if_traced(&mut self) {
        if self.options.trace_only.is_some() && self.options.stop_once_traced == Some(self.model) {
            self.stopped = true;
        }
    }

    /// Whether the run stopped before its budget, having traced what it was asked to.
    fn stopped_once_traced(&self) -> bool {
        self.stopped && !self.cancelled && self.executed <= self.options.budget
    }

    fn find(
        &mut self,
        kind: FindingKind,
        invocation: u32,
        function: Id,
        at: Id,
        inst: Option<super::func::InstId>,
        detail: String,
    ) {
        let key = (kind.clone() as u8, at, function);
        if let Some(&k) = self.finding_index.get(&key) {
            self.findings[k].count += 1;
            return;
        }
        let line = inst.and_then(|i| {
            let f = self.code[*self.func_index.get(&function)?].f;
            source_line(&self.consts, f, i)
        });
        self.finding_index.insert(key, self.findings.len());
        self.findings.push(Finding {
            kind,
            invocation,
            at,
            function,
            line,
            detail,
            count: 1,
        });
    }

    fn finish(self) -> Result<Execution, Refusal> {
        if self.cancelled {
            return Err(Refusal(CANCELLED.into()));
        }
        let mut buffers = self.inputs.buffers.clone();
        let bytes = Bytes {
            layout: &self.layout,
            consts: &self.consts,
        };
        let mut contents: Vec<Mem> = buffers.iter().map(|_| Mem::Parts(Vec::new())).collect();
        for b in &self.buffers {
            // Of an aliased buffer's views, the one stored to last holds what it became.
            if self
                .aliased
                .get(&b.input)
                .is_some_and(|a| a.last != (b.root, b.element))
            {
                continue;
            }
            // An element of an array of buffers is a part of the variable's memory.
            let within: Vec<u32> = b.element.into_iter().collect();
            let Some(held) = self.memory[b.root].at(&within) else {
                continue;
            };
            let mut mem = held.clone();
            for (root, path) in &self.raced {
                if let (true, Some(rest)) = (*root == b.root, path.strip_prefix(within.as_slice()))
                {
                    if let Some(m) = mem.at_mut(rest) {
                        m.store(None);
                    }
                }
            }
            let out = &mut buffers[b.input].bytes;
            bytes
                .write(Place::of(b.pointee), held, out, 0)
                .ok_or_else(|| Refusal(format!("cannot write the buffer %{} back", b.var)))?;
            contents[b.input] = mem;
        }
        let mut images = self.images;
        for (root, path) in &self.raced {
            if let (Some(image), Some(&t)) = (
                root.checked_sub(images::IMAGE_ROOTS)
                    .and_then(|k| images.get_mut(k)),
                path.first(),
            ) {
                image.undefined_texels.push(t as usize);
            }
        }
        for image in &mut images {
            image.undefined_texels.sort_unstable();
        }
        let pointees = self.phys;
        let mut undefined = self.phys_undefined;
        // What racing accesses left is undefined.
        for (root, path) in &self.raced {
            if let (Some(k), Some(&w)) = (root.checked_sub(addresses::PHYS_ROOTS), path.first()) {
                undefined.extend((0..4).map(|b| (k, u64::from(w) * 4 + b)));
            }
        }
        let mut undefined_pointee_bytes: Vec<(usize, u64)> = undefined.into_iter().collect();
        undefined_pointee_bytes.sort_unstable();
        Ok(Execution {
            pointees,
            undefined_pointee_bytes,
            buffers,
            images,
            contents,
            findings: self.findings,
            trace: self.trace,
            trace_cut: self.trace_cut,
            entered: self.entered,
            root_vars: self.root_vars,
            executed: self.executed.min(self.options.budget),
            local_size: self.local_size,
            groups: self.groups,
            who: self.who,
        })
    }
}

/// The global invocation id of invocation number `k` of a dispatch (workgroups in x, y, z
/// order, invocations likewise within each).
fn invocation_id(local_size: [u32; 3], groups: [u32; 3], k: u32) -> [u32; 3] {
    let [lx, ly, lz] = local_size;
    let per_group = lx * ly * lz;
    let (group, local) = (k / per_group, k % per_group);
    let [gx, gy, _] = groups;
    let g = [group % gx, group / gx % gy, group / (gx * gy)];
    let l = [local % lx, local / lx % ly, local / (lx * ly)];
    [g[0] * lx + l[0], g[1] * ly + l[1], g[2] * lz + l[2]]
}

/// The descriptor set and binding of variable `var` (0 where it has no decoration).
fn binding_of(m: &Module, var: Id) -> (u32, u32) {
    let mut set_binding = (0, 0);
    for d in m.decorations_of(var) {
        match d.lits() {
            [Operand::Decoration(spirv::Decoration::DescriptorSet), Operand::LiteralBit32(v)] => {
                set_binding.0 = *v
            }
            [Operand::Decoration(spirv::Decoration::Binding), Operand::LiteralBit32(v)] => {
                set_binding.1 = *v
            }
            _ => {}
        }
    }
    set_binding
}

/// Ops that move bits without doing float arithmetic on them: a denormal goes through.
fn moves_bits(op: Op) -> bool {
    matches!(
        op,
        Op::Bitcast
            | Op::CopyObject
            | Op::CompositeConstruct
            | Op::CompositeExtract
            | Op::CompositeInsert
            | Op::VectorShuffle
            | Op::VectorExtractDynamic
            | Op::VectorInsertDynamic
            | Op::Select
            | Op::CopyLogical
    )
}

/// Whether `c` is a 32-bit denormal float.
fn is_denormal(c: &Const) -> bool {
    matches!(c, Const::Scalar(ops::fold::Value::Float { value, width: 32 })
        if *value != 0.0 && value.abs() < f64::from(f32::MIN_POSITIVE))
}

/// Whether `flush_denormal` would change `c`.
fn has_denormal(c: &Const) -> bool {
    match c {
        Const::Composite(parts) => parts.iter().any(has_denormal),
        c => is_denormal(c),
    }
}

/// `c` with every 32-bit denormal float made a zero of its sign.
fn flush_denormal(c: &Const) -> Const {
    match c {
        Const::Scalar(ops::fold::Value::Float { value, width: 32 }) if is_denormal(c) => {
            Const::Scalar(ops::fold::Value::Float {
                value: 0.0f64.copysign(*value),
                width: 32,
            })
        }
        Const::Composite(parts) => Const::Composite(parts.iter().map(flush_denormal).collect()),
        other => other.clone(),
    }
}

/// The op table's rule of `op` applied to float scalars or vectors component by component.
fn floats2(op: Op, a: &Const, b: &Const) -> Option<Const> {
    match (a, b) {
        (Const::Scalar(x), Const::Scalar(y)) => ops::fold::rule(op)?(&[*x, *y]).map(Const::Scalar),
        (Const::Composite(x), Const::Composite(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .map(|(p, q)| floats2(op, p, q))
            .collect::<Option<Vec<_>>>()
            .map(Const::Composite),
        _ => None,
    }
}

/// The block type of an array of buffers (`ty`, an array of structs).
fn block_array(layout: &Layout, ty: Id) -> Option<Id> {
    let t = layout.type_inst(ty)?;
    let elem = match t.op() {
        Op::TypeArray | Op::TypeRuntimeArray => t.arg(0)?,
        _ => return None,
    };
    layout.struct_type(elem).then_some(elem)
}

/// How many scalars a memory tree holds.
fn leaves(mem: &Mem) -> usize {
    match mem {
        Mem::Leaf(_) => 1,
        Mem::Parts(parts) => parts.iter().map(leaves).sum(),
    }
}

/// A rule with two results applied to a scalar or, component by component, a vector: both
/// results, each of `a`'s shape.
fn pair_parts(rule: ops::fold::PairFn, a: &Const) -> Option<(Const, Const)> {
    match a {
        Const::Scalar(x) => rule(&[*x]).map(|(p, q)| (Const::Scalar(p), Const::Scalar(q))),
        Const::Composite(xs) => {
            let (p, q): (Vec<Const>, Vec<Const>) = xs
                .iter()
                .map(|x| pair_parts(rule, x))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .unzip();
            Some((Const::Composite(p), Const::Composite(q)))
        }
        _ => None,
    }
}

/// `|a|` of a float scalar or vector.
fn abs(a: &Const) -> Option<Const> {
    match a {
        Const::Scalar(ops::fold::Value::Float { value, width }) => {
            Some(Const::Scalar(ops::fold::Value::Float {
                value: value.abs(),
                width: *width,
            }))
        }
        Const::Composite(x) => x
            .iter()
            .map(abs)
            .collect::<Option<Vec<_>>>()
            .map(Const::Composite),
        _ => None,
    }
}

fn op_name(inst: &Inst, sets: &ExtSets) -> String {
    ops::for_inst(inst, sets).map_or_else(|| format!("Op{:?}", inst.op()), |i| i.name.clone())
}

fn id_of(inst: &Inst) -> Id {
    inst.result().unwrap_or(0)
}

fn entry_name(ep: &Inst) -> Option<&str> {
    ep.lits().iter().find_map(|o| match o {
        Operand::LiteralString(s) => Some(s.as_str()),
        _ => None,
    })
}

/// The workgroup size: a `WorkgroupSize` built-in constant, else the entry's `LocalSize` or
/// `LocalSizeId`.
fn local_size(
    m: &Module,
    entry: Id,
    consts: &Consts,
    builtins: &FxHashMap<Id, BuiltIn>,
) -> Result<[u32; 3], Refusal> {
    let as_u32 = |id: Id| {
        consts
            .of(id)
            .and_then(Const::as_int_bits)
            .map(|(b, _)| b as u32)
    };
    for (&id, &b) in builtins {
        if b == BuiltIn::WorkgroupSize {
            if let Some(Const::Composite(parts)) = consts.of(id) {
                let v: Vec<u32> = parts
                    .iter()
                    .filter_map(|p| p.as_int_bits().map(|(b, _)| b as u32))
                    .collect();
                if let [x, y, z] = v[..] {
                    return Ok([x, y, z]);
                }
            }
        }
    }
    for mode in m.execution_modes() {
        if mode.arg(0) != Some(entry) {
            continue;
        }
        match mode.lits() {
            [Operand::ExecutionMode(ExecutionMode::LocalSize), Operand::LiteralBit32(x), Operand::LiteralBit32(y), Operand::LiteralBit32(z)] =>
            {
                return Ok([*x, *y, *z]);
            }
            [Operand::ExecutionMode(ExecutionMode::LocalSizeId), ..] => {
                let ids = mode.args().get(1..).unwrap_or_default();
                if let [x, y, z] = ids {
                    if let (Some(x), Some(y), Some(z)) = (as_u32(*x), as_u32(*y), as_u32(*z)) {
                        return Ok([x, y, z]);
                    }
                }
            }
            _ => {}
        }
    }
    Err(Refusal("the entry point has no workgroup size".into()))
}

/// Where the bytes `theirs` of the buffer at `set`, `binding` (the driver's, say) part from
/// `ours` (`Execution::contents`), read as the module's types: `None` when they agree; where
/// `ours` holds an undefined value, any value agrees. Integers must be equal;
/// floats equal, both NaN, both zero or denormal (Vulkan lets a driver flush denormals), or
/// within 2^-18 of the larger magnitude (the extended instructions and division are not
/// correctly rounded on drivers, and a driver may reorder a dot product's sums).
pub fn compare_buffer(
    m: &Module,
    set: u32,
    binding: u32,
    ours: &Mem,
    theirs: &[u8],
) -> Option<String> {
    let consts = Consts::with_spec_defaults(m);
    let layout = Layout::new(m);
    let bytes = Bytes {
        layout: &layout,
        consts: &consts,
    };
    let pointee = m.globals().iter().find_map(|g| {
        let var = g.result()?;
        let (class, pointee) = super::types::pointer_type(m, g.ty()?)?;
        let buffer = matches!(class, StorageClass::StorageBuffer | StorageClass::Uniform);
        (g.op() == Op::Variable && buffer && binding_of(m, var) == (set, binding))
            .then_some(pointee)
    });
    // An array of buffers: `theirs` is one element.
    let pointee = pointee.map(|p| block_array(&layout, p).unwrap_or(p));
    let Some(b) = pointee.and_then(|p| bytes.read(Place::of(p), theirs, 0)) else {
        return Some(": the driver's bytes do not read as the buffer's type".into());
    };
    let mut path = Vec::new();
    differ(ours, &b, &mut path).map(|(x, y)| {
        format!(
            "[{}]: {x} here, {y} there",
            path.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("][")
        )
    })
}

fn differ(a: &Mem, b: &Mem, path: &mut Vec<u32>) -> Option<(String, String)> {
    match (a, b) {
        (Mem::Parts(x), Mem::Parts(y)) => {
            for (k, (p, q)) in x.iter().zip(y).enumerate() {
                path.push(k as u32);
                if let Some(d) = differ(p, q, path) {
                    return Some(d);
                }
                path.pop();
            }
            None
        }
        (Mem::Leaf(Some(x)), Mem::Leaf(Some(y))) => {
            (!close(x, y)).then(|| (show_const(x), show_const(y)))
        }
        _ => None,
    }
}

/// Whether two attachment words agree: integers exactly; floats as `compare_buffer` allows,
/// or within 2^-14 of the larger magnitude (at least 1). Vulkan asks only that interpolation
/// be "sufficiently accurate": a driver interpolates from plane equations in single precision,
/// with errors relative to the vertices' values rather than to the result, so a value that
/// interpolates to near zero between large ones may be off by more than its own precision.
pub fn close_words(ours: u32, theirs: u32, float: bool) -> bool {
    if !float {
        return ours == theirs;
    }
    let (x, y) = (
        f64::from(f32::from_bits(ours)),
        f64::from(f32::from_bits(theirs)),
    );
    let f = |value: f64| Const::Scalar(ops::fold::Value::Float { value, width: 32 });
    close(&f(x), &f(y)) || (x - y).abs() <= x.abs().max(y.abs()).max(1.0) / f64::from(1u32 << 14)
}

fn close(a: &Const, b: &Const) -> bool {
    use ops::fold::Value as V;
    match (a, b) {
        (Const::Scalar(V::Float { value: x, width }), Const::Scalar(V::Float { value: y, .. })) => {
            let tiny = match width {
                16 => 6.1e-5,
                32 => f64::from(f32::MIN_POSITIVE),
                _ => f64::MIN_POSITIVE,
            };
            x.to_bits() == y.to_bits()
                || (x.is_nan() && y.is_nan())
                || (x.abs() < tiny && y.abs() < tiny)
                || (x - y).abs() <= x.abs().max(y.abs()) / f64::from(1u32 << 18)
        }
        _ => a == b,
    }
}

/// The source line of the instruction that defines `id` in `m` (for reports).
pub fn line_of(m: &Module, id: Id) -> Option<u32> {
    let consts = Consts::with_spec_defaults(m);
    m.functions().iter().find_map(|f| {
        let i = f.value(id)?;
        source_line(&consts, f, i)
    })
}

/// The source line an instruction carries: its `DebugLine`'s first line, else its `OpLine`'s.
fn source_line(consts: &Consts, f: &Function, i: super::func::InstId) -> Option<u32> {
    let loc = f.location_of(i);
    if let Some(d) = loc.debug_line {
        if let Some((line, _)) = consts.of(d.lines[0]).and_then(Const::as_int_bits) {
            return Some(line as u32);
        }
    }
    loc.line.map(|l| l.line)
}

/// A value as the CLI and the UI print it.
pub fn show(v: &Value) -> String {
    match v {
        Value::Const(c) => show_const(c),
        Value::Pointer(p) => {
            if p.path.is_empty() {
                "&var".into()
            } else {
                format!(
                    "&var[{}]",
                    p.path
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join("][")
                )
            }
        }
        Value::Handle(h) => match h.image {
            Some(k) => format!("image {k}"),
            None => "sampler".into(),
        },
        Value::Partly(parts) => format!(
            "({})",
            parts.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        Value::Undef => "undef".into(),
    }
}

pub fn show_const(c: &Const) -> String {
    use ops::fold::Value as V;
    match c {
        Const::Scalar(V::Int { bits, width }) => {
            let shift = 64 - (*width).min(64);
            let signed = ((bits << shift) as i64) >> shift;
            if signed < 0 {
                format!("{bits} ({signed})")
            } else {
                bits.to_string()
            }
        }
        Const::Scalar(V::Float { value, .. }) => format!("{value:?}"),
        Const::Scalar(V::Bool(b)) => b.to_string(),
        Const::Bits { bits, width } => format!("0x{bits:0w$x}", w = (*width as usize) / 4),
        Const::Composite(parts) => format!(
            "({})",
            parts.iter().map(show_const).collect::<Vec<_>>().join(", ")
        ),
    }
}

#[cfg(test)]
pub(crate) mod tests;
