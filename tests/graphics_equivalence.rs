//! Vertex and fragment shaders draw the same images after every preset and after pipeline
//! linking: each pair is drawn on lavapipe before and after, with the same vertex data,
//! buffers, textures and push constants, and every colour attachment (32-bit per component, so
//! nothing is rounded away) and storage buffer must come out with the same bytes.
//!
//! The pairs: the real pair of `tests/shaders/pipeline/`, modules with both a vertex and a
//! fragment entry point, every fragment shader of the corpus behind a vertex shader generated
//! from its inputs (half of them constant, so that `vs-first` linking forwards constants), and
//! every vertex shader of the corpus in front of a fragment shader generated from its outputs
//! (which writes each output location to an attachment of its own; for linking, one output is
//! left unread, so that `fs-first` linking removes it). Pairs the harness cannot draw (images
//! other than 2D, storage images, interface blocks…) are listed by name with the reason.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;
use common::{corpus, glslang, spv_words, temp_dir};
use rspirv::dr::{self, Operand};
use shaderstep::pipeline::gpu::{
    Attachment, Descriptor, Draw, Gpu, Resource, BUFFER_SIZE, TEXTURE_SIZE,
};
use shaderstep::pipeline::link::LinkOrder;
use shaderstep::pipeline::{Pipeline, StageLink};
use spirv::{Decoration, ExecutionModel, Op, StorageClass};

/// The presets each pair goes through on its own (stage by stage).
const PRESETS: [&str; 9] = [
    "roundtrip",
    "size",
    "types",
    "qptr",
    "default",
    "memory",
    "pipeline",
    "O",
    "O-size",
];

