//! Benchmark (not a test): every step of `O` read as a shading language, as the TUI's
//! `:view glsl` reads it (SPIRV-Cross or naga in a child process). For each shader given (or
//! the bundled examples), the distinct steps of `O` are decompiled to GLSL, HLSL, MSL and
//! WGSL; the GLSL is compiled back by glslangValidator. Prints how many were written, how many
//! compiled back, and the time per step (median and 90th percentile). Never fails for speed.
//!
//! cargo bench --bench decompile -- ../shared/corpus/valid/{comp,frag,vert}

use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use shaderstep::pipeline::decompile::{decompile_words, Lang};
use shaderstep::pipeline::{input, validate, Pipeline};

fn shaders(args: &[String]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let roots: Vec<PathBuf> = if args.is_empty() {
        vec![PathBuf::from("assets/examples")]
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    for r in roots {
        if r.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&r)
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(r);
        }
    }
    out
}

/// The stage glslang is told: the first entry point's, which SPIRV-Cross writes (a name such
/// as `…asm.vert.complex-link.asm.vert.spv` says `.comp` too).
fn stage(m: &shaderstep::ir::Module) -> Option<&'static str> {
    use rspirv::dr::Operand;
    use rspirv::spirv::ExecutionModel as E;
    match m.entry_points().first()?.lits().first()? {
        Operand::ExecutionModel(E::Vertex) => Some("vert"),
        Operand::ExecutionModel(E::Fragment) => Some("frag"),
        Operand::ExecutionModel(E::GLCompute) => Some("comp"),
        _ => None,
    }
}

/// The environment glslang compiles the GLSL of `m` for: the one its SPIR-V version means.
fn glslang_env(m: &shaderstep::ir::Module) -> String {
    let env = shaderstep::pipeline::external::target_env(m);
    match env.strip_prefix("spv") {
        Some(v) => format!("spirv{v}"),
        None => env,
    }
}

fn percentile(v: &mut [Duration], p: f64) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let all: Vec<String> = std::env::args().skip(1).collect();
    // `--only glsl,wgsl`: those languages alone.
    let only: Vec<Lang> = all
        .iter()
        .position(|a| a == "--only")
        .and_then(|k| all.get(k + 1))
        .map(|l| l.split(',').filter_map(Lang::parse).collect())
        .unwrap_or_else(|| Lang::ALL.to_vec());
    let args: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(k, a)| !a.starts_with("--") && (*k == 0 || all[k - 1] != "--only"))
        .map(|(_, a)| a.clone())
        .collect();
    let scratch =
        std::env::temp_dir().join(format!("shaderstep-bench-decompile-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut seen = HashSet::new();
    let mut times: BTreeMap<&'static str, Vec<Duration>> = BTreeMap::new();
    let mut written: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut reasons: BTreeMap<(&'static str, String), usize> = BTreeMap::new();
    let (mut modules, mut steps, mut compiled, mut glslang_failures) = (0, 0, 0, Vec::new());
    // Steps not written whose shader's input was not written either.
    let mut input_too: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut not_compiled_input_too = 0;
    for path in shaders(&args) {
        let Ok(loaded) = input::load(&path) else {
            continue;
        };
        let Some(stage) = stage(&loaded.module) else {
            continue;
        };
        modules += 1;
        let run = Pipeline::preset("O")
            .unwrap()
            .with_snapshots(true)
            .run(Arc::new(loaded.words));
        let mut input_failed: Vec<Lang> = Vec::new();
        let mut input_not_compiled = false;
        for (k, step) in run.steps.iter().enumerate() {
            let Ok(spirv) = validate::spirv_of(&step.module) else {
                continue;
            };
            let mut h = std::collections::hash_map::DefaultHasher::new();
            spirv.words.hash(&mut h);
            if !seen.insert(h.finish()) {
                continue;
            }
            steps += 1;
            for &lang in &only {
                let t = Instant::now();
                let text = decompile_words(&spirv.words, lang);
                times.entry(lang.name()).or_default().push(t.elapsed());
                match text {
                    Ok(text) => {
                        *written.entry(lang.name()).or_default() += 1;
                        if lang == Lang::Glsl {
                            let file = scratch.join(format!("step.{stage}"));
                            std::fs::write(&file, &text).unwrap();
                            let r = std::process::Command::new("glslangValidator")
                                .args(["-V", "--quiet", "--target-env"])
                                .arg(glslang_env(&step.module))
                                .arg("-o")
                                .arg(scratch.join("step.spv"))
                                .arg(&file)
                                .output()
                                .expect("glslangValidator runs (apt-get install glslang-tools)");
                            if r.status.success() {
                                compiled += 1;
                            } else if k == 0 || input_not_compiled {
                                input_not_compiled = true;
                                not_compiled_input_too += 1;
                            }
                            if !r.status.success() && glslang_failures.len() < 8 {
                                let said = String::from_utf8_lossy(&r.stdout);
                                let first = said
                                    .lines()
                                    .find(|l| l.contains("ERROR"))
                                    .unwrap_or("")
                                    .to_string();
                                glslang_failures.push(format!(
                                    "{} ({}): {first}",
                                    path.display(),
                                    step.pass
                                ));
                            }
                        }
                    }
                    Err(e) => {
                        if k == 0 {
                            input_failed.push(lang);
                        }
                        if input_failed.contains(&lang) {
                            *input_too.entry(lang.name()).or_default() += 1;
                        }
                        let short: String = e.chars().take(90).collect();
                        *reasons.entry((lang.name(), short)).or_default() += 1;
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!("{modules} modules, {steps} distinct steps of O");
    for lang in only.iter().copied() {
        let n = written.get(lang.name()).copied().unwrap_or(0);
        let t = times.entry(lang.name()).or_default();
        let (med, p90) = (percentile(t, 0.5), percentile(t, 0.9));
        println!(
            "{:<5} written {n}/{steps} ({:.1} %); per step median {:.1} ms, 90th percentile {:.1} ms",
            lang.name(),
            100.0 * n as f64 / steps.max(1) as f64,
            med.as_secs_f64() * 1e3,
            p90.as_secs_f64() * 1e3
        );
        let not = steps - n;
        if not > 0 {
            println!(
                "      of the {not} not written, {} are steps of shaders whose input it does not write either",
                input_too.get(lang.name()).copied().unwrap_or(0)
            );
        }
    }
    let glsl = written.get("glsl").copied().unwrap_or(0);
    println!(
        "glslangValidator compiles {compiled}/{glsl} of the GLSL written ({:.1} %)",
        100.0 * compiled as f64 / glsl.max(1) as f64
    );
    println!(
        "      of the {} not compiled, {not_compiled_input_too} are steps of shaders whose input's GLSL does not compile either",
        glsl - compiled
    );
    let mut by_count: Vec<_> = reasons.into_iter().collect();
    by_count.sort_by_key(|b| std::cmp::Reverse(b.1));
    for lang in &only {
        for ((l, why), n) in by_count
            .iter()
            .filter(|((l, _), _)| *l == lang.name())
            .take(6)
        {
            println!("  {l} not written ({n}): {why}");
        }
    }
    for f in &glslang_failures {
        println!("  glslang: {f}");
    }
}
