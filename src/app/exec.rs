//! `shaderstep exec`: a step run in the interpreter (`ir::exec`) on the harness's inputs
//! (`pipeline::exec`), a compute shader dispatched, a vertex or fragment stage drawn: what it
//! wrote, one invocation's values in program order, the undefined behaviour found, and where
//! it first parts from another step.

use std::fmt::Write;
use std::path::Path;

use super::cli::ExecArgs;
use super::run::json_escape;
use crate::ir::exec::{self, first_difference, show, Difference, Options};
use crate::ir::Module;
use crate::pipeline::exec::{
    check_draw_driver, finding_kind_name, finding_text, first_difference_text, invocation_text,
    models, run_draw_on, run_draw_pair, run_draw_step, run_pair_on, run_step, value_name,
    DrawnStage, Ran,
};
use crate::pipeline::reduce::step_named;
use crate::pipeline::semantic::pass_steps;
use crate::pipeline::Run;
use spirv::ExecutionModel;

/// Exit status: 0; 1 when the shader does not load, a pass fails or the step cannot run.
pub fn run(args: &ExecArgs) -> i32 {
    match run_inner(args) {
        Ok(text) => {
            super::print_quietly(&text);
            0
        }
        Err(e) => {
            eprintln!("error: {}", of_input(&args.input, &e));
            1
        }
    }
}

/// An error about `input`, named once: errors from loading it name it already.
pub(super) fn of_input(input: &Path, e: &str) -> String {
    let named = format!("{}: ", input.display());
    if e.starts_with(&named) {
        e.to_string()
    } else {
        format!("{named}{e}")
    }
}

/// A step of the run, picked as `--step` says.
pub(super) struct Picked {
    pub index: usize,
    pub label: String,
}

pub(super) fn pick(run: &Run, which: Option<&str>) -> Result<Picked, String> {
    let steps = pass_steps(run);
    let k = match which {
        None => 0,
        Some("last") => steps.len().checked_sub(1).ok_or("the run has no steps")?,
        Some(w) => step_named(run, w)?,
    };
    let index = *steps.get(k).ok_or("the run has no steps")?;
    Ok(Picked {
        index,
        label: format!("step {k} ({})", run.steps[index].pass),
    })
}

/// The driver `--check-driver` runs the step on.
fn exec_driver(args: &ExecArgs) -> Result<crate::pipeline::gpu::Driver, String> {
    let config = super::config::load(&[], std::slice::from_ref(&args.input))?.0;
    args.driver.resolve(&config)
}

/// `path` through the pipeline chosen; a failed pass is an error.
pub(super) fn compile(path: &Path, choice: &super::cli::PipelineChoice) -> Result<Run, String> {
    let config = super::config::load(&[], &[path.to_path_buf()])?.0;
    let pipeline = choice.pipeline(&config)?;
    let loaded =
        crate::pipeline::input::load_with(path, &config.front_ends).map_err(|e| e.to_string())?;
    let run = pipeline.run(std::sync::Arc::new(loaded.words));
    if let Some(f) = run.failed {
        return Err(format!("pass '{}' failed", run.steps[f].pass));
    }
    Ok(run)
}

