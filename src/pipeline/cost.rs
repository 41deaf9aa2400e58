//! What a step costs the GPU, as far as the IR says: register pressure (`ir::analysis::liveness`)
//! and the instruction mix — arithmetic, transcendentals, conversions, texture samples and
//! fetches, loads and stores by storage class, atomics, barriers, derivatives, subgroup
//! operations, branches and loops — read from the op table's classes and attributes.

use std::collections::BTreeMap;

use spirv::Op;

use crate::ir::analysis::liveness::ModulePressure;
use crate::ir::module::Module;
use crate::ir::ops::{self, OpClass, OpSet};

/// A kind of instruction the mix counts, in the order tables list them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Arithmetic,
    /// GLSL.std.450's exponentials, logarithms, powers, roots and trigonometry.
    Transcendental,
    Conversion,
    Composite,
    /// Texture samples and gathers.
    Sample,
    /// Texel fetches and storage image reads.
    Fetch,
    ImageWrite,
    ImageQuery,
    /// Loads and stores, by the pointer's storage class (`StorageBuffer`, `Function`, …).
    Load(String),
    Store(String),
    Atomic,
    Barrier,
    Derivative,
    Subgroup,
    /// Conditional branches and switches.
    Branch,
    Loop,
    Call,
    Other,
}

impl Kind {
    pub fn name(&self) -> String {
        match self {
            Kind::Arithmetic => "arithmetic".into(),
            Kind::Transcendental => "transcendental".into(),
            Kind::Conversion => "conversion".into(),
            Kind::Composite => "composite".into(),
            Kind::Sample => "texture sample".into(),
            Kind::Fetch => "texture fetch".into(),
            Kind::ImageWrite => "image write".into(),
            Kind::ImageQuery => "image query".into(),
            Kind::Load(class) => format!("load {class}"),
            Kind::Store(class) => format!("store {class}"),
            Kind::Atomic => "atomic".into(),
            Kind::Barrier => "barrier".into(),
            Kind::Derivative => "derivative".into(),
            Kind::Subgroup => "subgroup".into(),
            Kind::Branch => "branch".into(),
            Kind::Loop => "loop".into(),
            Kind::Call => "call".into(),
            Kind::Other => "other".into(),
        }
    }

    /// Memory beyond the invocation's own variables, its interface and its descriptors:
    /// buffers, push constants, workgroup memory, texel pointers, and atomics.
    pub fn is_memory(&self) -> bool {
        match self {
            Kind::Load(c) | Kind::Store(c) => matches!(
                c.as_str(),
                "StorageBuffer"
                    | "Uniform"
                    | "PushConstant"
                    | "PhysicalStorageBuffer"
                    | "Workgroup"
                    | "CrossWorkgroup"
                    | "Image"
            ),
            Kind::Atomic => true,
            _ => false,
        }
    }

    pub fn is_texture(&self) -> bool {
        matches!(self, Kind::Sample | Kind::Fetch | Kind::ImageWrite)
    }
}

/// How many instructions of each kind a module's functions hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mix(pub BTreeMap<Kind, u32>);

impl Mix {
    pub fn get(&self, k: &Kind) -> u32 {
        self.0.get(k).copied().unwrap_or(0)
    }

    pub fn texture(&self) -> u32 {
        self.0
            .iter()
            .filter(|(k, _)| k.is_texture())
            .map(|(_, n)| n)
            .sum()
    }

    pub fn memory(&self) -> u32 {
        self.0
            .iter()
            .filter(|(k, _)| k.is_memory())
            .map(|(_, n)| n)
            .sum()
    }
}

static TRANSCENDENTAL: &[&str] = &[
    "Exp",
    "Exp2",
    "Log",
    "Log2",
    "Pow",
    "Sqrt",
    "InverseSqrt",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Atan2",
    "Sinh",
    "Cosh",
    "Tanh",
    "Asinh",
    "Acosh",
    "Atanh",
];

