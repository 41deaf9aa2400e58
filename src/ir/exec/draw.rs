//! Draws: a vertex and a fragment stage run as the driver harness draws them — a triangle
//! list of `vertices` vertices, `instances` times, into 32-bit colour attachments of
//! `size`, no depth test, no blending, no culling.
//!
//! - Every vertex runs, its inputs read from the attributes at their locations (four 32-bit
//!   components a vertex) and `VertexIndex`/`InstanceIndex` given.
//! - Each triangle is rasterized (`raster`) and its fragments run as 2×2 quads, pixels the
//!   triangle does not cover as helper invocations, so derivatives work everywhere it draws.
//!   A fragment's inputs are the vertex outputs at the same location and component,
//!   interpolated at the pixel's centre: perspective-correct, `NoPerspective` linearly,
//!   `Flat` and integers from the triangle's first vertex (Vulkan's provoking vertex).
//! - What a fragment writes goes to its attachment's texel; later triangles write over
//!   earlier ones (primitive order). A fragment killed, demoted or a helper writes nothing;
//!   a component written with an undefined value, or not written at all, is undefined.
//!
//! Both stages see the same buffers: the fragment stage starts from what the vertex stage
//! left.

use std::fmt;

use rspirv::dr::Operand;
use spirv::{BuiltIn, Decoration, ExecutionModel, StorageClass};

use super::super::consts::{Const, Consts, Scalar, Shape};
use super::super::fxhash::FxHashMap;
use super::super::inst::Id;
use super::super::module::Module;
use super::super::ops::fold::Value as V;
use super::images::{f32c as float, int};
use super::raster;
use super::{Buffer, Execution, Inputs, Invocation, Machine, Mem, Options, Refusal, State, Value};

/// The vertex attribute at a location: four 32-bit components a vertex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    pub location: u32,
    pub bytes: Vec<u8>,
}

/// What a draw reads and where it draws.
#[derive(Clone, Debug, Default)]
pub struct DrawInputs {
    pub buffers: Vec<Buffer>,
    pub push_constants: Vec<u8>,
    pub images: Vec<super::Image>,
    pub samplers: Vec<super::SamplerBinding>,
    /// Bindings the caller could not describe, with why (as `Inputs::unsupported`).
    pub unsupported: Vec<(u32, u32, String)>,
    pub attributes: Vec<Attribute>,
    pub vertices: u32,
    pub instances: u32,
    pub size: (u32, u32),
    /// The colour attachments by location: which of the four components (bits 0 to 3) the
    /// pipeline writes; 0 where there is none.
    pub attachments: Vec<u8>,
}

/// A colour attachment after a draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Attachment {
    /// Four words a texel, row by row; `None` where the value is undefined.
    pub words: Vec<Option<u32>>,
    /// Whether the fragment stage writes floats there.
    pub float: bool,
}

/// Whose an invocation of a vertex or fragment stage is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Vertex {
        index: u32,
        instance: u32,
    },
    Fragment {
        x: u32,
        y: u32,
        /// The triangle's number in the draw (instances one after the other).
        triangle: u32,
        helper: bool,
    },
}

impl fmt::Display for Who {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Who::Vertex { index, instance: 0 } => write!(f, "vertex {index}"),
            Who::Vertex { index, instance } => write!(f, "vertex {index} of instance {instance}"),
            Who::Fragment {
                x,
                y,
                triangle,
                helper,
            } => {
                write!(f, "pixel {x},{y} of triangle {triangle}")?;
                if helper {
                    f.write_str(" (helper)")?;
                }
                Ok(())
            }
        }
    }
}

/// What a draw did: each stage's run and the attachments.
#[derive(Clone, Debug)]
pub struct DrawExecution {
    pub vertex: Execution,
    pub fragment: Execution,
    /// By location, as `DrawInputs::attachments` (empty where there is no attachment).
    pub attachments: Vec<Attachment>,
}

impl DrawExecution {
    /// The fragment invocation that wrote pixel (x, y) last, else the first that ran there.
    pub fn pixel(&self, x: u32, y: u32) -> Option<u32> {
        let at = |helper_ok: bool| {
            self.fragment.who.iter().rposition(|w| {
                matches!(*w, Who::Fragment { x: px, y: py, helper, .. } if (px, py) == (x, y) && (helper_ok || !helper))
            })
        };
        at(false).or_else(|| at(true)).map(|k| k as u32)
    }

