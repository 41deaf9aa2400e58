//! `shaderstep run`: the compiler core without a UI.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::cli::{Emit, RunArgs, StatsFormat};
use crate::ir::print;
use crate::ir::spirv::disasm::{disassemble, DisasmOptions};
use crate::ir::spirv::write::write_bytes;
use crate::pipeline::compile::{compile, Together};
use crate::pipeline::{Pipeline, Run, StageLink};

/// Exit status: 0 success, 1 bad input or a failed pass. Usage errors (2) are clap's. The
/// process's whole work: it does not free what it computed.
pub fn run(args: &RunArgs) -> i32 {
    match run_inner(args) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("error: {msg}");
            1
        }
    }
}

pub fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

pub fn stats_json(input: &Path, run: &Run) -> Vec<String> {
    // The debug-info audit: lines each step covers, and those the step before covered that
    // it no longer does.
    let coverage: Vec<_> = run.steps.iter().map(|s| s.coverage()).collect();
    run.steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let cov = &coverage[i];
            let (lost, variables_lost) = i
                .checked_sub(1)
                .map_or((0, 0), |p| coverage[p].losses(cov));
            let diags: Vec<String> = s
                .diagnostics
                .iter()
                .map(|d| {
                    format!(
                        "{{\"severity\":\"{}\",\"message\":\"{}\"}}",
                        d.severity,
                        json_escape(&d.to_string())
                    )
                })
                .collect();
            let preview: Vec<String> = s.preview.iter().map(|n| format!("\"{n}\"")).collect();
            let c = crate::ir::ops::counts(&s.module);
            // A step that changed nothing shares the cost of the one before.
            let cost = s.cost_after(i.checked_sub(1).map(|p| &run.steps[p]));
            format!(
                "{{\"input\":\"{}\",\"step\":{i},\"pass\":\"{}\",\"changed\":{},\"instructions\":{},\"microseconds\":{},\"resolution_microseconds\":{},\"bitcasts\":{},\"pointer_values\":{},\"qptr_ops\":{},\"qptr_fallbacks\":{},\"lines_covered\":{},\"lines_lost\":{},\"unlocated\":{},\"variables\":{},\"variables_described\":{},\"variables_lost\":{},\"max_pressure\":{},\"mix\":{},\"preview\":{},\"experimental_ops\":[{}],\"diagnostics\":[{}]}}",
                json_escape(&input.display().to_string()),
                s.pass,
                s.changed,
                s.inst_count,
                s.duration.as_micros(),
                s.resolution
                    .map_or("null".to_string(), |r| r.as_micros().to_string()),
                c.bitcasts,
                c.pointer_values,
                c.qptr_ops,
                c.qptr_fallbacks,
                cov.lines.len(),
                lost,
                cov.unlocated,
                cov.variables,
                cov.described(),
                variables_lost,
                cost.pressure.max,
                super::cost::mix_json(&cost),
                !s.preview.is_empty(),
                preview.join(","),
                diags.join(",")
            )
        })
        .collect()
}

/// Refuses an `-o` for several inputs named like a file (`multi.spv`): several inputs write
/// several files, into a directory.
fn output_directory(out: &Path) -> Result<(), String> {
    let looks_like_a_file = out
        .extension()
        .is_some_and(|e| ["spv", "spvasm", "ir", "txt"].contains(&e.to_string_lossy().as_ref()));
    if looks_like_a_file && !out.is_dir() {
        return Err(format!(
            "{}: several inputs write one file each, so -o names a directory, not a file",
            out.display()
        ));
    }
    Ok(())
}

/// What a run that did not fail writes: the SPIR-V binary (what an external tool wrote, when
/// one ran), its disassembly, the IR text, its graphs or a shading language, of the last step.
pub fn output_bytes(run: &Run, emit: Emit) -> Result<Vec<u8>, String> {
    let module = run
        .final_module()
        .expect("a run that did not fail has steps");
    if let Some(lang) = emit.lang() {
        return crate::pipeline::decompile::decompile(module, lang).map(String::into_bytes);
    }
    Ok(match emit {
        Emit::Spv => run
            .output_words()
            .map(|w| w.iter().flat_map(|x| x.to_le_bytes()).collect())
            .unwrap_or_else(|| write_bytes(module)),
        Emit::Spvasm => disassemble(module, &DisasmOptions::default()).into_bytes(),
        Emit::Ir => print::print(module).into_bytes(),
        _ => cfg_text(module, emit == Emit::Dot).into_bytes(),
    })
}

