//! The interpreter (`ir::exec`) on a step of a run, fed what the driver harness feeds the
//! driver: the step's words as the driver gets them (`semantic::driver_words`), every buffer
//! binding's bytes from the same pattern (`semantic::initial_bytes`), the same push constants
//! and the same workgroups. One description of the inputs, so what the interpreter says about
//! a step is about the run the semantic bisect makes of it.

use crate::ir::exec::{self, Buffer, Execution, Inputs, Options};
use crate::ir::spirv::read;
use crate::ir::Module;

use std::time::Duration;

use super::gpu::reflect::Kind;
use super::gpu::{push_bytes, Device, Layout};
use super::semantic::{driver_words, initial_bytes, GROUPS};

/// What the harness gives a compute shader's dispatch, for the interpreter. `data`: the bytes
/// every buffer starts with (repeated), as `--data` gives the bisect; `None`, the pattern.
pub fn harness_inputs(
    words: &[u32],
    entry: Option<&str>,
    data: Option<&[u8]>,
) -> Result<Inputs, String> {
    let layout = Layout::of_entry(words, entry).map_err(|why| {
        if why == "not a compute shader" {
            "not a compute shader: exec runs compute shaders so far (vertex and fragment stages are not run yet)".to_string()
        } else {
            why
        }
    })?;
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
    /// The words run (the driver's).
    pub words: Vec<u32>,
    /// What it ran on (the buffers as they were before).
    pub inputs: Inputs,
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
    Ok(Ran {
        module,
        words,
        inputs,
        execution,
    })
}

/// Runs what `ran` ran on `device` with the same inputs and compares every buffer the shader
/// binds, typed (`exec::compare_buffer`): `Ok(None)` when they agree, `Ok(Some(where))` when
/// they do not, `Err` when the driver cannot run it.
pub fn check_driver(
    device: &dyn Device,
    ran: &Ran,
    entry: Option<&str>,
) -> Result<Option<String>, String> {
    let layout = Layout::of_entry(&ran.words, entry)?;
    let slots = layout.slots();
    let buffers: Vec<Vec<u8>> = slots
        .iter()
        .map(|(b, e)| initial_bytes(b, *e, None))
        .collect();
    let theirs = device
        .run_buffers(
            &ran.words,
            &layout,
            GROUPS,
            &buffers,
            Duration::from_secs(20),
        )
        .map_err(|e| e.to_string())?;
    for (b, ours) in ran.execution.buffers.iter().zip(&ran.execution.contents) {
        let Some(k) = slots
            .iter()
            .position(|(s, e)| *e == 0 && s.set == b.set && s.binding == b.binding)
        else {
            continue;
        };
        let Some(t) = theirs.get(k) else { continue };
        if let Some(what) = exec::compare_buffer(&ran.module, b.set, b.binding, ours, t) {
            return Ok(Some(format!("set {} binding {}{what}", b.set, b.binding)));
        }
    }
    Ok(None)
}
