//! What a pair of shaders needs to be drawn: the interface of an entry point (user-defined
//! inputs and outputs with their locations and types; buffers, images and samplers by set and
//! binding; push constants), read from its SPIR-V, and a `Setup` that feeds it — vertex
//! attributes, descriptors and push constants filled from fixed patterns, and a 32-bit colour
//! attachment per fragment output location, so that nothing is rounded away.
//!
//! Used by `:bisect run` on graphics pipelines and by the graphics meaning tests.

use std::collections::HashMap;

use ash::vk;
use rspirv::dr::{self, Operand};

use crate::ir::spirv::read;
use spirv::{Decoration, ExecutionModel, Op, StorageClass};

pub use super::images::{Dim, Image};
pub use super::Setup;
use super::{
    Attachment, Descriptor, Device, DeviceError, Draw, Rendered, Resource, BUFFER_SIZE,
    MAX_ARRAY_DESCRIPTORS, RUNTIME_ARRAY_BUFFERS,
};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scalar {
    #[default]
    F32,
    I32,
    U32,
}

/// A type of the shader interface: scalar, vector, matrix (`cols` > 1), a struct (`fields`
/// not empty: then `scalar`, `comps` and `cols` say nothing), or an array of one of those.
#[derive(Clone, Debug, Default)]
pub struct Ty {
    pub scalar: Scalar,
    pub comps: u32,
    pub cols: u32,
    pub len: Option<u32>,
    pub fields: Vec<Ty>,
}

impl Ty {
    /// A scalar, vector or matrix, or an array of them.
    pub fn new(scalar: Scalar, comps: u32, cols: u32, len: Option<u32>) -> Ty {
        Ty {
            scalar,
            comps,
            cols,
            len,
            fields: Vec::new(),
        }
    }

    /// Locations it takes (32-bit types only: one per column, element and field).
    pub fn slots(&self) -> u32 {
        self.len.unwrap_or(1) * self.element_slots()
    }

    fn element_slots(&self) -> u32 {
        if self.fields.is_empty() {
            self.cols
        } else {
            self.fields.iter().map(Ty::slots).sum()
        }
    }

    /// One element of an array (the type itself otherwise).
    pub fn element(&self) -> Ty {
        Ty {
            len: None,
            ..self.clone()
        }
    }

    /// The scalars and vectors it is made of, each with the indices that reach it, in
    /// location order: what one location holds.
    pub fn leaves(&self) -> Vec<(Vec<u32>, Ty)> {
        let mut out = Vec::new();
        let element = self.element();
        let inner: Vec<(Vec<u32>, Ty)> = if !element.fields.is_empty() {
            let mut inner = Vec::new();
            for (k, field) in element.fields.iter().enumerate() {
                for (mut path, leaf) in field.leaves() {
                    path.insert(0, k as u32);
                    inner.push((path, leaf));
                }
            }
            inner
        } else if element.cols > 1 {
            (0..element.cols)
                .map(|c| (vec![c], Ty::new(element.scalar, element.comps, 1, None)))
                .collect()
        } else {
            vec![(Vec::new(), element)]
        };
        match self.len {
            Some(len) => {
                for e in 0..len {
                    for (path, leaf) in &inner {
                        let mut path = path.clone();
                        path.insert(0, e);
                        out.push((path, leaf.clone()));
                    }
                }
            }
            None => out = inner,
        }
        out
    }
}

/// A user-defined input or output.
#[derive(Clone, Debug)]
pub struct Var {
    pub location: u32,
    /// The first component it takes at its location (its `Component` decoration, or 0).
    pub component: u32,
    /// The variable's type (a block's first member for a block).
    pub ty: Ty,
    /// The members of an interface block (or of a struct variable: `block` says which).
    pub members: Option<Vec<Ty>>,
    pub block: bool,
    pub flat: bool,
    pub noperspective: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Buffer {
        storage: bool,
    },
    Image(Image),
    Sampler,
    /// A top-level acceleration structure (ray queries): the harness builds a small scene.
    AccelerationStructure,
}

