//! `-g` invariance, as LLVM checks it: a shader compiled with debug info (`glslangValidator -g`,
//! `OpLine`; `-gVS`, NonSemantic.Shader.DebugInfo.100) and without gives the same code under
//! every preset once debug info is stripped — debug info never changes what the optimizer does.
//!
//! `every_step_is_the_same_with_and_without_debug_info` holds every step to it, for code and
//! for cost: the same code once debug info is taken away, the same register pressure peaks and
//! the same instruction mix. No dead code is removed before comparing, so code debug info alone
//! kept alive shows.
//!
//! Modules are compared after normalisation: debug info stripped (`strip-debug`) with the types,
//! constants, undefs and strings nothing else references, types, constants and global variables
//! sorted by their structure (a debug build declares some of them earlier, for its own
//! records), then every id renumbered in order of appearance.

mod common;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use shaderstep::ir::spirv::{read, write};
use shaderstep::ir::{Id, Inst, Module};
use shaderstep::pipeline::passes::strip_debug::strip_debug;
use shaderstep::pipeline::{registry, Pipeline};
use spirv::Op;

const PRESETS: [&str; 4] = ["O", "memory", "default", "size"];

/// The preset's passes, then debug info stripped — nothing else: what debug info alone used
/// is dropped by [`normalized`], so a pass that keeps code alive for debug info shows.
fn stripped(preset: &str) -> Pipeline {
    let mut names: Vec<&str> = registry::preset(preset)
        .unwrap_or_else(|| panic!("no preset {preset}"))
        .iter()
        .copied()
        .filter(|n| !matches!(*n, "verify" | "lift"))
        .collect();
    names.extend(["strip-debug", "lift"]);
    Pipeline::from_names(&names).unwrap()
}

/// A global's structure: its opcode, type, literals and the structure of its operands.
fn key(m: &Module, id: Id, memo: &mut HashMap<Id, (usize, String)>) -> (usize, String) {
    if let Some(k) = memo.get(&id) {
        return k.clone();
    }
    let Some(g) = m.global(id).cloned() else {
        return (0, String::from("?"));
    };
    // Cycles (forward pointers) end here.
    memo.insert(id, (0, format!("{:?}", g.op())));
    let mut depth = 0;
    let mut parts = Vec::new();
    for a in g.ty().iter().chain(g.args()) {
        let (d, k) = key(m, *a, memo);
        depth = depth.max(d + 1);
        parts.push(k);
    }
    let k = (
        depth,
        format!("{:?} {:?} [{}]", g.op(), g.lits(), parts.join(", ")),
    );
    memo.insert(id, k.clone());
    k
}

/// Whether a global is one debug info may be the only user of: a type, a constant, an undef
/// or a string (variables and spec constants are code whether used or not).
fn droppable(op: Op) -> bool {
    matches!(
        op,
        Op::Undef
            | Op::String
            | Op::ConstantTrue
            | Op::ConstantFalse
            | Op::Constant
            | Op::ConstantComposite
            | Op::ConstantNull
            | Op::ConstantSampler
    ) || format!("{op:?}").starts_with("Type")
}

/// Drops the types, constants, undefs and strings nothing references (once debug info is
/// stripped, the ones only it used), until none is left.
fn drop_unreferenced(m: &mut Module) {
    loop {
        let mut used: HashSet<Id> = HashSet::new();
        m.for_each_inst(|i| {
            used.extend(i.ty().iter().chain(i.args()).copied());
        });
        let before = m.globals().len();
        shaderstep::ir::rewrite::retain_globals(m, |g| {
            !(droppable(g.op()) && g.result().is_some_and(|r| !used.contains(&r)))
        });
        if m.globals().len() == before {
            break;
        }
        m.reindex();
    }
}

/// `m` with debug info taken away (`strip-debug`, then what only debug info referenced), its
/// types, constants and global variables sorted by their structure and every id renumbered in
/// order of appearance.
fn normalized_module(mut m: Module) -> Module {
    strip_debug(&mut m);
    drop_unreferenced(&mut m);
    let mut memo = HashMap::new();
    let mut globals: Vec<(usize, String, Inst)> = m
        .globals()
        .iter()
        .map(|g| {
            let (d, k) = g
                .result()
                .map_or((0, String::new()), |r| key(&m, r, &mut memo));
            (d, k, g.clone())
        })
        .collect();
    globals.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    shaderstep::ir::rewrite::reorder_globals(
        &mut m,
        globals.into_iter().map(|(_, _, g)| g).collect(),
    );
    m.reindex();
    let mut order: HashMap<Id, Id> = HashMap::new();
    m.for_each_inst(|i| {
        for id in i.result().iter().chain(&i.ty()).chain(i.args()) {
            let next = order.len() as Id + 1;
            order.entry(*id).or_insert(next);
        }
    });
    shaderstep::ir::rewrite::remap_ids(&mut m, |id| order.get(&id).copied().unwrap_or(id));
    m.bound = order.len() as u32 + 1;
    m.header.generator = 0;
    m
}