/// Each function's control-flow graph, drawn (`COLUMNS` wide, else 100) or as graphviz.
fn cfg_text(module: &crate::ir::Module, dot: bool) -> String {
    use crate::pipeline::cfg::{draw, DrawOptions, Graph};
    let names = crate::ir::names::Names::for_module(module);
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100);
    let mut out = String::new();
    for f in module.functions().iter().filter(|f| !f.is_declaration()) {
        let g = Graph::of(module, f, &names);
        if dot {
            out += &g.to_dot();
        } else {
            out += &format!("; function {}: {}\n", g.name, g.summary());
            let opts = DrawOptions {
                width,
                ..DrawOptions::default()
            };
            out += &draw(&g, &opts).to_text();
        }
    }
    out
}

/// The link order and states of `--pipeline`.
pub fn stage_link(args: &super::cli::PipelineArgs) -> Result<StageLink, String> {
    use crate::pipeline::link::state::PipelineState;
    let compiled = args.state.as_deref().map(PipelineState::load).transpose()?;
    let glue = match args.link_state.as_deref() {
        None => None,
        Some(path) => {
            let whole = PipelineState::load(path)?;
            Some(compiled.clone().unwrap_or_default().remainder(&whole)?)
        }
    };
    Ok(StageLink {
        order: args.link_order,
        compiled,
        glue,
    })
}

