//! What the interpreter computed at a step, as the code pane shows it (`:exec`): the step run
//! once on the harness's inputs (a dispatch, or a draw behind or before the generated partner
//! stage, as `shaderstep exec` runs it) and, for the invocation the user chose, the last
//! result of each value with how many times it was computed, and how many times each block
//! was entered.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use spirv::{ExecutionModel, Op};

use super::exec::{models, run_draw_step, run_step, DrawnStage};
use crate::ir::consts::Const;
use crate::ir::exec::{DrawExecution, Event, Execution, Options, Value, Who};
use crate::ir::fxhash::FxHashMap;
use crate::ir::names::Names;
use crate::ir::{Id, Module};

/// Whose values show: an invocation of a dispatch, a fragment's pixel, a vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chosen {
    Invocation([u32; 3]),
    /// The fragment that wrote the pixel last (else the first that ran there).
    Pixel(u32, u32),
    /// The fragment of one triangle at a pixel (where a first difference was found).
    Fragment {
        x: u32,
        y: u32,
        triangle: u32,
    },
    Vertex(u32),
}

impl fmt::Display for Chosen {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Chosen::Invocation([x, y, z]) => write!(f, "invocation {x},{y},{z}"),
            Chosen::Pixel(x, y) => write!(f, "pixel {x},{y}"),
            Chosen::Fragment { x, y, triangle } => {
                write!(f, "pixel {x},{y} of triangle {triangle}")
            }
            Chosen::Vertex(n) => write!(f, "vertex {n}"),
        }
    }
}

/// `N,N,…`: exactly `n` unsigned numbers.
pub fn numbers(text: &str, n: usize) -> Result<Vec<u32>, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let out: Vec<u32> = parts
        .iter()
        .map(|p| p.parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("'{text}' is not {n} numbers separated by commas"))?;
    if out.len() != n {
        return Err(format!("'{text}' is not {n} numbers separated by commas"));
    }
    Ok(out)
}

impl FromStr for Chosen {
    type Err = String;

    /// `invocation X,Y,Z` (or `X,Y,Z`), `pixel X,Y`, `vertex N`.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let (what, rest) = s.split_once(' ').unwrap_or(("invocation", s));
        match what {
            "invocation" => {
                let v = numbers(rest, 3)?;
                Ok(Chosen::Invocation([v[0], v[1], v[2]]))
            }
            "pixel" => {
                let v = numbers(rest, 2)?;
                Ok(Chosen::Pixel(v[0], v[1]))
            }
            "vertex" => Ok(Chosen::Vertex(numbers(rest, 1)?[0])),
            other => Err(format!(
                "'{other}': choose an invocation X,Y,Z, a pixel X,Y or a vertex N"
            )),
        }
    }
}

/// A step run on the interpreter.
pub struct StepRun {
    pub what: Ran,
    /// Wall time of the run (both runs, when it ran again for one invocation).
    pub took: Duration,
    /// When the whole trace did not fit: the invocation it ran again for, recording only its
    /// values (the others' are not kept), or a choice the run does not have (which showing
    /// the values says).
    pub focus: Option<Chosen>,
}

pub enum Ran {
    Dispatch(Box<Execution>),
    Draw {
        stage: DrawnStage,
        execution: Box<DrawExecution>,
    },
}

/// Values the code pane shows: the trace is kept at most this long (about 50 bytes an
/// event), so a step's values never hold more than some 50 MB.
pub const TRACE_LIMIT: usize = 1_000_000;

/// Runs `step` as `shaderstep exec` would: a compute entry point dispatched, else the vertex
/// or fragment stage drawn. When the trace of every invocation does not fit `TRACE_LIMIT`,
/// it runs again recording only `chosen` (else the default choice): runs are
/// deterministic, so the second is the first, seen through one invocation. The second stops
/// once that invocation has ended or filled the trace: the first gave the outputs, the
/// findings and the count of instructions executed, which the run keeps.
pub fn run(step: &Module, chosen: Option<Chosen>) -> Result<StepRun, String> {
    run_within(step, chosen, TRACE_LIMIT, None)
}

/// `run`, stopped when `cancel` is set: it then fails with `exec::CANCELLED`.
pub fn run_cancellable(
    step: &Module,
    chosen: Option<Chosen>,
    cancel: Arc<AtomicBool>,
) -> Result<StepRun, String> {
    run_within(step, chosen, TRACE_LIMIT, Some(cancel))
}