fn normalized(words: &[u32]) -> Vec<u32> {
    let m = read::read_words(words).expect("the output reads");
    write::write_words(&normalized_module(m))
}

fn builds(path: &Path) -> Vec<(&'static str, Vec<u32>)> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let source = std::fs::read(path).unwrap();
    [
        ("plain", &[][..]),
        ("-g", &["-g"][..]),
        ("-gVS", &["-gVS"][..]),
    ]
    .into_iter()
    .map(|(label, flags)| (label, common::glslang_words(&name, &source, flags)))
    .collect()
}

#[test]
fn debug_info_does_not_change_the_code() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/glslang");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let pipelines: Vec<(&str, Pipeline)> = PRESETS.iter().map(|p| (*p, stripped(p))).collect();
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in &paths {
        let builds = builds(path);
        for (preset, pipeline) in &pipelines {
            let outs: Vec<(&str, Vec<u32>)> = builds
                .iter()
                .map(|(label, words)| {
                    let run = pipeline.run(Arc::new(words.clone()));
                    let out = run.output_words().unwrap_or_else(|| {
                        panic!("{}: {preset} fails on the {label} build", path.display())
                    });
                    (*label, normalized(&out))
                })
                .collect();
            for (label, out) in &outs[1..] {
                compared += 1;
                if *out != outs[0].1 {
                    failures.push(format!(
                        "{}: under {preset}, the {label} build gives other code than the plain one",
                        path.display()
                    ));
                }
            }
        }
    }
    eprintln!("{compared} debug builds compared with their plain build");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same measure over a directory of `g.NAME` / `gVS.NAME` pairs (the `-g` and `-gVS` builds
/// of one shader, as `../shared/corpus-debug/valid/*/` holds them), for the figures a change
/// quotes; ignored by default, as `cargo test` reads nothing outside the project:
/// `SHADERSTEP_DEBUG_PAIRS=../shared/corpus-debug/valid cargo test --release --test
/// debug_invariance -- --ignored --nocapture`.
#[test]
#[ignore]
fn debug_build_pairs_give_the_same_code() {
    let Some(root) = std::env::var_os("SHADERSTEP_DEBUG_PAIRS") else {
        panic!("set SHADERSTEP_DEBUG_PAIRS to a directory of g.NAME / gVS.NAME pairs");
    };
    let mut pairs = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(root)];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(rest) = name.strip_prefix("g.") {
                let other = p.with_file_name(format!("gVS.{rest}"));
                if other.exists() {
                    pairs.push((p.clone(), other));
                }
            }
        }
    }
    pairs.sort();
    let mut all_same = true;
    for preset in PRESETS {
        let pipeline = stripped(preset);
        let (mut same, mut differ) = (0, Vec::new());
        for (g, gvs) in &pairs {
            let out = |p: &Path| {
                let words = common::spv_words(p);
                pipeline
                    .run(Arc::new(words))
                    .output_words()
                    .map(|w| normalized(&w))
            };
            match (out(g), out(gvs)) {
                (Some(a), Some(b)) if a == b => same += 1,
                _ => differ.push(g.file_name().unwrap().to_string_lossy().into_owned()),
            }
        }
        eprintln!(
            "{preset}: {same} of {} pairs give the same code; differ: {:?}",
            pairs.len(),
            &differ[..differ.len().min(8)]
        );
        all_same &= differ.is_empty();
    }
    assert!(all_same, "some pairs give other code (see above)");
}

/// A compute shader that builds a vector only to print it (`GL_EXT_debug_printf`): the print is
/// an effect, so what it prints is kept whatever the build.
const PRINTF: &str = r#"#version 450
#extension GL_EXT_debug_printf : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0, std430) buffer Data { float x[]; } data;

float scaled(float v, int k) {
    if (k < 0) {
        return v;
    }
    return v * float(k);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    float a = data.x[i];
    vec4 shown = vec4(a, scaled(a, int(i)), a + 1.0, 2.0);
    debugPrintfEXT("x[%u] = %v4f", i, shown);
    data.x[i] = a * 0.5;
}
"#;

/// The test shaders compared step by step: loops and calls, structs and arrays, vectors,
/// early returns.
const STEP_SHADERS: [&str; 4] = [
    "loops.comp",
    "opt_structs.comp",
    "opt_vectors.comp",
    "opt_early_return.comp",
];

/// What one step is, debug info aside: its code with debug info taken away (no dead code
/// removed), the pressure peaks (the module's, each function's and each function's over its
/// callees, in module order) and the instruction mix.
fn step_view(step: &shaderstep::pipeline::Step) -> (String, String, String) {
    let code = shaderstep::ir::print::print(&normalized_module((*step.module).clone()));
    let cost = step.cost();
    let p = &cost.pressure;
    let functions: Vec<(u32, u32)> = p
        .functions
        .iter()
        .map(|(id, f)| (f.max, p.total.get(id).copied().unwrap_or(f.max)))
        .collect();
    let pressure = format!(
        "module max {}, functions (max, with callees) {functions:?}",
        p.max
    );
    let mix = format!("{:?}", cost.mix.0);
    (code, pressure, mix)
}