impl Kind {
    /// What one descriptor of this kind holds at first: `data` for buffers, the image's own
    /// pattern for images (both from `seed`).
    pub fn initial(&self, seed: u32, data: Fill) -> Resource {
        self.holding(match self {
            Kind::Buffer { .. } => data(seed, BUFFER_SIZE / 4),
            Kind::Image(image) => image.fill(seed),
            Kind::Sampler | Kind::AccelerationStructure => Vec::new(),
        })
    }

    /// A descriptor of this kind holding `bytes` (an image's texels, cut or padded to its
    /// size).
    pub fn holding(&self, mut bytes: Vec<u8>) -> Resource {
        match self {
            Kind::Buffer { storage } => Resource::Buffer {
                storage: *storage,
                bytes,
            },
            Kind::Image(image) => {
                bytes.resize(image.bytes(), 0);
                Resource::Image {
                    image: *image,
                    texels: bytes,
                }
            }
            Kind::Sampler => Resource::Sampler,
            Kind::AccelerationStructure => Resource::AccelerationStructure,
        }
    }
}

/// Said to a person: "a storage buffer", "an arrayed combined image sampler of floats".
impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kind::Buffer { storage: true } => f.write_str("a storage buffer"),
            Kind::Buffer { storage: false } => f.write_str("a uniform buffer"),
            Kind::Sampler => f.write_str("a sampler"),
            Kind::AccelerationStructure => f.write_str("an acceleration structure"),
            Kind::Image(image) => image.fmt(f),
        }
    }
}

/// What one entry point of a module reads and writes.
#[derive(Clone, Debug)]
pub struct Stage {
    pub entry: String,
    pub inputs: Vec<Var>,
    pub outputs: Vec<Var>,
    /// (set, binding, count, kind).
    pub resources: Vec<(u32, u32, u32, Kind)>,
    pub push: bool,
}

/// What reflection reads of a module: its instructions outside functions, as rspirv spells
/// them, by section.
pub struct Globals {
    pub entry_points: Vec<dr::Instruction>,
    pub annotations: Vec<dr::Instruction>,
    /// Types, constants and global variables.
    pub types_global_values: Vec<dr::Instruction>,
    /// Every id an instruction in a function uses: a resource outside it is bound by nothing
    /// that runs (HLSL's unused resources may even share a binding with a used one).
    pub used: std::collections::HashSet<u32>,
}

impl Globals {
    /// Reads `words` with the reader (so reflection reads whatever it does, in the sections it
    /// lays out) and keeps what is outside functions.
    pub fn read(words: &[u32]) -> Result<Self, String> {
        let m = read::read_words(words).map_err(|e| e.to_string())?;
        let dr =
            |i: &crate::ir::Inst| dr::Instruction::new(i.op(), i.ty(), i.result(), i.to_operands());
        Ok(Globals {
            entry_points: m.entry_points().iter().map(dr).collect(),
            annotations: ungrouped(m.annotations().iter().map(dr).collect()),
            // Non-semantic info says nothing of the interface.
            types_global_values: m
                .globals()
                .iter()
                .filter(|g| !matches!(g.op(), Op::ExtInst | Op::Line | Op::NoLine))
                .map(dr)
                .collect(),
            used: m
                .functions()
                .iter()
                .flat_map(|f| f.insts())
                .flat_map(|i| i.args().iter().copied())
                .collect(),
        })
    }
}

