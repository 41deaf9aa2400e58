//! Who says what a step computes in a semantic bisect (`--oracle`, `:bisect run --oracle`):
//! the Vulkan driver (`semantic::driver_bisect`), shaderstep's own interpreter (`ir::exec`, run
//! on a step by `pipeline::exec` with the inputs the driver harness builds), or both.
//!
//! - `interp`: every step that changed the module runs in the interpreter; no step is compiled
//!   by a driver. The interpreter is deterministic, so nothing is run twice to find words that
//!   vary; a race or an undefined value is undefined in its results and agrees with anything.
//!   A step's buffers are compared with the input's typed (`exec::compare_buffer`, which allows
//!   what Vulkan leaves to the implementation). A step it refuses is skipped, with why.
//! - `driver`: the driver runs every step (what the bisect did before the interpreter).
//! - `both`: both bisect; the driver's answer is reported, and where the interpreter's differs.
//! - `auto` (the default): the input runs on both; where they agree on every output the
//!   interpreter bisects, else the driver, and the summary says which decided and why.
//!
//! Whichever oracle blames a step, the interpreter names the first value that differs between
//! the step before and that one (`exec::first_difference`, ids matched across the step as the
//! value history matches them: `history::renamed`), and the undefined behaviour found first
//! there. A vertex or fragment shader alone (or a module with both), and a pipeline's vertex
//! and fragment stages given apart, are drawn (`draw`); `interpreter_stage` and `draw::drawn`
//! say what the interpreter can run.

mod draw;

use std::fmt;
use std::str::FromStr;

use spirv::ExecutionModel;

use super::exec::{
    driver_buffers, driver_disagreement, finding_text, first_difference_text, run_step, Ran,
};
use super::gpu::Layout;
use super::gpu::{Device, DeviceError};
use super::history::renamed_between;
use super::semantic::{
    driver_bisect, entry_points, pass_steps, setup_text, writable, BisectRun, Difference, Feed,
    Finding, Opener,
};
use super::Run;
use crate::ir::exec::{first_difference_matched, Buffer, FindingKind, Options};
use crate::ir::Id;

/// Who runs the steps of a semantic bisect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Oracle {
    /// The interpreter where it agrees with the driver on the input, else the driver.
    #[default]
    Auto,
    /// The interpreter alone.
    Interp,
    /// The driver alone.
    Driver,
    /// Both; the driver's answer, and where the interpreter's differs.
    Both,
}

impl Oracle {
    /// The spellings `--oracle` takes, in the order the help lists them.
    pub const NAMES: [&'static str; 4] = ["auto", "interp", "driver", "both"];
}

impl FromStr for Oracle {
    type Err = String;
    fn from_str(s: &str) -> Result<Oracle, String> {
        match s {
            "auto" => Ok(Oracle::Auto),
            "interp" => Ok(Oracle::Interp),
            "driver" => Ok(Oracle::Driver),
            "both" => Ok(Oracle::Both),
            other => Err(format!(
                "the oracle is auto, interp, driver or both, not '{other}'"
            )),
        }
    }
}

impl fmt::Display for Oracle {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Oracle::Auto => "auto",
            Oracle::Interp => "interp",
            Oracle::Driver => "driver",
            Oracle::Both => "both",
        })
    }
}

/// The compute shader of `runs` the interpreter dispatches (with `entry` the entry point
/// named), or why it cannot: one compute shader. Vertex and fragment stages, alone or as a
/// pipeline's pair, are drawn (`draw::drawn`, asked first).
pub fn interpreter_stage<'r>(runs: &[&'r Run], entry: Option<&str>) -> Result<&'r Run, String> {
    let only = "the bisect runs the interpreter on compute shaders, vertex or fragment shaders, and a vertex and a fragment shader drawn together";
    let [one] = runs else {
        return Err(format!("{only}, and these are {} stages", runs.len()));
    };
    let points = entry_points(one);
    let model = match entry {
        Some(name) => points.iter().find(|(_, n)| n == name).map(|(m, _)| *m),
        None if points.iter().any(|(m, _)| *m == ExecutionModel::GLCompute) => {
            Some(ExecutionModel::GLCompute)
        }
        None => points.first().map(|(m, _)| *m),
    };
    match model {
        Some(ExecutionModel::GLCompute) => Ok(one),
        Some(m) => Err(format!("{only}, and this is a {} stage", stage_name(m))),
        None => Err(format!("{only}, and the module has no entry point")),
    }
}

