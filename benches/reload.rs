//! Benchmark (not a test): reload latency, from an editor-style save (a temporary file renamed
//! over the shader) to the drawn frame that shows the new run. The real path: the notify
//! watcher on the directory with its debounce, the worker thread running the pipeline, the
//! views drawing into a test backend. Prints median and worst over N saves for a small WGSL
//! shader and a large SPIR-V module.
//!
//! cargo bench --bench reload [-- SAVES [FUNCTIONS]]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use shaderstep::app::event_loop::{App, AppEvent, Inputs};
use shaderstep::app::watch::{watch, DEBOUNCE};
use shaderstep::pipeline::Pipeline;

mod common;
use common::large_module_text;

fn save(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Saves `versions` in turn `saves` times; returns the latency of each save and the pipeline
/// time of the last run.
fn measure(
    dir: &Path,
    name: &str,
    versions: &[Vec<u8>],
    saves: usize,
) -> (Vec<Duration>, Duration) {
    let path = dir.join(name);
    std::fs::write(&path, &versions[0]).unwrap();
    let watcher = watch(&[dir.to_path_buf()], &[]).unwrap();
    let pipeline = Pipeline::preset(shaderstep::app::DEFAULT_PRESET).unwrap();
    let mut app = App::open(
        Inputs {
            roots: vec![dir.to_path_buf()],
            ..Inputs::default()
        },
        pipeline,
        (160, 50),
        true,
    );
    app.settle();
    let mut terminal = Terminal::new(TestBackend::new(160, 50)).unwrap();
    app.draw(&mut terminal).unwrap();
    let doc = app
        .state
        .docs
        .iter()
        .position(|d| d.abs.ends_with(name))
        .expect("the shader is listed");
    // Let the watcher see the initial write and go quiet.
    std::thread::sleep(DEBOUNCE * 4);
    while watcher.changes.try_recv().is_ok() {}
    let mut latencies = Vec::with_capacity(saves);
    for k in 1..=saves {
        let generation = app.state.docs[doc].generation;
        save(&path, &versions[k % versions.len()]);
        let start = Instant::now();
        // The terminal loop's work, without waiting on key input.
        loop {
            if let Ok(paths) = watcher.changes.recv_timeout(Duration::from_millis(1)) {
                app.handle(AppEvent::FilesChanged(paths));
            }
            app.poll_jobs();
            if app.state.docs[doc].generation > generation && !app.busy() {
                app.draw(&mut terminal).unwrap();
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "save {k} of {name} was not reloaded within 20 s"
            );
        }
        latencies.push(start.elapsed());
        // Quiet time between saves, as between a person's saves.
        std::thread::sleep(DEBOUNCE * 3);
        while let Ok(paths) = watcher.changes.try_recv() {
            app.handle(AppEvent::FilesChanged(paths));
        }
        app.settle();
    }
    let run_time = app.state.docs[doc]
        .run
        .as_ref()
        .map_or(Duration::ZERO, |r| r.total_time());
    (latencies, run_time)
}

fn report(label: &str, mut lat: Vec<Duration>, run_time: Duration) {
    lat.sort();
    let median = lat[lat.len() / 2];
    let worst = *lat.last().unwrap();
    let best = lat[0];
    println!(
        "{label:<44} saves {:>3}  median {:>7.1} ms  worst {:>7.1} ms  best {:>7.1} ms  (pipeline {:.1} ms, debounce {} ms)",
        lat.len(),
        ms(median),
        ms(worst),
        ms(best),
        ms(run_time),
        DEBOUNCE.as_millis()
    );
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let saves = args.first().copied().unwrap_or(50);
    let functions = args.get(1).copied().unwrap_or(400);
    let dir: PathBuf =
        std::env::temp_dir().join(format!("shaderstep-reload-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    let small = |k: u32| {
        format!(
            "@group(0) @binding(0) var<uniform> tint: vec4<f32>;\n\n\
             fn shade(c: vec4<f32>) -> vec4<f32> {{\n    return c * tint + vec4<f32>(0.{k});\n}}\n\n\
             @fragment\nfn main(@location(0) color: vec4<f32>) -> @location(0) vec4<f32> {{\n    \
             return shade(color);\n}}\n"
        )
        .into_bytes()
    };
    let (lat, run) = measure(&dir, "small.wgsl", &[small(1), small(2)], saves);
    report("small WGSL fragment shader (10 lines)", lat, run);

    // Two versions of a large module that differ in their generator word: the same work.
    let words = shaderstep::ir::spirv::asm::assemble(&large_module_text(functions)).unwrap();
    let bytes = |generator: u32| {
        let mut w = words.clone();
        w[2] = generator;
        w.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()
    };
    let label = format!(
        "large SPIR-V module ({} instructions)",
        shaderstep::ir::spirv::read::read_words(&words)
            .map(|m| m.inst_count())
            .unwrap_or(0)
    );
    let (lat, run) = measure(&dir, "large.spv", &[bytes(1), bytes(2)], saves);
    report(&label, lat, run);
    let _ = std::fs::remove_dir_all(&dir);
}
