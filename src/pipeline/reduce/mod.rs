//! `reduce`: the smallest shader that still shows what a bisect found — a step whose output
//! spirv-val rejects, a pass that fails, a step whose results differ on the driver or that
//! crashes it, or whatever a command says is interesting (spirv-reduce's convention).
//!
//! Delta debugging over edits that make the module smaller, largest first (see `Edit`): debug
//! info, entry points, calls (deleted or inlined) and functions nothing calls, branches (a
//! conditional branch taken one way: selections lose an arm, loops run once or not at all),
//! blocks merged, operands and values made constants or replaced by operands, stores and
//! unused instructions, interface variables, struct members and array lengths (`types`),
//! decorations, capabilities and extensions. Each kind's chances are tried in chunks that halve
//! until one at a time, on all cores; an edit takes with it what only it used. A candidate is
//! kept only when spirv-val accepts it and it still has the property. Under `differs` no edit
//! brings undefined behaviour in: no `OpUndef` (values become null constants), no store to
//! function, private or workgroup memory that something reads, no divisor made zero, no
//! integer replaced by an operand, no loop cut short that leaves an integer behind.

use std::sync::Arc;
use std::time::{Duration, Instant};

use spirv::Op;

use super::external::{spirv_val_with, target_env, Validation};
use super::gpu::Device;
use super::pass::PassCx;
use super::registry;
use super::semantic::{self, pass_steps, Feed, Finding};
use super::validate::{check_step, spirv_of, StepCheck};
use super::{Pipeline, Run};
use crate::ir::fxhash::FxHashSet;
use crate::ir::rewrite;
use crate::ir::rewrite::{Builder, Replacer};
use crate::ir::{Id, Module};

mod types;

/// What makes a candidate interesting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Property {
    /// The step's output is rejected by spirv-val.
    Invalid,
    /// The step's results differ from its input's on the driver.
    Differs,
    /// The driver crashes or hangs on the step's output.
    Crash,
    /// The step's pass fails with the same diagnostic.
    Fails,
    /// A command, given the candidate's path last, exits 0.
    Command(String),
}

impl std::str::FromStr for Property {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "invalid" => Property::Invalid,
            "differs" => Property::Differs,
            "crash" => Property::Crash,
            "fails" => Property::Fails,
            "" => return Err("an empty property".into()),
            command => Property::Command(command.to_string()),
        })
    }
}

/// The interestingness test: the property, at which step of the pipeline.
pub struct Test<'a> {
    pub pipeline: &'a Pipeline,
    pub property: Property,
    /// The pass step (0 is the first pass) the property is about; none for a command.
    pub step: Option<usize>,
    /// That step's pass, by name.
    pub pass: Option<&'static str>,
    /// For `fails`: the error the pass fails with on the input.
    pub error: Option<String>,
    pub gpu: Option<&'a dyn Device>,
    /// The SPIR-V environment candidates are validated in, and the block layout rules the
    /// input needs (`--scalar-block-layout`…).
    pub env: String,
    pub layout: Option<&'static str>,
    /// Where a command's candidates are written.
    pub scratch: std::path::PathBuf,
}

/// Which step `which` names in `run`: a pass number, or the first step of a pass of that
/// name.
pub fn step_named(run: &Run, which: &str) -> Result<usize, String> {
    let steps = pass_steps(run);
    if let Ok(k) = which.parse::<usize>() {
        return if k < steps.len() {
            Ok(k)
        } else {
            Err(format!(
                "there is no step {k}: the pipeline has {} steps",
                steps.len()
            ))
        };
    }
    steps
        .iter()
        .position(|&i| run.steps[i].pass == which)
        .ok_or_else(|| {
            let mut names: Vec<&str> = steps.iter().map(|&i| run.steps[i].pass).collect();
            names.dedup();
            format!(
                "the pipeline has no pass '{which}' (it runs: {})",
                names.join(", ")
            )
        })
}

impl Test<'_> {
    /// Whether `words` still have the property (they are valid SPIR-V: checked before).
    pub fn holds(&self, words: &[u32]) -> Result<bool, String> {
        match self.judge() {
            Some(judge) => judge.holds(words, &self.scratch),
            None => self.holds_on_driver(words),
        }
    }

    /// What judges candidates off the main thread: all but the properties that need the
    /// driver (one worker process, asked in turn).
    fn judge(&self) -> Option<Judge<'_>> {
        (!matches!(self.property, Property::Differs | Property::Crash)).then_some(Judge {
            pipeline: self.pipeline,
            property: &self.property,
            step: self.step,
            error: self.error.as_deref(),
            env: &self.env,
            layout: self.layout,
        })
    }

    fn holds_on_driver(&self, words: &[u32]) -> Result<bool, String> {
        let run = self.pipeline.run(Arc::new(words.to_vec()));
        let k = self
            .step
            .ok_or("the property is about a step, and none is named")?;
        if pass_steps(&run).get(k).is_none() {
            // The pipeline stopped before the step: a pass failed earlier.
            return Ok(false);
        }
        let gpu = self
            .gpu
            .ok_or("the property needs a Vulkan driver, and none is open")?;
        // This step and the one before: the difference must begin at this one.
        let feed = Feed {
            window: Some((k.saturating_sub(1), k)),
            ..Feed::default()
        };
        Ok(match semantic::bisect(gpu, &[&run], feed, &|| false) {
            Ok(b) => b.first.is_some_and(|d| {
                d.pass_index == k
                    && match self.property {
                        Property::Differs => d.finding == Finding::Differs,
                        _ => matches!(d.finding, Finding::Crashes | Finding::Hangs),
                    }
            }),
            // The candidate no longer runs at all (its input fails): not it.
            Err(_) => false,
        })
    }

    /// Whether spirv-val accepts `words`.
    fn valid(&self, words: &[u32]) -> Result<bool, String> {
        valid_under(words, &self.env, self.layout)
    }
}

/// Whether spirv-val accepts `words` in `env` under the block `layout` rules.
fn valid_under(words: &[u32], env: &str, layout: Option<&str>) -> Result<bool, String> {
    let options: Vec<&str> = layout.into_iter().collect();
    Ok(matches!(
        spirv_val_with(words, env, &options)?,
        Validation::Valid
    ))
}

/// A `Test` without the driver: it judges candidates on any thread.
struct Judge<'a> {
    pipeline: &'a Pipeline,
    property: &'a Property,
    step: Option<usize>,
    error: Option<&'a str>,
    env: &'a str,
    layout: Option<&'static str>,
}