fn run_inner(args: &ExecArgs) -> Result<String, String> {
    let options = Options {
        budget: args.budget,
        ..Options::default()
    };
    let run = compile(&args.input, &args.pipeline)?;
    let picked = pick(&run, args.step.as_deref())?;
    if let Some(path) = &args.fragment {
        let at = |e: String| format!("{}: {e}", path.display());
        let fs_run = compile(path, &args.pipeline).map_err(at)?;
        let fs_picked = pick(&fs_run, args.step.as_deref()).map_err(at)?;
        return draw(args, &run, &picked, Some((&fs_run, &fs_picked)), &options);
    }
    let has = models(&run.steps[picked.index].module);
    if !has.contains(&ExecutionModel::GLCompute)
        && (has.contains(&ExecutionModel::Vertex) || has.contains(&ExecutionModel::Fragment))
    {
        return draw(args, &run, &picked, None, &options);
    }
    if args.pixel.is_some() || args.vertex.is_some() {
        return Err(
            "--pixel and --vertex choose an invocation of a draw; this is a compute shader: use --invocation X,Y,Z".into(),
        );
    }
    let invocation = match &args.invocation {
        Some(text) => parse_invocation(text)?,
        None => [0, 0, 0],
    };
    let entry = args.entry.as_deref();
    let step = &run.steps[picked.index].module;
    let driver = exec_driver(args)?;
    let gpu = args
        .check_driver
        .then(|| crate::pipeline::gpu::isolated::Isolated::open_here(&driver));
    // The driver's subgroup size, where the step has subgroups and the driver is asked.
    let subgroup_size = match (args.subgroup_size, &gpu) {
        (Some(n), _) => n,
        (None, Some(Ok(gpu))) if crate::pipeline::exec::uses_subgroups(step) => {
            crate::pipeline::exec::driver_subgroup_size(gpu)?
        }
        _ => options.subgroup_size,
    };
    let options = Options {
        subgroup_size,
        ..options
    };
    let ran = run_step(step, entry, None, &options)?;
    let against = against(args, &run, |m| run_step(m, entry, None, &options))?;
    // Some(Ok(None)): the driver agrees; Some(Ok(Some(where))): it does not; Some(Err): it
    // cannot run the step.
    let driver =
        gpu.map(|gpu| gpu.and_then(|gpu| crate::pipeline::exec::check_driver(&gpu, &ran, entry)));
    let difference = against
        .as_ref()
        .and_then(|(_, other)| first_difference(&ran.execution, &other.execution));
    let number = ran.execution.invocation_number(invocation).ok_or_else(|| {
        let e = &ran.execution;
        let size: Vec<u32> = (0..3).map(|k| e.groups[k] * e.local_size[k]).collect();
        format!(
            "no invocation {}: the dispatch is {}x{}x{}",
            invocation_text(invocation),
            size[0],
            size[1],
            size[2]
        )
    })?;
    let e = &ran.execution;
    let outputs = changed(&ran)
        .into_iter()
        // The buffers behind addresses are the harness's: listed where the run wrote them.
        .filter(|&(k, n, _)| n > 0 || k < e.buffers.len())
        .map(|(k, n, first)| {
            // Buffers the shader binds, then those behind buffer addresses.
            let (name, bytes, json) = match e.buffers.get(k) {
                Some(b) => (
                    b.name(),
                    &b.bytes,
                    format!(
                        "{{\"set\":{},\"binding\":{},\"element\":{},\"words_written\":{n}}}",
                        b.set, b.binding, b.element
                    ),
                ),
                None => {
                    let p = k - e.buffers.len();
                    (
                        format!("the buffer behind address {}", p + 1),
                        &e.pointees[p],
                        format!("{{\"behind_address\":{},\"words_written\":{n}}}", p + 1),
                    )
                }
            };
            let mut text = if n == 0 {
                format!("{name}: unchanged")
            } else {
                format!("{name}: {n} words written, from word {first}:")
            };
            let written: &[u8] = if n > 0 { bytes } else { &[] };
            for w in written.chunks(4).skip(first).take(8) {
                let _ = write!(text, " {:#010x}", word(w));
            }
            (text, json)
        })
        .collect();
    let report = Report {
        header: format!(
            "{}, {} workgroups of {}x{}x{}, {} instructions executed",
            picked.label,
            e.groups.iter().product::<u32>(),
            e.local_size[0],
            e.local_size[1],
            e.local_size[2],
            e.executed
        ),
        json_header: format!(
            "\"step\":\"{}\",\"executed\":{},\"workgroups\":{},\"local_size\":[{},{},{}]",
            json_escape(&picked.label),
            e.executed,
            e.groups.iter().product::<u32>(),
            e.local_size[0],
            e.local_size[1],
            e.local_size[2]
        ),
        outputs,
        stages: vec![("", &ran.module, &ran.execution)],
        shown: (0, number),
        against: against.as_ref().map(|(label, _)| label.as_str()),
        difference: difference.as_ref().map(|d| (0, d)),
        driver: driver.as_ref(),
        driver_noun: "buffer and image",
    };
    Ok(if args.json {
        json(&report)
    } else {
        text(&args.input, &report)
    })
}