fn stage_name(m: ExecutionModel) -> String {
    match m {
        ExecutionModel::Vertex => "vertex".into(),
        ExecutionModel::Fragment => "fragment".into(),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// The semantic bisect of `runs` as `feed.oracle` says (see the module doc).
pub(super) fn bisect<'g>(
    open: &Opener<'g>,
    runs: &[&Run],
    feed: Feed,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    if let Some(run) = draw::drawn(runs, feed.entry) {
        return draw::bisect(open, runs, run, feed, cancelled);
    }
    let stage = interpreter_stage(runs, feed.entry);
    let driver = |why: Option<String>| -> Result<BisectRun, String> {
        let mut b = driver_bisect(open()?, runs, feed, cancelled)?;
        b.oracle = why;
        if let Ok(run) = &stage {
            name_first_value(run, feed, &mut b);
        }
        Ok(b)
    };
    match feed.oracle {
        Oracle::Driver => driver(None),
        Oracle::Interp => {
            let run = stage.as_ref().map_err(|why| {
                format!(
                    "--oracle interp: {why}: bisect it with the driver (--oracle driver, or auto)"
                )
            })?;
            let mut b = interp_bisect(run, feed, None, None, cancelled)?;
            b.oracle = Some("the interpreter decides".into());
            Ok(b)
        }
        Oracle::Both => {
            let mut b = driver(None)?;
            let theirs = match &stage {
                Ok(run) => interp_bisect(run, feed, None, None, cancelled),
                Err(why) => Err(why.clone()),
            };
            b.oracle = Some(both_said(&b, &theirs));
            Ok(b)
        }
        Oracle::Auto => {
            let run = match &stage {
                Ok(run) => *run,
                Err(why) => return driver(Some(format!("{why}, so the driver decides"))),
            };
            let first = *pass_steps(run).first().ok_or("the run has no steps")?;
            let input = match run_input(run, first, feed) {
                Ok(ran) => ran,
                Err(why) => return driver(Some(format!("{why}, so the driver decides"))),
            };
            let gpu = open();
            let checked = match &gpu {
                Ok(gpu) => driver_disagreement(*gpu, &input, feed.entry, feed.data),
                Err(e) => Err(DeviceError::Failed(e.clone())),
            };
            let why = match checked {
                Ok(None) => {
                    "the interpreter agrees with the driver on the input, so it decides".to_string()
                }
                Ok(Some(what)) => {
                    return driver(Some(format!(
                        "the interpreter disagrees with the driver on the input: {}, so the driver decides",
                        arrow(&what, "the interpreter", "the driver", false)
                    )));
                }
                // A driver that crashes or hangs on the input is for the driver's bisect to
                // report.
                Err(DeviceError::Crashed(_) | DeviceError::Hung(_)) => return driver(None),
                Err(e) if gpu.is_err() => format!("{e}, so the interpreter decides"),
                Err(e) => {
                    format!("the driver does not run the input: {e}, so the interpreter decides")
                }
            };
            // Where the interpreter finds a step's results undefined, the driver says.
            let confirm = gpu.ok();
            let mut b = interp_bisect(run, feed, Some(input), confirm, cancelled)?;
            b.oracle = Some(why);
            Ok(b)
        }
    }
}

/// What `both` says beside the driver's answer `b`: whether the interpreter blames the same
/// step.
fn both_said(b: &BisectRun, theirs: &Result<BisectRun, String>) -> String {
    let interp = match theirs {
        // Why names the interpreter: it cannot run the input, or runs no such stage.
        Err(why) => return why.clone(),
        Ok(t) => t,
    };
    match (&b.first, &interp.first) {
        (Some(d), Some(i)) if d.pass_index == i.pass_index => {
            "the interpreter blames the same step".into()
        }
        (None, None) => "the interpreter agrees".into(),
        (_, Some(i)) => format!(
            "the interpreter disagrees: it blames step {} {} — {}",
            i.step, i.pass, i.what
        ),
        (Some(_), None) => format!(
            "the interpreter disagrees: every step computes what the input does there ({} steps{})",
            interp.compared,
            if interp.skipped.is_empty() {
                String::new()
            } else {
                format!(", {} skipped", interp.skipped.len())
            }
        ),
    }
}

/// Options of the bisect's own runs: no trace (only the buffers are compared; the two steps a
/// value is named from run again with one).
fn untraced(feed: Feed) -> Options {
    let budget = Options::default().budget;
    Options {
        trace_limit: 0,
        budget: feed.budget.map_or(budget, |b| b.min(budget)),
        only_quads_of: feed.quads_of,
        ..Options::default()
    }
}

/// Instructions the interpreter runs of pass step `k` of `run` (all invocations, both stages
/// of a draw), or `None` where it cannot run it.
pub fn instructions_run(run: &Run, k: usize, feed: Feed) -> Option<u64> {
    let &i = pass_steps(run).get(k)?;
    if let Some(drawn) = draw::drawn(&[run], feed.entry) {
        return drawn.instructions_run(k, feed);
    }
    let ran = run_step(&run.steps[i].module, feed.entry, feed.data, &untraced(feed)).ok()?;
    Some(ran.execution.executed)
}

/// The pixels where pass step `k` of `run` (a stage the interpreter draws) leaves a texel
/// both it and the input define that differs from the input's, in raster order; `None` where
/// `run` is not drawn or a draw fails.
pub fn differing_pixels(run: &Run, k: usize, feed: Feed) -> Option<Vec<[u32; 2]>> {
    draw::differing_pixels(draw::drawn(&[run], feed.entry)?, k, feed)
}

/// The input run in the interpreter for a bisect, or why it cannot be.
fn run_input(run: &Run, first: usize, feed: Feed) -> Result<Ran, String> {
    let options = untraced(feed);
    let ran = run_step(&run.steps[first].module, feed.entry, feed.data, &options)
        .map_err(|why| format!("the interpreter cannot run the input: {why}"))?;
    if ran
        .execution
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::Budget)
    {
        return Err(format!(
            "the input runs past the interpreter's budget ({} instructions)",
            options.budget
        ));
    }
    Ok(ran)
}