    /// Whether the draw wrote anything other than zeros (the clear value).
    pub fn covers(&self) -> bool {
        self.attachments
            .iter()
            .any(|a| a.words.iter().any(|w| w.is_some_and(|w| w != 0)))
    }
}

/// Where a variable of a stage's interface carries its scalars: each leaf's path in the
/// variable, location and component; or a built-in.
#[derive(Clone, Debug)]
struct Slot {
    path: Vec<u32>,
    location: u32,
    component: u32,
    scalar: Scalar,
    flat: bool,
    linear: bool,
}

#[derive(Clone)]
struct Var {
    id: Id,
    pointee: Id,
    /// Its initializer (an output may have one).
    init: Option<Id>,
    builtin: Option<BuiltIn>,
    /// Members that are built-ins (`gl_PerVertex`).
    member_builtins: Vec<(u32, BuiltIn)>,
    slots: Vec<Slot>,
}

/// The value of input slot `s` at `p` of triangle `tri`: the provoking vertex's where it is
/// flat (integers always are), else the corners' weighted by `p`'s barycentric coordinates.
fn interpolated(s: &Slot, tri: &[VertexOut], p: &raster::Pixel) -> Option<Const> {
    let corner = |v: &VertexOut| v.values.get(&(s.location, s.component)).cloned().flatten();
    if s.flat || !matches!(s.scalar, Scalar::Float { .. }) {
        return corner(tri.first()?);
    }
    let b = if s.linear { p.linear } else { p.perspective };
    let mut sum = 0.0;
    for (k, v) in tri.iter().enumerate() {
        match corner(v)? {
            Const::Scalar(V::Float { value, .. }) => sum += b[k] * value,
            _ => return None,
        }
    }
    Some(float(sum))
}