/// `annotations` with decoration groups applied: each `OpGroupDecorate` (and
/// `OpGroupMemberDecorate`) becomes the decorations of its group, on each target.
pub fn ungrouped(annotations: Vec<dr::Instruction>) -> Vec<dr::Instruction> {
    let of_group = |group: u32| {
        annotations
            .iter()
            .filter(move |a| {
                matches!(a.class.opcode, Op::Decorate)
                    && matches!(a.operands.first(), Some(Operand::IdRef(g)) if *g == group)
            })
            .map(|a| a.operands[1..].to_vec())
    };
    let mut out = Vec::new();
    for a in &annotations {
        match (a.class.opcode, a.operands.split_first()) {
            (Op::GroupDecorate, Some((Operand::IdRef(group), targets))) => {
                for t in targets {
                    for rest in of_group(*group) {
                        let mut operands = vec![t.clone()];
                        operands.extend(rest);
                        out.push(dr::Instruction::new(Op::Decorate, None, None, operands));
                    }
                }
            }
            (Op::GroupMemberDecorate, Some((Operand::IdRef(group), pairs))) => {
                for pair in pairs.chunks(2) {
                    for rest in of_group(*group) {
                        let mut operands = pair.to_vec();
                        operands.extend(rest);
                        out.push(dr::Instruction::new(
                            Op::MemberDecorate,
                            None,
                            None,
                            operands,
                        ));
                    }
                }
            }
            _ => out.push(a.clone()),
        }
    }
    out
}

pub struct Reflect<'a> {
    pub defs: HashMap<u32, &'a dr::Instruction>,
    pub decorations: Vec<(u32, Decoration, Option<u32>)>,
    pub builtin_structs: Vec<u32>,
}

pub fn lit(o: Option<&Operand>) -> Option<u32> {
    match o {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    }
}

pub fn id(o: Option<&Operand>) -> Option<u32> {
    match o {
        Some(Operand::IdRef(v)) => Some(*v),
        _ => None,
    }
}

impl<'a> Reflect<'a> {
    pub fn new(m: &'a Globals) -> Self {
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

    pub fn decoration(&self, target: u32, d: Decoration) -> Option<Option<u32>> {
        self.decorations
            .iter()
            .find(|(t, x, _)| *t == target && *x == d)
            .map(|(_, _, v)| *v)
    }

    pub fn def(&self, id: u32) -> Result<&'a dr::Instruction, String> {
        self.defs
            .get(&id)
            .copied()
            .ok_or_else(|| format!("%{id} is not a global"))
    }

    /// A constant's value; a specialization constant's default (runs do not specialize).
    pub fn constant(&self, id: u32) -> Result<u32, String> {
        let c = self.def(id)?;
        match (c.class.opcode, lit(c.operands.first())) {
            (Op::Constant | Op::SpecConstant, Some(v)) => Ok(v),
            _ => Err("an array whose length is an operation on specialization constants".into()),
        }
    }