/// The bisect on the interpreter: every step that changed the module runs, and the first
/// whose buffers differ from the input's is blamed. `input`: the input already run. A step
/// whose results differ only where the interpreter finds them undefined, or whose run has
/// undefined behaviour of a kind the input's has not, runs on `confirm` when given, which
/// decides for it: where SPIR-V leaves a value undefined, a driver still computes something,
/// and a pass may change what.
pub fn interp_bisect(
    run: &Run,
    feed: Feed,
    input: Option<Ran>,
    confirm: Option<&dyn Device>,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    let steps = pass_steps(run);
    let &first = steps.first().ok_or("the run has no steps")?;
    let input = match input {
        Some(ran) => ran,
        None => run_input(run, first, feed)?,
    };
    let layout = Layout::of_entry(&input.words, feed.entry)?;
    let buffers = &input.execution.buffers;
    let total: usize = buffers.iter().map(|b| b.bytes.len().div_ceil(4)).sum();
    let writes = layout.bindings.iter().any(|b| writable(&b.kind)) && total > 0;
    let push = match input.inputs.push_constants.len() {
        0 => String::new(),
        n => format!("{n} bytes of push constants"),
    };
    let images = input.inputs.images.len();
    let mut out = BisectRun {
        first: None,
        compared: 1,
        skipped: Vec::new(),
        setup: setup_text("the interpreter", buffers.len(), images, &push),
        varying: 0,
        stable: total,
        writes_nothing: !writes,
        oracle: None,
        driver_judged: Vec::new(),
        interpreter_decided: true,
    };
    for (k, &i) in steps.iter().enumerate().skip(1) {
        if cancelled() {
            return Err("cancelled".into());
        }
        let step = &run.steps[i];
        if !step.changed || feed.skips(k) {
            out.compared += 1;
            continue;
        }
        let ran = match run_step(&step.module, feed.entry, feed.data, &untraced(feed)) {
            Ok(r) => r,
            Err(why) => {
                out.skipped
                    .push((i, format!("the interpreter cannot run it: {why}")));
                continue;
            }
        };
        out.compared += 1;
        let behind = pointees_differ(&input, &ran);
        let differs_here =
            behind.is_some() || differs(&input, &ran.execution.buffers, false).is_some();
        // An out-of-bounds access the input has not (a load through a wild address, say)
        // leaves the interpreter's results as they were and may still crash the driver.
        let wild = new_out_of_bounds(&input, &ran) && confirm.is_some();
        if !differs_here && !wild {
            continue;
        }
        let new_undefined = new_undefined_behaviour(&input, &ran);
        let undefined = differs_here && undefined_only(&input, &ran);
        let mut what = differs(&input, &ran.execution.buffers, undefined)
            .or(behind)
            .unwrap_or_default();
        if (undefined || new_undefined) && confirm.is_none() && feed.undefined_same {
            continue;
        }
        let mut finding = Finding::Differs;
        if let (true, Some(gpu)) = (undefined || new_undefined, confirm) {
            match driver_buffers(gpu, &ran, feed.entry, feed.data) {
                Ok(t) => match differs(&input, &t, false) {
                    None => {
                        if differs_here {
                            out.driver_judged.push(i);
                        }
                        continue;
                    }
                    Some(theirs) if !differs_here => what = theirs,
                    Some(_) => {}
                },
                // What the interpreter finds undefined, the driver crashes or hangs on.
                Err(e @ (DeviceError::Crashed(_) | DeviceError::Hung(_))) => {
                    finding = Finding::of(&e);
                    what = e.to_string();
                }
                // The driver cannot judge it: the interpreter's results stand.
                Err(_) if !differs_here => continue,
                Err(_) => {}
            }
        }
        out.first = Some(Difference {
            step: i,
            pass_index: k,
            pass: step.pass,
            finding,
            what,
            value: None,
            undefined: Vec::new(),
        });
        name_first_value(run, feed, &mut out);
        return Ok(out);
    }
    Ok(out)
}

