//! The oracles for a vertex or a fragment shader alone (or one module with both stages), or a
//! pipeline's vertex and fragment stages given apart (their steps side by side), drawn as the
//! driver bisect draws them: the interpreter draws every step that changed a stage as it
//! drew the input (`exec::run_draw_on`, `run_pair_on`: the input's setup, fill and any
//! generated partner) and compares its attachments
//! texel by texel (`exec::close_words`; a texel the interpreter leaves undefined agrees with
//! anything) and its storage buffers typed; the first that differs is blamed and its first
//! differing value named, the vertex stage's before the fragment stage's.

use super::super::exec::{
    check_draw_driver, finding_text, first_difference_text, models, run_draw_on, run_draw_pair,
    run_draw_step, run_pair_on, DrawRan, DrawnStage,
};
use super::super::history::renamed_between;
use super::super::semantic::{
    driver_bisect, pass_steps, BisectRun, Difference, Feed, Finding, Opener,
};
use super::super::Run;
use super::{both_said, untraced, Oracle, FINDINGS_SAID};
use crate::ir::exec::{
    close_words, compare_buffer, first_difference_matched, FindingKind, Options,
};
use crate::ir::fxhash::FxHashMap;
use crate::ir::inst::Id;

/// The bisect of a stage drawn alone or of a pipeline's pair, as `feed.oracle` says.
pub(super) fn bisect<'g>(
    open: &Opener<'g>,
    runs: &[&Run],
    run: Drawn,
    feed: Feed,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    let driver = |why: Option<String>| -> Result<BisectRun, String> {
        let mut b = driver_bisect(open()?, runs, feed, cancelled)?;
        b.oracle = why;
        name_first_value(run, feed, None, &mut b);
        Ok(b)
    };
    match feed.oracle {
        Oracle::Driver => driver(None),
        Oracle::Interp => {
            let mut b = interp_bisect(run, feed, None, cancelled)?;
            b.oracle = Some("the interpreter decides".into());
            Ok(b)
        }
        Oracle::Both => {
            let mut b = driver(None)?;
            let theirs = interp_bisect(run, feed, None, cancelled);
            b.oracle = Some(both_said(&b, &theirs));
            Ok(b)
        }
        Oracle::Auto => {
            let input = match run_input(run, feed) {
                Ok(ran) => ran,
                Err(why) => return driver(Some(format!("{why}, so the driver decides"))),
            };
            let checked = open().and_then(|gpu| {
                check_draw_driver(gpu, &input)
                    .map_err(|e| format!("the driver does not draw the input: {e}"))
            });
            let why = match checked {
                Ok(None) => {
                    "the interpreter draws the input as the driver does, so it decides".to_string()
                }
                Ok(Some(what)) => {
                    return driver(Some(format!(
                        "the interpreter draws the input otherwise than the driver ({what}), so the driver decides"
                    )));
                }
                Err(e) => format!("{e}, so the interpreter decides"),
            };
            let mut b = interp_bisect(run, feed, Some(input), cancelled)?;
            b.oracle = Some(why);
            Ok(b)
        }
    }
}

/// What the interpreter draws for a bisect: a stage alone (or a module with both), or a
/// graphics pipeline's vertex and fragment stages given apart, their steps side by side.
#[derive(Clone, Copy)]
pub(super) enum Drawn<'r> {
    Alone(&'r Run),
    Pair(&'r Run, &'r Run),
}

