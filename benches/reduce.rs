//! Benchmark (not a test): `reduce --until differs` against spirv-reduce with the same
//! interestingness. A planted miscompile (a pass that makes the first float add of every
//! function a subtract, else an integer add, else a multiply an add…) sits at step 3 of a
//! short pipeline; both
//! reducers shrink each shader while that step still computes otherwise than the one before.
//!
//! - shaderstep: the whole reduction as `reduce` runs it (`reduce_to_file`: the driver's
//!   worker opened, the step checked on the input, candidates judged on the interpreter where
//!   it agrees with the driver, the result confirmed on the driver).
//! - spirv-reduce: its interestingness test is this binary (`--judge FILE`), which runs the
//!   candidate through the same pipeline and asks the same question of the interpreter — the
//!   same oracle, so the figures compare the reducers, not the driver's cost per candidate.
//!
//! A draw's candidates are judged by our reduction on the quads where the input differs
//! (`reduce::quads_where_differs`); spirv-reduce's judge draws the whole framebuffer, as the
//! property is stated, unless `--same-quads` gives it the same quads.
//!
//! Each shader is reduced RUNS times by each tool in turn; medians are compared. Prints a
//! table; never fails for speed.
//!
//! cargo bench --bench reduce -- [--runs N] [--same-quads] [FILE|DIR…]
//!     (default: the project's compute shaders under tests/shaders)

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use shaderstep::ir::Module;
use shaderstep::pipeline::pass::{Changed, Pass, PassCx, PassError};
use shaderstep::pipeline::reduce::{reduce_to_file, Property, Test};
use shaderstep::pipeline::{input, Pipeline};
use spirv::Op;

/// What the planted miscompile makes of the first instruction of these ops it finds in a
/// function, tried in this order.
const SWAPS: [(Op, Op); 6] = [
    (Op::FAdd, Op::FSub),
    (Op::IAdd, Op::ISub),
    (Op::FMul, Op::FAdd),
    (Op::IMul, Op::IAdd),
    (Op::FSub, Op::FAdd),
    (Op::ISub, Op::IAdd),
];

/// The planted miscompile.
struct Planted;
impl Pass for Planted {
    fn name(&self) -> &'static str {
        "planted"
    }
    fn description(&self) -> &'static str {
        "bench pass: makes an add a subtract, or a multiply an add"
    }
    fn run(&self, m: &mut Module, _: &mut PassCx) -> Result<Changed, PassError> {
        let mut changed = Changed::No;
        for f in shaderstep::ir::rewrite::functions_mut(m) {
            let first = |op: Op| f.layout().map(|(_, i)| i).find(|&i| f.inst(i).op() == op);
            let Some((add, sub)) = SWAPS
                .iter()
                .find_map(|&(from, to)| first(from).map(|i| (i, to)))
            else {
                continue;
            };
            let (ty, operands) = (f.inst(add).ty(), f.inst(add).to_operands());
            shaderstep::ir::rewrite::rewrite_inst(f, add, sub, ty, operands);
            changed = Changed::Yes;
        }
        Ok(changed)
    }
}

fn pipeline() -> Pipeline {
    let mut p = Pipeline::from_names(&["lower", "verify", "dce", "verify", "lift"]).unwrap();
    p.passes.insert(3, Box::new(Planted));
    p
}

/// The step the planted pass is, among the passes.
const STEP: usize = 3;

/// spirv-reduce's interestingness test: exit 0 when the candidate's planted step computes
/// otherwise than the step before, on the interpreter.
fn judge(path: &Path) -> ! {
    let words = input::load(path)
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        })
        .words;
    let pipeline = pipeline();
    let test = Test {
        pipeline: &pipeline,
        property: Property::Differs,
        step: Some(STEP),
        pass: Some("planted"),
        error: None,
        gpu: None,
        env: String::new(),
        layout: None,
        scratch: std::env::temp_dir(),
        interpreter: true,
        oracle: None,
        budget: std::env::var("REDUCE_BENCH_BUDGET")
            .ok()
            .and_then(|b| b.parse().ok()),
        quads_of: std::env::var("REDUCE_BENCH_QUADS")
            .ok()
            .and_then(|q| parse_quads(&q)),
    };
    std::process::exit(if test.holds(&words).unwrap_or(false) {
        0
    } else {
        1
    })
}

/// `x,y x,y x,y x,y`, as `show_quads` writes them.
fn parse_quads(text: &str) -> Option<[[u32; 2]; 4]> {
    let pixels: Vec<[u32; 2]> = text
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',')?;
            Some([x.parse().ok()?, y.parse().ok()?])
        })
        .collect::<Option<_>>()?;
    pixels.try_into().ok()
}

fn show_quads(quads: Option<[[u32; 2]; 4]>) -> String {
    quads.map_or(String::new(), |q| {
        q.map(|[x, y]| format!("{x},{y}")).join(" ")
    })
}

fn instructions(words: &[u32]) -> usize {
    shaderstep::ir::spirv::read::read_words(words).map_or(0, |m| m.inst_count())
}