/// The presets the pairs are linked under, in both orders.
const LINK_PRESETS: [&str; 2] = ["pipeline", "O"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scalar {
    F32,
    I32,
    U32,
}

/// A type of the shader interface: scalar, vector, matrix (`cols` > 1), or an array of those.
#[derive(Clone, Debug)]
struct Ty {
    scalar: Scalar,
    comps: u32,
    cols: u32,
    len: Option<u32>,
}

impl Ty {
    /// Locations it takes (32-bit types only: one per column and element).
    fn slots(&self) -> u32 {
        self.len.unwrap_or(1) * self.cols
    }

    /// The GLSL name of the type without the array.
    fn glsl(&self) -> String {
        let prefix = match self.scalar {
            Scalar::F32 => "",
            Scalar::I32 => "i",
            Scalar::U32 => "u",
        };
        if self.cols > 1 {
            if self.cols == self.comps {
                format!("mat{}", self.cols)
            } else {
                format!("mat{}x{}", self.cols, self.comps)
            }
        } else if self.comps == 1 {
            match self.scalar {
                Scalar::F32 => "float",
                Scalar::I32 => "int",
                Scalar::U32 => "uint",
            }
            .into()
        } else {
            format!("{prefix}vec{}", self.comps)
        }
    }
}

/// A user-defined input or output.
#[derive(Clone, Debug)]
struct Var {
    location: u32,
    /// The variable's type (a block's first member for a block).
    ty: Ty,
    /// The members of an interface block.
    members: Option<Vec<Ty>>,
    flat: bool,
    noperspective: bool,
}

impl Var {
    fn qualifiers(&self) -> &'static str {
        let int = self.members.is_none() && self.ty.scalar != Scalar::F32;
        match (self.flat || int, self.noperspective) {
            (true, _) => "flat ",
            (false, true) => "noperspective ",
            _ => "",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Buffer {
        storage: bool,
    },
    Image {
        scalar: Scalar,
        arrayed: bool,
        combined: bool,
    },
    Sampler,
}

/// What one entry point of a module reads and writes.
#[derive(Clone, Debug)]
struct Stage {
    entry: String,
    inputs: Vec<Var>,
    outputs: Vec<Var>,
    /// (set, binding, count, kind).
    resources: Vec<(u32, u32, u32, Kind)>,
    push: bool,
}

struct Reflect<'a> {
    defs: HashMap<u32, &'a dr::Instruction>,
    decorations: Vec<(u32, Decoration, Option<u32>)>,
    builtin_structs: Vec<u32>,
}

fn lit(o: Option<&Operand>) -> Option<u32> {
    match o {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    }
}

fn id(o: Option<&Operand>) -> Option<u32> {
    match o {
        Some(Operand::IdRef(v)) => Some(*v),
        _ => None,
    }
}

impl<'a> Reflect<'a> {
    fn new(m: &'a dr::Module) -> Self {
        let defs = m
            .types_global_values
            .iter()
            .filter_map(|i| i.result_id.map(|r| (r, i)))
            .collect();
        let mut decorations = Vec::new();
        let mut builtin_structs = Vec::new();
        for a in &m.annotations {
            match (a.class.opcode, a.operands.as_slice()) {
                (Op::Decorate, [Operand::IdRef(t), Operand::Decoration(d), rest @ ..]) => {
                    decorations.push((*t, *d, lit(rest.first())))
                }
                (
                    Op::MemberDecorate,
                    [Operand::IdRef(t), _, Operand::Decoration(Decoration::BuiltIn), ..],
                ) => builtin_structs.push(*t),
                _ => {}
            }
        }
        Reflect {
            defs,
            decorations,
            builtin_structs,
        }
    }

    fn decoration(&self, target: u32, d: Decoration) -> Option<Option<u32>> {
        self.decorations
            .iter()
            .find(|(t, x, _)| *t == target && *x == d)
            .map(|(_, _, v)| *v)
    }

    fn def(&self, id: u32) -> Result<&'a dr::Instruction, String> {
        self.defs
            .get(&id)
            .copied()
            .ok_or_else(|| format!("%{id} is not a global"))
    }

    fn constant(&self, id: u32) -> Result<u32, String> {
        let c = self.def(id)?;
        match (c.class.opcode, lit(c.operands.first())) {
            (Op::Constant, Some(v)) => Ok(v),
            _ => Err("an array with a specialized length".into()),
        }
    }

    fn ty(&self, ty: u32) -> Result<Ty, String> {
        let t = self.def(ty)?;
        let o = &t.operands;
        let scalar = |scalar| Ty {
            scalar,
            comps: 1,
            cols: 1,
            len: None,
        };
        match t.class.opcode {
            Op::TypeFloat if lit(o.first()) == Some(32) => Ok(scalar(Scalar::F32)),
            Op::TypeInt if lit(o.first()) == Some(32) => Ok(scalar(if lit(o.get(1)) == Some(1) {
                Scalar::I32
            } else {
                Scalar::U32
            })),
            Op::TypeVector => {
                let c = self.ty(id(o.first()).unwrap_or(0))?;
                Ok(Ty {
                    comps: lit(o.get(1)).unwrap_or(0),
                    ..c
                })
            }
            Op::TypeMatrix => {
                let c = self.ty(id(o.first()).unwrap_or(0))?;
                Ok(Ty {
                    cols: lit(o.get(1)).unwrap_or(0),
                    ..c
                })
            }
            Op::TypeArray => {
                let e = self.ty(id(o.first()).unwrap_or(0))?;
                if e.len.is_some() {
                    return Err("an array of arrays in the interface".into());
                }
                Ok(Ty {
                    len: Some(self.constant(id(o.get(1)).unwrap_or(0))?),
                    ..e
                })
            }
            Op::TypeStruct => Err("a struct in an interface block".into()),
            other => Err(format!("{other:?} (not 32-bit) in the interface")),
        }
    }

    /// The pointee of a pointer type, with the storage class.
    fn pointee(&self, ptr: u32) -> Result<(StorageClass, u32), String> {
        match self.def(ptr)?.operands.as_slice() {
            [Operand::StorageClass(c), Operand::IdRef(p)] => Ok((*c, *p)),
            _ => Err(format!("%{ptr} is not a pointer type")),
        }
    }

    fn is_builtin(&self, var: u32, pointee: u32) -> bool {
        if self.decoration(var, Decoration::BuiltIn).is_some() {
            return true;
        }
        // A builtin block, or an array of them (gl_in).
        let mut t = pointee;
        loop {
            if self.builtin_structs.contains(&t) {
                return true;
            }
            match self.defs.get(&t) {
                Some(i) if i.class.opcode == Op::TypeArray => {
                    t = id(i.operands.first()).unwrap_or(0)
                }
                _ => return false,
            }
        }
    }

    fn var(&self, var: u32, pointee: u32) -> Result<Var, String> {
        if self.decoration(var, Decoration::Component).is_some() {
            return Err("a Component decoration".into());
        }
        let location = self
            .decoration(var, Decoration::Location)
            .flatten()
            .ok_or("an input or output without a Location (or with member locations)")?;
        let t = self.def(pointee)?;
        let members = if t.class.opcode == Op::TypeStruct {
            let tys: Result<Vec<Ty>, String> = t
                .operands
                .iter()
                .map(|o| self.ty(id(Some(o)).unwrap_or(0)))
                .collect();
            Some(tys?)
        } else {
            None
        };
        Ok(Var {
            location,
            ty: match &members {
                Some(m) => m.first().cloned().ok_or("an empty block")?,
                None => self.ty(pointee)?,
            },
            members,
            flat: self.decoration(var, Decoration::Flat).is_some(),
            noperspective: self.decoration(var, Decoration::NoPerspective).is_some(),
        })
    }

    fn resource(&self, class: StorageClass, pointee: u32) -> Result<(u32, Kind), String> {
        let mut t = self.def(pointee)?;
        let mut count = 1;
        if t.class.opcode == Op::TypeArray {
            count = self.constant(id(t.operands.get(1)).unwrap_or(0))?;
            t = self.def(id(t.operands.first()).unwrap_or(0))?;
        }
        if t.class.opcode == Op::TypeRuntimeArray {
            return Err("a runtime array of descriptors".into());
        }
        let kind = match (class, t.class.opcode) {
            (StorageClass::UniformConstant, Op::TypeSampler) => Kind::Sampler,
            (StorageClass::UniformConstant, Op::TypeSampledImage | Op::TypeImage) => {
                let combined = t.class.opcode == Op::TypeSampledImage;
                let image = if combined {
                    self.def(id(t.operands.first()).unwrap_or(0))?
                } else {
                    t
                };
                let o = &image.operands;
                if !matches!(o.get(1), Some(Operand::Dim(spirv::Dim::Dim2D))) {
                    return Err("an image that is not 2D".into());
                }
                if lit(o.get(2)) == Some(1) {
                    return Err("a depth image".into());
                }
                if lit(o.get(4)) == Some(1) {
                    return Err("a multisampled image".into());
                }
                if lit(o.get(5)) == Some(2) {
                    return Err("a storage image".into());
                }
                let scalar = self.ty(id(o.first()).unwrap_or(0))?.scalar;
                Kind::Image {
                    scalar,
                    arrayed: lit(o.get(3)) == Some(1),
                    combined,
                }
            }
            (StorageClass::UniformConstant, other) => {
                return Err(format!("a {other:?} descriptor"));
            }
            (_, Op::TypeStruct) => Kind::Buffer {
                storage: class == StorageClass::StorageBuffer
                    || self
                        .decoration(t.result_id.unwrap_or(0), Decoration::BufferBlock)
                        .is_some(),
            },
            (_, other) => return Err(format!("a buffer of {other:?}")),
        };
        Ok((count, kind))
    }
}