impl<'r> Drawn<'r> {
    /// The run steps are named and numbered after (the fragment stage's of a pair).
    fn named(&self) -> &'r Run {
        match *self {
            Drawn::Alone(r) | Drawn::Pair(_, r) => r,
        }
    }

    /// Each step, as (vertex stage's, fragment stage's) index in their runs.
    fn steps(&self) -> Result<Vec<(usize, usize)>, String> {
        match *self {
            Drawn::Alone(r) => Ok(pass_steps(r).into_iter().map(|i| (i, i)).collect()),
            Drawn::Pair(vs, fs) => {
                let (v, f) = (pass_steps(vs), pass_steps(fs));
                if v.len() != f.len() {
                    return Err("the stages' runs do not have the same steps".into());
                }
                Ok(v.into_iter().zip(f).collect())
            }
        }
    }

    fn changed(&self, (vi, fi): (usize, usize)) -> bool {
        match *self {
            Drawn::Alone(r) => r.steps[fi].changed,
            Drawn::Pair(vs, fs) => vs.steps[vi].changed || fs.steps[fi].changed,
        }
    }

    /// Which stage of a pair a step changed, as the driver bisect says it: ` (vertex stage)`,
    /// ` (fragment stage)`, or nothing when both (or for a stage alone).
    fn which_changed(&self, (vi, fi): (usize, usize)) -> &'static str {
        match *self {
            Drawn::Pair(vs, fs) => match (vs.steps[vi].changed, fs.steps[fi].changed) {
                (true, false) => " (vertex stage)",
                (false, true) => " (fragment stage)",
                _ => "",
            },
            Drawn::Alone(_) => "",
        }
    }

    fn draw(&self, (vi, fi): (usize, usize), feed: Feed) -> Result<DrawRan, String> {
        match *self {
            Drawn::Alone(r) => run_draw_step(&r.steps[fi].module, feed.entry, &untraced(feed)),
            Drawn::Pair(vs, fs) => run_draw_pair(
                &vs.steps[vi].module,
                &fs.steps[fi].module,
                feed.entry,
                &untraced(feed),
            ),
        }
    }

    /// Instructions the interpreter runs drawing pass step `k`, both stages.
    pub(super) fn instructions_run(&self, k: usize, feed: Feed) -> Option<u64> {
        let at = *self.steps().ok()?.get(k)?;
        let ran = self.draw(at, feed).ok()?;
        Some(ran.execution.vertex.executed + ran.execution.fragment.executed)
    }

    fn draw_on(
        &self,
        (vi, fi): (usize, usize),
        input: &DrawRan,
        options: &Options,
    ) -> Result<DrawRan, String> {
        match *self {
            Drawn::Alone(r) => run_draw_on(&r.steps[fi].module, input, options),
            Drawn::Pair(vs, fs) => {
                run_pair_on(&vs.steps[vi].module, &fs.steps[fi].module, input, options)
            }
        }
    }
}

/// The input drawn in the interpreter for a bisect, or why it cannot be.
fn run_input(run: Drawn, feed: Feed) -> Result<DrawRan, String> {
    let &first = run.steps()?.first().ok_or("the run has no steps")?;
    let ran = run
        .draw(first, feed)
        .map_err(|why| format!("the interpreter cannot draw the input: {why}"))?;
    let out_of_budget = [&ran.execution.vertex, &ran.execution.fragment]
        .iter()
        .any(|e| e.findings.iter().any(|f| f.kind == FindingKind::Budget));
    if out_of_budget {
        return Err(format!(
            "the input draws past the interpreter's budget ({} instructions)",
            untraced(feed).budget
        ));
    }
    Ok(ran)
}

/// The bisect on the interpreter: every step that changed the module is drawn on the input's
/// fill, and the first whose attachments or storage buffers differ from the input's is blamed.
fn interp_bisect(
    run: Drawn,
    feed: Feed,
    input: Option<DrawRan>,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    let steps = run.steps()?;
    let input = match input {
        Some(ran) => ran,
        None => run_input(run, feed)?,
    };
    let texels: usize = input
        .execution
        .attachments
        .iter()
        .map(|a| a.words.len())
        .sum();
    let attachments = input
        .execution
        .attachments
        .iter()
        .filter(|a| !a.words.is_empty())
        .count();
    let (w, h) = input.inputs.size;
    let mut out = BisectRun {
        first: None,
        compared: 1,
        skipped: Vec::new(),
        setup: format!(
            "the interpreter: {} of {w}×{h}, inputs in the {} pattern{}",
            super::super::semantic::counted(attachments, "attachment"),
            input.fill,
            match input.stage {
                super::super::exec::DrawnStage::Fragment => ", behind a generated vertex stage",
                super::super::exec::DrawnStage::Vertex => ", before a generated fragment stage",
                super::super::exec::DrawnStage::Both => "",
            }
        ),
        varying: 0,
        stable: texels,
        writes_nothing: texels == 0 && input.execution.fragment.buffers.is_empty(),
        oracle: None,
        driver_judged: Vec::new(),
        interpreter_decided: true,
    };
    for (k, &at) in steps.iter().enumerate().skip(1) {
        if cancelled() {
            return Err("cancelled".into());
        }
        let i = at.1;
        let step = &run.named().steps[i];
        if !run.changed(at) || feed.skips(k) {
            out.compared += 1;
            continue;
        }
        let ran = match run.draw_on(at, &input, &untraced(feed)) {
            Ok(r) => r,
            Err(why) => {
                out.skipped
                    .push((i, format!("the interpreter cannot draw it: {why}")));
                continue;
            }
        };
        out.compared += 1;
        let Some(what) = differs(&input, &ran) else {
            continue;
        };
        out.first = Some(Difference {
            step: i,
            pass_index: k,
            pass: step.pass,
            finding: Finding::Differs,
            what: format!("{what}{}", run.which_changed(at)),
            value: None,
            undefined: Vec::new(),
        });
        name_first_value(run, feed, Some(&input), &mut out);
        return Ok(out);
    }
    Ok(out)
}