/// `exec` of a vertex or fragment step: drawn as the semantic bisect draws it.
/// A step drawn: the input's alone (with a generated partner stage where it has one stage),
/// or with `pair`, the fragment shader's run and step, drawn behind it.
fn draw(
    args: &ExecArgs,
    run: &Run,
    picked: &Picked,
    pair: Option<(&Run, &Picked)>,
    options: &Options,
) -> Result<String, String> {
    if args.invocation.is_some() {
        return Err("--invocation chooses an invocation of a compute dispatch; this step is drawn: use --pixel X,Y or --vertex N".into());
    }
    let entry = args.entry.as_deref();
    let step = |r: &Run, p: &Picked| r.steps[p.index].module.clone();
    let (ran, against) = match pair {
        None => {
            let ran = run_draw_step(&run.steps[picked.index].module, entry, options)?;
            let against = against(args, run, |m| run_draw_on(m, &ran, options))?;
            (ran, against)
        }
        Some((fs_run, fs_picked)) => {
            let ran = run_draw_pair(&step(run, picked), &step(fs_run, fs_picked), entry, options)?;
            let against = match (&args.against_step, &args.against) {
                (_, Some(_)) => return Err(
                    "--against compares with another shader; a vertex and a fragment shader compare with another step of both: use --against-step".into(),
                ),
                (Some(which), None) => {
                    let vs = pick(run, Some(which))?;
                    let fs = pick(fs_run, Some(which))?;
                    let other = run_pair_on(&step(run, &vs), &step(fs_run, &fs), &ran, options)?;
                    Some((vs.label, other))
                }
                (None, None) => None,
            };
            (ran, against)
        }
    };
    let chosen = exec_driver(args)?;
    let driver = args.check_driver.then(|| {
        crate::pipeline::gpu::isolated::Isolated::open_here(&chosen)
            .and_then(|gpu| check_draw_driver(&gpu, &ran))
    });
    let d = &ran.execution;
    // The vertex stage first: what it computes feeds the fragments.
    let difference = against.as_ref().and_then(|(_, other)| {
        first_difference(&d.vertex, &other.execution.vertex)
            .map(|x| (0, x))
            .or_else(|| first_difference(&d.fragment, &other.execution.fragment).map(|x| (1, x)))
    });
    let shown = match (args.vertex, &args.pixel, ran.stage) {
        (Some(n), _, _) => {
            if n >= ran.inputs.vertices {
                return Err(format!(
                    "no vertex {n}: the draw has {} vertices",
                    ran.inputs.vertices
                ));
            }
            (0, n)
        }
        (None, Some(p), _) => {
            let [x, y, _] =
                parse_invocation(p).map_err(|_| format!("--pixel {p:?}: give X,Y (numbers)"))?;
            let k = d.pixel(x, y).ok_or_else(|| {
                format!(
                    "nothing is drawn at pixel {x},{y} (the framebuffer is {}x{})",
                    ran.inputs.size.0, ran.inputs.size.1
                )
            })?;
            (1, k)
        }
        (None, None, DrawnStage::Vertex) => (0, 0),
        (None, None, _) => {
            let first = d
                .fragment
                .who
                .iter()
                .position(|w| matches!(w, exec::Who::Fragment { helper: false, .. }));
            match first {
                Some(k) => (1, k as u32),
                None => (0, 0),
            }
        }
    };
    let (w, h) = ran.inputs.size;
    let mut outputs = Vec::new();
    for (location, a) in d.attachments.iter().enumerate() {
        if a.words.is_empty() {
            continue;
        }
        let drawn = a
            .words
            .chunks(4)
            .filter(|t| t.iter().any(|w| *w != Some(0)))
            .count();
        let mut text = format!("location {location}: {drawn} of {} texels drawn", w * h);
        if let Some(exec::Who::Fragment { x, y, .. }) = d
            .fragment
            .who
            .get(shown.1 as usize)
            .filter(|_| shown.0 == 1)
        {
            let t = ((y * w + x) * 4) as usize;
            let texel: Vec<String> = a.words[t..t + 4]
                .iter()
                .map(|v| match v {
                    None => "undef".into(),
                    Some(v) if a.float => format!("{:?}", f32::from_bits(*v)),
                    Some(v) => (*v as i32).to_string(),
                })
                .collect();
            let _ = write!(text, "; pixel {x},{y} = ({})", texel.join(", "));
        }
        let json = format!("{{\"location\":{location},\"texels_drawn\":{drawn}}}");
        outputs.push((text, json));
    }
    let partner = match (ran.stage, &args.fragment) {
        (DrawnStage::Fragment, _) => ", behind a generated vertex stage".to_string(),
        (DrawnStage::Vertex, _) => ", before a generated fragment stage".to_string(),
        (DrawnStage::Both, Some(fs)) => format!(", before the fragment shader {}", fs.display()),
        (DrawnStage::Both, None) => String::new(),
    };
    let stage = match ran.stage {
        DrawnStage::Fragment => "fragment",
        DrawnStage::Vertex => "vertex",
        DrawnStage::Both => "vertex and fragment",
    };
    let report = Report {
        header: format!(
            "{}, a draw of {} vertices x {} instances into {} of {w}x{h} (inputs in the {} pattern{partner}), {} + {} instructions executed",
            picked.label,
            ran.inputs.vertices,
            ran.inputs.instances,
            crate::pipeline::semantic::counted(outputs.len(), "attachment"),
            ran.fill,
            d.vertex.executed,
            d.fragment.executed
        ),
        json_header: format!(
            "\"step\":\"{}\",\"stage\":\"{stage}\",\"executed\":{},\"vertices\":{},\"instances\":{},\"fill\":\"{}\"",
            json_escape(&picked.label),
            d.vertex.executed + d.fragment.executed,
            ran.inputs.vertices,
            ran.inputs.instances,
            ran.fill
        ),
        outputs,
        stages: vec![
            ("vertex stage", &ran.vertex.0, &d.vertex),
            ("fragment stage", &ran.fragment.0, &d.fragment),
        ],
        shown,
        against: against.as_ref().map(|(label, _)| label.as_str()),
        difference: difference.as_ref().map(|(k, x)| (*k, x)),
        driver: driver.as_ref(),
        driver_noun: "attachment texel",
    };
    Ok(if args.json {
        json(&report)
    } else {
        text(&args.input, &report)
    })
}