    pub fn ty(&self, ty: u32) -> Result<Ty, String> {
        let t = self.def(ty)?;
        let o = &t.operands;
        let scalar = |scalar| Ty::new(scalar, 1, 1, None);
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
            Op::TypeStruct => {
                let fields = o
                    .iter()
                    .map(|f| self.ty(id(Some(f)).unwrap_or(0)))
                    .collect::<Result<Vec<Ty>, String>>()?;
                if fields.is_empty() {
                    return Err("an empty struct in the interface".into());
                }
                Ok(Ty {
                    fields,
                    ..Ty::new(Scalar::F32, 1, 1, None)
                })
            }
            other => Err(format!("{other:?} (not 32-bit) in the interface")),
        }
    }

    /// The pointee of a pointer type, with the storage class.
    pub fn pointee(&self, ptr: u32) -> Result<(StorageClass, u32), String> {
        match self.def(ptr)?.operands.as_slice() {
            [Operand::StorageClass(c), Operand::IdRef(p)] => Ok((*c, *p)),
            _ => Err(format!("%{ptr} is not a pointer type")),
        }
    }

    pub fn is_builtin(&self, var: u32, pointee: u32) -> bool {
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

    pub fn var(&self, var: u32, pointee: u32) -> Result<Var, String> {
        let component = self
            .decoration(var, Decoration::Component)
            .flatten()
            .unwrap_or(0);
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
            component,
            ty: match &members {
                Some(m) => m.first().cloned().ok_or("an empty block")?,
                None => self.ty(pointee)?,
            },
            block: members.is_some() && self.decoration(pointee, Decoration::Block).is_some(),
            members,
            flat: self.decoration(var, Decoration::Flat).is_some(),
            noperspective: self.decoration(var, Decoration::NoPerspective).is_some(),
        })
    }

    pub fn resource(&self, class: StorageClass, pointee: u32) -> Result<(u32, Kind), String> {
        let mut t = self.def(pointee)?;
        let mut count = 1;
        match t.class.opcode {
            Op::TypeArray => {
                count = self.constant(id(t.operands.get(1)).unwrap_or(0))?;
                if count == 0 || u64::from(count) > MAX_ARRAY_DESCRIPTORS {
                    return Err("an array of more than 64 descriptors".into());
                }
                t = self.def(id(t.operands.first()).unwrap_or(0))?;
            }
            Op::TypeRuntimeArray => {
                count = RUNTIME_ARRAY_BUFFERS;
                t = self.def(id(t.operands.first()).unwrap_or(0))?;
            }
            _ => {}
        }
        if matches!(t.class.opcode, Op::TypeArray | Op::TypeRuntimeArray) {
            return Err("an array of arrays of descriptors".into());
        }
        let kind = match (class, t.class.opcode) {
            (StorageClass::UniformConstant, Op::TypeSampler) => Kind::Sampler,
            (StorageClass::UniformConstant, Op::TypeAccelerationStructureKHR) => {
                Kind::AccelerationStructure
            }
            (StorageClass::UniformConstant, Op::TypeSampledImage | Op::TypeImage) => {
                let combined = t.class.opcode == Op::TypeSampledImage;
                let image = if combined {
                    self.def(id(t.operands.first()).unwrap_or(0))?
                } else {
                    t
                };
                let o = &image.operands;
                let dim = match o.get(1) {
                    Some(Operand::Dim(spirv::Dim::Dim1D)) => Dim::D1,
                    Some(Operand::Dim(spirv::Dim::Dim2D)) => Dim::D2,
                    Some(Operand::Dim(spirv::Dim::Dim3D)) => Dim::D3,
                    Some(Operand::Dim(spirv::Dim::DimCube)) => Dim::Cube,
                    Some(Operand::Dim(spirv::Dim::DimBuffer)) => Dim::Buffer,
                    // Its index is the variable's: `reflect` puts it in.
                    Some(Operand::Dim(spirv::Dim::DimSubpassData)) => Dim::Subpass(0),
                    Some(Operand::Dim(other)) => return Err(format!("a {other:?} image")),
                    _ => return Err("an image of unknown shape".into()),
                };
                let depth = lit(o.get(2)) == Some(1);
                let multisampled = lit(o.get(4)) == Some(1);
                // Input attachments are declared `Sampled` 2 too, and are not storage images.
                let storage = lit(o.get(5)) == Some(2) && !matches!(dim, Dim::Subpass(_));
                if multisampled && (storage || depth) {
                    return Err(if storage {
                        "a multisampled storage image".into()
                    } else {
                        "a multisampled depth image".into()
                    });
                }
                if multisampled && matches!(dim, Dim::Subpass(_)) {
                    return Err("a multisampled input attachment".into());
                }
                if depth && (storage || dim == Dim::Buffer) {
                    return Err("a depth image read without a sampler".into());
                }
                let arrayed = lit(o.get(3)) == Some(1);
                if arrayed && dim == Dim::D3 {
                    return Err("an arrayed 3D image".into());
                }
                // 64-bit integer images (`R64ui`, `R64i`) take their declared format; their
                // scalar only names them.
                let sampled = self.def(id(o.first()).unwrap_or(0))?;
                let scalar = match (sampled.class.opcode, lit(sampled.operands.first())) {
                    (Op::TypeInt, Some(64)) if lit(sampled.operands.get(1)) == Some(1) => {
                        Scalar::I32
                    }
                    (Op::TypeInt, Some(64)) => Scalar::U32,
                    _ => self.ty(id(o.first()).unwrap_or(0))?.scalar,
                };
                Kind::Image(Image {
                    scalar,
                    dim,
                    arrayed,
                    storage,
                    combined,
                    depth,
                    multisampled,
                    format: match o.get(6) {
                        Some(Operand::ImageFormat(f)) => *f,
                        _ => spirv::ImageFormat::Unknown,
                    },
                })
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
pub fn reflect(words: &[u32], model: ExecutionModel) -> Result<Stage, String> {
    reflect_entry(words, model, None)
}

/// `reflect` of the `model` entry point called `name` when there is one, else of the first.
pub fn reflect_entry(
    words: &[u32],
    model: ExecutionModel,
    name: Option<&str>,
) -> Result<Stage, String> {
    let m = Globals::read(words)?;
    let r = Reflect::new(&m);
    let of_model = |e: &&dr::Instruction| matches!(e.operands.first(), Some(Operand::ExecutionModel(x)) if *x == model);
    let named = |e: &&dr::Instruction| matches!(e.operands.get(2), Some(Operand::LiteralString(n)) if Some(n.as_str()) == name);
    let entry = m
        .entry_points
        .iter()
        .filter(of_model)
        .find(named)
        .or_else(|| m.entry_points.iter().find(of_model))
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
                // An empty block carries nothing between stages.
                let empty = r
                    .def(pointee)
                    .is_ok_and(|t| t.class.opcode == Op::TypeStruct && t.operands.is_empty());
                if !interface.contains(&var) || r.is_builtin(var, pointee) || empty {
                    continue;
                }
                let v = r.var(var, pointee)?;
                if class == StorageClass::Input {
                    stage.inputs.push(v);
                } else {
                    stage.outputs.push(v);
                }
            }
            StorageClass::Uniform | StorageClass::StorageBuffer | StorageClass::UniformConstant
                if !m.used.contains(&var) && !interface.contains(&var) => {}
            StorageClass::Uniform | StorageClass::StorageBuffer | StorageClass::UniformConstant => {
                let (count, kind) = r.resource(class, pointee)?;
                let set = r.decoration(var, Decoration::DescriptorSet).flatten();
                let binding = r.decoration(var, Decoration::Binding).flatten();
                let (Some(set), Some(binding)) = (set, binding) else {
                    return Err("a resource without a set or binding".into());
                };
                let mut kind = kind;
                if let Kind::Image(Image {
                    dim: Dim::Subpass(index),
                    ..
                }) = &mut kind
                {
                    *index = r
                        .decoration(var, Decoration::InputAttachmentIndex)
                        .flatten()
                        .ok_or("an input attachment without an index")?;
                }
                stage.resources.push((set, binding, count, kind));
            }
            StorageClass::PushConstant => stage.push = true,
            StorageClass::PhysicalStorageBuffer => return Err("buffer addresses".into()),
            _ => {}
        }
    }
    Ok(stage)
}