/// The instruction mix of `m`'s function bodies.
pub fn mix(m: &Module) -> Mix {
    let sets = ops::ExtSets::of(m);
    let mut out: BTreeMap<Kind, u32> = BTreeMap::new();
    for f in m.functions() {
        // The storage class of each pointer the function loads through or stores to.
        let class_of = |ptr: crate::ir::Id| -> String {
            let ty = m
                .global(ptr)
                .and_then(|g| g.ty())
                .or_else(|| f.def_of(ptr).and_then(|d| d.ty()));
            ty.and_then(|t| crate::ir::types::pointer_type(m, t))
                .map_or_else(|| "other".to_string(), |(c, _)| format!("{c:?}"))
        };
        for b in f.blocks() {
            if matches!(b.merge, Some(crate::ir::func::Merge::Loop { .. })) {
                *out.entry(Kind::Loop).or_default() += 1;
            }
        }
        for inst in f.body() {
            let kind = match inst.op() {
                Op::Load => {
                    Kind::Load(inst.args().first().map_or("other".into(), |p| class_of(*p)))
                }
                Op::Store => {
                    Kind::Store(inst.args().first().map_or("other".into(), |p| class_of(*p)))
                }
                Op::BranchConditional | Op::Switch => Kind::Branch,
                Op::FunctionCall => Kind::Call,
                Op::ImageWrite => Kind::ImageWrite,
                // Control flow without a choice, and the plumbing of values and descriptors.
                Op::Label
                | Op::Branch
                | Op::Return
                | Op::ReturnValue
                | Op::Phi
                | Op::Variable
                | Op::SampledImage
                | Op::Image => continue,
                _ => {
                    // Debug records are no work; `NonSemantic.DebugPrintf` and other
                    // non-semantic sets are (`Other`).
                    if sets.is_debug_info_inst(inst) {
                        continue;
                    }
                    let Some(info) = ops::for_inst(inst, &sets) else {
                        continue;
                    };
                    let name = info.name.as_str();
                    if info.set == OpSet::Glsl {
                        let short = name.rsplit('.').next().unwrap_or(name);
                        let kind = if TRANSCENDENTAL.contains(&short) {
                            Kind::Transcendental
                        } else {
                            Kind::Arithmetic
                        };
                        *out.entry(kind).or_default() += 1;
                        continue;
                    }
                    match info.class {
                        OpClass::Unary | OpClass::Binary | OpClass::Compare => Kind::Arithmetic,
                        OpClass::Convert => Kind::Conversion,
                        OpClass::Composite => Kind::Composite,
                        OpClass::Atomic => Kind::Atomic,
                        OpClass::Barrier => Kind::Barrier,
                        OpClass::Derivative => Kind::Derivative,
                        OpClass::Subgroup => Kind::Subgroup,
                        OpClass::Image if name.contains("Sample") || name.contains("Gather") => {
                            Kind::Sample
                        }
                        OpClass::Image if name.contains("Fetch") || name.contains("Read") => {
                            Kind::Fetch
                        }
                        OpClass::Image if name.contains("Query") => Kind::ImageQuery,
                        OpClass::Control | OpClass::Terminator | OpClass::Debug => continue,
                        OpClass::Pointer => continue,
                        _ => Kind::Other,
                    }
                }
            };
            *out.entry(kind).or_default() += 1;
        }
    }
    Mix(out)
}

/// What a step costs: its pressure and its mix.
#[derive(Clone, Debug, Default)]
pub struct Cost {
    pub pressure: ModulePressure,
    pub mix: Mix,
}

impl Cost {
    pub fn of(m: &Module) -> Self {
        Cost {
            pressure: ModulePressure::of(m),
            mix: mix(m),
        }
    }
}

/// The functions of `m` as the IR text prints them, each instruction line after the pressure
/// after it, each function followed by its peak, and the module's peak over the call trees
/// last: what the filetests compare and `shaderstep cost --listing` prints.
pub fn annotated(m: &Module) -> String {
    use std::fmt::Write;
    let listing = crate::ir::print::listing(m);
    let pressure = ModulePressure::of(m);
    let mut out = String::new();
    for fl in &listing.functions {
        let p = pressure.function(fl.id);
        for row in fl.rows.clone() {
            let text = &listing.lines[row];
            let info = listing.info(row);
            if text.trim_start().starts_with(';') || text.trim().is_empty() {
                continue;
            }
            let text = text.split(" ;").next().unwrap_or(text).trim_end();
            match info.inst.and_then(|i| p?.at(i)) {
                Some(n) => {
                    let _ = writeln!(out, "{n:>3} {text}");
                }
                None => {
                    let _ = writeln!(out, "    {text}");
                }
            }
        }
        if let Some(p) = p {
            let at = match p.peak {
                Some(i) => listing_line(&listing, fl, i).unwrap_or_default(),
                None => "entry".into(),
            };
            let total = pressure.total.get(&fl.id).copied().unwrap_or(p.max);
            let _ = writeln!(
                out,
                "; %{} max {} after {at}; with its callees {total}",
                fl.name, p.max
            );
        }
    }
    let _ = writeln!(out, "; module max {}", pressure.max);
    out
}

/// The text of the line that prints instruction `i` of function `fl`.
fn listing_line(
    listing: &crate::ir::listing::Listing,
    fl: &crate::ir::listing::FunctionLines,
    i: crate::ir::func::InstId,
) -> Option<String> {
    fl.rows
        .clone()
        .find(|&r| listing.info(r).inst == Some(i))
        .map(|r| {
            listing.lines[r]
                .trim()
                .split(" ;")
                .next()
                .unwrap_or("")
                .trim_end()
                .to_string()
        })
}