/// Where the buffers a step left (`theirs`) part from the input's, typed: the input's contents
/// against their bytes (a buffer the step no longer binds holds what it started with).
/// `undefined`: the step's value there is undefined (`undefined_only`), and is said so.
fn differs(input: &Ran, theirs: &[Buffer], undefined: bool) -> Option<String> {
    for (b, ours) in input
        .execution
        .buffers
        .iter()
        .zip(&input.execution.contents)
    {
        let same = |x: &&Buffer| x.is(b);
        let Some(theirs) = theirs
            .iter()
            .find(same)
            .or_else(|| input.inputs.buffers.iter().find(same))
        else {
            continue;
        };
        let what =
            crate::ir::exec::compare_buffer(&input.module, b.set, b.binding, ours, &theirs.bytes);
        if let Some(what) = what {
            return Some(format!(
                "{}{}",
                b.name(),
                arrow(&what, "the input", "the step", undefined)
            ));
        }
    }
    None
}

/// Whether a step's results differ from the input's only where the interpreter finds the
/// step's undefined: read the other way round (the step's contents, whose undefined values
/// agree with anything, against the input's bytes), every buffer both bind agrees.
fn undefined_only(input: &Ran, step: &Ran) -> bool {
    let step_buffers = step.execution.buffers.iter().zip(&step.execution.contents);
    let mut bound = 0;
    for (b, contents) in step_buffers {
        let Some(before) = input.execution.buffers.iter().find(|x| x.is(b)) else {
            continue;
        };
        bound += 1;
        let what = crate::ir::exec::compare_buffer(
            &step.module,
            b.set,
            b.binding,
            contents,
            &before.bytes,
        );
        if what.is_some() {
            return false;
        }
    }
    bound == input.execution.buffers.len()
}

/// Where the buffers behind buffer addresses a step left part from the input's (bytes either
/// run left undefined agree).
fn pointees_differ(input: &Ran, step: &Ran) -> Option<String> {
    let (a, b) = (&input.execution, &step.execution);
    let mut undefined: Vec<(usize, u64)> = a
        .undefined_pointee_bytes
        .iter()
        .chain(&b.undefined_pointee_bytes)
        .copied()
        .collect();
    undefined.sort_unstable();
    a.pointees
        .iter()
        .zip(&b.pointees)
        .enumerate()
        .find_map(|(k, (x, y))| {
            super::exec::compare_pointee(x, &undefined, k, y).map(|what| {
                format!(
                    "the buffer behind address {}, {}",
                    k + 1,
                    arrow(&what, "the input", "the step", false)
                )
            })
        })
}

/// Whether `step`'s run accesses out of bounds where `input`'s does not.
fn new_out_of_bounds(input: &Ran, step: &Ran) -> bool {
    let oob = |r: &Ran| {
        r.execution
            .findings
            .iter()
            .any(|f| f.kind == FindingKind::OutOfBounds)
    };
    oob(step) && !oob(input)
}