fn shaders(args: &[String]) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let given: Vec<PathBuf> = if args.is_empty() {
        vec![root.join("glsl"), root.join("glslang")]
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    let mut out = Vec::new();
    for p in given {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&p)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let name = p.to_string_lossy();
                    name.ends_with(".comp") || name.ends_with(".comp.spv")
                })
                .collect();
            files.sort();
            out.extend(files);
        } else {
            out.push(p);
        }
    }
    out
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let mut args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let Some(k) = args.iter().position(|a| a == "--judge") {
        judge(Path::new(&args[k + 1]));
    }
    let mut runs = 3;
    let same_quads = args.iter().any(|a| a == "--same-quads");
    args.retain(|a| a != "--same-quads");
    if let Some(k) = args.iter().position(|a| a == "--runs") {
        runs = args[k + 1].parse().expect("--runs N");
        args.drain(k..k + 2);
    }
    let tmp = std::env::temp_dir().join(format!("shaderstep-bench-reduce-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let script = tmp.join("interesting.sh");
    let me = std::env::current_exe().unwrap();
    std::fs::write(
        &script,
        format!("#!/bin/sh\nexec '{}' --judge \"$1\"\n", me.display()),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    let pipeline = pipeline();
    println!(
        "{:<28} {:>6} {:>6} {:>12} {:>8} {:>8} {:>6}",
        "shader", "input", "ours", "spirv-reduce", "our s", "their s", "ratio"
    );
    let (mut sum_ours, mut sum_theirs, mut t_ours, mut t_theirs) = (0, 0, 0.0, 0.0);
    let (mut rows, mut no_larger, mut skipped) = (0, 0, Vec::new());
    for path in shaders(&args) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(loaded) = input::load(&path) else {
            skipped.push(format!("{name}: does not load"));
            continue;
        };
        let words = loaded.words;
        let spv = tmp.join("input.spv");
        std::fs::write(
            &spv,
            words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
        .unwrap();
        // The judge's budget, and its quads under --same-quads, as `reduce` sets its own.
        let run = pipeline.run(std::sync::Arc::new(words.clone()));
        let quads = same_quads
            .then(|| shaderstep::pipeline::reduce::quads_where_differs(&run, STEP))
            .flatten();
        let budget = shaderstep::pipeline::reduce::budget_for(&run, STEP, quads);
        let ours_out = tmp.join("ours.spv");
        let theirs_out = tmp.join("theirs.spv");
        let (mut ours_t, mut theirs_t) = (Vec::new(), Vec::new());
        let mut failed = None;
        let mut summary = String::new();
        for _ in 0..runs {
            let t = Instant::now();
            match reduce_to_file(
                &pipeline,
                &shaderstep::pipeline::gpu::Driver::System,
                Property::Differs,
                Some("planted"),
                &words,
                &ours_out,
                &mut |p| {
                    if std::env::var_os("REDUCE_BENCH_TRACE").is_some() {
                        eprintln!("{:.2} {p}", t.elapsed().as_secs_f64())
                    }
                },
                &|| false,
            ) {
                Ok(s) => summary = s,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
            ours_t.push(t.elapsed());
            let t = Instant::now();
            let prefix = format!("--temp-file-prefix={}/candidate_", tmp.display());
            let status = std::process::Command::new("spirv-reduce")
                .env(
                    "REDUCE_BENCH_BUDGET",
                    budget.map_or(String::new(), |b| b.to_string()),
                )
                .env("REDUCE_BENCH_QUADS", show_quads(quads))
                .arg(&spv)
                .arg("-o")
                .arg(&theirs_out)
                .arg(prefix)
                .arg("--")
                .arg(&script)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .expect("spirv-reduce (Debian: apt-get install spirv-tools)");
            theirs_t.push(t.elapsed());
            if !status.success() {
                failed = Some("spirv-reduce failed".into());
                break;
            }
        }
        if let Some(why) = failed {
            skipped.push(format!("{name}: {why}"));
            continue;
        }
        if !summary.contains("judged on the interpreter") {
            skipped.push(format!("{name}: not judged on the interpreter: {summary}"));
            continue;
        }
        let read = |p: &Path| input::load(p).map(|l| l.words).unwrap_or_default();
        let (before, ours, theirs) = (
            instructions(&words),
            instructions(&read(&ours_out)),
            instructions(&read(&theirs_out)),
        );
        let (to, tt) = (median(ours_t), median(theirs_t));
        println!(
            "{:<28} {before:>6} {ours:>6} {theirs:>12} {:>8.2} {:>8.2} {:>6.2}",
            name,
            to.as_secs_f64(),
            tt.as_secs_f64(),
            to.as_secs_f64() / tt.as_secs_f64()
        );
        println!("  {summary}");
        rows += 1;
        no_larger += usize::from(ours <= theirs);
        sum_ours += ours;
        sum_theirs += theirs;
        t_ours += to.as_secs_f64();
        t_theirs += tt.as_secs_f64();
    }
    for s in &skipped {
        println!("skipped {s}");
    }
    if rows > 0 {
        println!(
            "\n{rows} shaders under differs: ours no larger than spirv-reduce's on {no_larger}; instructions {sum_ours} against {sum_theirs}; wall time {t_ours:.1} s against {t_theirs:.1} s ({:.2}; medians of {runs} runs each)",
            t_ours / t_theirs
        );
    }
    if std::env::var_os("REDUCE_BENCH_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