/// The other run `--against-step` or `--against` names, run by `runner`, with how reports
/// call it.
fn against<R>(
    args: &ExecArgs,
    run: &Run,
    runner: impl Fn(&Module) -> Result<R, String>,
) -> Result<Option<(String, R)>, String> {
    match (&args.against_step, &args.against) {
        (Some(which), _) => {
            let other = pick(run, Some(which))?;
            Ok(Some((other.label, runner(&run.steps[other.index].module)?)))
        }
        (None, Some(path)) => {
            let at = |e: String| format!("{}: {e}", path.display());
            let other_run = compile(path, &args.pipeline).map_err(at)?;
            let other = pick(&other_run, args.step.as_deref())?;
            let r = runner(&other_run.steps[other.index].module).map_err(at)?;
            Ok(Some((format!("{} {}", path.display(), other.label), r)))
        }
        (None, None) => Ok(None),
    }
}

fn parse_invocation(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<u32> = text
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("--invocation {text:?}: give X,Y,Z (numbers)"))?;
    match parts[..] {
        [x] => Ok([x, 0, 0]),
        [x, y] => Ok([x, y, 0]),
        [x, y, z] => Ok([x, y, z]),
        _ => Err(format!("--invocation {text:?}: give X,Y,Z")),
    }
}

/// Words of each buffer the run changed, the bound buffers' then those behind addresses:
/// (the buffer's number in that order, changed words, first changed).
fn changed(ran: &Ran) -> Vec<(usize, usize, usize)> {
    let bound = ran
        .execution
        .buffers
        .iter()
        .zip(&ran.inputs.buffers)
        .map(|(after, before)| (&after.bytes, &before.bytes));
    let behind = ran.execution.pointees.iter().zip(&ran.inputs.pointees);
    bound
        .chain(behind)
        .enumerate()
        .map(|(k, (after, before))| {
            let words = |b: &[u8]| -> Vec<u32> { b.chunks(4).map(word).collect() };
            let (a, b) = (words(after), words(before));
            let diff: Vec<usize> = (0..a.len()).filter(|&k| a[k] != b[k]).collect();
            (k, diff.len(), diff.first().copied().unwrap_or(0))
        })
        .collect()
}

