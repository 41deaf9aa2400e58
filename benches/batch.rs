//! Benchmark (not a test): batch throughput. A tree of modules (the test corpus's SPIR-V
//! assembly and WGSL shaders, compiled once and copied into many directories) goes through
//! `shaderstep run DIR --preset O -o OUT` (one process, every core) and through `spirv-opt -O`
//! one process per module, as a build would run it. Prints modules per second of each and the
//! ratio of their wall times; never fails for speed.
//!
//! cargo bench --bench batch [-- COPIES]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn which(tool: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|p| p.join(tool))
        .find(|p| p.is_file())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let copies: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(40);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let mut modules: Vec<(String, Vec<u8>)> = Vec::new();
    for sub in ["spvasm", "wgsl"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(sub))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for f in files {
            if let Ok(input) = shaderstep::pipeline::input::load(&f) {
                let name = f.file_stem().unwrap().to_string_lossy().into_owned();
                let bytes = input.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                modules.push((name, bytes));
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("shaderstep-batch-{}", std::process::id()));
    let tree = dir.join("tree");
    let mut paths = Vec::new();
    for k in 0..copies {
        let sub = tree.join(format!("copy{k}"));
        std::fs::create_dir_all(&sub).unwrap();
        for (name, bytes) in &modules {
            let p = sub.join(format!("{name}.spv"));
            std::fs::write(&p, bytes).unwrap();
            paths.push(p);
        }
    }
    let n = paths.len();
    println!(
        "tree: {n} modules ({} shaders of tests/shaders, {copies} copies)",
        modules.len()
    );
    let exe = env!("CARGO_BIN_EXE_shaderstep");
    let out = dir.join("out");
    let ours = median(
        (0..3)
            .map(|_| {
                let t = Instant::now();
                let st = Command::new(exe)
                    .arg("run")
                    .arg(&tree)
                    .args(["--preset", "O", "--force", "-o"])
                    .arg(&out)
                    .stderr(std::process::Stdio::null())
                    .status()
                    .unwrap();
                let took = t.elapsed();
                println!(
                    "  batch run: {:.2} s, exit {:?}",
                    took.as_secs_f64(),
                    st.code()
                );
                took
            })
            .collect(),
    );
    println!(
        "shaderstep run DIR --preset O -o OUT (one process): {:.2} s, {:.0} modules/s",
        ours.as_secs_f64(),
        n as f64 / ours.as_secs_f64()
    );
    match which("spirv-opt") {
        Some(opt) => {
            let out = dir.join("opt.spv");
            let t = Instant::now();
            let mut failed = 0;
            for p in &paths {
                let ok = Command::new(&opt)
                    .arg("-O")
                    .arg(p)
                    .arg("-o")
                    .arg(&out)
                    .stderr(std::process::Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success());
                failed += usize::from(!ok);
            }
            let theirs = t.elapsed();
            println!(
                "spirv-opt -O, one process per module: {:.2} s, {:.0} modules/s ({failed} failed)",
                theirs.as_secs_f64(),
                n as f64 / theirs.as_secs_f64()
            );
            println!(
                "wall time ours / spirv-opt: {:.3}",
                ours.as_secs_f64() / theirs.as_secs_f64()
            );
        }
        None => println!("spirv-opt not installed (apt-get install -y spirv-tools): no ratio"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
