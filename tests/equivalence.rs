//! Input and output compute the same thing: every compute shader of the corpus whose resources
//! are plain buffers runs on lavapipe before and after each pipeline, on the same data, and
//! every buffer must come out with the same bytes. The GLSL shaders run in their debug builds
//! too (`-g` and `-gVS`), which must compute what the plain build does.

mod common;

use std::sync::Arc;

use common::{corpus, debug_builds};
use shaderstep::pipeline::gpu::{Binding, Gpu, Layout, BUFFER_SIZE};
use shaderstep::pipeline::Pipeline;

/// Data buffers start with: small integers, so loop bounds and indices read from buffers stay
/// small, differing by word and binding.
fn ints(b: &Binding) -> Vec<u8> {
    (0..BUFFER_SIZE / 4)
        .flat_map(|i| small(i, b).to_le_bytes())
        .collect()
}

fn small(i: usize, b: &Binding) -> u32 {
    (i as u32)
        .wrapping_mul(2654435761)
        .wrapping_add(b.binding * 7 + b.set)
        % 13
}

/// Floats where float math reads them (small integers read as floats are denormals, and math
/// on denormals hides most differences), a small integer in the first component of every
/// four words, where loop bounds and counts usually live.
fn mixed(b: &Binding) -> Vec<u8> {
    (0..BUFFER_SIZE / 4)
        .flat_map(|i| {
            let word = if i % 4 == 0 {
                small(i, b)
            } else {
                (0.25 * f32::from(small(i, b) as u8) - 1.5).to_bits()
            };
            word.to_le_bytes()
        })
        .collect()
}

/// Makes a binding's initial bytes.
type Fill = fn(&Binding) -> Vec<u8>;

const FILLS: [(&str, Fill); 2] = [("ints", ints), ("mixed", mixed)];

fn check(presets: &[&str]) -> Vec<String> {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    let (mut ran, mut wrote, mut debug, mut gvs) = (0, 0, 0, 0);
    let (builds, notes) = debug_builds();
    for s in corpus().into_iter().chain(builds) {
        let layout = match Layout::of(&s.words) {
            Ok(layout) => layout,
            // A debug build the runner cannot run is said, not passed over.
            Err(e) if !s.build.is_empty() && e != "not a compute shader" => {
                eprintln!("skipped: {}: {e}", s.name());
                continue;
            }
            Err(_) => continue,
        };
        for (fill_name, fill) in FILLS {
            let before = match gpu.run(&s.words, &layout, [2, 1, 1], fill) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{}: input does not run: {e}", s.name()));
                    continue;
                }
            };
            // A shader that writes nothing would prove nothing by matching.
            let data: Vec<Vec<u8>> = layout.bindings.iter().map(fill).collect();
            if before != data && fill_name == "mixed" {
                wrote += 1;
            }
            for preset in presets {
                let run = Pipeline::preset(preset)
                    .unwrap()
                    .run(Arc::new(s.words.clone()));
                let Some(out) = run.output_words() else {
                    failures.push(format!("{}: {preset} failed", s.name()));
                    continue;
                };
                match gpu.run(&out, &layout, [2, 1, 1], fill) {
                    Ok(after) if after == before => {}
                    Ok(after) => {
                        let which: Vec<String> = layout
                            .bindings
                            .iter()
                            .zip(before.iter().zip(&after))
                            .filter(|(_, (a, b))| a != b)
                            .map(|(b, (x, y))| {
                                let at = x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(0);
                                format!("set {} binding {} from byte {at}", b.set, b.binding)
                            })
                            .collect();
                        failures.push(format!(
                            "{}: after {preset} ({fill_name} data) the buffers differ: {}",
                            s.name(),
                            which.join(", ")
                        ));
                    }
                    Err(e) => failures.push(format!(
                        "{}: output of {preset} does not run: {e}",
                        s.name()
                    )),
                }
            }
        }
        ran += 1;
        debug += usize::from(!s.build.is_empty());
        gvs += usize::from(s.build == "-gVS");
    }
    eprintln!(
        "{ran} compute shaders compared on {} ({wrote} write their buffers; {debug} of them debug builds, {gvs} with -gVS; {} builds glslang refused)",
        gpu.name,
        notes.len()
    );
    assert!(
        debug >= 20 && gvs >= 10,
        "only {debug} debug builds could run ({gvs} -gVS)"
    );
    assert!(ran >= 8, "only {ran} compute shaders could run");
    assert!(
        wrote * 4 >= ran * 3,
        "only {wrote} of {ran} shaders write anything"
    );
    failures
}

#[test]
fn compute_shaders_compute_the_same_after_every_preset() {
    let failures = check(&[
        "roundtrip",
        "types",
        "qptr",
        "default",
        "memory",
        "O",
        "O-size",
    ]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_wrong_compilation_is_caught() {
    // The oracle must be able to fail: turn the first integer add of a shader into a subtract.
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let s = corpus()
        .into_iter()
        .find(|s| s.path.to_string_lossy().contains("dxbc_loop"))
        .unwrap();
    let layout = Layout::of(&s.words).unwrap();
    let mut m = shaderstep::ir::spirv::read::read_words(&s.words).unwrap();
    let mut found = false;
    for f in shaderstep::ir::rewrite::functions_mut(&mut m) {
        let add = f
            .layout()
            .map(|(_, i)| i)
            .find(|&i| f.inst(i).op() == spirv::Op::IAdd);
        if let Some(add) = add {
            let (ty, operands) = (f.inst(add).ty(), f.inst(add).to_operands());
            shaderstep::ir::rewrite::rewrite_inst(f, add, spirv::Op::ISub, ty, operands);
            found = true;
            break;
        }
    }
    assert!(found);
    let wrong = shaderstep::ir::spirv::write::write_words(&m);
    let before = gpu.run(&s.words, &layout, [2, 1, 1], mixed).unwrap();
    let after = gpu.run(&wrong, &layout, [2, 1, 1], mixed).unwrap();
    assert_ne!(before, after);
}