impl Judge<'_> {
    fn holds(&self, words: &[u32], scratch: &std::path::Path) -> Result<bool, String> {
        if let Property::Command(command) = self.property {
            return run_command(command, words, scratch);
        }
        let run = self.pipeline.run(Arc::new(words.to_vec()));
        let k = self
            .step
            .ok_or("the property is about a step, and none is named")?;
        let Some(&i) = pass_steps(&run).get(k) else {
            return Ok(false);
        };
        Ok(match self.property {
            Property::Invalid => {
                run.failed.is_none_or(|f| f > i)
                    && matches!(check_step(&run.steps[i].module)?, StepCheck::Invalid { .. })
            }
            Property::Fails => run.failed == Some(i) && run.steps[i].error.as_deref() == self.error,
            _ => false,
        })
    }

    /// Valid and interesting. A command sees only valid candidates (a script may make no
    /// sense of others); the properties judged here come first otherwise, since most
    /// candidates lose them and spirv-val costs a process each.
    fn accepts(&self, words: &[u32], scratch: &std::path::Path) -> Result<bool, String> {
        let valid = || valid_under(words, self.env, self.layout);
        let command = matches!(self.property, Property::Command(_));
        if command && !valid()? {
            return Ok(false);
        }
        Ok(self.holds(words, scratch)? && (command || valid()?))
    }
}

/// Runs `command` with the candidate, written to `path`, as its last argument: whether it
/// exits 0.
fn run_command(command: &str, words: &[u32], path: &std::path::Path) -> Result<bool, String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let status = command_for(command, path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("cannot run '{command}': {e}"))?;
    Ok(status.success())
}

/// The process that runs `command` on `path`: the command itself when it is plain words (a
/// process fewer per candidate, which is much of a candidate's cost), else a shell that runs
/// it as written.
fn command_for(command: &str, path: &std::path::Path) -> std::process::Command {
    let plain =
        |c: char| c.is_ascii_alphanumeric() || c.is_ascii_whitespace() || "_./=,:+-@%".contains(c);
    let mut words = command.split_ascii_whitespace();
    match words.next() {
        Some(program) if command.chars().all(plain) && !program.contains('=') => {
            let mut run = std::process::Command::new(program);
            run.args(words).arg(path);
            run
        }
        _ => {
            let mut run = std::process::Command::new("sh");
            run.arg("-c")
                .arg(format!("{command} \"$1\""))
                .arg("sh")
                .arg(path);
            run
        }
    }
}

/// A kind of edit, largest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    DebugInfo,
    EntryPoints,
    Calls,
    Branches,
    Blocks,
    Operands,
    Unused,
    Values,
    Interface,
    Types,
    Decorations,
    Capabilities,
}

impl Edit {
    pub const ALL: [Edit; 12] = [
        Edit::DebugInfo,
        Edit::EntryPoints,
        Edit::Calls,
        Edit::Branches,
        Edit::Blocks,
        Edit::Operands,
        Edit::Unused,
        Edit::Values,
        Edit::Interface,
        Edit::Types,
        Edit::Decorations,
        Edit::Capabilities,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Edit::DebugInfo => "debug info and names",
            Edit::EntryPoints => "entry points",
            Edit::Calls => "calls",
            Edit::Branches => "branches",
            Edit::Blocks => "blocks merged",
            Edit::Operands => "operands made constant",
            Edit::Unused => "stores and unused instructions",
            Edit::Values => "values",
            Edit::Interface => "interface variables",
            Edit::Types => "struct members and array lengths",
            Edit::Decorations => "decorations",
            Edit::Capabilities => "capabilities and extensions",
        }
    }
}

/// One place an edit can be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Chance {
    DebugInfo,
    /// The entry point at this position.
    Entry(usize),
    /// The call with this result, in this function.
    Call(Id, Id),
    /// The call with this result, in this function, replaced by the callee's body.
    Inline(Id, Id),
    /// This function, which no entry point and no call names.
    DeadFunction(Id),
    /// Member `k` of this struct type, which nothing reaches.
    Member(Id, u32),
    /// This array type, one element long; indices not constant are allowed (not under
    /// `differs`, where they could then run past its end).
    ShortArray(Id, bool),
    /// The conditional branch ending this block, taken to its true (or false) target.
    Branch(Id, Id, bool),
    /// The `k`th instruction of this op, one without a result (a store, an image write, a
    /// barrier), in this block.
    Plain(Id, Id, Op, usize),
    /// This value, replaced by a null constant.
    Value(Id, Id),
    /// This value, replaced by its operand `k` (of its type).
    Forward(Id, Id, usize),
    /// Operand `k` of the instruction with this result, replaced by a null constant (or
    /// `OpUndef` where there is none, except under `differs`).
    Operand(Id, Id, usize),
    /// Everything unused at once (the `dce` pass).
    Dce,
    /// Blocks joined to their only predecessor (the `block-merge` pass).
    MergeBlocks,
    /// This instruction, whose result nothing uses and which has no effect.
    Unused(Id, Id),
    /// This type, constant or global variable, which nothing uses.
    UnusedGlobal(Id),
    /// Every type, constant and global variable nothing uses, and then what only they used.
    UnusedGlobals,
    /// This variable, out of the interface of every entry point.
    Interface(Id),
    /// The annotation at this position.
    Decoration(usize),
    /// The capability or extension at this position of the preamble.
    Preamble(usize),
}

/// Whether `ty` is an integer type or a vector of integers.
fn integer_typed(m: &Module, ty: Id) -> bool {
    m.global(ty).is_some_and(|t| match t.op() {
        Op::TypeInt => true,
        Op::TypeVector => t
            .args()
            .first()
            .and_then(|&e| m.global(e))
            .is_some_and(|e| e.op() == Op::TypeInt),
        _ => false,
    })
}

/// The blocks of each loop of `f` that computes an integer used after it. Under `differs`
/// their branches stay: a loop run once or not at all could leave such a value (an index)
/// where it makes an access out of bounds.
fn loops_computing_indices(m: &Module, f: &crate::ir::Function) -> Vec<Vec<usize>> {
    let structure = f.structure();
    let mut out = Vec::new();
    for l in structure.loops() {
        let inside = |b: usize| l.blocks.binary_search(&b).is_ok();
        let made: std::collections::HashSet<Id> = l
            .blocks
            .iter()
            .flat_map(|&b| f.block_insts(b))
            .filter(|i| i.ty().is_some_and(|t| integer_typed(m, t)))
            .filter_map(|i| i.result())
            .collect();
        let used_after = (0..f.blocks().len()).filter(|&b| !inside(b)).any(|b| {
            f.block_insts(b)
                .chain([f.terminator(b)])
                .any(|i| i.args().iter().any(|a| made.contains(a)))
        });
        if used_after {
            out.push(l.blocks.clone());
        }
    }
    out
}

/// The variable `ptr` points into (through access chains), if that is known.
fn variable_of(m: &Module, f: &crate::ir::Function, ptr: Id) -> Option<Id> {
    let mut at = ptr;
    for _ in 0..64 {
        match f.def_of(at).or_else(|| m.global(at)) {
            Some(d)
                if matches!(
                    d.op(),
                    Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain
                ) =>
            {
                at = d.args()[0]
            }
            Some(d) if d.op() == Op::Variable => return Some(at),
            _ => return None,
        }
    }
    None
}