/// The pixels where pass step `k` leaves a texel that differs from the input's (both define
/// it), in raster order.
pub(super) fn differing_pixels(run: Drawn, k: usize, feed: Feed) -> Option<Vec<[u32; 2]>> {
    let at = *run.steps().ok()?.get(k)?;
    let input = run_input(run, feed).ok()?;
    let step = run.draw_on(at, &input, &untraced(feed)).ok()?;
    let (w, _) = input.inputs.size;
    let mut texels: Vec<usize> = Vec::new();
    for (a, b) in input
        .execution
        .attachments
        .iter()
        .zip(&step.execution.attachments)
    {
        for (t, (x, y)) in a.words.chunks(4).zip(b.words.chunks(4)).enumerate() {
            if x.iter()
                .zip(y)
                .any(|(x, y)| defined_and_apart(x, y, a.float))
            {
                texels.push(t);
            }
        }
    }
    texels.sort_unstable();
    texels.dedup();
    Some(
        texels
            .into_iter()
            .map(|t| [t as u32 % w, t as u32 / w])
            .collect(),
    )
}

/// Whether two attachment words are both defined and differ (a texel the interpreter leaves
/// undefined agrees with anything).
fn defined_and_apart(x: &Option<u32>, y: &Option<u32>, float: bool) -> bool {
    matches!((x, y), (Some(x), Some(y)) if !close_words(*x, *y, float))
}

/// Where a step's draw parts from the input's: the first attachment texel both define and
/// that differs, else the first storage buffer word, typed.
fn differs(input: &DrawRan, step: &DrawRan) -> Option<String> {
    let (w, _) = input.inputs.size;
    for (location, (a, b)) in input
        .execution
        .attachments
        .iter()
        .zip(&step.execution.attachments)
        .enumerate()
    {
        let differ =
            |(_, (x, y)): &(usize, (&Option<u32>, &Option<u32>))| defined_and_apart(x, y, a.float);
        let Some((k, (x, y))) = a.words.iter().zip(&b.words).enumerate().find(differ) else {
            continue;
        };
        let count = a
            .words
            .iter()
            .zip(&b.words)
            .enumerate()
            .filter(differ)
            .count();
        let show = |v: u32| {
            if a.float {
                format!("{:?}", f32::from_bits(v))
            } else {
                (v as i32).to_string()
            }
        };
        let texel = (k / 4) as u32;
        return Some(format!(
            "attachment {location}, pixel {},{}, component {}: {} → {} ({count} words differ)",
            texel % w,
            texel / w,
            k % 4,
            x.map_or("undefined".into(), show),
            y.map_or("undefined".into(), show)
        ));
    }
    let module = input.module();
    for (b, ours) in input
        .execution
        .fragment
        .buffers
        .iter()
        .zip(&input.execution.fragment.contents)
    {
        let theirs = step.execution.fragment.buffers.iter().find(|x| x.is(b))?;
        if let Some(what) = compare_buffer(module, b.set, b.binding, ours, &theirs.bytes) {
            return Some(format!("{}{what}", b.name()));
        }
    }
    None
}