/// The floats a composite constant is made of; `None` for anything else.
fn float_parts(c: &Const) -> Option<Vec<f64>> {
    match c {
        Const::Composite(parts) => parts
            .iter()
            .map(|p| match p {
                Const::Scalar(V::Float { value, .. }) => Some(*value),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// What a fragment stage's `InterpolateAt*` needs: its inputs, the vertices the draw
/// placed and the framebuffer's size.
pub(super) struct Interpolation {
    ins: Vec<Var>,
    vertices: Vec<VertexOut>,
    size: (u32, u32),
}

/// The entry point's input and output variables.
fn interface(machine: &Machine, class: StorageClass) -> Result<Vec<Var>, Refusal> {
    let m = machine.m;
    let mut out = Vec::new();
    for g in m.globals() {
        let (Some(id), Some(ty)) = (g.result(), g.ty()) else {
            continue;
        };
        if g.op() != spirv::Op::Variable || !machine.interface.contains(&id) {
            continue;
        }
        let Some((c, pointee)) = super::super::types::pointer_type(m, ty) else {
            continue;
        };
        if c != class {
            continue;
        }
        let decorations = decorations(m, id, None);
        let member_builtins: Vec<(u32, BuiltIn)> = (0..members(&machine.consts, pointee))
            .filter_map(|k| {
                decorations_builtin(&self::decorations(m, pointee, Some(k))).map(|b| (k, b))
            })
            .collect();
        let builtin = decorations_builtin(&decorations);
        let mut slots = Vec::new();
        // A fragment output of index 1 is the second source of dual-source blending, not an
        // attachment's.
        let second_source = find(&decorations, Decoration::Index).is_some_and(|i| i > 0);
        if builtin.is_none() && member_builtins.is_empty() && !second_source {
            let location = find(&decorations, Decoration::Location)
                .ok_or_else(|| Refusal(format!("the {class:?} variable %{id} has no location")))?;
            let component = find(&decorations, Decoration::Component).unwrap_or(0);
            let mut walk = Walk {
                m,
                consts: &machine.consts,
                slots: &mut slots,
                path: Vec::new(),
                location,
            };
            walk.ty(
                pointee,
                component,
                has(&decorations, Decoration::Flat),
                has(&decorations, Decoration::NoPerspective),
            )?;
        }
        out.push(Var {
            id,
            pointee,
            init: g.arg(0),
            builtin,
            member_builtins,
            slots,
        });
    }
    Ok(out)
}

fn members(consts: &Consts, ty: Id) -> u32 {
    match consts.shape(ty) {
        Some(Shape::Struct(m)) => m.len() as u32,
        _ => 0,
    }
}

/// The literal decorations of `id` (of its member `member`).
fn decorations(m: &Module, id: Id, member: Option<u32>) -> Vec<(Decoration, Option<u32>)> {
    m.decorations_of(id)
        .filter_map(|d| {
            let lits = d.lits();
            let (k, rest) = match (member, d.op()) {
                (None, spirv::Op::Decorate) => (None, lits),
                (Some(_), spirv::Op::MemberDecorate) => match lits.split_first() {
                    Some((Operand::LiteralBit32(k), rest)) => (Some(*k), rest),
                    _ => return None,
                },
                _ => return None,
            };
            if k != member {
                return None;
            }
            match rest {
                [Operand::Decoration(d), Operand::LiteralBit32(v), ..] => Some((*d, Some(*v))),
                [Operand::Decoration(Decoration::BuiltIn), Operand::BuiltIn(b)] => {
                    Some((Decoration::BuiltIn, Some(*b as u32)))
                }
                [Operand::Decoration(d)] => Some((*d, None)),
                _ => None,
            }
        })
        .collect()
}

fn find(ds: &[(Decoration, Option<u32>)], d: Decoration) -> Option<u32> {
    ds.iter().find(|x| x.0 == d).and_then(|x| x.1)
}

fn has(ds: &[(Decoration, Option<u32>)], d: Decoration) -> bool {
    ds.iter().any(|x| x.0 == d)
}

fn decorations_builtin(ds: &[(Decoration, Option<u32>)]) -> Option<BuiltIn> {
    find(ds, Decoration::BuiltIn).and_then(BuiltIn::from_u32)
}

/// Assigns locations and components to the leaves of a type, as Vulkan's interface rules do.
struct Walk<'a> {
    m: &'a Module,
    consts: &'a Consts,
    slots: &'a mut Vec<Slot>,
    path: Vec<u32>,
    location: u32,
}

impl Walk<'_> {
    fn ty(&mut self, ty: Id, component: u32, flat: bool, linear: bool) -> Result<(), Refusal> {
        let shape = self
            .consts
            .shape(ty)
            .cloned()
            .ok_or_else(|| Refusal(format!("the interface type %{ty} is not run yet")))?;
        match shape {
            Shape::Scalar(s) => {
                self.scalar(s, component, flat, linear)?;
                self.location += 1;
            }
            Shape::Vector { elem, n } => {
                let Some(Shape::Scalar(s)) = self.consts.shape(elem).cloned() else {
                    return Err(Refusal("a vector of no scalar".into()));
                };
                for k in 0..n {
                    self.path.push(k);
                    self.scalar(s, component + k, flat, linear)?;
                    self.path.pop();
                }
                self.location += 1;
            }
            Shape::Matrix { column, n } | Shape::Array { elem: column, n } => {
                for k in 0..n {
                    self.path.push(k);
                    self.ty(column, component, flat, linear)?;
                    self.path.pop();
                }
            }
            Shape::Struct(members) => {
                for (k, &member) in members.iter().enumerate() {
                    let ds = decorations(self.m, ty, Some(k as u32));
                    if let Some(l) = find(&ds, Decoration::Location) {
                        self.location = l;
                    }
                    self.path.push(k as u32);
                    self.ty(
                        member,
                        find(&ds, Decoration::Component).unwrap_or(0),
                        flat || has(&ds, Decoration::Flat),
                        linear || has(&ds, Decoration::NoPerspective),
                    )?;
                    self.path.pop();
                }
            }
        }
        Ok(())
    }

    fn scalar(
        &mut self,
        s: Scalar,
        component: u32,
        flat: bool,
        linear: bool,
    ) -> Result<(), Refusal> {
        let width = match s {
            Scalar::Int { width, .. } | Scalar::Float { width } | Scalar::Bits { width } => width,
            Scalar::Bool => 0,
        };
        if width != 32 {
            return Err(Refusal(format!(
                "a {width}-bit value between stages: exec runs 32-bit ones so far"
            )));
        }
        self.slots.push(Slot {
            path: self.path.clone(),
            location: self.location,
            component,
            scalar: s,
            flat,
            linear,
        });
        Ok(())
    }
}

fn word_to_const(s: Scalar, word: u32) -> Const {
    match s {
        Scalar::Float { width } => Const::Scalar(V::Float {
            value: f64::from(f32::from_bits(word)),
            width,
        }),
        Scalar::Int { width, .. } => Const::Scalar(V::Int {
            bits: u64::from(word),
            width,
        }),
        _ => Const::Bits {
            bits: u64::from(word),
            width: 32,
        },
    }
}

fn const_to_word(c: &Const) -> Option<u32> {
    match c {
        Const::Scalar(V::Float { value, .. }) => Some((*value as f32).to_bits()),
        Const::Scalar(V::Int { bits, .. }) | Const::Bits { bits, .. } => Some(*bits as u32),
        _ => None,
    }
}

/// What one vertex left: its position, clip distances and each (location, component).
#[derive(Clone)]
struct VertexOut {
    position: Option<[f64; 4]>,
    clip_distances: Vec<f64>,
    values: FxHashMap<(u32, u32), Option<Const>>,
}

/// Runs `vs` then `fs` (their entry points `vs_entry`, `fs_entry`, else the first of their
/// stage) over `inputs`.
pub fn draw(
    (vs, vs_entry): (&Module, Option<&str>),
    (fs, fs_entry): (&Module, Option<&str>),
    inputs: &DrawInputs,
    options: &Options,
) -> Result<DrawExecution, Refusal> {
    let vertex_inputs = Inputs {
        buffers: inputs.buffers.clone(),
        push_constants: inputs.push_constants.clone(),
        images: inputs.images.clone(),
        samplers: inputs.samplers.clone(),
        unsupported: inputs.unsupported.clone(),
        groups: [1, 1, 1],
        pointees: Vec::new(),
    };
    let mut vm = Machine::new(
        vs,
        ExecutionModel::Vertex,
        vs_entry,
        &vertex_inputs,
        options,
    )?;
    let outs = vm.run_vertices(inputs)?;
    // The vertex traced has been recorded: what the fragments would do is not wanted.
    let stopped = vm.stopped_once_traced();
    let vertex = vm.finish()?;
    if stopped {
        return Ok(DrawExecution {
            vertex,
            fragment: Execution::default(),
            attachments: Vec::new(),
        });
    }
    let fragment_inputs = Inputs {
        buffers: vertex.buffers.clone(),
        images: vertex.images.clone(),
        ..vertex_inputs.clone()
    };
    let mut fm = Machine::new(
        fs,
        ExecutionModel::Fragment,
        fs_entry,
        &fragment_inputs,
        options,
    )?;
    let attachments = fm.run_fragments(inputs, &outs)?;
    let fragment = fm.finish()?;
    Ok(DrawExecution {
        vertex,
        fragment,
        attachments,
    })
}

impl Machine<'_> {
    /// A fresh invocation numbered `number` with its own private variables and `io` (the
    /// stage's inputs and outputs) at the given roots.
    fn graphics_invocation(
        &mut self,
        number: u32,
        io: Vec<(Id, Mem)>,
    ) -> Result<Invocation, Refusal> {
        let mut globals = self.shared.clone();
        globals.extend(self.fresh_globals(&[StorageClass::Private, StorageClass::Function])?);
        for (var, mem) in io {
            let root = self.push_root(var, mem);
            globals.insert(var, root);
        }
        Ok(Invocation {
            number,
            local: [0; 3],
            group: [number, 0, 0],
            frames: vec![self.entry_frame(number)],
            globals,
            state: State::Running,
            phase: 0,
            helper: false,
            killed: false,
            pixel: None,
        })
    }

    fn fresh(&self, var: &Var) -> Result<Mem, Refusal> {
        let init = var.init.and_then(|i| self.consts.of(i));
        Mem::fresh(&self.consts, var.pointee, init)
            .ok_or_else(|| Refusal(format!("cannot make the variable %{}", var.id)))
    }

    fn run_vertices(&mut self, inputs: &DrawInputs) -> Result<Vec<VertexOut>, Refusal> {
        let ins = interface(self, StorageClass::Input)?;
        let outs = interface(self, StorageClass::Output)?;
        let mut results = Vec::new();
        for instance in 0..inputs.instances {
            for index in 0..inputs.vertices {
                let number = instance * inputs.vertices + index;
                let mut io = Vec::new();
                for var in &ins {
                    let mut mem = self.fresh(var)?;
                    match var.builtin {
                        Some(BuiltIn::VertexIndex) => {
                            mem.store(Some(&int(index)));
                        }
                        Some(BuiltIn::InstanceIndex) => {
                            mem.store(Some(&int(instance)));
                        }
                        Some(
                            BuiltIn::BaseVertex
                            | BuiltIn::BaseInstance
                            | BuiltIn::DrawIndex
                            | BuiltIn::ViewIndex,
                        ) => {
                            mem.store(Some(&int(0)));
                        }
                        _ => {}
                    }
                    for s in &var.slots {
                        let word = inputs
                            .attributes
                            .iter()
                            .find(|a| a.location == s.location)
                            .and_then(|a| {
                                let at = (index as usize * 4 + s.component as usize) * 4;
                                a.bytes.get(at..at + 4)
                            })
                            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                        if let (Some(w), Some(leaf)) = (word, mem.at_mut(&s.path)) {
                            leaf.store(Some(&word_to_const(s.scalar, w)));
                        }
                    }
                    io.push((var.id, mem));
                }
                for var in &outs {
                    io.push((var.id, self.fresh(var)?));
                }
                let mut inv = self.graphics_invocation(number, io)?;
                self.who.push(Who::Vertex { index, instance });
                self.run_group(std::slice::from_mut(&mut inv))?;
                results.push(self.vertex_out(&inv, &outs));
                if self.stopped {
                    return Ok(results);
                }
            }
        }
        Ok(results)
    }

    fn vertex_out(&self, inv: &Invocation, outs: &[Var]) -> VertexOut {
        let mut out = VertexOut {
            position: None,
            clip_distances: Vec::new(),
            values: FxHashMap::default(),
        };
        let floats = |m: Option<&Mem>| m?.value().as_ref().and_then(float_parts);
        for var in outs {
            let Some(mem) = inv.globals.get(&var.id).map(|&r| &self.memory[r]) else {
                continue;
            };
            let builtins = var
                .builtin
                .map(|b| (None, b))
                .into_iter()
                .chain(var.member_builtins.iter().map(|&(k, b)| (Some(k), b)));
            for (member, b) in builtins {
                let part = match member {
                    Some(k) => mem.at(&[k]),
                    None => Some(mem),
                };
                match b {
                    BuiltIn::Position => {
                        out.position = floats(part).and_then(|v| v.try_into().ok());
                    }
                    BuiltIn::ClipDistance => {
                        out.clip_distances = floats(part).unwrap_or_default();
                    }
                    _ => {}
                }
            }
            for s in &var.slots {
                let v = mem.at(&s.path).and_then(Mem::value);
                out.values.insert((s.location, s.component), v);
            }
        }
        out
    }

    fn run_fragments(
        &mut self,
        inputs: &DrawInputs,
        vertices: &[VertexOut],
    ) -> Result<Vec<Attachment>, Refusal> {
        let ins = interface(self, StorageClass::Input)?;
        let outs = interface(self, StorageClass::Output)?;
        let (w, h) = inputs.size;
        self.interpolation = Some(Interpolation {
            ins: ins.clone(),
            vertices: vertices.to_vec(),
            size: inputs.size,
        });
        let mut attachments: Vec<Attachment> = inputs
            .attachments
            .iter()
            .map(|&mask| Attachment {
                words: if mask == 0 {
                    Vec::new()
                } else {
                    vec![Some(0); (w * h * 4) as usize]
                },
                float: true,
            })
            .collect();
        for var in &outs {
            for s in &var.slots {
                if let Some(a) = attachments.get_mut(s.location as usize) {
                    a.float = matches!(s.scalar, Scalar::Float { .. });
                }
            }
        }
        let triangles_per_instance = inputs.vertices / 3;
        let mut number = 0;
        for (t, tri) in vertices.chunks_exact(3).enumerate() {
            let t = t as u32;
            let corners: Option<Vec<[f64; 4]>> = tri.iter().map(|v| v.position).collect();
            let Some(corners) = corners else {
                let (func, at) = (self.code[self.entry].f.id(), 0);
                self.find(
                    super::FindingKind::UndefinedOutput,
                    t * 3,
                    func,
                    at,
                    None,
                    format!("a vertex of triangle {t} has an undefined position: it is not drawn"),
                );
                continue;
            };
            let covered = raster::triangle(
                [corners[0], corners[1], corners[2]],
                [
                    &tri[0].clip_distances,
                    &tri[1].clip_distances,
                    &tri[2].clip_distances,
                ],
                (w, h),
            );
            let primitive = t % triangles_per_instance.max(1);
            let only = self.options.only_quads_of;
            let shaded = |quad: &[raster::Pixel; 4]| {
                only.is_none_or(|pixels| {
                    quad.iter()
                        .any(|p| pixels.iter().any(|&[x, y]| p.x == x && p.y == y))
                })
            };
            for quad in covered.quads.iter().filter(|q| shaded(q)) {
                let mut invs = Vec::with_capacity(4);
                for p in quad {
                    let io =
                        self.fragment_io(&ins, &outs, tri, p, covered.front_facing, primitive)?;
                    let mut inv = self.graphics_invocation(number, io)?;
                    inv.helper = !p.covered;
                    inv.pixel = Some([p.x, p.y]);
                    self.who.push(Who::Fragment {
                        x: p.x,
                        y: p.y,
                        triangle: t,
                        helper: !p.covered,
                    });
                    number += 1;
                    invs.push(inv);
                }
                self.run_group(&mut invs)?;
                for (inv, p) in invs.iter().zip(quad) {
                    if inv.helper || inv.killed || !p.covered || !self.sample_kept(inv, &outs) {
                        continue;
                    }
                    self.write_texel(inv, &outs, inputs, &mut attachments, (p.x, p.y));
                }
                if self.stopped {
                    return Ok(attachments);
                }
            }
        }
        Ok(attachments)
    }

    /// The inputs and outputs of the fragment at `p` of a triangle with vertices `tri`.
    fn fragment_io(
        &self,
        ins: &[Var],
        outs: &[Var],
        tri: &[VertexOut],
        p: &raster::Pixel,
        front_facing: bool,
        primitive: u32,
    ) -> Result<Vec<(Id, Mem)>, Refusal> {
        let mut io = Vec::new();
        for var in ins {
            let mut mem = self.fresh(var)?;
            let value = match var.builtin {
                Some(BuiltIn::FragCoord) => Some(Const::Composite(vec![
                    float(f64::from(p.x) + 0.5),
                    float(f64::from(p.y) + 0.5),
                    float(p.depth),
                    float(p.inv_w),
                ])),
                Some(BuiltIn::FrontFacing) => Some(Const::Scalar(V::Bool(front_facing))),
                Some(BuiltIn::HelperInvocation) => Some(Const::Scalar(V::Bool(!p.covered))),
                Some(BuiltIn::PrimitiveId) => Some(int(primitive)),
                Some(BuiltIn::SampleId | BuiltIn::Layer | BuiltIn::ViewportIndex) => Some(int(0)),
                // At the pixel's centre (one sample). `PointCoord` stays undefined: the
                // harness draws triangles, not points.
                Some(BuiltIn::SamplePosition) => {
                    Some(Const::Composite(vec![float(0.5), float(0.5)]))
                }
                Some(BuiltIn::SampleMask) => Some(Const::Composite(vec![int(1)])),
                _ => None,
            };
            if let Some(v) = value {
                mem.store(Some(&v));
            }
            for s in &var.slots {
                if let (Some(v), Some(leaf)) = (interpolated(s, tri, p), mem.at_mut(&s.path)) {
                    leaf.store(Some(&v));
                }
            }
            io.push((var.id, mem));
        }
        for var in outs {
            io.push((var.id, self.fresh(var)?));
        }
        Ok(io)
    }

    /// `InterpolateAtCentroid`, `InterpolateAtSample` and `InterpolateAtOffset` (GLSL.std.450
    /// 76 to 78) of the input `ptr` points into: its slots interpolated again, at the pixel's
    /// centre (the one sample is there, and so is the centroid) or `offset` pixels from it.
    /// A sample other than 0 is undefined.
    pub(super) fn interpolate_at(
        &self,
        inv: &Invocation,
        number: u32,
        ptr: &Value,
        operand: Option<&Value>,
    ) -> Result<Value, Refusal> {
        let refuse = |what: &str| Err(Refusal(format!("{what} outside a drawn fragment stage")));
        let Some(interpolation) = &self.interpolation else {
            return refuse("an interpolation");
        };
        let Some(&Who::Fragment { x, y, triangle, .. }) = self.who.get(inv.number as usize) else {
            return refuse("an interpolation");
        };
        let Value::Pointer(p) = ptr else {
            return Ok(Value::Undef);
        };
        let floats = |v: Option<&Value>| match v? {
            Value::Const(c) => float_parts(c),
            _ => None,
        };
        let offset = match number {
            77 => match operand {
                Some(Value::Const(c)) if c.as_int_bits().is_some_and(|(b, _)| b == 0) => [0.0; 2],
                _ => return Ok(Value::Undef),
            },
            78 => match floats(operand).as_deref() {
                Some(&[dx, dy]) => [dx, dy],
                _ => return Ok(Value::Undef),
            },
            _ => [0.0; 2],
        };
        let Some(var) = interpolation
            .ins
            .iter()
            .find(|v| inv.globals.get(&v.id) == Some(&p.root))
        else {
            return Ok(Value::Undef);
        };
        let first = triangle as usize * 3;
        let Some(tri) = interpolation.vertices.get(first..first + 3) else {
            return Ok(Value::Undef);
        };
        let corners: Option<Vec<[f64; 4]>> = tri.iter().map(|v| v.position).collect();
        let Some(corners) = corners else {
            return Ok(Value::Undef);
        };
        let at = raster::at_offset(
            &[corners[0], corners[1], corners[2]],
            x,
            y,
            offset,
            interpolation.size,
            true,
        );
        let Some(mut mem) = self.memory.get(p.root).and_then(|m| m.at(&p.path)).cloned() else {
            return Ok(Value::Undef);
        };
        for s in &var.slots {
            let Some(rest) = s.path.strip_prefix(p.path.as_slice()) else {
                continue;
            };
            if let Some(leaf) = mem.at_mut(rest) {
                leaf.store(interpolated(s, tri, &at).as_ref());
            }
        }
        Ok(super::partly::mem_value(&mem))
    }

    /// Whether a fragment's `SampleMask` output, where it writes one, keeps its sample.
    fn sample_kept(&self, inv: &Invocation, outs: &[Var]) -> bool {
        outs.iter()
            .filter(|v| v.builtin == Some(BuiltIn::SampleMask))
            .filter_map(|v| inv.globals.get(&v.id))
            .filter_map(|&r| self.memory[r].at(&[0]).and_then(Mem::value))
            .all(|mask| mask.as_int_bits().is_none_or(|(bits, _)| bits & 1 == 1))
    }

    fn write_texel(
        &self,
        inv: &Invocation,
        outs: &[Var],
        inputs: &DrawInputs,
        attachments: &mut [Attachment],
        (x, y): (u32, u32),
    ) {
        let texel = ((y * inputs.size.0 + x) * 4) as usize;
        for var in outs {
            let Some(mem) = inv.globals.get(&var.id).map(|&r| &self.memory[r]) else {
                continue;
            };
            for s in &var.slots {
                let mask = inputs
                    .attachments
                    .get(s.location as usize)
                    .copied()
                    .unwrap_or(0);
                if s.component >= 4 || mask & (1 << s.component) == 0 {
                    continue;
                }
                let word = mem
                    .at(&s.path)
                    .and_then(Mem::value)
                    .as_ref()
                    .and_then(const_to_word);
                if let Some(slot) = attachments[s.location as usize]
                    .words
                    .get_mut(texel + s.component as usize)
                {
                    *slot = word;
                }
            }
        }
    }
}