/// Reads the interface of the `model` entry point of `words`; `Err` says why it cannot be drawn
/// (starting with "no " when there is no such entry point).
fn reflect(words: &[u32], model: ExecutionModel) -> Result<Stage, String> {
    // The execution models first, from the words: rspirv's loader refuses a few valid modules
    // (`OpExecutionModeId`), which need not be read when they are not of this stage.
    let mut at = 5;
    let mut found = false;
    while at < words.len() {
        let (count, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        if op == Op::EntryPoint as u32 && words.get(at + 1) == Some(&(model as u32)) {
            found = true;
        }
        at += count.max(1);
    }
    if !found {
        return Err(format!("no {model:?} entry point"));
    }
    let m = dr::load_words(words).map_err(|e| e.to_string())?;
    let r = Reflect::new(&m);
    let entry = m
        .entry_points
        .iter()
        .find(|e| matches!(e.operands.first(), Some(Operand::ExecutionModel(x)) if *x == model))
        .ok_or_else(|| format!("no {model:?} entry point"))?;
    let name = match entry.operands.get(2) {
        Some(Operand::LiteralString(s)) => s.clone(),
        _ => return Err("an entry point without a name".into()),
    };
    let mut stage = Stage {
        entry: name,
        inputs: Vec::new(),
        outputs: Vec::new(),
        resources: Vec::new(),
        push: false,
    };
    let interface: Vec<u32> = entry.operands[3..]
        .iter()
        .filter_map(|o| id(Some(o)))
        .collect();
    for g in &m.types_global_values {
        if g.class.opcode != Op::Variable {
            continue;
        }
        let var = g.result_id.unwrap_or(0);
        let (class, pointee) = r.pointee(g.result_type.unwrap_or(0))?;
        match class {
            StorageClass::Input | StorageClass::Output => {
                if !interface.contains(&var) || r.is_builtin(var, pointee) {
                    continue;
                }
                let v = r.var(var, pointee)?;
                if class == StorageClass::Input {
                    stage.inputs.push(v);
                } else {
                    stage.outputs.push(v);
                }
            }
            StorageClass::Uniform | StorageClass::StorageBuffer | StorageClass::UniformConstant => {
                let (count, kind) = r.resource(class, pointee)?;
                let set = r.decoration(var, Decoration::DescriptorSet).flatten();
                let binding = r.decoration(var, Decoration::Binding).flatten();
                let (Some(set), Some(binding)) = (set, binding) else {
                    return Err("a resource without a set or binding".into());
                };
                stage.resources.push((set, binding, count, kind));
            }
            StorageClass::PushConstant => stage.push = true,
            StorageClass::PhysicalStorageBuffer => return Err("buffer addresses".into()),
            _ => {}
        }
    }
    Ok(stage)
}

/// Makes `words` words of buffer data from a seed.
type Fill = fn(u32, usize) -> Vec<u8>;

/// Small integers every fourth word (counts and indices), floats in [-1.5, 1.5] elsewhere.
fn mixed(seed: u32, words: usize) -> Vec<u8> {
    fill(seed, words, |small| 0.25 * small as f32 - 1.5)
}

/// As `mixed` with floats in [0.25, 1]: matrices made of these keep more vertices in view.
fn gentle(seed: u32, words: usize) -> Vec<u8> {
    fill(seed, words, |small| 0.25 + small as f32 / 16.0)
}

fn fill(seed: u32, words: usize, float: fn(u32) -> f32) -> Vec<u8> {
    (0..words as u32)
        .flat_map(|i| {
            let small = i.wrapping_mul(2654435761).wrapping_add(seed * 7) % 13;
            let word = if i % 4 == 0 {
                small
            } else {
                float(small).to_bits()
            };
            word.to_le_bytes()
        })
        .collect()
}

/// Identity matrices wherever a 4×4 float matrix starts on a 64-byte boundary, small
/// integers (near-zero floats) elsewhere: transforms that keep vertices where they are.
fn identity(seed: u32, words: usize) -> Vec<u8> {
    (0..words as u32)
        .flat_map(|i| {
            let word = if matches!(i % 16, 0 | 5 | 10 | 15) {
                1.0f32.to_bits()
            } else {
                i.wrapping_mul(2654435761).wrapping_add(seed * 7) % 4
            };
            word.to_le_bytes()
        })
        .collect()
}

/// The fills a pair is tried with, until one draws something.
const FILLS: [(&str, Fill); 3] = [("mixed", mixed), ("gentle", gentle), ("identity", identity)];

fn format_of(scalar: Scalar) -> vk::Format {
    match scalar {
        Scalar::F32 => vk::Format::R32G32B32A32_SFLOAT,
        Scalar::I32 => vk::Format::R32G32B32A32_SINT,
        Scalar::U32 => vk::Format::R32G32B32A32_UINT,
    }
}

fn mask(comps: u32) -> vk::ColorComponentFlags {
    [
        vk::ColorComponentFlags::R,
        vk::ColorComponentFlags::G,
        vk::ColorComponentFlags::B,
        vk::ColorComponentFlags::A,
    ]
    .into_iter()
    .take(comps as usize)
    .fold(vk::ColorComponentFlags::empty(), |a, b| a | b)
}

/// The resources, vertex input and attachments of a draw; the shaders are set per draw.
#[derive(Clone)]
struct Setup {
    vertex_buffers: Vec<(u32, u32, bool, Vec<u8>)>,
    attributes: Vec<(u32, u32, vk::Format, u32)>,
    descriptors: Vec<Descriptor>,
    push: Vec<u8>,
    colors: Vec<Option<Attachment>>,
    vertices: u32,
    instances: u32,
}

const SIZE: (u32, u32) = (24, 24);

fn setup(
    vs: &Stage,
    fs: &Stage,
    vertices: u32,
    instances: u32,
    data: Fill,
) -> Result<Setup, String> {
    let mut resources: Vec<(u32, u32, u32, Kind)> = Vec::new();
    for r in vs.resources.iter().chain(&fs.resources) {
        match resources.iter().find(|x| (x.0, x.1) == (r.0, r.1)) {
            Some(x) if x != r => {
                return Err(format!(
                    "set {} binding {} holds a {:?} and a {:?} (Vulkan binds one kind there)",
                    r.0, r.1, x.3, r.3
                ))
            }
            Some(_) => {}
            None => resources.push(r.clone()),
        }
    }
    let descriptors = resources
        .into_iter()
        .map(|(set, binding, count, kind)| {
            let seed = set * 16 + binding;
            let resource = match kind {
                Kind::Buffer { storage } => Resource::Buffer {
                    storage,
                    bytes: data(seed, BUFFER_SIZE / 4),
                },
                Kind::Image {
                    scalar,
                    arrayed,
                    combined,
                } => {
                    let texels = (TEXTURE_SIZE * TEXTURE_SIZE) as usize;
                    let (format, texels) = match scalar {
                        Scalar::F32 => (
                            vk::Format::R8G8B8A8_UNORM,
                            (0..texels * 4)
                                .map(|i| ((i * 37 + seed as usize * 11) % 251) as u8)
                                .collect(),
                        ),
                        _ => (
                            format_of(scalar),
                            (0..texels * 4)
                                .flat_map(|i| ((i as u32 * 7 + seed) % 9).to_le_bytes())
                                .collect(),
                        ),
                    };
                    Resource::Image {
                        format,
                        texels,
                        arrayed,
                        combined,
                    }
                }
                Kind::Sampler => Resource::Sampler,
            };
            Descriptor {
                set,
                binding,
                count,
                resource,
            }
        })
        .collect();
    // One binding per attribute location, 16 bytes per vertex.
    let mut vertex_buffers = Vec::new();
    let mut attributes = Vec::new();
    if vs
        .inputs
        .iter()
        .chain(&fs.outputs)
        .any(|v| v.members.is_some())
    {
        return Err("a block of vertex inputs or fragment outputs".into());
    }
    for v in &vs.inputs {
        for k in 0..v.ty.slots() {
            let location = v.location + k;
            let binding = vertex_buffers.len() as u32;
            let bytes = (0..vertices)
                .flat_map(|i| {
                    (0..4u32).flat_map(move |c| {
                        let word = match v.ty.scalar {
                            Scalar::F32 if c == 3 => 1.0f32.to_bits(),
                            Scalar::F32 => {
                                (((i * 7 + location * 3 + c * 5) % 17) as f32 / 8.0 - 1.0).to_bits()
                            }
                            Scalar::I32 => ((i + location + c) % 5) as i32 as u32 - 1,
                            Scalar::U32 => (i + location + c) % 5,
                        };
                        word.to_le_bytes()
                    })
                })
                .collect();
            vertex_buffers.push((binding, 16, false, bytes));
            attributes.push((location, binding, format_of(v.ty.scalar), 0));
        }
    }
    let mut colors = Vec::new();
    for v in &fs.outputs {
        if v.ty.cols > 1 {
            return Err("a matrix fragment output".into());
        }
        for k in 0..v.ty.slots() {
            let at = (v.location + k) as usize;
            if colors.len() <= at {
                colors.resize(at + 1, None);
            }
            colors[at] = Some(Attachment {
                format: format_of(v.ty.scalar),
                texel_bytes: 16,
                mask: mask(v.ty.comps),
            });
        }
    }
    if colors.len() > 8 {
        return Err("more than 8 colour attachments".into());
    }
    Ok(Setup {
        vertex_buffers,
        attributes,
        descriptors,
        push: if vs.push || fs.push {
            data(99, 32)
        } else {
            Vec::new()
        },
        colors,
        vertices,
        instances,
    })
}

/// GLSL for the value of location `slot` written by the generated vertex shader: varying
/// with the vertex unless `constant`.
fn slot_value(ty: &Ty, slot: u32, constant: bool) -> String {
    let swizzle = &"xyzw"[..ty.comps as usize];
    let base = match ty.scalar {
        Scalar::F32 => {
            let s = if constant { "1.0" } else { "s" };
            format!("vec4(0.13 * {s} + 0.05 * {slot}.0, 0.9 - 0.21 * {s}, 0.31 * {slot}.0 - 0.4, 0.5 + 0.07 * {s})")
        }
        Scalar::I32 => {
            let v = if constant { "1" } else { "gl_VertexIndex" };
            format!("ivec4({v} + {slot}, {slot} - 3, 2 * {v} - {slot}, 7)")
        }
        Scalar::U32 => {
            let v = if constant { "1" } else { "gl_VertexIndex" };
            format!("uvec4({v} + {slot}, {slot} + 3, 2 * {v} + {slot}, 7)")
        }
    };
    let column = Ty {
        cols: 1,
        len: None,
        ..ty.clone()
    };
    format!("{}(({base}).{swizzle})", column.glsl())
}

/// The value the generated vertex shader writes to a variable (or block member) of `ty` at
/// location `first`.
fn value_of(ty: &Ty, first: u32, constant: bool) -> String {
    let element = |first: u32| {
        if ty.cols > 1 {
            let cols: Vec<String> = (0..ty.cols)
                .map(|c| slot_value(ty, first + c, constant))
                .collect();
            format!("{}({})", ty.glsl(), cols.join(", "))
        } else {
            slot_value(ty, first, constant)
        }
    };
    match ty.len {
        Some(l) => {
            let items: Vec<String> = (0..l).map(|i| element(first + i * ty.cols)).collect();
            format!("{}[{l}]({})", ty.glsl(), items.join(", "))
        }
        None => element(first),
    }
}

/// The expressions reading each location of a variable (or member) `at` of `ty`.
fn reads_of(ty: &Ty, at: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in 0..ty.len.unwrap_or(1) {
        for c in 0..ty.cols {
            let mut x = at.to_string();
            if ty.len.is_some() {
                x += &format!("[{e}]");
            }
            if ty.cols > 1 {
                x += &format!("[{c}]");
            }
            out.push(x);
        }
    }
    out
}

/// The declaration of variable number `n` as an `inout` ("in"/"out") of the generated shader,
/// with the expression naming each variable or member and its type.
fn declare(n: usize, v: &Var, inout: &str, decls: &mut String) -> Vec<(String, Ty)> {
    let array = |t: &Ty| t.len.map(|l| format!("[{l}]")).unwrap_or_default();
    match &v.members {
        None => {
            *decls += &format!(
                "layout(location = {}) {}{inout} {} v{n}{};\n",
                v.location,
                v.qualifiers(),
                v.ty.glsl(),
                array(&v.ty)
            );
            vec![(format!("v{n}"), v.ty.clone())]
        }
        Some(members) => {
            let fields: Vec<String> = members
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    let flat = if t.scalar == Scalar::F32 { "" } else { "flat " };
                    format!("{flat}{} m{j}{};", t.glsl(), array(t))
                })
                .collect();
            *decls += &format!(
                "layout(location = {}) {}{inout} Block{n} {{ {} }} b{n};\n",
                v.location,
                v.qualifiers(),
                fields.join(" ")
            );
            members
                .iter()
                .enumerate()
                .map(|(j, t)| (format!("b{n}.m{j}"), t.clone()))
                .collect()
        }
    }
}