/// `run`, with a trace of at most `limit` results.
fn run_within(
    step: &Module,
    chosen: Option<Chosen>,
    limit: usize,
    cancel: Option<Arc<AtomicBool>>,
) -> Result<StepRun, String> {
    let first = run_with(
        step,
        &Options {
            trace_limit: limit,
            cancel: cancel.clone(),
            ..Options::default()
        },
    )?;
    if !first.cut() {
        return Ok(first);
    }
    let chosen = chosen.unwrap_or_else(|| first.default_choice());
    // A choice the run does not have is said where the values show, as for a run not cut.
    // The run stands, focused on that choice: it runs again only for another.
    let Ok((_, k)) = first.find(chosen) else {
        return Ok(StepRun {
            focus: Some(chosen),
            ..first
        });
    };
    let stage = first.stage_of(chosen);
    let second = run_with(
        step,
        &Options {
            trace_limit: limit,
            trace_only: Some(k),
            stop_once_traced: Some(stage),
            cancel,
            ..Options::default()
        },
    )?;
    Ok(first.seen_through(second, chosen, k, stage))
}

/// `step` dispatched or drawn with `options`.
fn run_with(step: &Module, options: &Options) -> Result<StepRun, String> {
    let start = Instant::now();
    let has = models(step);
    let what = if has.contains(&ExecutionModel::GLCompute) {
        Ran::Dispatch(Box::new(run_step(step, None, None, options)?.execution))
    } else if has.contains(&ExecutionModel::Vertex) || has.contains(&ExecutionModel::Fragment) {
        let ran = run_draw_step(step, None, options)?;
        Ran::Draw {
            stage: ran.stage,
            execution: Box::new(ran.execution),
        }
    } else {
        return Err("the step has no compute, vertex or fragment entry point".into());
    };
    Ok(StepRun {
        what,
        took: start.elapsed(),
        focus: None,
    })
}

/// `into` keeps the trace and block counts of `from`, a run of the same invocations.
fn take_trace(into: &mut Execution, from: Execution) {
    into.trace = from.trace;
    into.entered = from.entered;
    into.trace_cut = from.trace_cut;
}

/// `e` keeps the trace and block counts of invocation `k` only.
fn keep_only(e: &mut Execution, k: u32) {
    e.trace.retain(|ev| ev.invocation == k);
    e.entered.retain(|&(inv, _), _| inv == k);
}

impl StepRun {
    /// The stage whose invocation `chosen` is.
    fn stage_of(&self, chosen: Chosen) -> ExecutionModel {
        match (&self.what, chosen) {
            (Ran::Dispatch(_), _) => ExecutionModel::GLCompute,
            (Ran::Draw { .. }, Chosen::Vertex(_)) => ExecutionModel::Vertex,
            (Ran::Draw { .. }, _) => ExecutionModel::Fragment,
        }
    }

    /// This run (every invocation, its trace cut) with the values of `chosen`, invocation
    /// `k` of `stage`, from `second`, which recorded only those and stopped once they were
    /// in. The stage before the chosen one ran whole in `second`, so its trace is `k`'s there
    /// too; the stage after it did not run there, and keeps `k`'s part of this run's trace.
    fn seen_through(
        mut self,
        second: StepRun,
        chosen: Chosen,
        k: u32,
        stage: ExecutionModel,
    ) -> StepRun {
        match (&mut self.what, second.what) {
            (Ran::Dispatch(e), Ran::Dispatch(s)) => take_trace(e, *s),
            (Ran::Draw { execution: e, .. }, Ran::Draw { execution: s, .. }) => {
                let s = *s;
                take_trace(&mut e.vertex, s.vertex);
                if stage == ExecutionModel::Vertex {
                    keep_only(&mut e.fragment, k);
                } else {
                    take_trace(&mut e.fragment, s.fragment);
                }
            }
            _ => {}
        }
        self.took += second.took;
        self.focus = Some(chosen);
        self
    }

    /// The executions of the run: one for a dispatch, the two stages of a draw.
    fn executions(&self) -> Vec<&Execution> {
        match &self.what {
            Ran::Dispatch(e) => vec![e],
            Ran::Draw { execution, .. } => vec![&execution.vertex, &execution.fragment],
        }
    }

    /// Bytes the trace and block counts hold (what `:exec` reports).
    pub fn trace_bytes(&self) -> usize {
        self.executions()
            .iter()
            .map(|e| {
                e.trace.len() * std::mem::size_of::<Event>()
                    + e.entered.len() * (std::mem::size_of::<(u32, Id)>() + 4)
            })
            .sum()
    }

    /// Instructions executed in all.
    pub fn executed(&self) -> u64 {
        self.executions().iter().map(|e| e.executed).sum()
    }

    /// Whether a trace stopped at its limit.
    pub fn cut(&self) -> bool {
        self.executions().iter().any(|e| e.trace_cut)
    }

    /// Whether it holds the values of `chosen` (the default choice when `None`).
    pub fn covers(&self, chosen: Option<Chosen>) -> bool {
        match self.focus {
            None => true,
            Some(f) => f == chosen.unwrap_or_else(|| self.default_choice()),
        }
    }