/// A little-endian word (fewer bytes at a buffer's end read as its low bytes).
fn word(bytes: &[u8]) -> u32 {
    bytes.iter().rev().fold(0, |w, &x| (w << 8) | u32::from(x))
}

/// What a run of `exec` found, for printing.
struct Report<'a> {
    /// After the file name: the step, what ran, how much.
    header: String,
    json_header: String,
    /// Each buffer or attachment: a line of text and a JSON object.
    outputs: Vec<(String, String)>,
    /// The stages run: a label ("" for a dispatch), the module and its run.
    stages: Vec<(&'a str, &'a Module, &'a exec::Execution)>,
    /// Whose values are printed: a stage and an invocation of it.
    shown: (usize, u32),
    against: Option<&'a str>,
    /// The first difference, in which stage.
    difference: Option<(usize, &'a Difference)>,
    driver: Option<&'a Result<Option<String>, String>>,
    /// What the driver's comparison compares, for "agrees on every …".
    driver_noun: &'static str,
}

impl Report<'_> {
    /// For a draw, which stage: " (fragment stage)"; nothing for a dispatch.
    fn stage_label(&self, k: usize) -> String {
        match self.stages[k].0 {
            "" => String::new(),
            label => format!(" ({label})"),
        }
    }
}

fn text(input: &Path, r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", input.display(), r.header);
    out.push_str("outputs:\n");
    for (line, _) in &r.outputs {
        let _ = writeln!(out, "  {line}");
    }
    let (_, m, e) = r.stages[r.shown.0];
    let number = r.shown.1;
    let _ = writeln!(out, "{}{}:", e.describe(number), r.stage_label(r.shown.0));
    for (shown, ev) in e
        .trace
        .iter()
        .filter(|ev| ev.invocation == number)
        .enumerate()
    {
        if shown == 200 {
            out.push_str("  … (the first 200 values)\n");
            break;
        }
        let _ = writeln!(out, "  {} = {}", value_name(m, ev.id), show(&ev.value));
    }
    if r.stages.iter().all(|(_, _, e)| e.findings.is_empty()) {
        out.push_str("undefined behaviour: none found\n");
    } else {
        out.push_str("undefined behaviour:\n");
    }
    for (k, (_, m, e)) in r.stages.iter().enumerate() {
        for f in &e.findings {
            let _ = writeln!(out, "  {}{}", finding_text(m, e, f), r.stage_label(k));
        }
    }
    if let Some(label) = r.against {
        match r.difference {
            None => {
                let _ = writeln!(out, "against {label}: every value the same");
            }
            Some((k, d)) => {
                // From the other run's value to this one's.
                let (_, m, e) = r.stages[k];
                let _ = writeln!(
                    out,
                    "against {label}: first difference: {}{}",
                    first_difference_text(m, e, d),
                    r.stage_label(k)
                );
            }
        }
    }
    match r.driver {
        None => {}
        Some(Ok(None)) => {
            let _ = writeln!(out, "driver: agrees on every {}", r.driver_noun);
        }
        Some(Ok(Some(what))) => {
            let _ = writeln!(out, "driver: disagrees at {what}");
        }
        Some(Err(why)) => {
            let _ = writeln!(out, "driver: cannot run it: {why}");
        }
    }
    out
}