/// Variables something reads: loaded, used atomically, or passed to a call (which may read
/// them) — through access chains.
fn read_variables(m: &Module) -> std::collections::HashSet<Id> {
    let mut out = std::collections::HashSet::new();
    for f in m.functions() {
        for i in f.insts() {
            let pointers: Vec<Id> = match i.op() {
                Op::Load | Op::CopyMemory | Op::CopyMemorySized => {
                    i.args().last().copied().into_iter().collect()
                }
                Op::FunctionCall => i.args().iter().skip(1).copied().collect(),
                op if crate::ir::inst::is_atomic(op) => {
                    i.args().first().copied().into_iter().collect()
                }
                _ => Vec::new(),
            };
            for p in pointers {
                match variable_of(m, f, p) {
                    Some(v) => {
                        out.insert(v);
                    }
                    // A pointer of unknown origin may read anything: every variable counts.
                    None if i.op() != Op::FunctionCall => {
                        out.extend(
                            m.globals()
                                .iter()
                                .filter(|g| g.op() == Op::Variable)
                                .filter_map(|g| g.result()),
                        );
                        out.extend(
                            f.insts()
                                .filter(|g| g.op() == Op::Variable)
                                .filter_map(|g| g.result()),
                        );
                    }
                    None => {}
                }
            }
        }
    }
    out
}

/// Whether a store through `ptr` may go. Under `differs` only where nothing reads what it
/// wrote afterwards as memory nothing else wrote: buffers, images and outputs (whose starting
/// contents are defined), and function, private or workgroup variables nothing reads.
fn store_may_go(
    m: &Module,
    f: &crate::ir::Function,
    ptr: Id,
    differs: bool,
    read: &std::collections::HashSet<Id>,
) -> bool {
    if !differs {
        return true;
    }
    let Some(var) = variable_of(m, f, ptr) else {
        return false;
    };
    let def = f.def_of(var).or_else(|| m.global(var));
    let local = def.is_some_and(|d| {
        matches!(
            d.lits().first(),
            Some(rspirv::dr::Operand::StorageClass(
                spirv::StorageClass::Function
                    | spirv::StorageClass::Private
                    | spirv::StorageClass::Workgroup
            ))
        )
    });
    !local || !read.contains(&var)
}

/// Whether a null constant of type `ty` exists and is a plain value.
fn nullable(m: &Module, ty: Id) -> bool {
    m.global(ty).is_some_and(|t| {
        matches!(
            t.op(),
            Op::TypeInt
                | Op::TypeFloat
                | Op::TypeBool
                | Op::TypeVector
                | Op::TypeMatrix
                | Op::TypeArray
                | Op::TypeStruct
        )
    })
}

/// Whether a constant may stand for a value of type `ty`: a null constant, or outside
/// `differs` an `OpUndef` of a type with no null (an image, a sampler; never a pointer).
fn constant_may_stand_for(m: &Module, ty: Id, differs: bool) -> bool {
    let pointer = m.global(ty).is_some_and(|t| t.op() == Op::TypePointer);
    nullable(m, ty) || (!differs && !pointer)
}

const DIVISIONS: [Op; 8] = [
    Op::UDiv,
    Op::SDiv,
    Op::SRem,
    Op::SMod,
    Op::UMod,
    Op::FDiv,
    Op::FRem,
    Op::FMod,
];

fn chances(m: &Module, edit: Edit, differs: bool) -> Vec<Chance> {
    let mut out = Vec::new();
    let (read, used) = if edit == Edit::Unused {
        (read_variables(m), used_ids(m))
    } else {
        Default::default()
    };
    match edit {
        Edit::DebugInfo
            if !m.debug().is_empty()
                || m.functions().iter().any(|f| {
                    f.insts()
                        .any(|i| matches!(i.op(), Op::Line | Op::NoLine | Op::ExtInst))
                }) =>
        {
            out.push(Chance::DebugInfo)
        }
        Edit::Calls => {
            let mut called: std::collections::HashSet<Id> = m
                .entry_points()
                .iter()
                .filter_map(|e| e.args().first().copied())
                .collect();
            for f in m.functions() {
                called.extend(
                    f.insts()
                        .filter(|i| i.op() == Op::FunctionCall)
                        .filter_map(|i| i.args().first().copied()),
                );
            }
            out.extend(
                m.functions()
                    .iter()
                    .map(|f| f.id())
                    .filter(|id| !called.contains(id))
                    .map(Chance::DeadFunction),
            );
        }
        Edit::EntryPoints if m.entry_points().len() > 1 => {
            out.extend((0..m.entry_points().len()).map(Chance::Entry))
        }
        Edit::Interface => {
            let mut vars: Vec<Id> = m
                .entry_points()
                .iter()
                .flat_map(|e| e.args().iter().skip(1).copied())
                .collect();
            vars.sort_unstable();
            vars.dedup();
            out.extend(vars.into_iter().map(Chance::Interface));
        }
        Edit::Decorations => out.extend((0..m.annotations().len()).map(Chance::Decoration)),
        Edit::Types => {
            let (members, arrays) = types::chances(m, !differs);
            out.extend(members.into_iter().map(|(s, k)| Chance::Member(s, k)));
            out.extend(arrays.into_iter().map(|a| Chance::ShortArray(a, !differs)));
        }
        Edit::Blocks => out.push(Chance::MergeBlocks),
        Edit::Unused => {
            out.push(Chance::Dce);
            let sets = crate::ir::ops::ExtSets::of(m);
            if m.globals()
                .iter()
                .any(|g| g.result().is_some_and(|r| !used.contains(&r)))
            {
                out.push(Chance::UnusedGlobals);
            }
            for g in m.globals() {
                if let Some(r) = g.result() {
                    if !used.contains(&r) {
                        out.push(Chance::UnusedGlobal(r));
                    }
                }
            }
            for f in m.functions() {
                for i in f.insts() {
                    if let Some(r) = i.result() {
                        if !used.contains(&r)
                            && !matches!(i.op(), Op::Label | Op::Function | Op::FunctionParameter)
                            && (!differs
                                || i.op() == Op::Variable
                                || super::passes::dce::is_pure(i, &sets))
                        {
                            out.push(Chance::Unused(f.id(), r));
                        }
                    }
                }
            }
        }
        Edit::Capabilities => out.extend(
            m.preamble()
                .iter()
                .enumerate()
                .filter(|(_, i)| {
                    i.op() == Op::Extension
                        || i.op() == Op::ExtInstImport
                        || (i.op() == Op::Capability
                            && i.lits().first()
                                != Some(&rspirv::dr::Operand::Capability(
                                    spirv::Capability::Shader,
                                )))
                })
                .map(|(k, _)| Chance::Preamble(k)),
        ),
        _ => {}
    }
    // Calls deleted come first (the larger edit), then calls inlined; values made constants,
    // then values replaced by operands.
    let mut inlines = Vec::new();
    let mut forwards = Vec::new();
    // Divisors stay: a zero there is undefined behaviour.
    let mut divisors = std::collections::HashSet::new();
    if differs {
        for f in m.functions() {
            for i in f.insts() {
                if DIVISIONS.contains(&i.op()) {
                    divisors.extend(i.args().get(1).copied());
                }
            }
        }
    }
    for f in m.functions() {
        let fid = f.id();
        let kept_loops = if differs && edit == Edit::Branches {
            loops_computing_indices(m, f)
        } else {
            Vec::new()
        };
        for (b, block) in f.blocks().iter().enumerate() {
            let mut seen: std::collections::HashMap<Op, usize> = Default::default();
            for i in f.block_insts(b) {
                match (edit, i.op()) {
                    (Edit::Calls, Op::FunctionCall) => {
                        if let Some(r) = i.result() {
                            out.push(Chance::Call(fid, r));
                            inlines.push(Chance::Inline(fid, r));
                        }
                    }
                    (Edit::Unused, op) if i.result().is_none() => {
                        let k = *seen.entry(op).and_modify(|n| *n += 1).or_insert(0);
                        // Under `differs` only what writes memory whose contents are defined
                        // without it; else anything (what is then invalid is refused).
                        let may = match op {
                            Op::Store => store_may_go(m, f, i.args()[0], differs, &read),
                            Op::ImageWrite => true,
                            _ => !differs,
                        };
                        if may {
                            out.push(Chance::Plain(fid, block.label, op, k));
                        }
                    }
                    // An atomic whose result nothing uses is a store.
                    (Edit::Unused, op) if crate::ir::inst::is_atomic(op) => {
                        if let Some(r) = i.result() {
                            if !used.contains(&r) && store_may_go(m, f, i.args()[0], differs, &read)
                            {
                                out.push(Chance::Unused(fid, r));
                            }
                        }
                    }
                    (Edit::Operands, op)
                        if !matches!(op, Op::Phi | Op::AccessChain | Op::InBoundsAccessChain)
                            && i.result().is_some() =>
                    {
                        for (k, &a) in i.args().iter().enumerate() {
                            // Values computed in the function, of a type a constant has.
                            let Some(ty) = f.def_of(a).and_then(|d| d.ty()) else {
                                continue;
                            };
                            let divisor = DIVISIONS.contains(&op) && k == 1;
                            if constant_may_stand_for(m, ty, differs) && !(differs && divisor) {
                                out.push(Chance::Operand(fid, i.result().unwrap_or(0), k));
                            }
                        }
                    }
                    (Edit::Values, op)
                        if !matches!(op, Op::Phi | Op::FunctionCall | Op::ConstantNull)
                            && !crate::ir::inst::is_atomic(op) =>
                    {
                        // Other types (images, samplers, pointers) become `OpUndef`, except
                        // under `differs`.
                        if let (Some(r), Some(ty)) = (i.result(), i.ty()) {
                            if constant_may_stand_for(m, ty, differs) && !divisors.contains(&r) {
                                out.push(Chance::Value(fid, r))
                            }
                            // Or by an operand of its type. Not integers under `differs`: an
                            // index clamped into bounds would no longer be.
                            let integer = integer_typed(m, ty);
                            if !(differs && (integer || divisors.contains(&r))) {
                                forwards.extend(
                                    i.args()
                                        .iter()
                                        .enumerate()
                                        .filter(|&(_, &a)| {
                                            a != r
                                                && f.def_of(a)
                                                    .or_else(|| m.global(a))
                                                    .and_then(|d| d.ty())
                                                    == Some(ty)
                                        })
                                        .map(|(k, _)| Chance::Forward(fid, r, k)),
                                );
                            }
                        }
                    }
                    _ => {}
                }
            }
            if edit == Edit::Branches
                && f.terminator(b).op() == Op::BranchConditional
                && !kept_loops.iter().any(|l| l.binary_search(&b).is_ok())
            {
                out.push(Chance::Branch(fid, block.label, true));
                out.push(Chance::Branch(fid, block.label, false));
            }
        }
    }
    out.extend(inlines);
    out.extend(forwards);
    out
}