/// The resources of one or more stages, one per binding. A sampled image and a sampler at the
/// same binding share a combined image sampler, as Vulkan allows, and images of one shape
/// share the first one's format; other kinds cannot share.
pub fn merged<'a>(
    all: impl Iterator<Item = &'a (u32, u32, u32, Kind)>,
) -> Result<Vec<(u32, u32, u32, Kind)>, String> {
    let mut resources: Vec<(u32, u32, u32, Kind)> = Vec::new();
    for r in all {
        let Some(x) = resources.iter_mut().find(|x| (x.0, x.1) == (r.0, r.1)) else {
            resources.push(r.clone());
            continue;
        };
        match (&x.3, &r.3) {
            (a, b) if a == b && x.2 == r.2 => {}
            (Kind::Image(image), Kind::Sampler) | (Kind::Sampler, Kind::Image(image))
                if !image.storage && image.dim != Dim::Buffer && x.2 == r.2 =>
            {
                x.3 = Kind::Image(Image {
                    combined: true,
                    ..*image
                })
            }
            // Views of one shape read as different types (HLSL's aliased resources): the
            // first one's format for both.
            (Kind::Image(a), Kind::Image(b))
                if (a.dim, a.arrayed, a.storage, a.depth, a.multisampled)
                    == (b.dim, b.arrayed, b.storage, b.depth, b.multisampled)
                    && x.2 == r.2 =>
            {
                x.3 = Kind::Image(Image {
                    combined: a.combined || b.combined,
                    ..*a
                })
            }
            _ => {
                return Err(format!(
                    "set {} binding {} holds {} and {} (Vulkan binds one kind there)",
                    r.0, r.1, x.3, r.3
                ))
            }
        }
    }
    Ok(resources)
}

