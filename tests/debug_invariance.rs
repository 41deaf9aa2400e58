//! `-g` invariance, as LLVM checks it: a shader compiled with debug info (`glslangValidator -g`,
//! `OpLine`; `-gVS`, NonSemantic.Shader.DebugInfo.100) and without gives the same code under
//! every preset once debug info is stripped — debug info never changes what the optimizer does.
//!
//! The outputs are compared after normalisation: types, constants and global variables sorted
//! by their structure (a debug build declares some of them earlier, for its own records), then
//! every id renumbered in order of appearance.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use shaderstep::ir::spirv::{read, write};
use shaderstep::ir::{Id, Inst, Module};
use shaderstep::pipeline::{registry, Pipeline};

const PRESETS: [&str; 4] = ["O", "memory", "default", "size"];

/// The preset's passes, then debug info stripped and what only it used removed.
fn stripped(preset: &str) -> Pipeline {
    let mut names: Vec<&str> = registry::preset(preset)
        .unwrap_or_else(|| panic!("no preset {preset}"))
        .iter()
        .copied()
        .filter(|n| !matches!(*n, "verify" | "lift"))
        .collect();
    names.extend(["strip-debug", "dce", "lift"]);
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
    memo.insert(id, (0, format!("{:?}", g.op)));
    let mut depth = 0;
    let mut parts = Vec::new();
    for a in g.ty.iter().chain(&g.args) {
        let (d, k) = key(m, *a, memo);
        depth = depth.max(d + 1);
        parts.push(k);
    }
    let k = (
        depth,
        format!("{:?} {:?} [{}]", g.op, g.lits(), parts.join(", ")),
    );
    memo.insert(id, k.clone());
    k
}

fn normalized(words: &[u32]) -> Vec<u32> {
    let mut m = read::read_words(words).expect("the output reads");
    let mut memo = HashMap::new();
    let mut globals: Vec<(usize, String, Inst)> = m
        .globals()
        .iter()
        .map(|g| {
            let (d, k) = g
                .result
                .map_or((0, String::new()), |r| key(&m, r, &mut memo));
            (d, k, g.clone())
        })
        .collect();
    globals.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    *m.globals_mut() = globals.into_iter().map(|(_, _, g)| g).collect();
    m.reindex();
    let mut order: HashMap<Id, Id> = HashMap::new();
    m.for_each_inst(|i| {
        for id in i.result.iter().chain(&i.ty).chain(&i.args) {
            let next = order.len() as Id + 1;
            order.entry(*id).or_insert(next);
        }
    });
    m.remap_ids(|id| order.get(&id).copied().unwrap_or(id));
    m.bound = order.len() as u32 + 1;
    m.header.generator = 0;
    write::write_words(&m)
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
    }
}