    /// Who is shown when the user has not chosen: invocation 0,0,0; the first pixel a
    /// fragment (not a helper) ran for; vertex 0.
    pub fn default_choice(&self) -> Chosen {
        match &self.what {
            Ran::Dispatch(_) => Chosen::Invocation([0, 0, 0]),
            Ran::Draw {
                stage: DrawnStage::Vertex,
                ..
            } => Chosen::Vertex(0),
            Ran::Draw { execution, .. } => execution
                .fragment
                .who
                .iter()
                .find_map(|w| match *w {
                    Who::Fragment {
                        x,
                        y,
                        helper: false,
                        ..
                    } => Some(Chosen::Pixel(x, y)),
                    _ => None,
                })
                .unwrap_or(Chosen::Vertex(0)),
        }
    }

    /// The execution and invocation number `chosen` names.
    fn find(&self, chosen: Chosen) -> Result<(&Execution, u32), String> {
        match (&self.what, chosen) {
            (Ran::Dispatch(e), Chosen::Invocation(id)) => {
                let k = e.invocation_number(id).ok_or_else(|| {
                    let size: Vec<u32> = (0..3).map(|k| e.groups[k] * e.local_size[k]).collect();
                    format!(
                        "no {chosen}: the dispatch is {}x{}x{}",
                        size[0], size[1], size[2]
                    )
                })?;
                Ok((e, k))
            }
            (Ran::Dispatch(_), _) => Err(format!(
                "this is a compute shader: choose an invocation X,Y,Z, not a {}",
                if matches!(chosen, Chosen::Vertex(..)) {
                    "vertex"
                } else {
                    "pixel"
                }
            )),
            (Ran::Draw { execution, .. }, Chosen::Fragment { x, y, triangle }) => {
                let k = execution
                    .fragment
                    .who
                    .iter()
                    .position(|w| {
                        matches!(*w, Who::Fragment { x: px, y: py, triangle: t, helper: false }
                            if (px, py, t) == (x, y, triangle))
                    })
                    .ok_or_else(|| {
                        format!("no fragment of triangle {triangle} at pixel {x},{y}")
                    })?;
                Ok((&execution.fragment, k as u32))
            }
            (Ran::Draw { stage, execution }, Chosen::Pixel(x, y)) => {
                if *stage == DrawnStage::Vertex {
                    return Err("this is a vertex shader: choose a vertex N".into());
                }
                let k = execution
                    .pixel(x, y)
                    .ok_or_else(|| format!("no fragment ran at pixel {x},{y}"))?;
                Ok((&execution.fragment, k))
            }
            (Ran::Draw { stage, execution }, Chosen::Vertex(n)) => {
                if *stage == DrawnStage::Fragment {
                    return Err("this is a fragment shader: choose a pixel X,Y".into());
                }
                let k = execution
                    .vertex
                    .who
                    .iter()
                    .position(|w| matches!(*w, Who::Vertex { index, instance: 0 } if index == n))
                    .ok_or_else(|| {
                        format!("no vertex {n}: the draw has {}", execution.vertex.who.len())
                    })?;
                Ok((&execution.vertex, k as u32))
            }
            (Ran::Draw { .. }, Chosen::Invocation(_)) => {
                Err("this is a draw: choose a pixel X,Y (fragment) or a vertex N (vertex)".into())
            }
        }
    }

    /// The values of `chosen` (the default choice when `None`) as the code pane shows them:
    /// the texts read with `module` (the step's) for names and signedness.
    ///
    /// With `at`, as the execution stood after the invocation's result number `at` (0-based,
    /// in execution order: stepping through the trace), later results not yet there.
    pub fn shown(
        &self,
        chosen: Option<Chosen>,
        module: &Module,
        hex: bool,
        at: Option<usize>,
    ) -> Result<Shown, String> {
        let chosen = chosen.unwrap_or_else(|| self.default_choice());
        if !self.covers(Some(chosen)) {
            return Err(format!("running again for {chosen}…"));
        }
        let (e, k) = self.find(chosen)?;
        let mut last: FxHashMap<Id, (&Value, u32)> = FxHashMap::default();
        let mut order = Vec::new();
        for ev in e.trace.iter().filter(|ev| ev.invocation == k) {
            if at.is_none_or(|at| order.len() <= at) {
                let entry = last.entry(ev.id).or_insert((&ev.value, 0));
                entry.0 = &ev.value;
                entry.1 += 1;
            }
            order.push(ev.id);
        }
        let types = ResultTypes::of(module);
        let names = Names::for_module(module);
        let values = last
            .into_iter()
            .map(|(id, (v, n))| (id, (short(v, &types.signed(id), module, &names, e, hex), n)))
            .collect();
        let entered = e
            .entered
            .iter()
            .filter(|((inv, _), _)| *inv == k)
            .map(|(&(_, label), &n)| (label, n))
            .collect();
        let depth = call_depths(module, &order);
        Ok(Shown {
            who: e.describe(k),
            chosen,
            values,
            entered,
            cut: e.trace_cut,
            order,
            depth,
            at,
        })
    }
}