/// Runs a pass of the registry on `m` (the cleanups after an edit).
fn tidy(m: &mut Module, passes: &[&str]) {
    for name in passes {
        if let Some(p) = registry::pass(name) {
            let mut cx = PassCx::new(Arc::new(Vec::new()));
            // A cleanup that cannot run leaves the module as it was: the candidate is
            // judged as it is.
            let _ = p.run(m, &mut cx);
        }
    }
}

/// Ids something uses: as an operand or a result type (names and decorations are no use), or
/// as an entry point's function or interface variable.
fn used_ids(m: &Module) -> std::collections::HashSet<Id> {
    let mut used = std::collections::HashSet::new();
    m.for_each_inst(|i| {
        if !crate::ir::rewrite::is_metadata(i.op()) {
            used.extend(i.args().iter().copied().chain(i.ty()));
        }
    });
    for e in m.entry_points() {
        used.extend(e.args().iter().copied());
    }
    used
}

/// Takes away the `suspects` nothing uses any more, and then what only they used: the
/// computation that fed what an edit took, and nothing else (an unused value elsewhere may be
/// what the reduction is about).
fn sweep(m: &mut Module, mut suspects: Vec<(Id, Id)>, forget: &mut FxHashSet<Id>) {
    let sets = crate::ir::ops::ExtSets::of(m);
    while !suspects.is_empty() {
        let used = used_ids(m);
        let mut next = Vec::new();
        for (fid, id) in std::mem::take(&mut suspects) {
            if used.contains(&id) || forget.contains(&id) {
                continue;
            }
            let Some(f) = rewrite::function_mut(m, fid) else {
                continue;
            };
            let Some(def) = f.def_of(id) else {
                continue;
            };
            if !(def.op() == Op::Variable || super::passes::dce::is_pure(def, &sets))
                || def.op() == Op::Label
            {
                continue;
            }
            if let Some(args) = take_value(f, id) {
                next.extend(args.iter().map(|&a| (fid, a)));
                forget.insert(id);
            }
        }
        suspects = next;
    }
}

/// Takes the instruction making value `r` out of `f`: its id operands.
fn take_value(f: &mut crate::ir::Function, r: Id) -> Option<crate::ir::inst::Args> {
    let args = crate::ir::inst::Args::from(f.def_of(r)?.args());
    let b = (0..f.blocks().len()).find(|&b| f.block_insts(b).any(|i| i.result() == Some(r)))?;
    f.retain_insts(b, |i| i.result() != Some(r));
    Some(args)
}

/// Takes away the global `first` (or every global nothing uses), then (`cascade`) the globals
/// only what went used: a constant's type goes with it, rather than one candidate later.
fn drop_globals(m: &mut Module, first: Option<Id>, cascade: bool, forget: &mut FxHashSet<Id>) {
    let mut suspects: Option<std::collections::HashSet<Id>> = first.map(|r| [r].into());
    loop {
        let used = used_ids(m);
        let mut gone = Vec::new();
        crate::ir::rewrite::retain_globals(m, |g| match g.result() {
            Some(r) if !used.contains(&r) && suspects.as_ref().is_none_or(|s| s.contains(&r)) => {
                gone.push(g.clone());
                false
            }
            _ => true,
        });
        if gone.is_empty() {
            return;
        }
        forget.extend(gone.iter().filter_map(|g| g.result()));
        if !cascade {
            return;
        }
        if let Some(s) = &mut suspects {
            s.clear();
            s.extend(
                gone.iter()
                    .flat_map(|g| g.args().iter().copied().chain(g.ty())),
            );
        }
    }
}

