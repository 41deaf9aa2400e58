//! Semantic bisect (`:bisect run`, `run --bisect-run`): the shader is run on a Vulkan driver
//! after every step of a run, on the same data, and the first step whose results differ from
//! the input's is the answer — "which pass changed what my shader computes". Steps in the
//! shaderstep dialect are lifted to SPIR-V first (as `--validate-each` does); a step that did
//! not change the module computes what the step before did and is not run again.
//!
//! Compute shaders whose resources are storage and uniform buffers run (`gpu::Layout`): every
//! binding starts with the same bytes, from a file or a fixed pattern, and every binding's bytes
//! after the dispatch are compared.

use super::gpu::{Binding, Gpu, Layout, BUFFER_SIZE};
use super::validate::spirv_of;
use super::Run;

/// Workgroups dispatched: two, so that a shader's workgroups can disagree.
const GROUPS: [u32; 3] = [2, 1, 1];

/// The first step whose results differ from the input's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub step: usize,
    pub pass: &'static str,
    /// Which buffer and word, and how: `set 0 binding 1, word 4: 0x3f800000 (1) → …`.
    pub what: String,
}

/// What a semantic bisect found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BisectRun {
    pub first: Option<Difference>,
    /// Steps whose results were compared with the input's (run, or unchanged).
    pub compared: usize,
    /// Steps that could not be run, with why.
    pub skipped: Vec<(usize, String)>,
    /// The device, and what ran: `llvmpipe …: 3 buffers of 16 KiB, 2 workgroups`.
    pub setup: String,
}

impl BisectRun {
    /// One line for the status bar and `run --bisect-run`.
    pub fn summary(&self) -> String {
        let skipped = if self.skipped.is_empty() {
            String::new()
        } else {
            format!("; {} steps skipped", self.skipped.len())
        };
        match &self.first {
            Some(d) => format!(
                "first step whose results differ: {} {} — {}{skipped}",
                d.step, d.pass, d.what
            ),
            None => format!(
                "every step computes what the input does ({} steps on {}){skipped}",
                self.compared, self.setup
            ),
        }
    }
}

/// The bytes a binding starts with: `data` repeated to fill it, or the fixed pattern (small
/// integers every fourth word, where counts and indices usually live; floats elsewhere).
pub fn initial_bytes(b: &Binding, data: Option<&[u8]>) -> Vec<u8> {
    match data {
        Some(d) if !d.is_empty() => d.iter().copied().cycle().take(BUFFER_SIZE).collect(),
        _ => (0..BUFFER_SIZE as u32 / 4)
            .flat_map(|i| {
                let small = i
                    .wrapping_mul(2654435761)
                    .wrapping_add(b.binding * 7 + b.set)
                    % 13;
                let word = if i % 4 == 0 {
                    small
                } else {
                    (0.25 * small as f32 - 1.5).to_bits()
                };
                word.to_le_bytes()
            })
            .collect(),
    }
}

/// Where two runs' buffers first differ.
fn first_difference(layout: &Layout, before: &[Vec<u8>], after: &[Vec<u8>]) -> Option<String> {
    for (b, (x, y)) in layout.bindings.iter().zip(before.iter().zip(after)) {
        let Some(at) = x.iter().zip(y).position(|(p, q)| p != q) else {
            continue;
        };
        let word = at / 4;
        let read = |bytes: &[u8]| {
            let w = u32::from_le_bytes(bytes[word * 4..word * 4 + 4].try_into().unwrap_or([0; 4]));
            format!("{w:#010x} ({})", f32::from_bits(w))
        };
        let count = x.chunks(4).zip(y.chunks(4)).filter(|(p, q)| p != q).count();
        return Some(format!(
            "set {} binding {}, word {word}: {} → {} ({count} words differ)",
            b.set,
            b.binding,
            read(x),
            read(y)
        ));
    }
    None
}

/// Runs the shader after every step of `run` on `gpu` and finds the first step whose results
/// differ from the input's. `cancelled` is asked between steps. `Err` says why the shader
/// cannot be run at all.
pub fn bisect_run(
    gpu: &Gpu,
    run: &Run,
    data: Option<&[u8]>,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    // The input: the first step that is not the source text.
    let steps: Vec<usize> = (0..run.steps.len())
        .filter(|&i| !run.steps[i].is_source())
        .collect();
    let &first = steps.first().ok_or("the run has no steps")?;
    let words = spirv_of(&run.steps[first].module)
        .map_err(|e| format!("the input cannot be run: {e}"))?
        .words;
    let layout = Layout::of(&words).map_err(|why| {
        format!(
            "cannot run this shader: {why} (compute shaders with storage and uniform buffers run)"
        )
    })?;
    let fill = |b: &Binding| initial_bytes(b, data);
    let before = gpu
        .run(&words, &layout, GROUPS, fill)
        .map_err(|e| format!("the input does not run: {e}"))?;
    // The driver's name without its build details (`llvmpipe`, not its LLVM version).
    let device = gpu.name.split(" (").next().unwrap_or(&gpu.name);
    let setup = format!(
        "{device}: {} buffers of {} KiB, {} workgroups",
        layout.bindings.len(),
        BUFFER_SIZE / 1024,
        GROUPS[0]
    );
    let mut out = BisectRun {
        first: None,
        compared: 1,
        skipped: Vec::new(),
        setup,
    };
    for &i in &steps[1..] {
        if cancelled() {
            return Err("cancelled".into());
        }
        let step = &run.steps[i];
        if !step.changed {
            out.compared += 1;
            continue;
        }
        let words = match spirv_of(&step.module) {
            Ok(s) => s.words,
            Err(why) => {
                out.skipped.push((i, why));
                continue;
            }
        };
        let after = match gpu.run(&words, &layout, GROUPS, fill) {
            Ok(a) => a,
            Err(e) => {
                out.first = Some(Difference {
                    step: i,
                    pass: step.pass,
                    what: format!("it does not run: {e}"),
                });
                return Ok(out);
            }
        };
        out.compared += 1;
        if let Some(what) = first_difference(&layout, &before, &after) {
            out.first = Some(Difference {
                step: i,
                pass: step.pass,
                what,
            });
            return Ok(out);
        }
    }
    Ok(out)
}