/// A draw's stage as a JSON member (`,"stage":"fragment stage"`); nothing for a dispatch.
fn json_stage(label: &str) -> String {
    if label.is_empty() {
        String::new()
    } else {
        format!(",\"stage\":\"{}\"", json_escape(label))
    }
}

/// An invocation in JSON: `[x,y,z]` for a dispatch, its description for a draw.
fn json_invocation(e: &exec::Execution, k: u32) -> String {
    if e.who.is_empty() {
        let v = e.invocation_of(k);
        format!("[{},{},{}]", v[0], v[1], v[2])
    } else {
        format!("\"{}\"", json_escape(&e.describe(k)))
    }
}

fn json(r: &Report) -> String {
    let mut out = String::from("{");
    out.push_str(&r.json_header);
    out.push_str(",\"outputs\":[");
    let outputs: Vec<&str> = r.outputs.iter().map(|(_, j)| j.as_str()).collect();
    out.push_str(&outputs.join(","));
    let (_, _, e) = r.stages[r.shown.0];
    let number = r.shown.1;
    let _ = write!(
        out,
        "],\"invocation\":{},\"values\":[",
        json_invocation(e, number)
    );
    for (k, ev) in e
        .trace
        .iter()
        .filter(|ev| ev.invocation == number)
        .enumerate()
    {
        let comma = if k > 0 { "," } else { "" };
        let _ = write!(
            out,
            "{comma}{{\"id\":{},\"value\":\"{}\"}}",
            ev.id,
            json_escape(&show(&ev.value))
        );
    }
    out.push_str("],\"first_difference\":");
    match (r.against, r.difference) {
        (Some(_), Some((k, d))) => {
            let (label, m, e) = r.stages[k];
            let source = exec::line_of(m, d.id).map_or("null".into(), |l| l.to_string());
            let instruction = m
                .functions()
                .iter()
                .find_map(|f| f.def_of(d.id))
                .map(|i| format!("{:?}", i.op()))
                .unwrap_or_default();
            let stage = json_stage(label);
            let _ = write!(
                out,
                "{{\"id\":{},\"instruction\":\"Op{}\",\"invocation\":{},\"value\":\"{}\",\"against_value\":\"{}\",\"source\":{source}{stage}}}",
                d.id,
                json_escape(&instruction),
                json_invocation(e, d.invocation),
                json_escape(&show(&d.value)),
                json_escape(&show(&d.against))
            );
        }
        _ => out.push_str("null"),
    }
    // null: not asked, or the driver cannot run the step (`driver_error` says why).
    match r.driver {
        Some(Ok(None)) => out.push_str(",\"driver_agrees\":true"),
        Some(Ok(Some(what))) => {
            let _ = write!(
                out,
                ",\"driver_agrees\":false,\"driver_difference\":\"{}\"",
                json_escape(what)
            );
        }
        Some(Err(why)) => {
            let _ = write!(
                out,
                ",\"driver_agrees\":null,\"driver_error\":\"{}\"",
                json_escape(why)
            );
        }
        None => out.push_str(",\"driver_agrees\":null"),
    }
    out.push_str(",\"undefined_behaviour\":[");
    let mut first = true;
    for (label, _, e) in &r.stages {
        for f in &e.findings {
            let comma = if first { "" } else { "," };
            first = false;
            let stage = json_stage(label);
            let _ = write!(
                out,
                "{comma}{{\"kind\":\"{}\",\"id\":{},\"invocation\":{},\"source\":{},\"count\":{},\"detail\":\"{}\"{stage}}}",
                finding_kind_name(&f.kind),
                f.at,
                json_invocation(e, f.invocation),
                f.line.map_or("null".into(), |l| l.to_string()),
                f.count,
                json_escape(&f.detail)
            );
        }
    }
    out.push_str("]}\n");
    out
}