/// The first line where two texts differ, for a message.
fn first_difference(a: &str, b: &str) -> String {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let k = la.iter().zip(&lb).take_while(|(x, y)| x == y).count();
    format!(
        "line {}: {:?} vs {:?}",
        k + 1,
        la.get(k).copied().unwrap_or("<end>"),
        lb.get(k).copied().unwrap_or("<end>")
    )
}

/// Whether the `DebugPrintf` calls of `m` print only defined values: none of their id operands
/// (after the set and the format string) is an `OpUndef`.
fn printf_operands_defined(m: &Module) -> Result<usize, String> {
    let set = m
        .preamble()
        .iter()
        .find(|i| {
            i.op() == Op::ExtInstImport
                && matches!(i.lits().first(), Some(rspirv::dr::Operand::LiteralString(s)) if s == "NonSemantic.DebugPrintf")
        })
        .and_then(|i| i.result())
        .ok_or("no NonSemantic.DebugPrintf import left")?;
    let mut found = 0;
    for f in m.functions() {
        for i in f.body() {
            if i.op() != Op::ExtInst || i.args().first() != Some(&set) {
                continue;
            }
            found += 1;
            for a in &i.args()[1..] {
                if m.global(*a).is_some_and(|g| g.op() == Op::Undef) {
                    return Err(format!("DebugPrintf prints an OpUndef (%{a})"));
                }
            }
        }
    }
    Ok(found)
}

/// `-g` invariance at every step, for code and for cost: the plain, `-g` and `-gVS` builds of
/// each shader go through every preset (but `link`) unmodified, and each step gives the same
/// code once debug info is taken away (no dead code removed: what only debug info kept alive
/// shows), the same register pressure peaks and the same instruction mix.
#[test]
fn every_step_is_the_same_with_and_without_debug_info() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/glslang");
    let mut sources: Vec<(String, Vec<u8>)> = STEP_SHADERS
        .iter()
        .map(|n| (n.to_string(), std::fs::read(dir.join(n)).unwrap()))
        .collect();
    sources.push(("printf.comp".into(), PRINTF.as_bytes().to_vec()));
    let flags: [(&str, &[&str]); 3] = [("plain", &[]), ("-g", &["-g"]), ("-gVS", &["-gVS"])];
    let mut failures = Vec::new();
    let mut steps_compared = 0;
    for (name, source) in &sources {
        let builds: Vec<(&str, Vec<u32>)> = flags
            .iter()
            .map(|(label, f)| (*label, common::glslang_words(name, source, f)))
            .collect();
        for preset in registry::PRESETS.iter().filter(|p| p.name != "link") {
            let pipeline = Pipeline::preset(preset.name).unwrap();
            let runs: Vec<(&str, shaderstep::pipeline::Run)> = builds
                .iter()
                .map(|(label, words)| (*label, pipeline.run(Arc::new(words.clone()))))
                .collect();
            let (_, plain) = &runs[0];
            let plain_steps: Vec<&str> = plain.steps.iter().map(|s| s.pass).collect();
            let plain_views: Vec<_> = plain.steps.iter().map(step_view).collect();
            if name == "printf.comp" && matches!(preset.name, "O" | "O-size" | "size") {
                for (label, run) in &runs {
                    let at = format!("{name} under {}, {label} build", preset.name);
                    match run.final_module().map(|m| printf_operands_defined(m)) {
                        Some(Ok(n)) if n > 0 => {}
                        Some(Ok(_)) => failures.push(format!("{at}: no DebugPrintf left")),
                        Some(Err(e)) => failures.push(format!("{at}: {e}")),
                        None => failures.push(format!("{at}: no output")),
                    }
                }
            }
            for (label, run) in &runs[1..] {
                let at = format!("{name} under {}, {label} build", preset.name);
                if run.failed != plain.failed {
                    failures.push(format!(
                        "{at}: fails at {:?}, the plain build at {:?}",
                        run.failed, plain.failed
                    ));
                }
                let steps: Vec<&str> = run.steps.iter().map(|s| s.pass).collect();
                if steps != plain_steps {
                    failures.push(format!("{at}: steps {steps:?}, plain {plain_steps:?}"));
                    continue;
                }
                for (k, step) in run.steps.iter().enumerate() {
                    steps_compared += 1;
                    let (code, pressure, mix) = step_view(step);
                    let (pcode, ppressure, pmix) = &plain_views[k];
                    let at = format!("{at}, step {k} ({})", step.pass);
                    if code != *pcode {
                        failures.push(format!(
                            "{at}: other code, {}",
                            first_difference(pcode, &code)
                        ));
                    }
                    if pressure != *ppressure {
                        failures.push(format!("{at}: pressure {pressure}, plain {ppressure}"));
                    }
                    if mix != *pmix {
                        failures.push(format!("{at}: mix {mix}, plain {pmix}"));
                    }
                }
            }
        }
    }
    eprintln!("{steps_compared} steps of debug builds compared with their plain build");
    assert!(steps_compared > 0);
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
