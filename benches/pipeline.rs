//! Benchmark (not a test): the compiler core's presets on a large generated module and on the
//! bundled example — time per pass, in process — and `shaderstep run` with the `default`,
//! `memory` and `O` presets against `spirv-opt -O` on the same files as whole processes, with
//! the size of what each writes. Prints figures; never fails for speed.
//!
//! cargo bench --bench pipeline [-- FUNCTIONS]

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use shaderstep::ir::spirv::{asm, read};
use shaderstep::pipeline::{input, Pipeline};

mod common;
use common::large_module_text;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn which(tool: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|p| p.join(tool))
        .find(|p| p.is_file())
}

fn instructions(path: &std::path::Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    read::read_bytes(&bytes).map_or(0, |m| m.inst_count())
}

fn bench(name: &str, words: &[u32], runs: usize) {
    let module = read::read_words(words).unwrap();
    println!(
        "\n== {name}: {} instructions, {:.2} MB",
        module.inst_count(),
        words.len() as f64 * 4.0 / 1e6
    );
    let input = Arc::new(words.to_vec());
    for preset in ["roundtrip", "types", "qptr", "default", "memory", "O"] {
        let pipeline = Pipeline::preset(preset).unwrap();
        let mut totals = Vec::new();
        let mut per_pass: Vec<Vec<Duration>> = Vec::new();
        let mut last = None;
        for _ in 0..runs {
            let t = Instant::now();
            let run = pipeline.run(input.clone());
            totals.push(t.elapsed());
            for (k, s) in run.steps.iter().enumerate() {
                if per_pass.len() <= k {
                    per_pass.push(Vec::new());
                }
                per_pass[k].push(s.duration);
            }
            last = Some(run);
        }
        let run = last.unwrap();
        assert!(run.ok(), "{preset} failed on {name}");
        let steps: Vec<String> = run
            .steps
            .iter()
            .zip(per_pass)
            .map(|(s, d)| format!("{} {:.1}", s.pass, ms(median(d))))
            .collect();
        println!(
            "{preset:<10} {:>8.2} ms  -> {} instructions   [{}]",
            ms(median(totals)),
            run.final_module().unwrap().inst_count(),
            steps.join(", ")
        );
    }
}

fn main() {
    let functions: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(400);
    let large = asm::assemble(&large_module_text(functions)).expect("generated module assembles");
    let example = input::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/lighting.frag"),
    )
    .unwrap()
    .words;
    bench(&format!("generated, {functions} functions"), &large, 7);
    bench("assets/examples/lighting.frag", &example, 15);

    let dir = std::env::temp_dir().join(format!("shaderstep-pipeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = env!("CARGO_BIN_EXE_shaderstep");
    println!("\n== whole processes, median of 7: shaderstep run --preset P vs spirv-opt -O");
    for (name, words, preset) in [
        ("generated", &large, "default"),
        ("generated", &large, "memory"),
        ("generated", &large, "O"),
        ("lighting.frag", &example, "default"),
        ("lighting.frag", &example, "memory"),
        ("lighting.frag", &example, "O"),
    ] {
        let path = dir.join(format!("{name}.spv"));
        std::fs::write(
            &path,
            words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
        .unwrap();
        let ours = dir.join(format!("{name}.ours.spv"));
        let time = |cmd: &mut dyn FnMut() -> bool| {
            median(
                (0..7)
                    .map(|_| {
                        let t = Instant::now();
                        assert!(cmd());
                        t.elapsed()
                    })
                    .collect(),
            )
        };
        let t_ours = time(&mut || {
            Command::new(exe)
                .args(["run", "--preset", preset])
                .arg(&path)
                .arg("-o")
                .arg(&ours)
                .status()
                .unwrap()
                .success()
        });
        print!(
            "{name:<14} {preset:<8} input {} inst | ours {:>8.2} ms, {} inst",
            instructions(&path),
            ms(t_ours),
            instructions(&ours)
        );
        match which("spirv-opt") {
            Some(opt) => {
                let theirs = dir.join(format!("{name}.opt.spv"));
                let t_opt = time(&mut || {
                    Command::new(&opt)
                        .arg("-O")
                        .arg(&path)
                        .arg("-o")
                        .arg(&theirs)
                        .status()
                        .unwrap()
                        .success()
                });
                println!(
                    " | spirv-opt -O {:>8.2} ms, {} inst | time ratio {:.2}",
                    ms(t_opt),
                    instructions(&theirs),
                    t_ours.as_secs_f64() / t_opt.as_secs_f64()
                );
            }
            None => println!(" | spirv-opt not installed (apt-get install -y spirv-tools)"),
        }
        if let Some(val) = which("spirv-val") {
            let ok = Command::new(val).arg(&ours).status().unwrap().success();
            if !ok {
                println!("  our output does not validate!");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
