//! Benchmark (not a test): load, round-trip and write a large generated module, and compare
//! `shaderstep run --preset roundtrip` with `spirv-opt in.spv -o out.spv` (parse and write, no
//! passes) on the same file, both as whole processes. Prints figures; never fails for speed.
//!
//! cargo bench --bench roundtrip [-- FUNCTIONS]

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use shaderstep::ir::spirv::{asm, read, write};
use shaderstep::pipeline::Pipeline;

mod common;
use common::large_module_text;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

fn which(tool: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|p| p.join(tool))
        .find(|p| p.is_file())
}

fn main() {
    let functions: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(400);
    let text = large_module_text(functions);
    let words = asm::assemble(&text).expect("generated module assembles");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let module = read::read_words(&words).unwrap();
    println!(
        "module: {functions} functions, {} instructions, {:.2} MB",
        module.inst_count(),
        bytes.len() as f64 / 1e6
    );

    let runs = 15;
    let t_asm = time(5, || asm::assemble(&text).unwrap());
    let t_load = time(runs, || read::read_bytes(&bytes).unwrap());
    // The loader ours is measured against: rspirv's data representation, nothing more.
    let t_rspirv = time(runs, || rspirv::dr::load_bytes(&bytes).unwrap());
    let t_write = time(runs, || write::write_words(&module));
    let pipeline = Pipeline::preset("roundtrip").unwrap();
    let input = Arc::new(words.clone());
    let t_pipe = time(runs, || pipeline.run(input.clone()));
    println!("assemble text       {:>8.2} ms", t_asm.as_secs_f64() * 1e3);
    println!(
        "load (read)         {:>8.2} ms  {:>7.1} MB/s",
        t_load.as_secs_f64() * 1e3,
        mbps(bytes.len(), t_load)
    );
    println!(
        "rspirv dr loader    {:>8.2} ms  {:>7.1} MB/s  (words to rspirv's module only)",
        t_rspirv.as_secs_f64() * 1e3,
        mbps(bytes.len(), t_rspirv)
    );
    println!(
        "write               {:>8.2} ms  {:>7.1} MB/s",
        t_write.as_secs_f64() * 1e3,
        mbps(bytes.len(), t_write)
    );
    println!(
        "roundtrip pipeline  {:>8.2} ms  {:>7.1} MB/s  (lower, verify, lift; in-process)",
        t_pipe.as_secs_f64() * 1e3,
        mbps(bytes.len(), t_pipe)
    );

    let dir = std::env::temp_dir().join(format!("shaderstep-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input_path = dir.join("large.spv");
    std::fs::write(&input_path, &bytes).unwrap();
    let ours_out = dir.join("ours.spv");
    let exe = env!("CARGO_BIN_EXE_shaderstep");
    let t_ours = time(runs, || {
        let st = Command::new(exe)
            .args(["run", "--preset", "roundtrip"])
            .arg(&input_path)
            .arg("-o")
            .arg(&ours_out)
            .status()
            .unwrap();
        assert!(st.success());
    });
    println!(
        "shaderstep run --preset roundtrip (process)  {:>8.2} ms",
        t_ours.as_secs_f64() * 1e3
    );
    match which("spirv-opt") {
        Some(opt) => {
            let out = dir.join("opt.spv");
            let t_opt = time(runs, || {
                let st = Command::new(&opt)
                    .arg(&input_path)
                    .arg("-o")
                    .arg(&out)
                    .status()
                    .unwrap();
                assert!(st.success());
            });
            println!(
                "spirv-opt in.spv -o out.spv     (process)  {:>8.2} ms",
                t_opt.as_secs_f64() * 1e3
            );
            println!(
                "ratio shaderstep/spirv-opt: {:.2}  (below 1.0 means we are faster)",
                t_ours.as_secs_f64() / t_opt.as_secs_f64()
            );
        }
        None => println!("spirv-opt not installed (apt-get install -y spirv-tools): no ratio"),
    }
    if let Some(dis) = which("spirv-dis") {
        let t_dis = time(5, || {
            let st = Command::new(&dis)
                .arg(&input_path)
                .arg("-o")
                .arg(dir.join("dis.txt"))
                .status()
                .unwrap();
            assert!(st.success());
        });
        println!(
            "spirv-dis in.spv (process, decode and print)  {:>8.2} ms  {:>7.1} MB/s",
            t_dis.as_secs_f64() * 1e3,
            mbps(bytes.len(), t_dis)
        );
    }
    if let Some(val) = which("spirv-val") {
        let ok = Command::new(val).arg(&ours_out).status().unwrap().success();
        println!("our output validates with spirv-val: {ok}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