/// Whether `step`'s run has undefined behaviour of a kind `input`'s has not.
fn new_undefined_behaviour(input: &Ran, step: &Ran) -> bool {
    let had = &input.execution.findings;
    step.execution
        .findings
        .iter()
        .any(|f| !had.iter().any(|g| g.kind == f.kind))
}

/// `compare_buffer`'s `[3]: X here, Y there` as `[3]: X → Y` (`Y` is `undefined` where
/// `undefined` says so: the bytes there are what the buffer held before); anything else with
/// what here and there are.
fn arrow(what: &str, here: &str, there: &str, undefined: bool) -> String {
    let parts = what.rsplit_once(": ").and_then(|(place, values)| {
        let (x, y) = values.strip_suffix(" there")?.split_once(" here, ")?;
        let y = if undefined { "undefined" } else { y };
        Some(format!("{place}: {x} → {y}"))
    });
    parts.unwrap_or_else(|| format!("{what} (here: {here}; there: {there})"))
}

/// How many of the findings first found at a step the summary lists.
const FINDINGS_SAID: usize = 3;

/// Names in `b.first` (a step whose results differ) the first value that differs between the
/// step before it and it, as the interpreter runs them, and the undefined behaviour found at
/// it and not before. The step before is the latest one the interpreter runs. Nothing is said
/// where it runs neither, or for a reducer's question (`feed.window`: yes or no is all it
/// asks).
fn name_first_value(run: &Run, feed: Feed, b: &mut BisectRun) {
    let Some(d) = b.first.as_mut().filter(|d| d.finding == Finding::Differs) else {
        return;
    };
    if feed.window.is_some() {
        return;
    }
    let steps = pass_steps(run);
    let Some(&blamed) = steps.get(d.pass_index) else {
        return;
    };
    let Ok(after) = run_step(
        &run.steps[blamed].module,
        feed.entry,
        feed.data,
        &Options::default(),
    ) else {
        return;
    };
    let before = steps[..d.pass_index].iter().rev().find_map(|&j| {
        run_step(
            &run.steps[j].module,
            feed.entry,
            feed.data,
            &Options::default(),
        )
        .ok()
        .map(|r| (j, r))
    });
    let Some((j, before)) = before else {
        return;
    };
    // The step before's ids as the blamed step calls them.
    let map = renamed_between(run, j, blamed);
    let forward = |id: Id| *map.get(&id).unwrap_or(&id);
    let theirs = &before.execution;
    if let Some(diff) = first_difference_matched(&after.execution, theirs, &|id| id, &forward) {
        let mut text = first_difference_text(&after.module, &after.execution, &diff);
        if !map.is_empty() {
            text.push_str(&format!(
                " (ids of step {blamed}: the step renumbered some, matched as the value history matches them)"
            ));
        }
        d.value = Some(text);
    }
    let new: Vec<String> = after
        .execution
        .findings
        .iter()
        .filter(|f| {
            !theirs
                .findings
                .iter()
                .any(|g| g.kind == f.kind && forward(g.at) == f.at)
        })
        .map(|f| finding_text(&after.module, &after.execution, f))
        .collect();
    d.undefined = new.iter().take(FINDINGS_SAID).cloned().collect();
    if new.len() > FINDINGS_SAID {
        d.undefined
            .push(format!("and {} more", new.len() - FINDINGS_SAID));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracles_read_back_as_they_print() {
        for name in Oracle::NAMES {
            assert_eq!(name.parse::<Oracle>().unwrap().to_string(), name);
        }
        assert!("gpu".parse::<Oracle>().unwrap_err().contains("not 'gpu'"));
    }

    #[test]
    fn a_typed_difference_reads_as_an_arrow() {
        assert_eq!(arrow("[3]: 7 here, 3 there", "a", "b", false), "[3]: 7 → 3");
        assert_eq!(
            arrow("[3]: 7 here, 3 there", "a", "b", true),
            "[3]: 7 → undefined"
        );
        assert_eq!(
            arrow("[0][1]: (1, 2) here, (1, 3) there", "a", "b", false),
            "[0][1]: (1, 2) → (1, 3)"
        );
        assert_eq!(
            arrow(
                ": the driver's bytes do not read as the buffer's type",
                "a",
                "b",
                false
            ),
            ": the driver's bytes do not read as the buffer's type (here: a; there: b)"
        );
    }
}