/// A vertex shader covering most of the viewport with two triangles (six vertices) and writing
/// every input of `fs`; odd-numbered variables get constants.
fn vertex_for(fs: &Stage) -> String {
    let mut decls = String::new();
    let mut body = String::new();
    for (n, v) in fs.inputs.iter().enumerate() {
        let mut slot = v.location;
        for (at, ty) in declare(n, v, "out", &mut decls) {
            body += &format!("    {at} = {};\n", value_of(&ty, slot, n % 2 == 1));
            slot += ty.slots();
        }
    }
    format!(
        "#version 450
{decls}const vec2 corners[6] = vec2[6](vec2(-1, -1), vec2(1, -1), vec2(-1, 1), vec2(-1, 1), vec2(1, -1), vec2(1, 1));
void main() {{
    float s = float(gl_VertexIndex);
    gl_Position = vec4(corners[gl_VertexIndex % 6] * 0.9, 0.0, 1.0);
{body}}}
"
    )
}

/// A fragment shader writing each output location of `vs` (columns, elements and members
/// apart) to an attachment of its own, up to eight; the last variable is left unread with
/// `drop_last`.
fn fragment_for(vs: &Stage, drop_last: bool) -> String {
    let mut decls = String::new();
    let mut body = String::new();
    let mut attachment = 0;
    let read = if drop_last && vs.outputs.len() > 1 {
        vs.outputs.len() - 1
    } else {
        vs.outputs.len()
    };
    for (n, v) in vs.outputs.iter().take(read).enumerate() {
        for (at, ty) in declare(n, v, "in", &mut decls) {
            let column = Ty {
                cols: 1,
                len: None,
                ..ty.clone()
            };
            for x in reads_of(&ty, &at) {
                if attachment == 8 {
                    break;
                }
                decls += &format!(
                    "layout(location = {attachment}) out {} o{attachment};\n",
                    column.glsl()
                );
                body += &format!("    o{attachment} = {x};\n");
                attachment += 1;
            }
        }
    }
    format!("#version 450\n{decls}void main() {{\n{body}}}\n")
}

