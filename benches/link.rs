//! Benchmark (not a test): pipeline linking. Link time for a pipeline of two large generated
//! stages (GLSL compiled in-process by naga), in both link orders, against running the same
//! stages unlinked; then, over the test pipelines, the share of interface variables and of
//! instructions the link steps (and the cleanup after them) removed. Prints figures; never
//! fails for speed.
//!
//! cargo bench --bench link [-- OUTPUTS]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use shaderstep::ir::Module;
use shaderstep::pipeline::link::stages::interface;
use shaderstep::pipeline::link::LinkOrder;
use shaderstep::pipeline::{input, Pipeline, Run, StageInput, StageLink};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A vertex stage with `outputs` outputs, each the end of a long chain of arithmetic, and a
/// fragment stage that reads every other one (the rest are dead) and gets one constant.
fn large_pair(outputs: usize) -> (String, String) {
    let mut vs = String::from("#version 450\nlayout(location = 0) in vec4 pos;\n");
    let mut fs = String::from("#version 450\n");
    for o in 0..outputs {
        vs += &format!("layout(location = {}) out vec4 o{o};\n", o + 1);
        if o % 2 == 0 {
            fs += &format!("layout(location = {}) in vec4 o{o};\n", o + 1);
        }
    }
    vs += "layout(location = 0) out vec4 k;\n";
    fs += "layout(location = 0) in vec4 k;\nlayout(location = 0) out vec4 color;\n";
    for f in 0..24 {
        fs += &format!(
            "vec4 g{f}(vec4 x) {{ vec4 y = x; for (int i = 0; i < 3; i++) {{ y = abs(fract(y * {}.25) - 0.5) + exp2(-y * y); y = mix(y, y.wxyz, 0.{f}5); }} return sqrt(y + 1.0) * x; }}\n",
            f + 2
        );
        vs += &format!(
            "vec4 f{f}(vec4 x) {{ vec4 y = x; for (int i = 0; i < 4; i++) {{ y = sin(y * {}.5) + cos(y.yzwx) * y; y = normalize(y + vec4({f}.0)); }} return y * y + x; }}\n",
            f + 1
        );
    }
    vs += "void main() {\n    vec4 a = pos;\n";
    for o in 0..outputs {
        vs += &format!(
            "    o{o} = f{}(a) + f{}(a.wzyx) * {o}.0;\n",
            o % 24,
            (o * 7 + 3) % 24
        );
        // Only the outputs the fragment stage reads feed the position.
        if o % 2 == 0 {
            vs += &format!("    a = a + o{o} * 0.01;\n");
        }
    }
    vs += "    k = vec4(0.25, 0.5, 0.75, 1.0);\n    gl_Position = a;\n}\n";
    fs += "void main() {\n    vec4 c = k;\n";
    for o in (0..outputs).step_by(2) {
        fs += &format!(
            "    c = c * 0.5 + g{}(o{o}) * g{}(c.yzwx);\n",
            o % 24,
            (o * 5 + 1) % 24
        );
    }
    fs += "    color = c;\n}\n";
    (vs, fs)
}

fn load(dir: &Path, name: &str, text: &str) -> StageInput {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let l = input::load(&path).unwrap_or_else(|e| panic!("{e}"));
    (Arc::new(l.words), Some((l.module, l.decode_time)))
}

fn from_file(path: &Path) -> StageInput {
    let l = input::load(path).unwrap_or_else(|e| panic!("{e}"));
    (Arc::new(l.words), Some((l.module, l.decode_time)))
}

fn locations(m: &Module) -> usize {
    [spirv::StorageClass::Input, spirv::StorageClass::Output]
        .into_iter()
        .flat_map(|c| interface(m, c))
        .filter(|v| {
            matches!(
                v.slot,
                shaderstep::pipeline::link::stages::Slot::Location(..)
            )
        })
        .count()
}

/// (interface variables, instructions) at the link-interface step and at the end.
fn before_after(runs: &[Run]) -> ((usize, usize), (usize, usize)) {
    let mut before = (0, 0);
    let mut after = (0, 0);
    for r in runs {
        let at = r
            .steps
            .iter()
            .find(|s| s.pass == "link-interface")
            .expect("a link-interface step");
        let end = r.steps.last().unwrap();
        before.0 += locations(&at.module);
        before.1 += at.module.inst_count();
        after.0 += locations(&end.module);
        after.1 += end.module.inst_count();
    }
    (before, after)
}