/// Makes `words` words of buffer data from a seed.
pub type Fill = fn(u32, usize) -> Vec<u8>;

/// Small integers every fourth word (counts and indices), floats in [-1.5, 1.5] elsewhere.
pub fn mixed(seed: u32, words: usize) -> Vec<u8> {
    fill(seed, words, |small| 0.25 * small as f32 - 1.5)
}

/// As `mixed` with floats in [0.25, 1]: matrices made of these keep more vertices in view.
pub fn gentle(seed: u32, words: usize) -> Vec<u8> {
    fill(seed, words, |small| 0.25 + small as f32 / 16.0)
}

pub fn fill(seed: u32, words: usize, float: fn(u32) -> f32) -> Vec<u8> {
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
pub fn identity(seed: u32, words: usize) -> Vec<u8> {
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
pub const FILLS: [(&str, Fill); 3] = [("mixed", mixed), ("gentle", gentle), ("identity", identity)];

/// Every word zero: the fill tried last, when the driver crashed on every other. Shaders
/// that index arrays of descriptors with values read from their inputs read index 0 then,
/// which every array has; the patterns' values can be past an array's end (undefined
/// behaviour, which lavapipe 25 answers with a segfault).
pub fn zeros(_seed: u32, words: usize) -> Vec<u8> {
    vec![0; words * 4]
}

pub const ZEROS: (&str, Fill) = ("zero", zeros);

pub fn format_of(scalar: Scalar) -> vk::Format {
    match scalar {
        Scalar::F32 => vk::Format::R32G32B32A32_SFLOAT,
        Scalar::I32 => vk::Format::R32G32B32A32_SINT,
        Scalar::U32 => vk::Format::R32G32B32A32_UINT,
    }
}

pub fn mask(comps: u32) -> vk::ColorComponentFlags {
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

pub const SIZE: (u32, u32) = super::images::FRAMEBUFFER;

pub fn setup(
    vs: &Stage,
    fs: &Stage,
    vertices: u32,
    instances: u32,
    data: Fill,
) -> Result<Setup, String> {
    let resources = merged(vs.resources.iter().chain(&fs.resources))?;
    let descriptors = resources
        .into_iter()
        .map(|(set, binding, count, kind)| Descriptor {
            set,
            binding,
            elements: (0..count)
                .map(|k| kind.initial(set * 16 + binding + k * 257, data))
                .collect(),
        })
        .collect();
    // One binding per attribute location, 16 bytes per vertex.
    let mut vertex_buffers = Vec::new();
    let mut attributes = Vec::new();
    if vs
        .inputs
        .iter()
        .chain(&fs.outputs)
        .any(|v| v.members.is_some() || !v.ty.fields.is_empty())
    {
        return Err("a block or struct of vertex inputs or fragment outputs".into());
    }
    // Attributes and attachments are set up whole, one per location, with four components:
    // variables at components of one location (`Component`) share it.
    for v in &vs.inputs {
        for k in 0..v.ty.slots() {
            let location = v.location + k;
            if attributes
                .iter()
                .any(|a: &(u32, u32, vk::Format, u32)| a.0 == location)
            {
                continue;
            }
            let binding = vertex_buffers.len() as u32;
            let bytes = (0..vertices)
                .flat_map(|i| {
                    (0..4u32).flat_map(move |c| {
                        let word = match v.ty.scalar {
                            Scalar::F32 if c == 3 => 1.0f32.to_bits(),
                            Scalar::F32 => {
                                (((i * 7 + location * 3 + c * 5) % 17) as f32 / 8.0 - 1.0).to_bits()
                            }
                            Scalar::I32 => (((i + location + c) % 5) as i32 - 1) as u32,
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
            let components = mask(v.ty.comps + v.component) & !mask(v.component);
            colors[at] = Some(Attachment {
                format: format_of(v.ty.scalar),
                texel_bytes: 16,
                mask: colors[at].map_or(components, |a: Attachment| a.mask | components),
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
            // 256 bytes, so that every block lavapipe allows (256) is defined: the pattern
            // in the 128 Vulkan guarantees, zeros after (a count or index there, such as a
            // skinning shader's joint offset, keeps the draw where the pattern would not).
            let mut push = data(99, 32);
            push.resize(256, 0);
            push
        } else {
            Vec::new()
        },
        colors,
        vertices,
        instances,
    })
}

impl Setup {
    /// Draws `vs` and `fs` (entry points `vs_entry`, `fs_entry`) with this setup.
    pub fn draw(
        &self,
        gpu: &dyn Device,
        (vs, vs_entry): (&[u32], &str),
        (fs, fs_entry): (&[u32], &str),
        limit: std::time::Duration,
    ) -> Result<Rendered, DeviceError> {
        gpu.draw_limited(
            &Draw {
                vs,
                fs,
                vs_entry,
                fs_entry,
                size: SIZE,
                setup: self,
            },
            limit,
        )
    }
}

/// Whether a draw wrote anything into its attachments (all-zero bits is the clear value).
pub fn covers(r: &Rendered) -> bool {
    r.colors.iter().any(|c| c.iter().any(|&x| x != 0))
}

/// Where two draws differ: the first attachment, texel and components that do.
pub fn difference(before: &Rendered, after: &Rendered) -> Option<String> {
    if before.colors.len() != after.colors.len() {
        return Some("a different number of attachments".into());
    }
    for (i, (a, b)) in before.colors.iter().zip(&after.colors).enumerate() {
        let Some(t) = a.chunks(16).zip(b.chunks(16)).position(|(x, y)| x != y) else {
            continue;
        };
        let texels = a
            .chunks(16)
            .zip(b.chunks(16))
            .filter(|(x, y)| x != y)
            .count();
        let words = |c: &[u8]| -> Vec<String> {
            c[t * 16..t * 16 + 16]
                .chunks(4)
                .map(|w| format!("{:#x}", u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
                .collect()
        };
        return Some(format!(
            "attachment {i}, texel ({}, {}): [{}] → [{}] ({texels} texels differ)",
            t as u32 % SIZE.0,
            t as u32 / SIZE.0,
            words(a).join(", "),
            words(b).join(", ")
        ));
    }
    for (i, (a, b)) in before.buffers.iter().zip(&after.buffers).enumerate() {
        if let Some(at) = a.iter().zip(b).position(|(x, y)| x != y) {
            return Some(format!("storage buffer {i} from byte {at}"));
        }
    }
    None
}

#[cfg(test)]
mod kind_tests {
    use super::{Kind, Scalar};

    /// What a refusal names is said in words, not as Rust's debug output.
    #[test]
    fn kinds_are_said_in_words() {
        let image = Kind::Image(super::Image {
            scalar: Scalar::F32,
            dim: super::Dim::D2,
            arrayed: true,
            storage: false,
            combined: true,
            depth: false,
            multisampled: false,
            format: spirv::ImageFormat::Unknown,
        });
        assert_eq!(
            image.to_string(),
            "an arrayed combined image sampler of floats"
        );
        assert_eq!(
            Kind::Buffer { storage: false }.to_string(),
            "a uniform buffer"
        );
        assert_eq!(Kind::Sampler.to_string(), "a sampler");
    }
}