struct Pair {
    name: String,
    vs: Vec<u32>,
    fs: Vec<u32>,
    vs_entry: String,
    fs_entry: String,
    stages: (Stage, Stage),
    vertices: u32,
    instances: u32,
    /// Set for the fill the pair is drawn with.
    setup: Setup,
    /// Whether the pair is linked too (modules with one entry point each).
    link: bool,
}

fn draw(
    gpu: &Gpu,
    p: &Pair,
    vs: &[u32],
    fs: &[u32],
) -> Result<shaderstep::pipeline::gpu::Rendered, String> {
    let s = &p.setup;
    gpu.draw(&Draw {
        vs,
        fs,
        vs_entry: &p.vs_entry,
        fs_entry: &p.fs_entry,
        size: SIZE,
        vertex_buffers: s.vertex_buffers.clone(),
        attributes: s.attributes.clone(),
        descriptors: s.descriptors.clone(),
        push: s.push.clone(),
        colors: s.colors.clone(),
        vertices: s.vertices,
        instances: s.instances,
    })
}

/// Every pair the harness can draw, and the shaders it cannot with why.
fn pairs() -> (Vec<Pair>, Vec<String>) {
    let dir = temp_dir("graphics");
    let mut pairs = Vec::new();
    let mut skipped = Vec::new();
    // Linkage modules (imports left to resolve) are not shaders a driver can run.
    let mut shaders: Vec<(String, Vec<u32>)> = corpus()
        .into_iter()
        .filter(|s| !s.universal)
        .map(|s| {
            let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders/");
            (
                s.path
                    .display()
                    .to_string()
                    .trim_start_matches(root)
                    .to_string(),
                s.words,
            )
        })
        .collect();
    // Variants of one source (with and without -g) keep apart by number.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (name, _) in shaders.iter_mut() {
        let n = seen.entry(name.clone()).or_default();
        *n += 1;
        if *n > 1 {
            *name = format!("{name}#{n}");
        }
    }
    let real = |stem: &str| {
        let path = format!(
            "{}/tests/shaders/pipeline/{stem}",
            env!("CARGO_MANIFEST_DIR")
        );
        shaderstep::pipeline::input::load(std::path::Path::new(&path))
            .unwrap_or_else(|e| panic!("{e}"))
            .words
    };
    let add = |name: String,
               vs: Vec<u32>,
               fs: Vec<u32>,
               link: bool,
               skipped: &mut Vec<String>,
               pairs: &mut Vec<Pair>| {
        let stages = reflect(&vs, ExecutionModel::Vertex)
            .and_then(|v| Ok((v, reflect(&fs, ExecutionModel::Fragment)?)));
        let (vertices, instances) = if name.contains("(generated vertex)") {
            (6, 1)
        } else {
            (12, 2)
        };
        match stages.and_then(|(v, f)| Ok((setup(&v, &f, vertices, instances, mixed)?, v, f))) {
            Ok((setup, v, f)) => pairs.push(Pair {
                name,
                vs,
                fs,
                vs_entry: v.entry.clone(),
                fs_entry: f.entry.clone(),
                stages: (v, f),
                vertices,
                instances,
                setup,
                link,
            }),
            Err(e) => skipped.push(format!("{name}: {e}")),
        }
    };
    add(
        "pipeline/lit.vert + pipeline/lit.frag".into(),
        real("lit.vert"),
        real("lit.frag"),
        true,
        &mut skipped,
        &mut pairs,
    );
    for (n, (name, words)) in shaders.iter().enumerate() {
        let vertex = reflect(words, ExecutionModel::Vertex);
        let fragment = reflect(words, ExecutionModel::Fragment);
        if let (Ok(_), Ok(_)) = (&vertex, &fragment) {
            add(
                format!("{name} (both stages)"),
                words.clone(),
                words.clone(),
                false,
                &mut skipped,
                &mut pairs,
            );
        }
        match fragment {
            Ok(f) => {
                let vs = glslang(&dir, &format!("v{n}.vert"), &vertex_for(&f));
                add(
                    format!("{name} (generated vertex)"),
                    spv_words(&vs),
                    words.clone(),
                    true,
                    &mut skipped,
                    &mut pairs,
                );
            }
            Err(e) if !e.starts_with("no ") => skipped.push(format!("{name}: {e}")),
            Err(_) => {}
        }
        match vertex {
            Ok(v) => {
                for drop_last in [false, true] {
                    if drop_last && v.outputs.len() < 2 {
                        continue;
                    }
                    let fs = glslang(
                        &dir,
                        &format!("f{n}{}.frag", u8::from(drop_last)),
                        &fragment_for(&v, drop_last),
                    );
                    let which = if drop_last {
                        "one output unread"
                    } else {
                        "all outputs read"
                    };
                    add(
                        format!("{name} (generated fragment, {which})"),
                        words.clone(),
                        spv_words(&fs),
                        // Linking is checked where linking has an output to remove.
                        drop_last || v.outputs.len() < 2,
                        &mut skipped,
                        &mut pairs,
                    );
                }
            }
            Err(e) if !e.starts_with("no ") => skipped.push(format!("{name}: {e}")),
            Err(_) => {}
        }
    }
    (pairs, skipped)
}

