//! `shaderstep cost`: what each step of a pipeline costs the GPU, per shader — the peak register
//! pressure and the instruction mix — as a table, JSON lines (to compare two builds in CI) or
//! the last step's listing with the pressure after every instruction.

use std::fmt::Write;

use super::cli::CostArgs;
use crate::pipeline::compile::{compile, Together};
use crate::pipeline::cost::{Cost, Kind};
use crate::pipeline::Run;

/// Exit status: 0, or 1 when an input does not load, a pass fails or a directory holds no
/// shader.
pub fn run(args: &CostArgs) -> i32 {
    match run_inner(args) {
        Ok(text) => {
            super::print_quietly(&text);
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn run_inner(args: &CostArgs) -> Result<String, String> {
    // Directories are searched for shaderstep.toml as roots, as the TUI does.
    let (roots, files): (Vec<_>, Vec<_>) = args.inputs.iter().cloned().partition(|p| p.is_dir());
    let config = super::config::load(&roots, &files)?.0;
    let pipeline = args.pipeline.pipeline(&config)?.with_snapshots(true);
    // A directory: every shader under it, as `run DIR -o OUT` compiles them.
    let inputs: Vec<_> = super::batch::shaders(&args.inputs)
        .into_iter()
        .map(|(shader, _)| shader)
        .collect();
    let mut failures: Vec<String> = roots
        .iter()
        .filter(|r| !inputs.iter().any(|i| i.starts_with(r)))
        .map(|r| format!("{}: no shaders under it", r.display()))
        .collect();
    let results = compile(
        &inputs,
        &pipeline,
        &config.front_ends,
        &Together::Apart,
        &|| false,
        &mut |_| {},
    )
    .expect("a compile nothing cancels finishes");
    let mut out = String::new();
    for result in results {
        let compiled = match result {
            Ok(c) => c,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        let mut run = compiled.run;
        if let Some(src) = compiled.source {
            run.prepend_source(src);
        }
        let name = compiled.path.display().to_string();
        if let Some(f) = run.failed {
            failures.push(format!("{name}: pass '{}' failed", run.steps[f].pass));
        }
        if args.listing {
            if let Some(m) = run.final_module() {
                let _ = writeln!(out, "; {name}");
                out.push_str(&crate::pipeline::cost::annotated(m));
            }
        } else if args.json {
            json(&mut out, &name, &run);
        } else {
            table(&mut out, &name, &run);
        }
    }
    if failures.is_empty() {
        Ok(out)
    } else {
        print!("{out}");
        Err(failures.join("\nerror: "))
    }
}

/// A column of the table: its heading and what it counts.
type Column = (&'static str, fn(&Cost) -> u32);

/// The columns of the table, besides the pass and the instructions.
static COLUMNS: &[Column] = &[
    ("arith", |c| c.mix.get(&Kind::Arithmetic)),
    ("transc", |c| c.mix.get(&Kind::Transcendental)),
    ("conv", |c| c.mix.get(&Kind::Conversion)),
    ("tex", |c| c.mix.texture()),
    ("mem", |c| c.mix.memory()),
    ("atomic", |c| c.mix.get(&Kind::Atomic)),
    ("branch", |c| c.mix.get(&Kind::Branch)),
    ("loop", |c| c.mix.get(&Kind::Loop)),
];

/// Each step that is a pass (not the source text), with its cost.
fn steps(
    run: &Run,
) -> impl Iterator<Item = (usize, &'static str, usize, std::sync::Arc<Cost>)> + '_ {
    run.steps
        .iter()
        .enumerate()
        .filter(|(_, st)| !st.is_source())
        .map(move |(i, st)| {
            let c = st.cost_after(i.checked_sub(1).map(|p| &run.steps[p]));
            (i, st.pass, st.inst_count, c)
        })
}

fn table(out: &mut String, name: &str, run: &Run) {
    let w = run
        .steps
        .iter()
        .map(|s| s.pass.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(out, "{name}");
    let _ = write!(
        out,
        "{:>4}  {:<w$} {:>7} {:>8} {:>5}",
        "step", "pass", "instrs", "pressure", "Δ"
    );
    for (h, _) in COLUMNS {
        let _ = write!(out, " {h:>6}");
    }
    out.push('\n');
    let mut before: Option<u32> = None;
    for (i, pass, instrs, c) in steps(run) {
        let p = c.pressure.max;
        let delta = match before {
            Some(b) if b != p => format!("{:+}", i64::from(p) - i64::from(b)),
            _ => String::new(),
        };
        before = Some(p);
        let _ = write!(out, "{i:>4}  {pass:<w$} {instrs:>7} {p:>8} {delta:>5}");
        for (_, f) in COLUMNS {
            let _ = write!(out, " {:>6}", f(&c));
        }
        out.push('\n');
    }
}

fn json(out: &mut String, name: &str, run: &Run) {
    for (i, pass, instrs, c) in steps(run) {
        let _ = writeln!(
            out,
            "{{\"input\":\"{}\",\"step\":{i},\"pass\":\"{pass}\",\"instructions\":{instrs},\"max_pressure\":{},\"mix\":{}}}",
            super::run::json_escape(name),
            c.pressure.max,
            mix_json(&c)
        );
    }
}

/// The mix as a JSON object: kind name to count, in the table's order.
pub fn mix_json(c: &Cost) -> String {
    let parts: Vec<String> = c
        .mix
        .0
        .iter()
        .map(|(k, n)| format!("\"{}\":{n}", k.name()))
        .collect();
    format!("{{{}}}", parts.join(","))
}
