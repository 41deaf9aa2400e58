//! The interpreter (`ir::exec`) on a step of a run, fed what the driver harness feeds the
//! driver: the step's words as the driver gets them (`semantic::driver_words`), every buffer
//! binding's bytes from the same pattern (`semantic::initial_bytes`), the same push constants
//! and the same workgroups. One description of the inputs, so what the interpreter says about
//! a step is about the run the semantic bisect makes of it.

use crate::ir::exec::{self, Buffer, Execution, Inputs, Options};
use crate::ir::spirv::read;
use crate::ir::Module;

use super::gpu::reflect::Kind;
use super::gpu::{push_bytes, Layout};
use super::semantic::{driver_words, initial_bytes, GROUPS};

/// What the harness gives a compute shader's dispatch, for the interpreter. `data`: the bytes
/// every buffer starts with (repeated), as `--data` gives the bisect; `None`, the pattern.
pub fn harness_inputs(
    words: &[u32],
    entry: Option<&str>,
    data: Option<&[u8]>,
) -> Result<Inputs, String> {
    let layout = Layout::of_entry(words, entry)?;
    let mut buffers = Vec::new();
    for b in &layout.bindings {
        match b.kind {
            Kind::Buffer { .. } if b.count == 1 => buffers.push(Buffer {
                set: b.set,
                binding: b.binding,
                bytes: initial_bytes(b, 0, data),
            }),
            // Images, samplers and arrays of descriptors: the interpreter refuses the shader
            // if it uses them.
            _ => {}
        }
    }
    if !layout.addresses.is_empty() {
        return Err("the shader reads buffer addresses, which exec does not run yet".into());
    }
    Ok(Inputs {
        buffers,
        push_constants: push_bytes(layout.push),
        groups: GROUPS,
    })
}

/// A step as run: the module the interpreter ran (the step's SPIR-V read back, as the driver
/// gets it) and what it did.
pub struct Ran {
    pub module: Module,
    pub execution: Execution,
}

/// Runs `step` on the harness's inputs.
pub fn run_step(
    step: &Module,
    entry: Option<&str>,
    data: Option<&[u8]>,
    options: &Options,
) -> Result<Ran, String> {
    let words = driver_words(step)?;
    let module = read::read_words(&words).map_err(|e| e.to_string())?;
    let inputs = harness_inputs(&words, entry, data)?;
    let execution = exec::run(&module, entry, &inputs, options).map_err(|r| r.to_string())?;
    Ok(Ran { module, execution })
}