/// For a preset after which a pair draws differently: the first of its passes after which it
/// does (each prefix of the preset lifted to SPIR-V and drawn), for the failure message.
fn first_pass(
    gpu: &Gpu,
    p: &Pair,
    before: &shaderstep::pipeline::gpu::Rendered,
    preset: &str,
) -> String {
    let Ok(pipeline) = Pipeline::preset(preset) else {
        return String::new();
    };
    let names = pipeline.names();
    for k in 2..names.len() {
        let mut prefix = names[..k].to_vec();
        if prefix.last() != Some(&"lift") {
            prefix.push("lift");
        }
        let run = |words: &[u32]| {
            Pipeline::from_names(&prefix)
                .ok()?
                .run(Arc::new(words.to_vec()))
                .output_words()
        };
        let (Some(vs), Some(fs)) = (run(&p.vs), run(&p.fs)) else {
            continue;
        };
        if draw(gpu, p, &vs, &fs).ok().as_ref() != Some(before) {
            return format!(" (from pass {} `{}` on)", k - 1, names[k - 1]);
        }
    }
    String::new()
}

/// Where two draws differ, for the failure message.
fn difference(
    before: &shaderstep::pipeline::gpu::Rendered,
    after: &shaderstep::pipeline::gpu::Rendered,
) -> String {
    let mut out = Vec::new();
    for (i, (a, b)) in before.colors.iter().zip(&after.colors).enumerate() {
        let texels = a
            .chunks(16)
            .zip(b.chunks(16))
            .filter(|(x, y)| x != y)
            .count();
        if let Some(t) = a.chunks(16).zip(b.chunks(16)).position(|(x, y)| x != y) {
            out.push(format!(
                "attachment {i}: {texels} texels differ, first at ({}, {})",
                t as u32 % SIZE.0,
                t as u32 / SIZE.0
            ));
        }
    }
    for (i, (a, b)) in before.buffers.iter().zip(&after.buffers).enumerate() {
        if let Some(at) = a.iter().zip(b).position(|(x, y)| x != y) {
            out.push(format!("storage buffer {i} from byte {at}"));
        }
    }
    if before.colors.len() != after.colors.len() {
        out.push("a different number of attachments".into());
    }
    out.join("; ")
}

