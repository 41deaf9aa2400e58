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

use spirv::ExecutionModel;

use super::gpu::addresses::{pointee_fill, write_sites, POINTEES};
use super::gpu::reflect::{reflect_entry, setup, Kind, FILLS, SIZE};
use super::gpu::{stand_in, Binding, Device, DeviceError, Layout, Resource, Setup};
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
    let (mut images, mut samplers, mut unsupported) = (Vec::new(), Vec::new(), Vec::new());
    for b in &layout.bindings {
        match &b.kind {
            Kind::Buffer { .. } => buffers.extend((0..b.count).map(|element| Buffer {
                set: b.set,
                binding: b.binding,
                element,
                bytes: initial_bytes(b, element, data),
            })),
            Kind::Image(image) => {
                for e in 0..b.count {
                    match image.for_exec((b.set, b.binding, e), initial_bytes(b, e, data)) {
                        Ok(i) => images.push(i),
                        Err(why) => unsupported.push((b.set, b.binding, why)),
                    }
                }
            }
            Kind::Sampler => samplers.extend((0..b.count).map(|element| exec::SamplerBinding {
                set: b.set,
                binding: b.binding,
                element,
                sampler: exec::Sampler { compare: false },
            })),
            Kind::AccelerationStructure => unsupported.push((
                b.set,
                b.binding,
                "an acceleration structure (ray queries run on the driver only)".into(),
            )),
        }
    }
    let mut push_constants = layout.push_constants();
    let pointees = addressed(&layout, &mut buffers, &mut push_constants);
    Ok(Inputs {
        buffers,
        push_constants,
        images,
        samplers,
        unsupported,
        groups: GROUPS,
        pointees,
    })
}

/// Where the shader reads buffer addresses, the buffers behind them, and the addresses
/// written where the driver harness writes them (`addresses::write_sites`), the
/// interpreter's addresses (`exec::address_of`) for the driver's.
fn addressed(layout: &Layout, buffers: &mut [Buffer], push: &mut [u8]) -> Vec<Vec<u8>> {
    let sites = &layout.addresses;
    if sites.is_empty() {
        return Vec::new();
    }
    let mut pointees: Vec<Vec<u8>> = (0..POINTEES).map(pointee_fill).collect();
    for (k, p) in pointees.iter_mut().enumerate() {
        write_sites(p, &sites.pointees, k + 1, exec::address_of);
    }
    // Slots are numbered over every element of every binding, as the driver binds them.
    for ((b, element), (k, offsets)) in layout
        .slots()
        .iter()
        .zip(layout.slot_sites().into_iter().enumerate())
    {
        let slot = |x: &&mut Buffer| (x.set, x.binding, x.element) == (b.set, b.binding, *element);
        if let Some(buffer) = buffers.iter_mut().find(slot) {
            write_sites(&mut buffer.bytes, offsets, k, exec::address_of);
        }
    }
    write_sites(push, &sites.push, 0, exec::address_of);
    pointees
}

/// A compute shader that writes its subgroup size to set 0, binding 0.
const SUBGROUP_PROBE: &str = r#"OpCapability Shader
OpCapability GroupNonUniform
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %size
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %size BuiltIn SubgroupSize
OpDecorate %block Block
OpMemberDecorate %block 0 Offset 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%in_ptr = OpTypePointer Input %uint
%size = OpVariable %in_ptr Input
%block = OpTypeStruct %uint
%block_ptr = OpTypePointer StorageBuffer %block
%out = OpVariable %block_ptr StorageBuffer
%uint_ptr = OpTypePointer StorageBuffer %uint
%zero = OpConstant %uint 0
%main = OpFunction %void None %fn
%entry = OpLabel
%n = OpLoad %uint %size
%p = OpAccessChain %uint_ptr %out %zero
OpStore %p %n
OpReturn
OpFunctionEnd
"#;

/// The subgroup size `device` gives a compute shader, asked of the driver by running one.
pub fn driver_subgroup_size(device: &dyn Device) -> Result<u32, String> {
    let words = crate::ir::spirv::asm::assemble(SUBGROUP_PROBE).map_err(|e| e.to_string())?;
    let layout = Layout::of_entry(&words, None)?;
    let out = device
        .run_buffers(
            &words,
            &layout,
            [1, 1, 1],
            &[vec![0; 4]],
            Duration::from_secs(20),
        )
        .map_err(|e| format!("asking the driver its subgroup size: {e}"))?;
    out.first()
        .and_then(|b| b.get(..4))
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .filter(|&n| (1..=128).contains(&n))
        .ok_or_else(|| "the driver gave no subgroup size".to_string())
}