/// Where two steps first compute otherwise (`:first-difference`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstDifference {
    /// The value, as the selected step calls it.
    pub id: Id,
    /// Whose value it is.
    pub chosen: Chosen,
    /// The selected step's value and the other's.
    pub value: String,
    pub against: String,
    /// `%ID = OpCode …: OTHER → THIS (who), line N`, with the selected step's ids.
    pub text: String,
    /// Whose value it is, as a person says it (`invocation 3,0,0`, `pixel 4,5 of triangle
    /// 1`), and the instruction with its source line (`%12 = OpISub …, line 5`): the list of
    /// the invocations that differ leads with who.
    pub who: String,
    pub what: String,
    /// The first difference of each other invocation whose values differ, in the order they
    /// ran (at most `DIFFERING_LISTED`; empty in these).
    pub others: Vec<FirstDifference>,
}

/// Invocations `first_difference` lists.
pub const DIFFERING_LISTED: usize = 1000;

/// The executions of a run to compare, in the order they ran (a draw's vertex stage first,
/// then its fragments, for the stages that are the step's own).
fn compared(run: &StepRun) -> Vec<&Execution> {
    match &run.what {
        Ran::Dispatch(e) => vec![e],
        Ran::Draw {
            stage: DrawnStage::Vertex,
            execution,
        } => vec![&execution.vertex],
        Ran::Draw {
            stage: DrawnStage::Fragment,
            execution,
        } => vec![&execution.fragment],
        Ran::Draw { execution, .. } => vec![&execution.vertex, &execution.fragment],
    }
}

/// The first value `this` (a step run) computes otherwise than `other` (another step, or
/// another input's step, run on the same inputs), in execution order: `None` when every value
/// both compute is the same. `forward` gives, for an id of the earlier of the two steps, the
/// id the later one has for it (`history::renamed`, composed); `this_is_later` says which
/// that is. Ids in the answer are the selected step's (`this_module`'s).
pub fn first_difference(
    this: &Module,
    other: &Module,
    forward: &FxHashMap<Id, Id>,
    this_is_later: bool,
) -> Result<Option<FirstDifference>, String> {
    let options = Options::default();
    let mine = run_with(this, &options)?;
    let theirs = run_with(other, &options).map_err(|e| format!("the other step: {e}"))?;
    // Both in the later step's numbering; the answer's id is this step's own.
    let later = |id: Id| *forward.get(&id).unwrap_or(&id);
    let same = |id: Id| id;
    let (mine_in, theirs_in): (&dyn Fn(Id) -> Id, &dyn Fn(Id) -> Id) = if this_is_later {
        (&same, &later)
    } else {
        (&later, &same)
    };
    let types = ResultTypes::of(this);
    let this_names = Names::for_module(this);
    let other_names = Names::for_module(other);
    let described = |a: &Execution, b: &Execution, d: &crate::ir::exec::Difference| {
        let id = d.id;
        let signed = types.signed(id);
        let chosen = match a.who.get(d.invocation as usize) {
            Some(&Who::Fragment { x, y, triangle, .. }) => Chosen::Fragment { x, y, triangle },
            Some(&Who::Vertex { index, .. }) => Chosen::Vertex(index),
            None => Chosen::Invocation(a.invocation_of(d.invocation)),
        };
        let value = short(&d.value, &signed, this, &this_names, a, false);
        let against = short(&d.against, &signed, other, &other_names, b, false);
        // As `exec --against` says it, with the names the code pane prints and the values
        // in short.
        let name = format!("%{}", this_names.get(id));
        let what = match this.functions().iter().find_map(|f| f.def_of(id)) {
            Some(inst) => format!(
                "{name} = {}",
                crate::ir::spirv::disasm::Context::new(this, this_names.clone()).format_body(inst)
            ),
            None => name,
        };
        let line = crate::ir::exec::line_of(this, id)
            .map(|l| format!(", line {l}"))
            .unwrap_or_default();
        let who = a.describe(d.invocation);
        let text = format!("{what}: {against} → {value} ({who}){line}");
        FirstDifference {
            id,
            chosen,
            value,
            against,
            text,
            who,
            what: format!("{what}{line}"),
            others: Vec::new(),
        }
    };
    // Each stage's invocations, the first stage that differs giving the first difference.
    let mut all: Vec<FirstDifference> = Vec::new();
    for (a, b) in compared(&mine).into_iter().zip(compared(&theirs)) {
        let left = DIFFERING_LISTED + 1 - all.len();
        let found = crate::ir::exec::differences_matched(a, b, mine_in, theirs_in, left);
        all.extend(found.iter().map(|d| described(a, b, d)));
        if all.len() > DIFFERING_LISTED {
            break;
        }
    }
    if !all.is_empty() {
        let mut first = all.remove(0);
        first.others = all;
        return Ok(Some(first));
    }
    let cut = compared(&mine)
        .into_iter()
        .chain(compared(&theirs))
        .any(|e| e.trace_cut);
    if cut {
        return Err(format!(
            "no value differs in the first {} results of each, where the trace stops: later ones are not compared",
            Options::default().trace_limit
        ));
    }
    Ok(None)
}