#[test]
fn vertex_and_fragment_shaders_draw_the_same_after_every_preset_and_link() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let (mut pairs, mut skipped) = pairs();
    let mut failures = Vec::new();
    let (mut drawn, mut covered, mut preset_checks, mut link_checks) = (0, 0, 0, 0);
    let mut links_changed = 0;
    let mut uncovered = Vec::new();
    for p in &mut pairs {
        // The first fill with which the input draws something (or the last).
        let mut before = None;
        for (fill_name, data) in FILLS {
            let (v, f) = &p.stages;
            p.setup = setup(v, f, p.vertices, p.instances, data).expect("set up once already");
            match draw(&gpu, p, &p.vs, &p.fs) {
                Ok(b) => {
                    let covers = b.colors.iter().any(|c| c.iter().any(|&x| x != 0));
                    before = Some((b, covers, fill_name));
                    if covers {
                        break;
                    }
                }
                Err(e) => {
                    skipped.push(format!("{}: the input does not draw: {e}", p.name));
                    break;
                }
            }
        }
        let Some((before, covers, fill_name)) = before else {
            continue;
        };
        let p = &*p;
        drawn += 1;
        if covers {
            covered += 1;
            if fill_name != FILLS[0].0 {
                eprintln!("{} drawn with {fill_name} data", p.name);
            }
        } else {
            uncovered.push(p.name.clone());
        }
        let mut compare = |what: String, vs: Option<Vec<u32>>, fs: Option<Vec<u32>>| {
            let (Some(vs), Some(fs)) = (vs, fs) else {
                failures.push(format!("{}: {what} failed", p.name));
                return;
            };
            match draw(&gpu, p, &vs, &fs) {
                Ok(after) if after == before => {}
                Ok(after) => failures.push(format!(
                    "{}: after {what} the draw differs: {}{}",
                    p.name,
                    difference(&before, &after),
                    first_pass(&gpu, p, &before, &what)
                )),
                Err(e) => failures.push(format!("{}: after {what} it does not draw: {e}", p.name)),
            }
        };
        for preset in PRESETS {
            let run = |words: &[u32]| {
                Pipeline::preset(preset)
                    .unwrap()
                    .run(Arc::new(words.to_vec()))
                    .output_words()
            };
            compare(preset.to_string(), run(&p.vs), run(&p.fs));
            preset_checks += 1;
        }
        if !p.link {
            continue;
        }
        for preset in LINK_PRESETS {
            for order in [LinkOrder::FsFirst, LinkOrder::VsFirst] {
                let runs = Pipeline::preset(preset).unwrap().run_stages(
                    vec![
                        (Arc::new(p.vs.clone()), None),
                        (Arc::new(p.fs.clone()), None),
                    ],
                    &StageLink {
                        order,
                        compiled: None,
                        glue: None,
                    },
                );
                if runs.iter().any(|r| {
                    r.steps
                        .iter()
                        .any(|s| s.pass.starts_with("link") && s.changed)
                }) {
                    links_changed += 1;
                }
                let mut outputs = runs.iter().map(|r| r.output_words());
                compare(
                    format!("linking ({preset}, {order:?})"),
                    outputs.next().flatten(),
                    outputs.next().flatten(),
                );
                link_checks += 1;
            }
        }
    }
    eprintln!(
        "{drawn} vertex+fragment pairs drawn on {} ({covered} cover pixels): {preset_checks} preset runs, {link_checks} links compared ({links_changed} changed a stage)",
        gpu.name
    );
    for s in &skipped {
        eprintln!("skipped: {s}");
    }
    for s in &uncovered {
        eprintln!("draws nothing (checked all the same): {s}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(drawn >= 30, "only {drawn} pairs could be drawn");
    assert!(
        covered * 10 >= drawn * 9,
        "only {covered} of {drawn} pairs draw anything"
    );
    assert!(link_checks >= 60, "only {link_checks} links compared");
    assert!(
        links_changed >= 25,
        "only {links_changed} of {link_checks} links removed or forwarded anything"
    );
}

#[test]
fn a_wrong_fragment_shader_is_caught() {
    // The oracle must be able to fail: swap two components of the colour a real pair's fragment
    // half builds.
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let (pairs, _) = pairs();
    let p = pairs
        .iter()
        .find(|p| p.name.starts_with("pipeline/lit"))
        .unwrap();
    let mut m = shaderstep::ir::spirv::read::read_words(&p.fs).unwrap();
    let mut found = false;
    for f in m.functions_mut() {
        let build = f
            .layout()
            .map(|(_, i)| i)
            .find(|&i| f.inst(i).op == Op::CompositeConstruct);
        if let Some(build) = build {
            f.inst_mut(build).args.swap(0, 1);
            found = true;
            break;
        }
    }
    assert!(found);
    let wrong = shaderstep::ir::spirv::write::write_words(&m);
    let before = draw(&gpu, p, &p.vs, &p.fs).unwrap();
    let after = draw(&gpu, p, &p.vs, &wrong).unwrap();
    assert_ne!(before, after);
}