fn main() {
    let outputs: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(24);
    let dir = std::env::temp_dir().join(format!("shaderstep-link-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pipeline = Pipeline::preset("pipeline").unwrap();

    let (vs, fs) = large_pair(outputs);
    let stages = || vec![load(&dir, "big.vert", &vs), load(&dir, "big.frag", &fs)];
    let sizes: Vec<usize> = stages()
        .iter()
        .map(|s| s.1.as_ref().unwrap().0.inst_count())
        .collect();
    println!(
        "== two large stages: vertex {} instructions ({outputs} outputs), fragment {} instructions",
        sizes[0], sizes[1]
    );
    let runs = 7;
    let mut unlinked = Vec::new();
    for _ in 0..runs {
        let input = stages();
        let t = Instant::now();
        for (words, decoded) in input {
            pipeline.run_decoded(words, decoded);
        }
        unlinked.push(t.elapsed());
    }
    println!(
        "  unlinked (each stage on its own, preset pipeline): {:.1} ms",
        ms(median(unlinked.clone()))
    );
    for order in [LinkOrder::FsFirst, LinkOrder::VsFirst] {
        let link = StageLink {
            order,
            ..StageLink::default()
        };
        let mut totals = Vec::new();
        let mut steps: Vec<(&'static str, Vec<Duration>)> = Vec::new();
        let mut last = Vec::new();
        for _ in 0..runs {
            let input = stages();
            let t = Instant::now();
            let r = pipeline.run_stages(input, &link);
            totals.push(t.elapsed());
            for s in r[0].steps.iter().filter(|s| s.pass.starts_with("link-")) {
                match steps.iter_mut().find(|(n, _)| *n == s.pass) {
                    Some((_, v)) => v.push(s.duration),
                    None => steps.push((s.pass, vec![s.duration])),
                }
            }
            last = r;
        }
        let link_time: Duration = steps.iter().map(|(_, v)| median(v.clone())).sum();
        let total = median(totals);
        println!(
            "  {order:?}: whole run {:.1} ms ({:+.1} ms against unlinked), link steps {:.2} ms: {}",
            ms(total),
            ms(total) - ms(median(unlinked.clone())),
            ms(link_time),
            steps
                .iter()
                .map(|(n, v)| format!("{n} {:.2} ms", ms(median(v.clone()))))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let ((v0, i0), (v1, i1)) = before_after(&last);
        println!(
            "    interface variables {v0} → {v1} (−{:.0}%), instructions {i0} → {i1} (−{:.0}%)",
            100.0 * (v0 - v1) as f64 / v0 as f64,
            100.0 * (i0 as f64 - i1 as f64) / i0 as f64
        );
    }

    // The test pipelines.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sets: Vec<(&str, Vec<std::path::PathBuf>)> = vec![
        (
            "tests/shaders/pipeline/lit",
            vec![
                root.join("tests/shaders/pipeline/lit.vert"),
                root.join("tests/shaders/pipeline/lit.frag"),
            ],
        ),
        (
            "assets/pipeline/lit",
            vec![
                root.join("assets/pipeline/lit.vert"),
                root.join("assets/pipeline/lit.frag"),
            ],
        ),
    ];
    println!("\n== test pipelines (preset pipeline)");
    let mut all = [(0usize, 0usize, 0usize, 0usize); 2];
    for (name, files) in &sets {
        for (k, order) in [LinkOrder::FsFirst, LinkOrder::VsFirst]
            .into_iter()
            .enumerate()
        {
            let link = StageLink {
                order,
                ..StageLink::default()
            };
            let r = pipeline.run_stages(files.iter().map(|f| from_file(f)).collect(), &link);
            let ((v0, i0), (v1, i1)) = before_after(&r);
            println!(
                "  {name} {order:?}: interface variables {v0} → {v1}, instructions {i0} → {i1}"
            );
            all[k].0 += v0;
            all[k].1 += v1;
            all[k].2 += i0;
            all[k].3 += i1;
        }
    }
    for (k, order) in ["FsFirst", "VsFirst"].iter().enumerate() {
        let (v0, v1, i0, i1) = all[k];
        println!(
            "  all, {order}: interface variables −{:.0}% ({v0} → {v1}), instructions −{:.0}% ({i0} → {i1})",
            100.0 * (v0 - v1) as f64 / v0 as f64,
            100.0 * (i0 as f64 - i1 as f64) / i0 as f64
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