/// Names in `b.first` the first value that differs between the step before the blamed one
/// and it, both drawn as `input` (the input's draw; drawn here when not given) was, and the
/// undefined behaviour found at it and not before. Ids are the blamed step's: where a step
/// between renumbered some, the earlier step's are matched to them as the value history
/// matches them (`history::renamed`), stage by stage, as for compute shaders.
fn name_first_value(run: Drawn, feed: Feed, input: Option<&DrawRan>, b: &mut BisectRun) {
    let Some(d) = b.first.as_mut().filter(|d| d.finding == Finding::Differs) else {
        return;
    };
    if feed.window.is_some() {
        return;
    }
    let Ok(steps) = run.steps() else {
        return;
    };
    let drawn;
    let input = match input {
        Some(i) => i,
        None => match run_input(run, feed) {
            Ok(i) => {
                drawn = i;
                &drawn
            }
            Err(_) => return,
        },
    };
    let draw = |at: (usize, usize)| run.draw_on(at, input, &Options::default()).ok();
    let Some(&blamed) = steps.get(d.pass_index) else {
        return;
    };
    let Some(after) = draw(blamed) else {
        return;
    };
    let Some((was, before)) = steps[..d.pass_index]
        .iter()
        .rev()
        .find_map(|&j| draw(j).map(|r| (j, r)))
    else {
        return;
    };
    // The step before's ids as the blamed step calls them, per stage stepped through (a
    // generated stage is the same at every step).
    let (vertex_run, fragment_run) = match (run, after.stage) {
        (Drawn::Pair(vs, fs), _) => (Some(vs), Some(fs)),
        (Drawn::Alone(r), DrawnStage::Vertex) => (Some(r), None),
        (Drawn::Alone(r), DrawnStage::Fragment) => (None, Some(r)),
        (Drawn::Alone(r), DrawnStage::Both) => (Some(r), Some(r)),
    };
    let map = |r: Option<&Run>, from: usize, to: usize| -> FxHashMap<Id, Id> {
        r.map(|r| renamed_between(r, from, to)).unwrap_or_default()
    };
    let vertex_map = map(vertex_run, was.0, blamed.0);
    let fragment_map = map(fragment_run, was.1, blamed.1);
    let renumbered = !vertex_map.is_empty() || !fragment_map.is_empty();
    let stages = [
        (
            "vertex stage",
            &after.vertex.0,
            &after.execution.vertex,
            &before.execution.vertex,
            &vertex_map,
        ),
        (
            "fragment stage",
            &after.fragment.0,
            &after.execution.fragment,
            &before.execution.fragment,
            &fragment_map,
        ),
    ];
    for (label, m, e, theirs, map) in stages {
        let forward = |id: Id| *map.get(&id).unwrap_or(&id);
        if let Some(diff) = first_difference_matched(e, theirs, &|id| id, &forward) {
            let mut text = format!("{} ({label})", first_difference_text(m, e, &diff));
            if renumbered {
                text.push_str(
                    " (ids of the blamed step: it renumbered some, matched as the value history matches them)",
                );
            }
            d.value = Some(text);
            break;
        }
    }
    let mut new = Vec::new();
    for (label, m, e, theirs, map) in stages {
        let forward = |id: Id| *map.get(&id).unwrap_or(&id);
        for f in &e.findings {
            if !theirs
                .findings
                .iter()
                .any(|g| g.kind == f.kind && forward(g.at) == f.at)
            {
                new.push(format!("{} ({label})", finding_text(m, e, f)));
            }
        }
    }
    d.undefined = new.iter().take(FINDINGS_SAID).cloned().collect();
    if new.len() > FINDINGS_SAID {
        d.undefined
            .push(format!("and {} more", new.len() - FINDINGS_SAID));
    }
}

/// What the interpreter draws for a bisect of `runs`: one run whose entry point (`entry`,
/// else the first) is a vertex or fragment one, or that has both; or two runs, a vertex and
/// a fragment stage.
pub(super) fn drawn<'r>(runs: &[&'r Run], entry: Option<&str>) -> Option<Drawn<'r>> {
    if let [a, b] = runs {
        let first = |r: &Run| pass_steps(r).first().map(|&i| models(&r.steps[i].module));
        let (ma, mb) = (first(a)?, first(b)?);
        let vertex = |m: &[spirv::ExecutionModel]| m.contains(&spirv::ExecutionModel::Vertex);
        let fragment = |m: &[spirv::ExecutionModel]| m.contains(&spirv::ExecutionModel::Fragment);
        return match (vertex(&ma) && fragment(&mb), vertex(&mb) && fragment(&ma)) {
            (true, _) => Some(Drawn::Pair(a, b)),
            (_, true) => Some(Drawn::Pair(b, a)),
            _ => None,
        };
    }
    let [one] = runs else {
        return None;
    };
    let points = super::super::semantic::entry_points(one);
    let model = match entry {
        Some(name) => points.iter().find(|(_, n)| n == name).map(|(m, _)| *m),
        None if points
            .iter()
            .any(|(m, _)| *m == spirv::ExecutionModel::GLCompute) =>
        {
            None
        }
        None => points.first().map(|(m, _)| *m),
    }?;
    matches!(
        model,
        spirv::ExecutionModel::Vertex | spirv::ExecutionModel::Fragment
    )
    .then_some(Drawn::Alone(one))
}
