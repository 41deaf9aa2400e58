//! `shaderstep exec`: a compute shader's step run in the interpreter (`ir::exec`) on the
//! harness's inputs (`pipeline::exec`): what it wrote, one invocation's values in program
//! order, the undefined behaviour found, and where it first parts from another step.

use std::fmt::Write;
use std::path::Path;

use super::cli::ExecArgs;
use super::run::json_escape;
use crate::ir::exec::{self, first_difference, show, Difference, Options};
use crate::pipeline::exec::{
    finding_kind_name, finding_text, first_difference_text, invocation_text, run_step, value_name,
    Ran,
};
use crate::pipeline::reduce::step_named;
use crate::pipeline::semantic::pass_steps;
use crate::pipeline::Run;

/// Exit status: 0; 1 when the shader does not load, a pass fails or the step cannot run.
pub fn run(args: &ExecArgs) -> i32 {
    match run_inner(args) {
        Ok(text) => {
            super::print_quietly(&text);
            0
        }
        Err(e) => {
            eprintln!("error: {}: {e}", args.input.display());
            1
        }
    }
}

/// A step of the run, picked as `--step` says.
struct Picked {
    index: usize,
    label: String,
}

fn pick(run: &Run, which: Option<&str>) -> Result<Picked, String> {
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

fn compile(path: &Path, args: &ExecArgs) -> Result<Run, String> {
    let config = super::config::load(&[], &[path.to_path_buf()])?.0;
    let pipeline = args.pipeline.pipeline(&config)?;
    let loaded =
        crate::pipeline::input::load_with(path, &config.front_ends).map_err(|e| e.to_string())?;
    let run = pipeline.run(std::sync::Arc::new(loaded.words));
    if let Some(f) = run.failed {
        return Err(format!("pass '{}' failed", run.steps[f].pass));
    }
    Ok(run)
}

fn run_inner(args: &ExecArgs) -> Result<String, String> {
    let invocation = match &args.invocation {
        Some(text) => parse_invocation(text)?,
        None => [0, 0, 0],
    };
    let options = Options {
        budget: args.budget,
        ..Options::default()
    };
    let entry = args.entry.as_deref();
    let run = compile(&args.input, args)?;
    let picked = pick(&run, args.step.as_deref())?;
    let ran = run_step(&run.steps[picked.index].module, entry, None, &options)?;
    let against = match (&args.against_step, &args.against) {
        (Some(which), _) => {
            let other = pick(&run, Some(which))?;
            let r = run_step(&run.steps[other.index].module, entry, None, &options)?;
            Some((other.label, r))
        }
        (None, Some(path)) => {
            let other_run = compile(path, args).map_err(|e| format!("{}: {e}", path.display()))?;
            let other = pick(&other_run, args.step.as_deref())?;
            let r = run_step(&other_run.steps[other.index].module, entry, None, &options)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Some((format!("{} {}", path.display(), other.label), r))
        }
        (None, None) => None,
    };
    // Some(Ok(None)): the driver agrees; Some(Ok(Some(where))): it does not; Some(Err): it
    // cannot run the step.
    let driver = args.check_driver.then(|| {
        crate::pipeline::gpu::isolated::Isolated::open_here(false)
            .and_then(|gpu| crate::pipeline::exec::check_driver(&gpu, &ran, entry))
    });
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
    let report = Report {
        picked: &picked,
        ran: &ran,
        number,
        against: against.as_ref(),
        difference: difference.as_ref(),
        driver: driver.as_ref(),
    };
    Ok(if args.json {
        json(&report)
    } else {
        text(&args.input, &report)
    })
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

/// Words of each buffer the run changed: (set, binding, changed words, first changed).
fn changed(ran: &Ran) -> Vec<(u32, u32, usize, usize)> {
    ran.execution
        .buffers
        .iter()
        .zip(&ran.inputs.buffers)
        .map(|(after, before)| {
            let words = |b: &[u8]| -> Vec<u32> { b.chunks(4).map(word).collect() };
            let (a, b) = (words(&after.bytes), words(&before.bytes));
            let diff: Vec<usize> = (0..a.len()).filter(|&k| a[k] != b[k]).collect();
            (
                after.set,
                after.binding,
                diff.len(),
                diff.first().copied().unwrap_or(0),
            )
        })
        .collect()
}

/// A little-endian word (fewer bytes at a buffer's end read as its low bytes).
fn word(bytes: &[u8]) -> u32 {
    bytes.iter().rev().fold(0, |w, &x| (w << 8) | u32::from(x))
}

/// What a run of `exec` found, for printing.
struct Report<'a> {
    picked: &'a Picked,
    ran: &'a Ran,
    number: u32,
    against: Option<&'a (String, Ran)>,
    difference: Option<&'a Difference>,
    driver: Option<&'a Result<Option<String>, String>>,
}

fn text(input: &Path, r: &Report) -> String {
    let (picked, ran, number, against, difference) =
        (r.picked, r.ran, r.number, r.against, r.difference);
    let e = &ran.execution;
    let m = &ran.module;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {}, {} workgroups of {}x{}x{}, {} instructions executed",
        input.display(),
        picked.label,
        e.groups.iter().product::<u32>(),
        e.local_size[0],
        e.local_size[1],
        e.local_size[2],
        e.executed
    );
    out.push_str("outputs:\n");
    for (set, binding, n, first) in changed(ran) {
        if n == 0 {
            let _ = writeln!(out, "  set {set} binding {binding}: unchanged");
            continue;
        }
        let _ = write!(
            out,
            "  set {set} binding {binding}: {n} words written, from word {first}:"
        );
        let b = &e
            .buffers
            .iter()
            .find(|b| b.set == set && b.binding == binding);
        if let Some(b) = b {
            for w in b.bytes.chunks(4).skip(first).take(8) {
                let _ = write!(out, " {:#010x}", word(w));
            }
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "invocation {}:",
        invocation_text(e.invocation_of(number))
    );
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
    if e.findings.is_empty() {
        out.push_str("undefined behaviour: none found\n");
    } else {
        out.push_str("undefined behaviour:\n");
        for f in &e.findings {
            let _ = writeln!(out, "  {}", finding_text(ran, f));
        }
    }
    if let Some((label, _)) = against {
        match difference {
            None => {
                let _ = writeln!(out, "against {label}: every value the same");
            }
            Some(d) => {
                // From the other run's value to this one's.
                let _ = writeln!(
                    out,
                    "against {label}: first difference: {}",
                    first_difference_text(ran, d)
                );
            }
        }
    }
    match r.driver {
        None => {}
        Some(Ok(None)) => out.push_str("driver: agrees on every buffer\n"),
        Some(Ok(Some(what))) => {
            let _ = writeln!(out, "driver: disagrees at {what}");
        }
        Some(Err(why)) => {
            let _ = writeln!(out, "driver: cannot run it: {why}");
        }
    }
    out
}

fn json(r: &Report) -> String {
    let (picked, ran, number, against, difference) =
        (r.picked, r.ran, r.number, r.against, r.difference);
    let e = &ran.execution;
    let m = &ran.module;
    let inv = |k: u32| {
        let v = e.invocation_of(k);
        format!("[{},{},{}]", v[0], v[1], v[2])
    };
    let mut out = String::from("{");
    let _ = write!(
        out,
        "\"step\":\"{}\",\"executed\":{},\"workgroups\":{},\"local_size\":[{},{},{}]",
        json_escape(&picked.label),
        e.executed,
        e.groups.iter().product::<u32>(),
        e.local_size[0],
        e.local_size[1],
        e.local_size[2]
    );
    out.push_str(",\"outputs\":[");
    for (k, (set, binding, n, _)) in changed(ran).into_iter().enumerate() {
        let comma = if k > 0 { "," } else { "" };
        let _ = write!(
            out,
            "{comma}{{\"set\":{set},\"binding\":{binding},\"words_written\":{n}}}"
        );
    }
    let _ = write!(out, "],\"invocation\":{},\"values\":[", inv(number));
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
    match (against, difference) {
        (Some(_), Some(d)) => {
            let source = exec::line_of(m, d.id).map_or("null".into(), |l| l.to_string());
            let instruction = m
                .functions()
                .iter()
                .find_map(|f| f.def_of(d.id))
                .map(|i| format!("{:?}", i.op()))
                .unwrap_or_default();
            let _ = write!(
                out,
                "{{\"id\":{},\"instruction\":\"Op{}\",\"invocation\":{},\"value\":\"{}\",\"against_value\":\"{}\",\"source\":{source}}}",
                d.id,
                json_escape(&instruction),
                inv(d.invocation),
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
    for (k, f) in e.findings.iter().enumerate() {
        let comma = if k > 0 { "," } else { "" };
        let _ = write!(
            out,
            "{comma}{{\"kind\":\"{}\",\"id\":{},\"invocation\":{},\"source\":{},\"count\":{},\"detail\":\"{}\"}}",
            finding_kind_name(&f.kind),
            f.at,
            inv(f.invocation),
            f.line.map_or("null".into(), |l| l.to_string()),
            f.count,
            json_escape(&f.detail)
        );
    }
    out.push_str("]}\n");
    out
}
