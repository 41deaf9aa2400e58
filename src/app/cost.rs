//! `shaderstep cost`: what each step of a pipeline costs the GPU, per shader — the peak register
//! pressure and the instruction mix — as a table, JSON lines (to compare two builds in CI) or
//! the last step's listing with the pressure after every instruction.

use std::fmt::Write;

use super::cli::CostArgs;
use crate::pipeline::compile::{compile, Together};
use crate::pipeline::cost::{Cost, Kind};
use crate::pipeline::driver_code::{self, Compiled, Stats};
use crate::pipeline::gpu::isolated::{worker_program, Isolated};
use crate::pipeline::Run;

/// What the driver compiles steps on, when `--driver` asks for its figures.
struct OnDriver {
    worker: Isolated,
    compiled: Compiled,
}

impl OnDriver {
    fn open(args: &CostArgs, config: &super::config::Config) -> Result<Option<OnDriver>, String> {
        let Some(flag) = &args.driver else {
            return Ok(None);
        };
        let flag = Some(flag.as_str()).filter(|f| !f.is_empty());
        let driver = crate::pipeline::gpu::Driver::resolve(flag, config.driver.as_deref())?;
        let worker = Isolated::open_with(worker_program()?, false, &driver, true)?;
        if !worker.info().gallivm_debug {
            return Err(format!("--driver: {}", driver_code::no_code(worker.info())));
        }
        Ok(Some(OnDriver {
            worker,
            compiled: Compiled::default(),
        }))
    }

    /// The driver's counts of each step `steps` gives, in its order.
    fn figures(&mut self, run: &Run) -> Vec<Result<Stats, String>> {
        run.steps
            .iter()
            .filter(|st| !st.is_source())
            .map(|st| {
                self.compiled
                    .of(&self.worker, &st.module)
                    .map(|code| code.stats.clone())
            })
            .collect()
    }
}

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
    let mut on_driver = OnDriver::open(args, &config)?;
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
        } else {
            let figures = on_driver.as_mut().map(|d| d.figures(&run));
            if args.json {
                json(&mut out, &name, &run, figures.as_deref());
            } else {
                table(&mut out, &name, &run, figures.as_deref());
            }
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

/// The driver's x86 instructions of a step, or `-` where it could not compile it.
fn x86(figure: Option<&Result<Stats, String>>) -> String {
    match figure {
        Some(Ok(st)) => st.asm_instructions.to_string(),
        _ => "-".into(),
    }
}

fn table(out: &mut String, name: &str, run: &Run, driver: Option<&[Result<Stats, String>]>) {
    let w = run
        .steps
        .iter()
        .map(|s| s.pass.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(out, "{name}");
    let _ = write!(out, "{:>4}  {:<w$} {:>7}", "step", "pass", "instrs");
    if driver.is_some() {
        let _ = write!(out, " {:>6} {:>6}", "x86", "Δx86");
    }
    let _ = write!(out, " {:>8} {:>5}", "pressure", "Δ");
    for (h, _) in COLUMNS {
        let _ = write!(out, " {h:>6}");
    }
    out.push('\n');
    let mut before: Option<u32> = None;
    let mut x86_before: Option<usize> = None;
    let mut errors = Vec::new();
    for (k, (i, pass, instrs, c)) in steps(run).enumerate() {
        let p = c.pressure.max;
        let delta = match before {
            Some(b) if b != p => format!("{:+}", i64::from(p) - i64::from(b)),
            _ => String::new(),
        };
        before = Some(p);
        let _ = write!(out, "{i:>4}  {pass:<w$} {instrs:>7}");
        if let Some(figures) = driver {
            let figure = figures.get(k);
            let now = figure
                .and_then(|f| f.as_ref().ok())
                .map(|st| st.asm_instructions);
            let delta = match (x86_before, now) {
                (Some(b), Some(n)) if b != n => format!("{:+}", n as i64 - b as i64),
                _ => String::new(),
            };
            x86_before = now.or(x86_before);
            let _ = write!(out, " {:>6} {delta:>6}", x86(figure));
            if let Some(Err(e)) = figure {
                if !errors.contains(e) {
                    errors.push(e.clone());
                }
            }
        }
        let _ = write!(out, " {p:>8} {delta:>5}");
        for (_, f) in COLUMNS {
            let _ = write!(out, " {:>6}", f(&c));
        }
        out.push('\n');
    }
    for e in errors {
        let _ = writeln!(out, "  the driver could not compile a step: {e}");
    }
}

fn json(out: &mut String, name: &str, run: &Run, driver: Option<&[Result<Stats, String>]>) {
    for (k, (i, pass, instrs, c)) in steps(run).enumerate() {
        let figures = match driver.map(|d| d.get(k)) {
            None => String::new(),
            Some(Some(Ok(st))) => format!(
                ",\"driver_instructions\":{},\"driver_stats\":{{\"x86_instructions\":{},\"llvm_instructions\":{},\"nir_instructions\":{}}}",
                st.asm_instructions, st.asm_instructions, st.llvm_instructions, st.nir_instructions
            ),
            Some(Some(Err(e))) => format!(
                ",\"driver_instructions\":null,\"driver_error\":\"{}\"",
                super::run::json_escape(e)
            ),
            Some(None) => ",\"driver_instructions\":null".into(),
        };
        let _ = writeln!(
            out,
            "{{\"input\":\"{}\",\"step\":{i},\"pass\":\"{pass}\",\"instructions\":{instrs},\"max_pressure\":{},\"mix\":{}{figures}}}",
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