/// Whether a module uses subgroup operations or built-ins (its capabilities say).
pub fn uses_subgroups(m: &Module) -> bool {
    m.capabilities().any(|c| {
        matches!(
            c,
            spirv::Capability::GroupNonUniform
                | spirv::Capability::SubgroupBallotKHR
                | spirv::Capability::SubgroupVoteKHR
                | spirv::Capability::Groups
        )
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

/// Runs what `ran` ran on `device` with the same inputs and compares every buffer and image
/// the shader binds, typed (`exec::compare_buffer`, `compare_image`): `Ok(None)` when they
/// agree, `Ok(Some(where))` when they do not, `Err` when the driver cannot run it.
pub fn check_driver(
    device: &dyn Device,
    ran: &Ran,
    entry: Option<&str>,
) -> Result<Option<String>, String> {
    driver_disagreement(device, ran, entry, None).map_err(|e| e.to_string())
}

/// Runs a shader on the driver, each slot's bytes afterwards.
trait DriverRun: Fn() -> Result<Vec<Vec<u8>>, DeviceError> {}
impl<F: Fn() -> Result<Vec<Vec<u8>>, DeviceError>> DriverRun for F {}

/// `ran`'s words run on `device` on the bytes its inputs were made from (every buffer from
/// `data`, else the pattern): the layout's slots, and a closure that runs them and gives each
/// slot's bytes afterwards.
fn driver_run<'a>(
    device: &'a dyn Device,
    ran: &'a Ran,
    entry: Option<&str>,
    data: Option<&[u8]>,
) -> Result<(Vec<(Binding, u32)>, impl DriverRun + 'a), DeviceError> {
    let layout = Layout::of_entry(&ran.words, entry).map_err(DeviceError::Failed)?;
    let slots = layout.slots();
    let buffers: Vec<Vec<u8>> = slots
        .iter()
        .map(|(b, e)| initial_bytes(b, *e, data))
        .collect();
    let run = move || {
        device.run_buffers(
            &ran.words,
            &layout,
            GROUPS,
            &buffers,
            Duration::from_secs(20),
        )
    };
    Ok((slots, run))
}

/// Where buffer `k` behind addresses parts from `theirs`, by 4-byte words: the buffer has no
/// one type, so a word compares exactly unless both sides read as normal 32-bit floats,
/// which compare as attachments do (`exec::close_words`); bytes an undefined value went to
/// agree with anything.
pub(super) fn compare_pointee(
    ours: &[u8],
    undefined: &[(usize, u64)],
    k: usize,
    theirs: &[u8],
) -> Option<String> {
    let word = |b: &[u8]| b.iter().rev().fold(0u32, |w, &x| (w << 8) | u32::from(x));
    let normal = |w: u32| (1..255).contains(&((w >> 23) & 0xff));
    let at = ours
        .chunks(4)
        .zip(theirs.chunks(4))
        .enumerate()
        .position(|(n, (o, t))| {
            let differs = o.iter().zip(t).enumerate().any(|(b, (x, y))| {
                x != y && undefined.binary_search(&(k, (n * 4 + b) as u64)).is_err()
            });
            let (x, y) = (word(o), word(t));
            differs && !(normal(x) && normal(y) && exec::close_words(x, y, true))
        })?
        * 4;
    let read = |b: &[u8]| {
        b.get(at..at + 4)
            .map(|w| format!("{w:02x?}"))
            .unwrap_or_default()
    };
    Some(format!(
        "byte {at}: {} here, {} there",
        read(ours),
        read(theirs)
    ))
}

/// Where an image's texels part from `theirs`: 32-bit floats as attachments compare
/// (`exec::close_words`), every other format exactly; a texel a race left undefined agrees.
fn compare_image(image: &exec::Image, theirs: &[u8]) -> Option<String> {
    let float = image.encoding == exec::Encoding::Float && image.component_bytes == 4;
    let step = if image.component_bytes == 4 { 4 } else { 1 };
    let texel = (image.components * image.component_bytes) as usize;
    let word = |b: &[u8]| b.iter().rev().fold(0u32, |w, &x| (w << 8) | u32::from(x));
    let differ = image
        .texels
        .chunks(step)
        .zip(theirs.chunks(step))
        .enumerate()
        .position(|(k, (o, t))| {
            if image
                .undefined_texels
                .binary_search(&(k * step / texel.max(1)))
                .is_ok()
            {
                return false;
            }
            if float {
                !exec::close_words(word(o), word(t), true)
            } else {
                o != t
            }
        })?;
    let at = differ * step / texel.max(1);
    let read = |b: &[u8]| {
        b.get(at * texel..(at + 1) * texel)
            .map(|t| format!("{t:02x?}"))
            .unwrap_or_default()
    };
    Some(format!(
        "texel {at}: {} here, {} there",
        read(&image.texels),
        read(theirs)
    ))
}

/// Which stage of a draw a step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawnStage {
    /// A vertex shader alone, drawn before a generated fragment stage.
    Vertex,
    /// A fragment shader alone, drawn behind a generated vertex stage.
    Fragment,
    /// A module with both.
    Both,
}

/// A step drawn: both stages as run (the step's and, for a stage alone, the generated
/// partner the driver harness draws it with), what fed them and what they did.
pub struct DrawRan {
    pub stage: DrawnStage,
    pub vertex: (Module, Vec<u32>, String),
    pub fragment: (Module, Vec<u32>, String),
    pub setup: Setup,
    /// The harness's fill the draw used (the first with which the step draws something).
    pub fill: &'static str,
    pub inputs: exec::DrawInputs,
    pub execution: exec::DrawExecution,
}

impl DrawRan {
    /// The module of the step itself (the fragment stage's for a module with both).
    pub fn module(&self) -> &Module {
        match self.stage {
            DrawnStage::Vertex => &self.vertex.0,
            _ => &self.fragment.0,
        }
    }
}

/// The execution models of a module's entry points.
pub fn models(m: &Module) -> Vec<ExecutionModel> {
    m.entry_points()
        .iter()
        .filter_map(|e| match e.lits().first() {
            Some(rspirv::dr::Operand::ExecutionModel(x)) => Some(*x),
            _ => None,
        })
        .collect()
}

/// What the harness gives a draw, for the interpreter: the same descriptors, push
/// constants, vertex attributes and attachments the driver gets from `setup`.
pub fn draw_inputs(setup: &Setup) -> exec::DrawInputs {
    let mut buffers = Vec::new();
    let (mut images, mut samplers, mut unsupported) = (Vec::new(), Vec::new(), Vec::new());
    for d in &setup.descriptors {
        for (element, r) in d.elements.iter().enumerate() {
            let at = (d.set, d.binding, element as u32);
            match r {
                Resource::Buffer { bytes, .. } => buffers.push(Buffer {
                    set: d.set,
                    binding: d.binding,
                    element: element as u32,
                    bytes: bytes.clone(),
                }),
                Resource::Image { image, texels } => match image.for_exec(at, texels.clone()) {
                    Ok(i) => images.push(i),
                    Err(why) => unsupported.push((d.set, d.binding, why)),
                },
                Resource::Sampler => samplers.push(exec::SamplerBinding {
                    set: d.set,
                    binding: d.binding,
                    element: element as u32,
                    sampler: exec::Sampler { compare: false },
                }),
                Resource::AccelerationStructure => unsupported.push((
                    d.set,
                    d.binding,
                    "an acceleration structure (ray queries run on the driver only)".into(),
                )),
            }
        }
    }
    let attributes = setup
        .attributes
        .iter()
        .filter_map(|&(location, binding, _, _)| {
            let (_, _, _, bytes) = setup.vertex_buffers.iter().find(|b| b.0 == binding)?;
            Some(exec::Attribute {
                location,
                bytes: bytes.clone(),
            })
        })
        .collect();
    exec::DrawInputs {
        buffers,
        push_constants: setup.push.clone(),
        images,
        samplers,
        unsupported,
        attributes,
        vertices: setup.vertices,
        instances: setup.instances,
        size: SIZE,
        attachments: setup
            .colors
            .iter()
            .map(|c| c.map_or(0, |a| a.mask.as_raw() as u8))
            .collect(),
    }
}

/// Draws `step` (a vertex or a fragment stage, or a module with both) on the interpreter as
/// the semantic bisect draws it on the driver: the stand-in partner of a stage alone, the
/// setup made from reflection, the first of the fills with which it draws something.
pub fn run_draw_step(
    step: &Module,
    entry: Option<&str>,
    options: &Options,
) -> Result<DrawRan, String> {
    let words = driver_words(step)?;
    let module = read::read_words(&words).map_err(|e| e.to_string())?;
    let has = models(&module);
    let (vertex, fragment) = (
        has.contains(&ExecutionModel::Vertex),
        has.contains(&ExecutionModel::Fragment),
    );
    let reflect = |model| {
        reflect_entry(&words, model, entry).map_err(|e| format!("cannot draw the stage: {e}"))
    };
    let (stage, vs_words, fs_words) = match (vertex, fragment) {
        (true, true) => (DrawnStage::Both, words.clone(), words.clone()),
        (false, true) => {
            let made = stand_in::vertex_for(&reflect(ExecutionModel::Fragment)?)?;
            (DrawnStage::Fragment, made, words.clone())
        }
        (true, false) => {
            let made = stand_in::fragment_for(&reflect(ExecutionModel::Vertex)?)?;
            (DrawnStage::Vertex, words.clone(), made)
        }
        (false, false) => return Err("no vertex or fragment entry point".into()),
    };
    draw_words(stage, vs_words, fs_words, entry, options)
}

/// Draws a vertex shader and a fragment shader given apart (two modules, as a pipeline
/// links them): no generated stage; `entry` names either's entry point.
pub fn run_draw_pair(
    vs_step: &Module,
    fs_step: &Module,
    entry: Option<&str>,
    options: &Options,
) -> Result<DrawRan, String> {
    let vs_words = driver_words(vs_step)?;
    let fs_words = driver_words(fs_step)?;
    draw_words(DrawnStage::Both, vs_words, fs_words, entry, options)
}

/// The draw of `vs_words` and `fs_words` on the interpreter, with the setup reflection
/// makes, the first of the fills with which it draws something.
fn draw_words(
    stage: DrawnStage,
    vs_words: Vec<u32>,
    fs_words: Vec<u32>,
    entry: Option<&str>,
    options: &Options,
) -> Result<DrawRan, String> {
    let vstage = reflect_entry(&vs_words, ExecutionModel::Vertex, entry)
        .map_err(|e| format!("cannot draw the vertex stage: {e}"))?;
    let fstage = reflect_entry(&fs_words, ExecutionModel::Fragment, entry)
        .map_err(|e| format!("cannot draw the fragment stage: {e}"))?;
    let vs = read::read_words(&vs_words).map_err(|e| e.to_string())?;
    let fs = read::read_words(&fs_words).map_err(|e| e.to_string())?;
    let mut drawn = None;
    for (fill, data) in FILLS {
        let set = setup(&vstage, &fstage, 12, 2, data)?;
        let inputs = draw_inputs(&set);
        let execution = exec::draw(
            (&vs, Some(&vstage.entry)),
            (&fs, Some(&fstage.entry)),
            &inputs,
            options,
        )
        .map_err(|r| r.to_string())?;
        let covers = execution.covers();
        drawn = Some((set, fill, inputs, execution));
        if covers {
            break;
        }
    }
    let (setup, fill, inputs, execution) = drawn.expect("there are fills");
    Ok(DrawRan {
        stage,
        vertex: (vs, vs_words, vstage.entry),
        fragment: (fs, fs_words, fstage.entry),
        setup,
        fill,
        inputs,
        execution,
    })
}

/// Draws `step`, another step of the run `base` drew, exactly as `base` was drawn: its setup
/// (attachments, descriptors, fill) and, for a stage alone, its generated partner, as the
/// driver bisect draws every step with the input's. Two steps compared so run on the same
/// data, and a step that moves an output to another location draws nothing where the input
/// drew.
pub fn run_draw_on(step: &Module, base: &DrawRan, options: &Options) -> Result<DrawRan, String> {
    let words = driver_words(step)?;
    let module = read::read_words(&words).map_err(|e| e.to_string())?;
    let own = |entry: &str| (module.clone(), words.clone(), entry.to_string());
    let (vertex, fragment) = match base.stage {
        DrawnStage::Fragment => (base.vertex.clone(), own(&base.fragment.2)),
        DrawnStage::Vertex => (own(&base.vertex.2), base.fragment.clone()),
        DrawnStage::Both => (own(&base.vertex.2), own(&base.fragment.2)),
    };
    redraw(vertex, fragment, base, options)
}

/// `run_draw_on` for a pair drawn by `run_draw_pair`: other steps of both stages.
pub fn run_pair_on(
    vs_step: &Module,
    fs_step: &Module,
    base: &DrawRan,
    options: &Options,
) -> Result<DrawRan, String> {
    let own = |step: &Module, entry: &str| -> Result<(Module, Vec<u32>, String), String> {
        let words = driver_words(step)?;
        let module = read::read_words(&words).map_err(|e| e.to_string())?;
        Ok((module, words, entry.to_string()))
    };
    let vertex = own(vs_step, &base.vertex.2)?;
    let fragment = own(fs_step, &base.fragment.2)?;
    redraw(vertex, fragment, base, options)
}

/// `vertex` and `fragment` (module, words, entry point) drawn exactly as `base` was.
fn redraw(
    vertex: (Module, Vec<u32>, String),
    fragment: (Module, Vec<u32>, String),
    base: &DrawRan,
    options: &Options,
) -> Result<DrawRan, String> {
    let execution = exec::draw(
        (&vertex.0, Some(&vertex.2)),
        (&fragment.0, Some(&fragment.2)),
        &base.inputs,
        options,
    )
    .map_err(|r| r.to_string())?;
    Ok(DrawRan {
        stage: base.stage,
        vertex,
        fragment,
        setup: base.setup.clone(),
        fill: base.fill,
        inputs: base.inputs.clone(),
        execution,
    })
}

/// Draws what `ran` drew on `device` and compares every attachment texel: integers exactly,
/// floats as `exec::close_words` allows; texels the interpreter leaves undefined are not
/// compared. `Ok(None)` when they agree.
pub fn check_draw_driver(device: &dyn Device, ran: &DrawRan) -> Result<Option<String>, String> {
    let theirs = ran
        .setup
        .draw(
            device,
            (&ran.vertex.1, &ran.vertex.2),
            (&ran.fragment.1, &ran.fragment.2),
            Duration::from_secs(20),
        )
        .map_err(|e| e.to_string())?;
    let ours = ran
        .execution
        .attachments
        .iter()
        .enumerate()
        .filter(|(_, a)| !a.words.is_empty());
    for ((location, a), t) in ours.zip(&theirs.colors) {
        let words: Vec<u32> = t
            .chunks(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let differ = a
            .words
            .iter()
            .zip(&words)
            .enumerate()
            .filter(|(_, (o, t))| o.is_some_and(|o| !exec::close_words(o, **t, a.float)))
            .map(|(k, _)| k)
            .collect::<Vec<_>>();
        if let Some(&k) = differ.first() {
            let texel = k / 4;
            let (x, y) = (texel as u32 % SIZE.0, texel as u32 / SIZE.0);
            let show = |w: u32| {
                if a.float {
                    format!("{}", f32::from_bits(w))
                } else {
                    format!("{}", w as i32)
                }
            };
            return Ok(Some(format!(
                "attachment {location}, pixel {x},{y}, component {}: {} here, {} there ({} words differ)",
                k % 4,
                a.words[k].map_or("undef".into(), show),
                show(words[k]),
                differ.len()
            )));
        }
    }
    Ok(None)
}

/// `check_driver` for a run whose buffers started with `data` (the bisect's `--bisect-data`)
/// rather than the pattern: the driver gets the bytes the interpreter got.
pub fn driver_disagreement(
    device: &dyn Device,
    ran: &Ran,
    entry: Option<&str>,
    data: Option<&[u8]>,
) -> Result<Option<String>, DeviceError> {
    let (slots, run) = driver_run(device, ran, entry, data)?;
    let theirs = run()?;
    // Where invocations race or meet at atomics, the driver's order is its own and may
    // change from run to run: a second run, and what the interpreter computes agrees when it
    // is what either run gave.
    let again = if super::semantic::may_race(&ran.module) {
        Some(run()?)
    } else {
        None
    };
    let other = |k: usize| again.as_ref().and_then(|a| a.get(k));
    for (b, ours) in ran.execution.buffers.iter().zip(&ran.execution.contents) {
        let Some(k) = slots
            .iter()
            .position(|(s, e)| *e == b.element && s.set == b.set && s.binding == b.binding)
        else {
            continue;
        };
        let Some(t) = theirs.get(k) else { continue };
        let what = exec::compare_buffer(&ran.module, b.set, b.binding, ours, t).filter(|_| {
            other(k).is_none_or(|t| {
                exec::compare_buffer(&ran.module, b.set, b.binding, ours, t).is_some()
            })
        });
        if let Some(what) = what {
            return Ok(Some(format!("{}{what}", b.name())));
        }
    }
    // The buffers behind addresses come after the slots.
    for (k, ours) in ran.execution.pointees.iter().enumerate() {
        let Some(t) = theirs.get(slots.len() + k) else {
            continue;
        };
        let what =
            compare_pointee(ours, &ran.execution.undefined_pointee_bytes, k, t).filter(|_| {
                other(slots.len() + k).is_none_or(|t| {
                    compare_pointee(ours, &ran.execution.undefined_pointee_bytes, k, t).is_some()
                })
            });
        if let Some(what) = what {
            return Ok(Some(format!("the buffer behind address {}, {what}", k + 1)));
        }
    }
    for image in &ran.execution.images {
        let Some(k) = slots
            .iter()
            .position(|(s, e)| (s.set, s.binding, *e) == (image.set, image.binding, image.element))
        else {
            continue;
        };
        let Some(t) = theirs.get(k) else { continue };
        let what = compare_image(image, t)
            .filter(|_| other(k).is_none_or(|t| compare_image(image, t).is_some()));
        if let Some(what) = what {
            return Ok(Some(format!(
                "set {} binding {}{}, {what}",
                image.set,
                image.binding,
                if image.element > 0 {
                    format!("[{}]", image.element)
                } else {
                    String::new()
                }
            )));
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
) -> Result<Vec<Buffer>, DeviceError> {
    let (slots, run) = driver_run(device, ran, entry, data)?;
    let theirs = run()?;
    Ok(ran
        .execution
        .buffers
        .iter()
        .zip(&ran.inputs.buffers)
        .map(|(b, before)| {
            let k = slots
                .iter()
                .position(|(s, e)| *e == b.element && s.set == b.set && s.binding == b.binding);
            Buffer {
                set: b.set,
                binding: b.binding,
                element: b.element,
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

/// One finding of a run of `m`, as reports list it: `undefined result at %12, line 5,
/// invocation 0,0,0: division by zero (3 times)` (a draw's invocations as `pixel 3,4 of
/// triangle 0`, `vertex 5`).
pub fn finding_text(m: &Module, e: &exec::Execution, f: &exec::Finding) -> String {
    let line = f.line.map(|l| format!(", line {l}")).unwrap_or_default();
    let times = if f.count > 1 {
        format!(" ({} times)", f.count)
    } else {
        String::new()
    };
    format!(
        "{} at {}{line}, {}: {}{times}",
        finding_kind_name(&f.kind),
        value_name(m, f.at),
        e.describe(f.invocation),
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

/// Where a run of `m` (`e`) first parts from another run of the same inputs (`d`, from
/// `exec::first_difference(e, other)`), one line: the instruction, the other run's value,
/// then this one's, the invocation and the source line —
/// `%12 = OpISub %6 %10 %11: 7 → 3 (invocation 0,0,0), line 5`.
pub fn first_difference_text(m: &Module, e: &exec::Execution, d: &exec::Difference) -> String {
    let what = instruction_text(m, d.id).unwrap_or_else(|| value_name(m, d.id));
    let line = exec::line_of(m, d.id)
        .map(|l| format!(", line {l}"))
        .unwrap_or_default();
    format!(
        "{what}: {} → {} ({}){line}",
        exec::show(&d.against),
        exec::show(&d.value),
        e.describe(d.invocation)
    )
}