/// One invocation's values at a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// As a person names it: `invocation 3,0,0`, `pixel 4,5 of triangle 1`, `vertex 2`.
    pub who: String,
    pub chosen: Chosen,
    /// Each value it computed: the last result as text, and how many times.
    pub values: FxHashMap<Id, (String, u32)>,
    /// Each block it entered, and how many times.
    pub entered: FxHashMap<Id, u32>,
    /// The trace stopped at its limit: later values are missing.
    pub cut: bool,
    /// The values it computed, in execution order (what stepping walks).
    pub order: Vec<Id>,
    /// How deep in calls each of `order` was computed (the entry point's: 0).
    pub depth: Vec<u32>,
    /// Stepping: the values are as they stood after `order[at]`.
    pub at: Option<usize>,
}

/// A source variable at the point shown (`:locals`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Local {
    pub name: String,
    /// Its value as the step describes it there, or why there is none.
    pub value: String,
    /// The value that holds it (where `Enter` goes).
    pub id: Option<Id>,
}

/// The source variables of function `function` (`DebugLocalVariable`s that its
/// `DebugDeclare`s and `DebugValue`s describe) and their values in `shown`: where the variable
/// is a value (`DebugValue`), the one of the values it names computed last; where it lives in
/// memory (`DebugDeclare`), what the last load of it read.
pub fn locals(m: &Module, function: Id, shown: &Shown) -> Vec<Local> {
    use crate::ir::ext_sets::{DECLARE, LOCAL_VARIABLE, VALUE};
    let Some(f) = m.function(function) else {
        return Vec::new();
    };
    let sets = crate::ir::debug::DebugSets::of(m);
    let strings = crate::ir::debug::strings(m);
    // When each value was computed last, up to the point shown.
    let upto = shown
        .at
        .map_or(shown.order.len(), |a| (a + 1).min(shown.order.len()));
    let mut when: FxHashMap<Id, usize> = FxHashMap::default();
    for (k, &id) in shown.order[..upto].iter().enumerate() {
        when.insert(id, k);
    }
    // Loads by the variable they read.
    let mut loads: FxHashMap<Id, Vec<Id>> = FxHashMap::default();
    // (the variable, described as a value) → the values named; (the variable, in memory) →
    // the pointer.
    let mut values: Vec<(Id, Vec<Id>)> = Vec::new();
    let mut memory: Vec<(Id, Id)> = Vec::new();
    for (_, i) in f.layout() {
        let inst = f.inst(i);
        if inst.op() == Op::Load {
            if let (Some(p), Some(r)) = (inst.arg(0), inst.result()) {
                loads.entry(p).or_default().push(r);
            }
            continue;
        }
        let (Some(var), Some(described)) = (
            inst.arg(crate::ir::debug::ARG_VARIABLE),
            inst.arg(crate::ir::debug::ARG_DESCRIBED),
        ) else {
            continue;
        };
        if sets.is(inst, VALUE) {
            match values.iter_mut().find(|(v, _)| *v == var) {
                Some((_, ids)) => ids.push(described),
                None => values.push((var, vec![described])),
            }
        } else if sets.is(inst, DECLARE) && !memory.iter().any(|(v, _)| *v == var) {
            memory.push((var, described));
        }
    }
    let name_of = |var: Id| -> String {
        m.global(var)
            .filter(|g| sets.is(g, LOCAL_VARIABLE))
            .and_then(|g| g.arg(1))
            .and_then(|s| strings.get(&s).cloned())
            .unwrap_or_else(|| format!("%{var}"))
    };
    // Of `ids`, the one computed last, with its value as shown.
    let latest = |ids: &[Id]| -> Option<(Id, String)> {
        let id = ids
            .iter()
            .copied()
            .filter(|id| when.contains_key(id))
            .max_by_key(|id| when[id])?;
        Some((id, shown.values.get(&id)?.0.clone()))
    };
    let local = |var: Id, found: Option<(Id, String)>, how: &str, none: &str| match found {
        Some((id, value)) => Local {
            name: name_of(var),
            value: format!("{value}{how}"),
            id: Some(id),
        },
        None => Local {
            name: name_of(var),
            value: none.into(),
            id: None,
        },
    };
    let mut out: Vec<Local> = values
        .iter()
        .map(|(var, ids)| local(*var, latest(ids), "", "not yet given a value"))
        .collect();
    for (var, ptr) in memory {
        let read = loads.get(&ptr).map_or(&[][..], Vec::as_slice);
        out.push(local(
            var,
            latest(read),
            " (as last loaded)",
            "in memory, not loaded yet",
        ));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The call depth of each value of `order` (an invocation's, in execution order). SPIR-V
/// has no recursion, so the functions in progress are a stack of distinct functions: a value
/// of a function already on it returns there, of another calls it.
fn call_depths(m: &Module, order: &[Id]) -> Vec<u32> {
    let mut function_of: FxHashMap<Id, Id> = FxHashMap::default();
    for f in m.functions() {
        for p in f.params() {
            if let Some(r) = p.result() {
                function_of.insert(r, f.id());
            }
        }
        for b in f.blocks() {
            for &i in &b.insts {
                if let Some(r) = f.inst(i).result() {
                    function_of.insert(r, f.id());
                }
            }
        }
    }
    let mut stack: Vec<Id> = Vec::new();
    order
        .iter()
        .map(|id| {
            if let Some(&f) = function_of.get(id) {
                match stack.iter().position(|&g| g == f) {
                    Some(k) => stack.truncate(k + 1),
                    None => stack.push(f),
                }
            }
            stack.len().saturating_sub(1) as u32
        })
        .collect()
}

/// Whether the scalars of each value's type are signed integers, from the module's types.
struct ResultTypes<'m> {
    m: &'m Module,
    defs: FxHashMap<Id, Id>,
}

impl<'m> ResultTypes<'m> {
    fn of(m: &'m Module) -> Self {
        let mut defs = FxHashMap::default();
        for f in m.functions() {
            for p in f.params() {
                if let (Some(r), Some(t)) = (p.result(), p.ty()) {
                    defs.insert(r, t);
                }
            }
            for b in f.blocks() {
                for &i in &b.insts {
                    let inst = f.inst(i);
                    if let (Some(r), Some(t)) = (inst.result(), inst.ty()) {
                        defs.insert(r, t);
                    }
                }
            }
        }
        ResultTypes { m, defs }
    }

    /// Per scalar of `id`'s type, in order, whether it is a signed integer (empty: unknown).
    fn signed(&self, id: Id) -> Vec<bool> {
        let mut out = Vec::new();
        if let Some(&t) = self.defs.get(&id) {
            self.scalars(t, &mut out, 0);
        }
        out
    }

    fn scalars(&self, ty: Id, out: &mut Vec<bool>, depth: u32) {
        let Some(t) = self.m.global(ty) else { return };
        if depth > 8 || out.len() > 64 {
            return;
        }
        match t.op() {
            Op::TypeInt => out.push(matches!(
                t.lits().get(1),
                Some(rspirv::dr::Operand::LiteralBit32(1))
            )),
            Op::TypeFloat | Op::TypeBool => out.push(false),
            Op::TypeVector | Op::TypeMatrix => {
                let n = match t.lits().first() {
                    Some(rspirv::dr::Operand::LiteralBit32(n)) => *n,
                    _ => 0,
                };
                for _ in 0..n.min(16) {
                    if let Some(e) = t.arg(0) {
                        self.scalars(e, out, depth + 1);
                    }
                }
            }
            Op::TypeStruct => {
                for &m in t.args() {
                    self.scalars(m, out, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// A value in short: floats as the shortest text that reads back at their width, integers
/// in decimal (signed where the type is) or hex, booleans, vectors and structs in
/// parentheses, pointers as the variable and the indices into it.
pub fn short(
    v: &Value,
    signed: &[bool],
    m: &Module,
    names: &Names,
    e: &Execution,
    hex: bool,
) -> String {
    let mut out = String::new();
    let mut k = 0;
    write_value(&mut out, v, signed, &mut k, (m, names), e, hex);
    out
}

fn write_value(
    out: &mut String,
    v: &Value,
    signed: &[bool],
    k: &mut usize,
    m: (&Module, &Names),
    e: &Execution,
    hex: bool,
) {
    match v {
        Value::Const(c) => write_const(out, c, signed, k, hex),
        Value::Pointer(_) => {
            let (root, path) = v.pointer_parts().unwrap_or((0, &[]));
            let var = e.root_vars.get(root).copied();
            match var.and_then(|var| variable_name(m.0, m.1, var)) {
                Some(name) => out.push_str(&format!("&{name}")),
                None => match var {
                    Some(var) => out.push_str(&format!("&%{var}")),
                    None => out.push_str("&?"),
                },
            }
            for i in path {
                out.push_str(&format!("[{i}]"));
            }
        }
        Value::Handle(_) => out.push_str(&crate::ir::exec::show(v)),
        Value::Partly(parts) => {
            out.push('(');
            for (n, p) in parts.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                write_value(out, p, signed, k, m, e, hex);
            }
            out.push(')');
        }
        Value::Undef => {
            out.push_str("undef");
            *k += 1;
        }
    }
}

/// What a variable is called: its name as the code pane prints it, else (a buffer's instance
/// is often unnamed) the name of the type it points to.
fn variable_name(m: &Module, names: &Names, var: Id) -> Option<String> {
    let named = |id: Id| {
        m.debug_name(id)
            .filter(|n| !n.is_empty())
            .map(|_| names.get(id))
    };
    named(var).or_else(|| {
        let ty = m
            .global(var)
            .or_else(|| m.functions().iter().find_map(|f| f.def_of(var)))?
            .ty()?;
        let pointee = m.global(ty).filter(|t| t.op() == Op::TypePointer)?.arg(0)?;
        named(pointee)
    })
}

fn write_const(out: &mut String, c: &Const, signed: &[bool], k: &mut usize, hex: bool) {
    use crate::ir::ops::fold::Value as V;
    match c {
        Const::Scalar(V::Int { bits, width }) => {
            let is_signed = signed.get(*k).copied().unwrap_or(false);
            *k += 1;
            let w = (*width).min(64);
            if hex {
                out.push_str(&format!("0x{bits:x}"));
            } else if is_signed {
                let shift = 64 - w;
                out.push_str(&(((bits << shift) as i64) >> shift).to_string());
            } else {
                out.push_str(&bits.to_string());
            }
        }
        Const::Scalar(V::Float { value, width }) => {
            *k += 1;
            if hex {
                let bits = if *width == 64 {
                    value.to_bits()
                } else {
                    u64::from((*value as f32).to_bits())
                };
                out.push_str(&format!("0x{bits:x}"));
            } else if *width == 64 {
                out.push_str(&format!("{value:?}"));
            } else {
                out.push_str(&format!("{:?}", *value as f32));
            }
        }
        Const::Scalar(V::Bool(b)) => {
            *k += 1;
            out.push_str(if *b { "true" } else { "false" });
        }
        Const::Bits { bits, width } => {
            *k += 1;
            out.push_str(&format!("0x{bits:0w$x}", w = (*width as usize) / 4));
        }
        Const::Composite(parts) => {
            out.push('(');
            for (n, p) in parts.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                write_const(out, p, signed, k, hex);
            }
            out.push(')');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two invocations (two workgroups of one), each summing `s = 3s + i` over `i < 100` in
    /// a loop of six results a round, and storing `s` at its own index.
    fn looping() -> Module {
        looping_to(100)
    }

    /// `looping` with `n` rounds of its loop.
    fn looping_to(n: u32) -> Module {
        use crate::ir::exec::tests::{module, HEAD};
        let body = r#"%rounds = OpConstant %uint ROUNDS
%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%x = OpCompositeExtract %uint %id 0
OpBranch %header
%header = OpLabel
%i = OpPhi %uint %u0 %entry %i_next %body
%s = OpPhi %uint %u0 %entry %s_next %body
%cond = OpULessThan %bool %i %rounds
OpLoopMerge %exit %body None
OpBranchConditional %cond %body %exit
%body = OpLabel
%s3 = OpIMul %uint %s %u3
%s_next = OpIAdd %uint %s3 %i
%i_next = OpIAdd %uint %i %u1
OpBranch %header
%exit = OpLabel
%p = OpAccessChain %ptr_u %data %u0 %x
OpStore %p %s
OpReturn
OpFunctionEnd
"#;
        let head = HEAD.replace("LocalSize 4 1 1", "LocalSize 1 1 1");
        module(&format!("{head}{}", body.replace("ROUNDS", &n.to_string())))
    }

    #[test]
    fn a_cancelled_run_stops_at_once_and_says_so() {
        // Two invocations of a million rounds: some seven million instructions uncancelled.
        let m = looping_to(1_000_000);
        let cancel = Arc::new(AtomicBool::new(true));
        let started = Instant::now();
        let cancelled = run_cancellable(&m, None, cancel.clone());
        assert_eq!(cancelled.err().as_deref(), Some(crate::ir::exec::CANCELLED));
        assert!(started.elapsed() < Duration::from_secs(5));
        // Not set, the flag changes nothing.
        cancel.store(false, std::sync::atomic::Ordering::Relaxed);
        let small = looping();
        let run = run_cancellable(&small, None, cancel).unwrap();
        assert_eq!(
            run.executed(),
            run_with(&small, &Options::default()).unwrap().executed()
        );
    }

    /// What each invocation of `looping` stores.
    fn looping_sum() -> u32 {
        (0..100u32).fold(0u32, |s, i| s.wrapping_mul(3).wrapping_add(i))
    }

    #[test]
    fn a_run_traced_for_one_invocation_stops_once_it_has_its_values() {
        let m = looping();
        let options = |limit, stop| Options {
            trace_limit: limit,
            trace_only: Some(0),
            stop_once_traced: stop,
            ..Options::default()
        };
        let whole = run_with(&m, &options(10_000, None)).unwrap();
        let ended = run_with(&m, &options(10_000, Some(ExecutionModel::GLCompute))).unwrap();
        let full = run_with(&m, &options(100, Some(ExecutionModel::GLCompute))).unwrap();
        // Without the stop, both invocations run; with it, the run ends with invocation 0
        // (the first of two alike), or where its trace is full.
        assert_eq!(ended.executed() * 2, whole.executed());
        assert_eq!(ended.executions()[0].trace, whole.executions()[0].trace);
        assert!(!ended.cut());
        assert!(full.cut());
        assert_eq!(full.executions()[0].trace.len(), 100);
        assert!(full.executed() < 200, "{}", full.executed());
        // Another stage's stop does not stop this one.
        let other = run_with(&m, &options(100, Some(ExecutionModel::Fragment))).unwrap();
        assert_eq!(other.executed(), whole.executed());
    }

    #[test]
    fn a_cut_trace_keeps_the_whole_run_and_the_chosen_invocations_values() {
        let m = looping();
        // Each invocation makes about 600 results: 1 000 cuts the trace of both, not of one.
        let run = run_within(&m, None, 1_000, None).unwrap();
        assert_eq!(run.focus, Some(Chosen::Invocation([0, 0, 0])));
        assert!(!run.cut(), "invocation 0's values all fit");
        let Ran::Dispatch(e) = &run.what else {
            panic!("a dispatch")
        };
        // The outputs are the whole run's: both invocations stored their sum.
        let whole = run_with(&m, &Options::default()).unwrap();
        assert_eq!(run.executed(), whole.executed());
        let stored: Vec<u32> = e.buffers[0].bytes[..8]
            .chunks(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect();
        assert_eq!(stored, [looping_sum(); 2]);
        assert!(e.trace.iter().all(|ev| ev.invocation == 0));
        let shown = run.shown(None, &m, false, None).unwrap();
        // Every round of invocation 0 is there: the body's three results 100 times, the
        // header's three 101 times, the entry's and the exit's once.
        let mut counts: Vec<u32> = shown.values.values().map(|v| v.1).collect();
        counts.sort_unstable();
        assert_eq!(counts, [1, 1, 1, 100, 100, 100, 101, 101, 101]);
        assert!(!shown.cut);
        // Another invocation needs another run.
        assert!(!run.covers(Some(Chosen::Invocation([1, 0, 0]))));
        // A choice the dispatch does not have is said where the values show, and only
        // another choice runs the step again.
        let wrong = run_within(&m, Some(Chosen::Pixel(1, 1)), 1_000, None).unwrap();
        assert!(wrong.covers(Some(Chosen::Pixel(1, 1))));
        let said = wrong.shown(Some(Chosen::Pixel(1, 1)), &m, false, None);
        assert!(said.unwrap_err().contains("compute shader"));
        assert!(!wrong.covers(Some(Chosen::Invocation([1, 0, 0]))));
    }

    #[test]
    fn choices_read_as_typed() {
        assert_eq!("1,2,3".parse::<Chosen>(), Ok(Chosen::Invocation([1, 2, 3])));
        assert_eq!("pixel 4, 5".parse::<Chosen>(), Ok(Chosen::Pixel(4, 5)));
        assert_eq!("vertex 7".parse::<Chosen>(), Ok(Chosen::Vertex(7)));
        assert!("pixel 4".parse::<Chosen>().is_err());
        assert!("texel 1,2".parse::<Chosen>().is_err());
        assert_eq!(Chosen::Pixel(4, 5).to_string(), "pixel 4,5");
    }

    #[test]
    fn values_read_short() {
        use crate::ir::ops::fold::Value as V;
        let f = |x: f64| {
            Const::Scalar(V::Float {
                value: f64::from(x as f32),
                width: 32,
            })
        };
        let i = |b: u64| Const::Scalar(V::Int { bits: b, width: 32 });
        let mut s = String::new();
        write_const(
            &mut s,
            &Const::Composite(vec![f(0.1), f(1.0), i(0xffff_ffff), i(3)]),
            &[false, false, true, false],
            &mut 0,
            false,
        );
        assert_eq!(s, "(0.1, 1.0, -1, 3)");
        let mut s = String::new();
        write_const(&mut s, &i(255), &[false], &mut 0, true);
        assert_eq!(s, "0xff");
    }
}