fn run_inner(args: &RunArgs) -> Result<(), String> {
    // `--steps`: the first module dumped is the input, the others its steps.
    // `--steps-cmd`: its $OUT goes when the run is done.
    let (inputs, dumped, _command_out) =
        match crate::pipeline::dumps::from_flags(args.steps.as_deref(), args.steps_cmd.as_deref())?
        {
            Some((input, dumps, out)) => (vec![input], Some(dumps), out),
            None => (args.inputs.clone(), None, None),
        };
    // shaderstep.toml as the TUI finds it (a directory is searched as a root): its compilers
    // load the inputs here too.
    let (roots, files): (Vec<_>, Vec<_>) = inputs.iter().cloned().partition(|p| p.is_dir());
    let config = super::config::load(&roots, &files)?.0;
    let pipeline = match (&args.external, dumped) {
        (_, Some(dumps)) => Pipeline::dumps(dumps),
        (Some(command), None) => {
            if args.stages.pipeline {
                return Err(
                    "--external runs spirv-opt on each input; it does not link --pipeline stages"
                        .into(),
                );
            }
            Pipeline::external(config.external_tool(command)?)
        }
        (None, None) => Pipeline::from_flags(args.passes.as_deref(), &args.preset)?,
    };
    let pipeline = pipeline
        .with_checks(args.checks.into())
        .with_experimental(args.experimental)
        .with_keep_exports(args.keep_exports)
        .with_snapshots(args.print_after_all || args.stats.is_some() || args.bisect_run);
    // Linking makes one module of all the inputs; otherwise each input is run on its own.
    let linking = pipeline.links();
    let several = inputs.len() > 1 && !linking;
    // A tree or several shaders written to a directory: a batch, several at once.
    let a_tree = inputs.iter().any(|p| p.is_dir());
    if let Some(out) = &args.output {
        if (several || a_tree)
            && !linking
            && !args.stages.pipeline
            && !args.print_after_all
            && !args.bisect_run
        {
            output_directory(out)?;
            return super::batch::run(args, &pipeline, &config.front_ends, out);
        }
    }
    if a_tree {
        return Err(
            "a directory is compiled as a batch: give -o OUTDIR (and no --print-after-all or --bisect-run)"
                .into(),
        );
    }
    if args.stages.pipeline && inputs.len() < 2 {
        return Err("--pipeline needs the stages of a pipeline: two inputs or more".into());
    }
    if !args.stages.pipeline && (args.stages.state.is_some() || args.stages.link_state.is_some()) {
        return Err(
            "--state and --link-state are pipeline states: use them with --pipeline".into(),
        );
    }
    if args.stages.pipeline && linking {
        return Err("--pipeline links stages; --preset link links modules: choose one".into());
    }
    let to_stdout = args.output.is_none();
    let quiet_result = args.print_after_all || args.stats.is_some() || args.bisect_run;
    let bisect_data = match &args.bisect_data {
        Some(p) => {
            Some(std::fs::read(p).map_err(|e| format!("{}: cannot read: {e}", p.display()))?)
        }
        None => None,
    };
    // Opened once, for every input, and only when a bisect asks for it (`--oracle interp`
    // never does): creating a device costs more than a run.
    let driver = args.driver.resolve(&config)?;
    let gpu: std::cell::OnceCell<Result<crate::pipeline::gpu::isolated::Isolated, String>> =
        std::cell::OnceCell::new();
    let open = || -> Result<&dyn crate::pipeline::gpu::Device, String> {
        match gpu.get_or_init(|| crate::pipeline::gpu::isolated::Isolated::open_here(&driver)) {
            Ok(g) => Ok(g),
            Err(e) => Err(e.clone()),
        }
    };
    if to_stdout && !quiet_result && args.emit == Emit::Spv && std::io::stdout().is_terminal() {
        return Err(
            "refusing to write a SPIR-V binary to a terminal: use -o FILE, or --emit spvasm|ir"
                .into(),
        );
    }
    if several {
        if let Some(out) = &args.output {
            output_directory(out)?;
            std::fs::create_dir_all(out)
                .map_err(|e| format!("{}: cannot create output directory: {e}", out.display()))?;
        }
    }
    let mut stdout = std::io::stdout().lock();
    let mut failures = Vec::new();
    // Every input's run, computed first: linking and pipeline stages need them all at once.
    let together = if linking {
        if inputs.len() < 2 {
            return Err("linking needs at least two inputs".into());
        }
        Together::Linked { first_only: true }
    } else if args.stages.pipeline {
        Together::Stages(Box::new(stage_link(&args.stages)?))
    } else {
        Together::Apart
    };
    let results = compile(
        &inputs,
        &pipeline,
        &config.front_ends,
        &together,
        &|| false,
        &mut |_| {},
    )
    .expect("a compile nothing cancels finishes");
    let mut runs: Vec<(PathBuf, Run)> = Vec::new();
    let mut not_linked = None;
    for result in results {
        match result {
            Ok(c) => {
                // Numbered as the TUI numbers them: a shader compiled from source has its
                // text as step 0, so `step 7` is mem2reg here, in the TUI and in `:compare`.
                let mut run = c.run;
                if let Some(src) = c.source {
                    run.prepend_source(src);
                }
                runs.push((c.path, run))
            }
            // Inputs run together stop at the first that does not load (the others only
            // say they were not linked).
            Err(e) if !matches!(together, Together::Apart) => {
                if !e.message.starts_with("not linked:") {
                    return Err(e.to_string());
                }
                not_linked.get_or_insert(e.to_string());
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    if let Some(e) = not_linked {
        return Err(e);
    }
    for (path, run) in &runs {
        if args.print_after_all {
            for (i, step) in run.steps.iter().enumerate() {
                if step.is_source() {
                    let _ = writeln!(stdout, "; *** step {i}: the source text ***");
                    let _ = stdout.write_all(step.ir_text().as_bytes());
                    let _ = writeln!(stdout);
                    continue;
                }
                let _ = writeln!(
                    stdout,
                    "{} *** {} after pass {i}: {} ({}){}{} ***",
                    if args.as_lang.is_some() { "//" } else { ";" },
                    args.as_lang
                        .map_or("IR", |l| crate::app::state::TextKind::Lang(l).name()),
                    step.pass,
                    if step.changed { "changed" } else { "unchanged" },
                    if step.preview.is_empty() {
                        String::new()
                    } else {
                        format!(" [preview: {}]", step.preview.join(", "))
                    },
                    if several {
                        format!(" [{}]", path.display())
                    } else {
                        String::new()
                    }
                );
                match args.as_lang {
                    None => {
                        let _ = stdout.write_all(step.ir_text().as_bytes());
                    }
                    Some(lang) => {
                        let text = crate::pipeline::decompile::decompile(&step.module, lang)
                            .unwrap_or_else(|e| {
                                format!("// no {} for this step: {e}\n", lang.name())
                            });
                        let _ = stdout.write_all(text.as_bytes());
                    }
                }
                let _ = writeln!(stdout);
            }
        }
        if args.stats == Some(StatsFormat::Json) {
            for line in stats_json(path, run) {
                let _ = writeln!(stdout, "{line}");
            }
        }
        // What linking found is for the user even when it is not fatal.
        for step in run.steps.iter().filter(|s| s.pass.starts_with("link")) {
            for d in &step.diagnostics {
                if d.severity == crate::pipeline::Severity::Warning {
                    eprintln!("{}: {}: {d}", path.display(), step.pass);
                }
            }
        }
        // With --pipeline the stages are drawn together, once (at the first stage).
        let bisect_here =
            args.bisect_run && (!args.stages.pipeline || std::ptr::eq(path, &runs[0].0));
        if bisect_here {
            // In a worker process: a driver that crashes or hangs is a finding, not our end.
            let together: Vec<&crate::pipeline::Run> = if args.stages.pipeline {
                runs.iter().map(|(_, r)| r).collect()
            } else {
                vec![run]
            };
            let result = crate::pipeline::semantic::bisect_with(
                &open,
                &together,
                crate::pipeline::semantic::Feed {
                    data: bisect_data.as_deref(),
                    entry: args.entry.as_deref(),
                    oracle: args.oracle.unwrap_or_default(),
                    ..Default::default()
                },
                &|| false,
            );
            match result {
                Ok(b) => {
                    let _ = writeln!(stdout, "{}: {}", path.display(), b.summary());
                    for (i, why) in &b.skipped {
                        let pass = run.steps.get(*i).map_or("", |st| st.pass);
                        let _ = writeln!(stdout, "  step {i} {pass} skipped: {why}");
                    }
                    if let Some(d) = &b.first {
                        failures.push(format!(
                            "{}: {}: {} {}",
                            path.display(),
                            d.finding.first_step(),
                            d.step,
                            d.pass
                        ));
                    }
                }
                Err(e) => failures.push(format!("{}: --bisect-run: {e}", path.display())),
            }
        }
        if let Some(i) = run.failed {
            let step = &run.steps[i];
            let mut msg = format!("{}: pass '{}' failed", path.display(), step.pass);
            for d in &step.diagnostics {
                msg.push_str(&format!("\n  {d}"));
            }
            failures.push(msg);
            continue;
        }
        if let Err(e) = run.check_output(pipeline.checks, pipeline.experimental) {
            failures.push(format!("{}: {e}", path.display()));
            continue;
        }
        // A preview module is one a driver without our experimental ops cannot take: say so.
        if let Some(step) = run.steps.iter().rev().find(|s| !s.preview.is_empty()) {
            let last = run.steps.len() - 1;
            let which = if std::ptr::eq(step, &run.steps[last]) {
                "the result is a preview module".to_string()
            } else {
                format!("step '{}' is a preview module", step.pass)
            };
            eprintln!(
                "note: {}: {which}: it uses experimental ops ({})",
                path.display(),
                step.preview.join(", ")
            );
        }
        if quiet_result && args.output.is_none() {
            continue;
        }
        let bytes = match output_bytes(run, args.emit) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        match &args.output {
            Some(out) => {
                let target: PathBuf = if several {
                    // The stem, unless another input has the same (`lit.vert`, `lit.frag`):
                    // then the whole file name.
                    let stem_of = |p: &Path| p.file_stem().map(|s| s.to_os_string());
                    let shared = args
                        .inputs
                        .iter()
                        .filter(|p| stem_of(p) == stem_of(path))
                        .count()
                        > 1;
                    let stem = if shared {
                        path.file_name()
                    } else {
                        path.file_stem()
                    }
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "out".into());
                    let ext = args.emit.extension();
                    out.join(format!("{stem}.{ext}"))
                } else {
                    out.clone()
                };
                std::fs::write(&target, &bytes)
                    .map_err(|e| format!("{}: cannot write: {e}", target.display()))?;
            }
            None => {
                if several && args.emit != Emit::Spv {
                    let _ = writeln!(stdout, "; ==== {} ====", path.display());
                }
                // A reader that stopped early (`| head`) is not an error of ours.
                match stdout.write_all(&bytes) {
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                    r => r.map_err(|e| format!("cannot write to standard output: {e}"))?,
                }
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\nerror: "))
    }
}