/// A null constant of `ty`, or `OpUndef` for a type that has none (the callers offer that
/// only outside `differs`).
fn null_of(m: &mut Module, ty: Id) -> Option<Id> {
    let op = if nullable(m, ty) {
        Op::ConstantNull
    } else {
        Op::Undef
    };
    Builder::detached(m).intern(op, Some(ty), Vec::new()).ok()
}

/// `m` with the edits of `chunk` made; `None` when one cannot be.
fn apply(m: &Module, chunk: &[Chance], swept: bool) -> Option<Module> {
    let mut m = m.clone();
    let mut replacer = Replacer::new();
    let mut entries: Vec<usize> = Vec::new();
    let mut annotations: Vec<usize> = Vec::new();
    let mut preamble: Vec<usize> = Vec::new();
    let mut interface: Vec<Id> = Vec::new();
    // Cleanups that take away only what an edit made unreachable: unused values stay until
    // an edit of their own takes them (a reduction may hinge on one).
    let mut cleanups: Vec<&str> = Vec::new();
    let mut gone: Vec<(Id, Id)> = Vec::new();
    // Ids that are no more: their names, decorations and debug records go too.
    let mut forget: FxHashSet<Id> = FxHashSet::default();
    // Operands of what went, which may be unused now.
    let mut suspects: Vec<(Id, Id)> = Vec::new();
    // Instructions without results, by position: taken last first, so positions hold.
    let mut plain: Vec<(Id, Id, Op, usize)> = Vec::new();
    let mut inlined: Vec<Id> = Vec::new();
    let mut members: Vec<(Id, u32)> = Vec::new();
    let mut arrays: Vec<(Id, bool)> = Vec::new();
    for &chance in chunk {
        match chance {
            Chance::DebugInfo => tidy(&mut m, &["strip-debug"]),
            Chance::Entry(k) => entries.push(k),
            Chance::Decoration(k) => annotations.push(k),
            Chance::Preamble(k) => preamble.push(k),
            Chance::Interface(v) => interface.push(v),
            Chance::Value(fid, r) => {
                let ty = m.function(fid)?.def_of(r)?.ty()?;
                let null = null_of(&mut m, ty)?;
                replacer.replace(r, null);
                gone.push((fid, r));
            }
            Chance::Forward(fid, r, k) => {
                let a = *m.function(fid)?.def_of(r)?.args().get(k)?;
                replacer.replace(r, a);
                gone.push((fid, r));
            }
            Chance::Operand(fid, r, k) => {
                let a = *m.function(fid)?.def_of(r)?.args().get(k)?;
                let ty = m.function(fid)?.def_of(a)?.ty()?;
                let constant = null_of(&mut m, ty)?;
                let f = rewrite::function_mut(&mut m, fid)?;
                let i = f.value(r)?;
                f.set_arg(i, k, constant);
                suspects.push((fid, a));
            }
            Chance::Dce => cleanups.push("dce"),
            Chance::MergeBlocks => cleanups.push("block-merge"),
            Chance::Unused(fid, r) => gone.push((fid, r)),
            Chance::UnusedGlobal(r) => drop_globals(&mut m, Some(r), swept, &mut forget),
            Chance::UnusedGlobals => drop_globals(&mut m, None, swept, &mut forget),
            Chance::Call(fid, r) => {
                let (ty, void) = {
                    let f = m.function(fid)?;
                    let ty = f.def_of(r)?.ty()?;
                    (ty, m.global(ty).is_some_and(|t| t.op() == Op::TypeVoid))
                };
                if !void {
                    if !nullable(&m, ty) {
                        return None;
                    }
                    let null = null_of(&mut m, ty)?;
                    replacer.replace(r, null);
                }
                let args = take_value(rewrite::function_mut(&mut m, fid)?, r)?;
                suspects.extend(args.iter().skip(1).map(|&a| (fid, a)));
                cleanups.push("eliminate-dead-functions");
            }
            Chance::Plain(fid, label, op, k) => plain.push((fid, label, op, k)),
            Chance::Inline(_, r) => inlined.push(r),
            Chance::Member(s, k) => members.push((s, k)),
            Chance::ShortArray(a, dynamic) => arrays.push((a, dynamic)),
            Chance::DeadFunction(fid) => {
                forget.extend(m.function(fid)?.defined_ids());
                crate::ir::rewrite::retain_functions(&mut m, |f| f.id() != fid);
            }
            Chance::Branch(fid, label, taken) => {
                let t = {
                    let mut b = Builder::detached(&mut m);
                    b.cbool(taken).ok()?
                };
                let f = rewrite::function_mut(&mut m, fid)?;
                let b = f.block_index(label)?;
                let term = f.block(b).terminator;
                f.set_arg(term, 0, t);
                if !cleanups.contains(&"dead-branch") {
                    cleanups.push("dead-branch");
                }
            }
        }
    }
    entries.sort_unstable();
    for k in entries.into_iter().rev() {
        if k < m.entry_points().len() {
            rewrite::remove_entry_point(&mut m, k);
        }
    }
    plain.sort_by_key(|p| std::cmp::Reverse(p.3));
    for (fid, label, op, k) in plain {
        let f = rewrite::function_mut(&mut m, fid)?;
        let b = f.block_index(label)?;
        let mut seen = 0;
        f.retain_insts(b, |i| {
            if i.op() != op || i.result().is_some() {
                return true;
            }
            seen += 1;
            if seen - 1 == k {
                suspects.extend(i.args().iter().map(|&a| (fid, a)));
                return false;
            }
            true
        });
    }
    // Members last first, so the numbers of those still to go hold.
    members.sort_by_key(|&(s, k)| (s, std::cmp::Reverse(k)));
    for (s, k) in members {
        let ty = *m.global(s)?.args().get(k as usize)?;
        types::remove_member(&mut m, s, k)?;
        drop_globals(&mut m, Some(ty), swept, &mut forget);
    }
    for (a, dynamic) in arrays {
        let length = *m.global(a)?.args().get(1)?;
        types::shorten_array(&mut m, a, dynamic)?;
        drop_globals(&mut m, Some(length), swept, &mut forget);
    }
    if !inlined.is_empty() {
        // A call that cannot be inlined (a recursive callee…) stays: the candidate is then
        // no smaller, and refused as such.
        super::passes::inline::inline_where(&mut m, true, &|r| inlined.contains(&r)).ok()?;
        if !cleanups.contains(&"eliminate-dead-functions") {
            cleanups.push("eliminate-dead-functions");
        }
    }
    let mut k = 0;
    rewrite::retain_annotations(&mut m, |_| {
        k += 1;
        !annotations.contains(&(k - 1))
    });
    let mut k = 0;
    rewrite::retain_preamble(&mut m, |_| {
        k += 1;
        !preamble.contains(&(k - 1))
    });
    rewrite::retain_interfaces(&mut m, |a| !interface.contains(&a));
    replacer.apply(&mut m, "reduce");
    for (fid, r) in gone {
        let args = take_value(rewrite::function_mut(&mut m, fid)?, r)?;
        suspects.extend(args.iter().map(|&a| (fid, a)));
        forget.insert(r);
    }
    if swept {
        sweep(&mut m, suspects, &mut forget);
    }
    crate::ir::rewrite::forget(&mut m, &forget);
    tidy(&mut m, &cleanups);
    Some(m)
}

