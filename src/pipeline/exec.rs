//! The interpreter (`ir::exec`) on a step of a run, fed what the driver harness feeds the
//! driver: the step's words as the driver gets them (`semantic::driver_words`), every buffer
//! binding's bytes from the same pattern (`semantic::initial_bytes`), the same push constants
//! and the same workgroups. One description of the inputs, so what the interpreter says about
//! a step is about the run the semantic bisect makes of it.

use crate::ir::exec::{self, Buffer, Execution, Inputs, Options};
use crate::ir::spirv::read;
use crate::ir::Module;
use crate::ir::{exec::FindingKind, Id};

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

/// `check_driver` for a run whose buffers started with `data` (the bisect's `--bisect-data`)
/// rather than the pattern: the driver gets the bytes the interpreter got. `Ok(None)` when
/// they agree on every buffer, `Ok(Some(where))` when they do not, `Err` when the driver
/// cannot run it.
pub fn driver_disagreement(
    device: &dyn Device,
    ran: &Ran,
    entry: Option<&str>,
    data: Option<&[u8]>,
) -> Result<Option<String>, String> {
    let theirs = driver_buffers(device, ran, entry, data)?;
    for ((b, ours), t) in ran
        .execution
        .buffers
        .iter()
        .zip(&ran.execution.contents)
        .zip(&theirs)
    {
        if let Some(what) = exec::compare_buffer(&ran.module, b.set, b.binding, ours, &t.bytes) {
            return Ok(Some(format!("set {} binding {}{what}", b.set, b.binding)));
        }
    }
    Ok(None)
}

/// The buffers of `ran` (`ran.execution.buffers`, in their order) as the driver leaves them
/// when it runs `ran`'s words on the same inputs (every buffer from `data`, else the
/// pattern). A buffer the driver's layout does not bind keeps the bytes it started with.
pub fn driver_buffers(
    device: &dyn Device,
    ran: &Ran,
    entry: Option<&str>,
    data: Option<&[u8]>,
) -> Result<Vec<Buffer>, String> {
    let layout = Layout::of_entry(&ran.words, entry)?;
    let slots = layout.slots();
    let buffers: Vec<Vec<u8>> = slots
        .iter()
        .map(|(b, e)| initial_bytes(b, *e, data))
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
    Ok(ran
        .execution
        .buffers
        .iter()
        .zip(&ran.inputs.buffers)
        .map(|(b, before)| {
            let k = slots
                .iter()
                .position(|(s, e)| *e == 0 && s.set == b.set && s.binding == b.binding);
            Buffer {
                set: b.set,
                binding: b.binding,
                bytes: k
                    .and_then(|k| theirs.get(k))
                    .unwrap_or(&before.bytes)
                    .clone(),
            }
        })
        .collect())
}

/// A value as reports name it: `%12`, or `%12 (sum)` where the module gives it a name.
pub fn value_name(m: &Module, id: Id) -> String {
    match m.debug_name(id) {
        Some(n) if !n.is_empty() => format!("%{id} ({n})"),
        _ => format!("%{id}"),
    }
}

/// An invocation's global id as reports write it: `1,0,0`.
pub fn invocation_text(id: [u32; 3]) -> String {
    format!("{},{},{}", id[0], id[1], id[2])
}

/// What reports call a kind of undefined behaviour.
pub fn finding_kind_name(k: &FindingKind) -> &'static str {
    match k {
        FindingKind::UndefinedResult => "undefined result",
        FindingKind::OutOfBounds => "out of bounds",
        FindingKind::UninitialisedRead => "uninitialised read",
        FindingKind::UndefinedOutput => "undefined output",
        FindingKind::Unreachable => "unreachable executed",
        FindingKind::Budget => "instruction budget",
        FindingKind::DivergentBarrier => "divergent barrier",
        FindingKind::Race => "race",
    }
}

/// One finding of a run, as reports list it: `undefined result at %12, line 5, invocation
/// 0,0,0: division by zero (3 times)`.
pub fn finding_text(ran: &Ran, f: &exec::Finding) -> String {
    let line = f.line.map(|l| format!(", line {l}")).unwrap_or_default();
    let times = if f.count > 1 {
        format!(" ({} times)", f.count)
    } else {
        String::new()
    };
    format!(
        "{} at {}{line}, invocation {}: {}{times}",
        finding_kind_name(&f.kind),
        value_name(&ran.module, f.at),
        invocation_text(ran.execution.invocation_of(f.invocation)),
        f.detail
    )
}

/// The instruction that defines `id` in `m`, in SPIR-V assembly with numbered ids:
/// `%12 (sum) = OpISub %6 %10 %11`.
pub fn instruction_text(m: &Module, id: Id) -> Option<String> {
    let inst = m.functions().iter().find_map(|f| f.def_of(id))?;
    let cx = crate::ir::spirv::disasm::Context::new(m, crate::ir::names::Names::raw());
    Some(format!("{} = {}", value_name(m, id), cx.format_body(inst)))
}

/// Where `ran` first parts from another run of the same inputs (`d`, from
/// `exec::first_difference(&ran.execution, other)`), one line: the instruction, the other
/// run's value, then `ran`'s, the invocation and the source line —
/// `%12 = OpISub %6 %10 %11: 7 → 3 (invocation 0,0,0), line 5`.
pub fn first_difference_text(ran: &Ran, d: &exec::Difference) -> String {
    let what = instruction_text(&ran.module, d.id).unwrap_or_else(|| value_name(&ran.module, d.id));
    let line = exec::line_of(&ran.module, d.id)
        .map(|l| format!(", line {l}"))
        .unwrap_or_default();
    format!(
        "{what}: {} → {} (invocation {}){line}",
        exec::show(&d.against),
        exec::show(&d.value),
        invocation_text(ran.execution.invocation_of(d.invocation))
    )
}
