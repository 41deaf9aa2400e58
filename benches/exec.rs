//! Benchmark (not a test): the interpreter's speed. Instructions executed per second on a
//! loop-heavy compute kernel and on a fragment shader that samples a texture in a loop, each
//! beside the driver (lavapipe, in this process) running the same words on the same inputs:
//! its compile and dispatch or draw, timed the same way. Prints figures; never fails for speed.
//! (The median `exec` over the corpus: `scripts/exec_sweep.py`.)
//!
//! cargo bench --bench exec
//!
//! With directories of shaders (`cargo bench --bench exec -- --values DIR…`), it also times
//! what the values column (`:exec`) waits for on each: the last step of `O` run for the
//! column (`step_values::run`), and prints the median and the 90th percentile.

use std::sync::Arc;
use std::time::{Duration, Instant};

use shaderstep::ir::exec::Options;
use shaderstep::pipeline::exec::{run_draw_step, run_step};
use shaderstep::pipeline::gpu::{Device, Gpu, Layout};
use shaderstep::pipeline::semantic::{driver_words, initial_bytes, GROUPS};
use shaderstep::pipeline::{input, Pipeline};

const KERNEL: &str = "#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { float data[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = data[i];
    uint h = i * 2654435761u;
    for (int k = 0; k < 400; k++) {
        x = x * 0.999 + float(h & 255u) * 0.001;
        h ^= h << 13; h ^= h >> 17; h ^= h << 5;
        if ((h & 3u) == 0u) { x = sqrt(abs(x)) + 0.5; }
    }
    data[i] = x;
}
";

const SAMPLING: &str = "#version 450
layout(location = 0) in vec2 uv;
layout(binding = 0) uniform texture2D image;
layout(binding = 1) uniform sampler nearest;
layout(location = 0) out vec4 colour;
void main() {
    vec4 acc = vec4(0.0);
    for (int k = 0; k < 24; k++) {
        vec2 p = uv + vec2(float(k) * 0.031, float(k) * 0.017);
        acc += texture(sampler2D(image, nearest), p) * (1.0 / float(k + 1)) + vec4(dFdx(p.x), dFdy(p.y), 0.0, 0.0);
    }
    colour = acc;
}
";

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn step_of(name: &str, text: &str) -> shaderstep::ir::Module {
    let dir = std::env::temp_dir().join(format!("shaderstep-bench-exec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let words = input::load(&path).unwrap_or_else(|e| panic!("{e}")).words;
    let _ = std::fs::remove_dir_all(&dir);
    let run = Pipeline::from_names(&["lower", "lift"])
        .unwrap()
        .run(Arc::new(words));
    shaderstep::ir::Module::clone(run.final_module().expect("the shader compiles"))
}

fn report(what: &str, executed: u64, interp: Duration, driver: Option<Duration>) {
    let rate = executed as f64 / interp.as_secs_f64();
    print!(
        "{what}: {executed} instructions in {:.1} ms: {:.1} M instructions/s",
        interp.as_secs_f64() * 1e3,
        rate / 1e6
    );
    match driver {
        Some(d) => println!(
            "; lavapipe (compile and run) {:.1} ms: interpreter/driver {:.2}x",
            d.as_secs_f64() * 1e3,
            interp.as_secs_f64() / d.as_secs_f64()
        ),
        None => println!("; lavapipe unavailable"),
    }
}

/// The values column's wait, over the shaders of `dirs`: the last step of `O` run as `:exec`
/// runs it. Shaders that do not load, whose pipeline fails or that the interpreter refuses
/// are counted apart.
fn values_column(dirs: &[String]) {
    let pipeline = Pipeline::preset("O").expect("the O preset");
    let mut times = Vec::new();
    let (mut refused, mut broken) = (0, 0);
    for dir in dirs {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "spv"))
            .collect();
        paths.sort();
        for path in paths {
            let Ok(loaded) = input::load(&path) else {
                broken += 1;
                continue;
            };
            let run = pipeline.run(Arc::new(loaded.words));
            let Some(last) = run.final_module() else {
                broken += 1;
                continue;
            };
            let t = Instant::now();
            match shaderstep::pipeline::step_values::run(last, None) {
                Ok(_) => times.push((t.elapsed(), path)),
                Err(_) => refused += 1,
            }
        }
    }
    if times.is_empty() {
        println!("values column: nothing ran");
        return;
    }
    times.sort();
    let at = |q: f64| {
        times[((times.len() - 1) as f64 * q) as usize]
            .0
            .as_secs_f64()
            * 1e3
    };
    println!(
        "values column (:exec) on the last step of O: {} shaders, median {:.1} ms, 90th percentile {:.1} ms, slowest {:.0} ms ({refused} refused by the interpreter, {broken} not loaded or failed)",
        times.len(),
        at(0.5),
        at(0.9),
        at(1.0)
    );
    for (t, path) in times.iter().rev().take(3) {
        println!("  {:.0} ms: {}", t.as_secs_f64() * 1e3, path.display());
    }
}

fn main() {
    // `cargo bench` adds `--bench` after the arguments given.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let Some(k) = args.iter().position(|a| a == "--values") {
        values_column(&args[k + 1..]);
        return;
    }
    let options = Options::default();
    let gpu = Gpu::lavapipe().ok();
    let kernel = step_of("kernel.comp", KERNEL);
    let mut times = Vec::new();
    let mut executed = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let ran = run_step(&kernel, None, None, &options).unwrap();
        times.push(t.elapsed());
        executed = ran.execution.executed;
    }
    let driver = gpu.as_ref().map(|gpu| {
        let words = driver_words(&kernel).unwrap();
        let layout = Layout::of_entry(&words, None).unwrap();
        let buffers: Vec<Vec<u8>> = layout
            .slots()
            .iter()
            .map(|(b, e)| initial_bytes(b, *e, None))
            .collect();
        median(
            (0..5)
                .map(|_| {
                    let t = Instant::now();
                    gpu.run_buffers(&words, &layout, GROUPS, &buffers, Duration::from_secs(20))
                        .unwrap();
                    t.elapsed()
                })
                .collect(),
        )
    });
    report(
        "loop-heavy compute kernel (2 x 64 invocations)",
        executed,
        median(times),
        driver,
    );

    let fragment = step_of("sampling.frag", SAMPLING);
    let mut times = Vec::new();
    let mut ran = None;
    for _ in 0..5 {
        let t = Instant::now();
        let r = run_draw_step(&fragment, None, &options).unwrap();
        times.push(t.elapsed());
        ran = Some(r);
    }
    let ran = ran.unwrap();
    let executed = ran.execution.vertex.executed + ran.execution.fragment.executed;
    let driver = gpu.as_ref().map(|gpu| {
        median(
            (0..5)
                .map(|_| {
                    let t = Instant::now();
                    ran.setup
                        .draw(
                            gpu,
                            (&ran.vertex.1, &ran.vertex.2),
                            (&ran.fragment.1, &ran.fragment.2),
                            Duration::from_secs(20),
                        )
                        .unwrap();
                    t.elapsed()
                })
                .collect(),
        )
    });
    report(
        "fragment shader sampling in a loop (24x24, 8 triangles)",
        executed,
        median(times),
        driver,
    );
}