/// How a reduction went.
pub struct Reduced {
    pub module: Module,
    pub words: Vec<u32>,
    pub before: usize,
    pub after: usize,
    pub tried: usize,
    pub accepted: usize,
    /// Edits that applied, with how many times.
    pub applied: Vec<(Edit, usize)>,
    pub took: Duration,
    /// Stopped before the end (cancelled): the best so far.
    pub stopped: bool,
}

/// Progress, after every candidate.
pub struct Progress {
    pub tried: usize,
    pub accepted: usize,
    pub instructions: usize,
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "reducing: {} tried, {} kept, {} instructions",
            self.tried, self.accepted, self.instructions
        )
    }
}

/// Where a reduction of `input` is written unless told: `INPUT.reduced.spv` beside it.
pub fn default_output(input: &std::path::Path) -> std::path::PathBuf {
    let mut name = input.as_os_str().to_owned();
    name.push(".reduced.spv");
    std::path::PathBuf::from(name)
}

/// Whether our verifier finds nothing wrong with a candidate: a check in this process
/// before any tool is run (it rejects nothing spirv-val accepts).
fn verified(m: &Module) -> bool {
    let mut copy = m.clone();
    registry::pass("verify").is_some_and(|p| {
        p.run(&mut copy, &mut PassCx::new(Arc::new(Vec::new())))
            .is_ok()
    })
}

/// The scratch file of lane `j`.
fn scratch_for(base: &std::path::Path, j: usize) -> std::path::PathBuf {
    let mut name = base.as_os_str().to_owned();
    name.push(format!(".{j}"));
    std::path::PathBuf::from(name)
}

/// What a reduction makes smaller, in this order: instructions in functions, their operands
/// that are values computed in functions (what ties the code together), instructions, words,
/// elements of arrays.
fn size(m: &Module, words: &[u32]) -> (usize, usize, usize, usize, u64) {
    let code = m.functions().iter().map(|f| f.inst_count()).sum();
    let ties = m
        .functions()
        .iter()
        .map(|f| {
            f.insts()
                .flat_map(|i| i.args().iter())
                .filter(|&&a| f.def_of(a).is_some())
                .count()
        })
        .sum();
    (
        code,
        ties,
        m.inst_count(),
        words.len(),
        types::array_elements(m),
    )
}

/// What tells a candidate's words from others: their length and a hash.
fn fingerprint(words: &[u32]) -> (usize, u64) {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    words.hash(&mut h);
    (words.len(), h.finish())
}

/// The module's words, if it can be written as SPIR-V.
fn words_of(m: &Module) -> Option<Vec<u32>> {
    spirv_of(m).ok().map(|s| s.words)
}

/// Whether each candidate is valid and still interesting (`false` where none was built): on a
/// thread each when a `Judge` can, else one after another on the driver.
fn judge_all(
    test: &Test,
    judge: Option<&Judge>,
    candidates: &[Option<(Module, Vec<u32>)>],
) -> Vec<Result<bool, String>> {
    match judge {
        Some(judge) => std::thread::scope(|scope| {
            let handles: Vec<_> = candidates
                .iter()
                .enumerate()
                .map(|(j, c)| {
                    let scratch = scratch_for(&test.scratch, j);
                    scope.spawn(move || match c {
                        Some((_, w)) => judge.accepts(w, &scratch),
                        None => Ok(false),
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(Ok(false)))
                .collect()
        }),
        None => candidates
            .iter()
            .map(|c| match c {
                Some((_, w)) => Ok(test.valid(w)? && test.holds(w)?),
                None => Ok(false),
            })
            .collect(),
    }
}

/// Reduces `start` (the input, read into the IR) while `test` holds.
pub fn reduce(
    test: &Test,
    start: Module,
    progress: &mut dyn FnMut(&Progress),
    cancelled: &dyn Fn() -> bool,
) -> Result<Reduced, String> {
    let began = Instant::now();
    let differs = test.property == Property::Differs;
    let before = start.inst_count();
    let mut best = start;
    let mut best_words = words_of(&best).ok_or("the input cannot be written as SPIR-V")?;
    let mut tried = 0;
    let mut accepted = 0;
    let mut applied: Vec<(Edit, usize)> = Vec::new();
    let mut stopped = false;
    // Candidates judged at once: one per core, or one at a time on the driver.
    let judge = test.judge();
    let lanes = if judge.is_some() {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        1
    };
    // An edit whose chances are the ones it failed on last round is skipped this round, but
    // for a last round that tries everything before the reduction ends.
    let mut failed: Vec<(Edit, Vec<Chance>)> = Vec::new();
    let mut skipping = true;
    // Candidates judged uninteresting, by their words: edits of different kinds, and the
    // last rounds, often make one again.
    let mut rejected: std::collections::HashSet<(usize, u64)> = Default::default();
    'rounds: loop {
        let mut progressed = false;
        let mut skipped = false;
        for edit in Edit::ALL {
            let mut list = chances(&best, edit, differs);
            if skipping && failed.iter().any(|(e, l)| *e == edit && *l == list) {
                skipped = true;
                continue;
            }
            let tried_on = list.clone();
            let mut kept_here = false;
            let mut streak = false;
            let mut chunk = list.len().max(1);
            while !list.is_empty() {
                let mut at = 0;
                let mut kept_any = false;
                while at < list.len() {
                    if cancelled() {
                        stopped = true;
                        break 'rounds;
                    }
                    // Windows of the list in order, built until `lanes` candidates are in
                    // hand that are new (not one judged before, not another's twin); those
                    // are judged at once and the smallest that holds is taken.
                    // One at a time, each edit is tried with what only it used swept away,
                    // then without (the sweep may take what the reduction is about).
                    // While edits hold, the second lane tries the window and the next one
                    // together rather than the next alone, which would have to be tried
                    // again on the module the first makes.
                    let mut windows = Vec::new();
                    let mut candidates: Vec<Option<(Module, Vec<u32>)>> = Vec::new();
                    let mut next = at;
                    // Operands made constant keep what they fed: other edits take it.
                    let sweeps = edit != Edit::Operands;
                    let best_size = size(&best, &best_words);
                    let mut fresh = 0;
                    let mut build = |from: usize, to: usize, swept: bool| {
                        let candidate = apply(&best, &list[from..to], swept).and_then(|c| {
                            let w = words_of(&c)?;
                            let new = !rejected.contains(&fingerprint(&w))
                                && !candidates.iter().flatten().any(|(_, o)| *o == w);
                            (new && size(&c, &w) < best_size && verified(&c)).then_some((c, w))
                        });
                        let built = candidate.is_some();
                        windows.push((from, to, swept));
                        candidates.push(candidate);
                        usize::from(built)
                    };
                    if streak && lanes > 1 && at + chunk < list.len() {
                        let end = at + chunk;
                        fresh += build(at, end, sweeps);
                        fresh += build(at, (end + chunk).min(list.len()), sweeps);
                        if chunk == 1 && sweeps && fresh < lanes {
                            fresh += build(at, end, false);
                        }
                        next = end;
                    }
                    while fresh < lanes && next < list.len() {
                        let end = (next + chunk).min(list.len());
                        fresh += build(next, end, sweeps);
                        if chunk == 1 && sweeps {
                            fresh += build(next, end, false);
                        }
                        next = end;
                    }
                    tried += fresh;
                    let verdicts = judge_all(test, judge.as_ref(), &candidates);
                    let mut taken: Option<usize> = None;
                    for (j, verdict) in verdicts.into_iter().enumerate() {
                        let Some((c, w)) = &candidates[j] else {
                            continue;
                        };
                        if !verdict? {
                            rejected.insert(fingerprint(w));
                        } else if taken.is_none_or(|t| {
                            candidates[t]
                                .as_ref()
                                .is_some_and(|(o, ow)| size(c, w) < size(o, ow))
                        }) {
                            taken = Some(j);
                        }
                    }
                    streak = taken.is_some();
                    match taken {
                        Some(j) => {
                            let (from, to, _) = windows[j];
                            let (c, w) = candidates
                                .into_iter()
                                .nth(j)
                                .flatten()
                                .expect("a candidate that holds exists");
                            best = c;
                            best_words = w;
                            accepted += 1;
                            progressed = true;
                            kept_any = true;
                            kept_here = true;
                            match applied.iter_mut().find(|(e, _)| *e == edit) {
                                Some((_, n)) => *n += to - from,
                                None => applied.push((edit, to - from)),
                            }
                            // The chances are the new module's now.
                            list = chances(&best, edit, differs);
                            at = from.min(list.len());
                        }
                        None => at = next,
                    }
                    progress(&Progress {
                        tried,
                        accepted,
                        instructions: best.inst_count(),
                    });
                }
                if chunk == 1 && !kept_any {
                    break;
                }
                chunk = (chunk / 2).max(1);
                if chunk == 1 && list.len() <= 1 && !kept_any {
                    break;
                }
            }
            failed.retain(|(e, _)| *e != edit);
            if !kept_here {
                failed.push((edit, tried_on));
            }
        }
        if !progressed {
            if skipped && skipping {
                skipping = false;
                continue;
            }
            break;
        }
        skipping = true;
    }
    Ok(Reduced {
        after: best.inst_count(),
        module: best,
        words: best_words,
        before,
        tried,
        accepted,
        applied,
        took: began.elapsed(),
        stopped,
    })
}

/// The module a reduction starts from: `words` read into the IR (the `lower` step).
pub fn start_of(words: &[u32]) -> Result<Module, String> {
    Pipeline::from_names(&["lower"])?
        .run(Arc::new(words.to_vec()))
        .final_module()
        .map(|m| (**m).clone())
        .ok_or_else(|| "the input does not read".to_string())
}

/// A whole reduction of `words`, as `reduce` and `:reduce` run it: the driver's worker
/// process opened when the property needs one, candidates a command judges written to a
/// scratch directory of their own, the result written to `output` (`write`). Returns what was
/// done, in a line.
pub fn reduce_to_file(
    pipeline: &Pipeline,
    property: Property,
    step: Option<&str>,
    words: &[u32],
    output: &std::path::Path,
    progress: &mut dyn FnMut(&Progress),
    cancelled: &dyn Fn() -> bool,
) -> Result<String, String> {
    static SCRATCH: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let worker = match property {
        Property::Differs | Property::Crash => {
            Some(super::gpu::isolated::Isolated::open_here(false)?)
        }
        _ => None,
    };
    let gpu = worker.as_ref().map(|w| w as &dyn Device);
    let scratch_dir = std::env::temp_dir().join(format!(
        "shaderstep-reduce-{}-{}",
        std::process::id(),
        SCRATCH.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&scratch_dir).map_err(|e| format!("{}: {e}", scratch_dir.display()))?;
    let reduced = prepare(
        pipeline,
        property,
        step,
        words,
        gpu,
        scratch_dir.join("candidate.spv"),
    )
    .and_then(|test| {
        let reduced = reduce(&test, start_of(words)?, progress, cancelled)?;
        Ok((test.step.zip(test.pass), reduced))
    });
    let _ = std::fs::remove_dir_all(&scratch_dir);
    let (about, reduced) = reduced?;
    let summary = write(&reduced, output)?;
    Ok(match about {
        Some((k, pass)) => format!("at step {k} ({pass}), {summary}"),
        None => summary,
    })
}

/// Writes the reduced shader to `output` and its assembly beside it (`.spvasm`); what was
/// done, in a line.
pub fn write(reduced: &Reduced, output: &std::path::Path) -> Result<String, String> {
    let bytes: Vec<u8> = reduced.words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(output, bytes).map_err(|e| format!("{}: {e}", output.display()))?;
    let asm = output.with_extension("spvasm");
    let module = crate::ir::spirv::read::read_words(&reduced.words).map_err(|e| e.to_string())?;
    let text = crate::ir::spirv::disasm::disassemble(&module, &Default::default());
    std::fs::write(&asm, text).map_err(|e| format!("{}: {e}", asm.display()))?;
    let applied: Vec<String> = reduced
        .applied
        .iter()
        .map(|(e, n)| format!("{} {n}", e.name()))
        .collect();
    Ok(format!(
        "{} → {} instructions ({:.0} %), in {:.1} s{}: {} candidates tried, {} kept ({}) → {} and {}",
        reduced.before,
        reduced.after,
        100.0 * reduced.after as f64 / reduced.before.max(1) as f64,
        reduced.took.as_secs_f64(),
        if reduced.stopped { ", stopped" } else { "" },
        reduced.tried,
        reduced.accepted,
        if applied.is_empty() {
            "nothing applied".to_string()
        } else {
            applied.join(", ")
        },
        output.display(),
        asm.display()
    ))
}

/// The `Test` for `property` on `words`: the step it is about found (named by `step`, else
/// by the bisect that finds such a step), and checked to hold on the input. Errors say why
/// no reduction can start.
pub fn prepare<'a>(
    pipeline: &'a Pipeline,
    property: Property,
    step: Option<&str>,
    words: &[u32],
    gpu: Option<&'a dyn Device>,
    scratch: std::path::PathBuf,
) -> Result<Test<'a>, String> {
    let module = crate::ir::spirv::read::read_words(words).map_err(|e| e.to_string())?;
    let env = target_env(&module);
    // The block layout rules the input is valid under: candidates are held to the same.
    let mut layout = None;
    let mut first_error = None;
    for rules in [
        None,
        Some("--relax-block-layout"),
        Some("--scalar-block-layout"),
    ] {
        let options: Vec<&str> = rules.into_iter().collect();
        match spirv_val_with(words, &env, &options)? {
            Validation::Valid => {
                layout = Some(rules);
                break;
            }
            Validation::Invalid(messages) => {
                first_error.get_or_insert_with(|| {
                    messages.first().map_or(String::new(), |m| m.text.clone())
                });
            }
        }
    }
    let Some(layout) = layout else {
        return Err(format!(
            "the input is not valid SPIR-V, so candidates could not be checked against it: {}",
            first_error.unwrap_or_default()
        ));
    };
    let run = pipeline.run(Arc::new(words.to_vec()));
    let steps = pass_steps(&run);
    let found = match (&property, step) {
        (Property::Command(_), _) => None,
        (_, Some(which)) => Some(step_named(&run, which)?),
        (Property::Invalid, None) => {
            let first = super::validate::first_invalid(&run)?;
            let (i, ..) = first
                .first
                .ok_or("every step of the input is valid: there is nothing to reduce")?;
            steps.iter().position(|&s| s == i)
        }
        (Property::Fails, None) => {
            let f = run
                .failed
                .ok_or("no pass fails on the input: there is nothing to reduce")?;
            steps.iter().position(|&s| s == f)
        }
        (Property::Differs | Property::Crash, None) => {
            let gpu = gpu.ok_or("the property needs a Vulkan driver")?;
            let b = semantic::bisect(gpu, &[&run], Feed::default(), &|| false)?;
            let summary = b.summary();
            let d = b
                .first
                .ok_or_else(|| format!("the bisect finds no such step: {summary}"))?;
            Some(d.pass_index)
        }
    };
    let error = match (&property, found) {
        (Property::Fails, Some(k)) => steps.get(k).and_then(|&i| run.steps[i].error.clone()),
        _ => None,
    };
    let test = Test {
        pipeline,
        property,
        step: found,
        pass: found.and_then(|k| steps.get(k)).map(|&i| run.steps[i].pass),
        error,
        gpu,
        env,
        layout,
        scratch,
    };
    if let Property::Command(command) = &test.property {
        // A command that cannot run at all is said before any work.
        let program = command.split_whitespace().next().unwrap_or("");
        let exists = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {program}"))
            .stdout(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !exists {
            return Err(format!("cannot run '{command}': no program '{program}'"));
        }
    }
    if !test.holds(words)? {
        let what = match (&test.property, found) {
            (Property::Command(c), _) => format!("'{c}' does not exit 0 on the input"),
            (p, Some(k)) => format!(
                "the input does not have the property {p:?} at step {k} ({})",
                steps.get(k).map_or("?", |&i| run.steps[i].pass)
            ),
            (p, None) => format!("the input does not have the property {p:?}"),
        };
        return Err(what);
    }
    Ok(test)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHADER: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %in %out
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %in Location 0
               OpDecorate %out Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
        %int = OpTypeInt 32 1
     %in_ptr = OpTypePointer Input %float
    %out_ptr = OpTypePointer Output %float
        %two = OpConstant %float 2
      %int_3 = OpConstant %int 3
         %in = OpVariable %in_ptr Input
        %out = OpVariable %out_ptr Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %x = OpLoad %float %in
          %y = OpFAdd %float %x %two
          %z = OpFMul %float %y %y
          %i = OpConvertFToS %int %z
          %j = OpIMul %int %i %int_3
          %k = OpConvertSToF %float %j
               OpStore %out %k
               OpReturn
               OpFunctionEnd
"#;

    fn module() -> (Module, Id, impl Fn(&Module, &str) -> Id) {
        let words = crate::ir::spirv::asm::assemble(SHADER).unwrap();
        let m = start_of(&words).unwrap();
        let fid = m.functions()[0].id();
        // The value the first instruction of this op makes.
        let value = move |m: &Module, op: &str| {
            m.functions()[0]
                .insts()
                .find(|i| format!("{:?}", i.op()) == op)
                .and_then(|i| i.result())
                .unwrap()
        };
        (m, fid, value)
    }

    /// A loop counting `i` to 4, and `i - 1` used after it (as an index would be).
    const LOOP: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %out
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %out Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
        %int = OpTypeInt 32 1
       %bool = OpTypeBool
    %out_ptr = OpTypePointer Output %float
      %int_0 = OpConstant %int 0
      %int_1 = OpConstant %int 1
      %int_4 = OpConstant %int 4
        %out = OpVariable %out_ptr Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpBranch %header
     %header = OpLabel
          %i = OpPhi %int %int_0 %entry %next %cont
               OpLoopMerge %merge %cont None
               OpBranch %check
      %check = OpLabel
          %c = OpSLessThan %bool %i %int_4
               OpBranchConditional %c %body %merge
       %body = OpLabel
               OpBranch %cont
       %cont = OpLabel
       %next = OpIAdd %int %i %int_1
               OpBranch %header
      %merge = OpLabel
       %last = OpISub %int %i %int_1
          %f = OpConvertSToF %float %last
               OpStore %out %f
               OpReturn
               OpFunctionEnd
"#;

    #[test]
    fn under_differs_a_loop_leaving_an_integer_behind_keeps_its_branches() {
        let words = crate::ir::spirv::asm::assemble(LOOP).unwrap();
        let m = start_of(&words).unwrap();
        let branches = |differs| {
            chances(&m, Edit::Branches, differs)
                .into_iter()
                .filter(|c| matches!(c, Chance::Branch(..)))
                .count()
        };
        assert_eq!(branches(false), 2, "the loop's exit, either way");
        assert_eq!(branches(true), 0);
    }

    #[test]
    fn a_value_is_replaced_by_its_operand_of_its_type() {
        let (m, fid, value) = module();
        let z = value(&m, "FMul");
        let y = value(&m, "FAdd");
        let chances = chances(&m, Edit::Values, false);
        assert!(chances.contains(&Chance::Forward(fid, z, 0)), "{chances:?}");
        let c = apply(&m, &[Chance::Forward(fid, z, 0)], false).unwrap();
        let f = &c.functions()[0];
        assert!(f.insts().all(|i| i.op() != Op::FMul));
        let convert = f.insts().find(|i| i.op() == Op::ConvertFToS).unwrap();
        assert_eq!(convert.args()[0], y);
        assert!(verified(&c));
    }

    #[test]
    fn integers_are_not_replaced_by_operands_under_differs() {
        let (m, fid, value) = module();
        let j = value(&m, "IMul");
        assert!(chances(&m, Edit::Values, false).contains(&Chance::Forward(fid, j, 0)));
        let under_differs = chances(&m, Edit::Values, true);
        assert!(!under_differs.contains(&Chance::Forward(fid, j, 0)));
        assert!(under_differs
            .iter()
            .any(|c| matches!(c, Chance::Forward(..))));
    }

    fn parts(command: &str) -> Vec<String> {
        let run = command_for(command, std::path::Path::new("/t/c.spv"));
        std::iter::once(run.get_program())
            .chain(run.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn plain_commands_run_without_a_shell_and_others_through_one() {
        assert_eq!(
            parts("./is-it.sh --op Select"),
            ["./is-it.sh", "--op", "Select", "/t/c.spv"]
        );
        assert_eq!(parts("grep -q x | true")[..2], ["sh", "-c"]);
        assert_eq!(parts("A=1 check")[..2], ["sh", "-c"]);
        assert_eq!(parts("check '$HOME'")[..2], ["sh", "-c"]);
    }
}
