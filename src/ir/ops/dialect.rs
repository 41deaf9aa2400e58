//! The IR's own dialect: ops SPIR-V does not have, which passes introduce and lifting removes.
//!
//! In a module they are extended instructions of the set [`SET_NAME`] (`OpExtInst` with an
//! `OpExtInstImport "shaderstep.dialect"`), whose instruction number is the op's full 32-bit
//! opcode, so the reader, writer, differ and every pass that walks instructions handle them
//! without knowing them. The IR text spells them by name (`%p = qptr.offset %T %base %c16`),
//! never by number: moving an op from the experimental partition to the stable one changes no
//! text.
//!
//! Every operand is an id (immediates are constants), as rspirv reads every extended-instruction
//! operand as an id. An op is either *typed* — it yields a value whose type the text gives after
//! the op name — or its result type is `OpTypeVoid` and the text leaves it out (type
//! declarations, and ops run for their effect).
//!
//! Numbering: within a partition an op's number is its position in the partition's list, so
//! numbers are contiguous. A retired op becomes `Slot::Reserved` and keeps its number taken; a new
//! op is appended. An experimental op that becomes stable is reserved in the experimental list
//! and appended to the stable one.

use spirv::Capability;

use super::{Attrs, OpClass};

/// The name of the extended instruction set the dialect lives in.
pub use crate::ir::ext_sets::DIALECT_SET as SET_NAME;

/// FeatureID of the dialect's stable ops.
pub const STABLE_FEATURE: u16 = 0x0002;

#[derive(Clone, Copy, Debug)]
pub struct DialectOp {
    pub name: &'static str,
    pub class: OpClass,
    pub attrs: Attrs,
    /// The op yields a value whose type the text gives; otherwise its result type is void.
    pub typed: bool,
    /// Names of the id operands, in order (all are required).
    pub operands: &'static [&'static str],
    /// At least one of these must be declared; none means the op is always available.
    pub capabilities: &'static [Capability],
    /// Typing signature (see `ops::Typing`); empty for type declarations.
    pub typing: &'static str,
    pub doc: &'static str,
}

#[derive(Clone, Copy, Debug)]
pub enum Slot {
    Op(DialectOp),
    /// A retired op, named for the record: its number is never reused.
    Reserved(&'static str),
}

const fn bits_type(
    name: &'static str,
    capabilities: &'static [Capability],
    doc: &'static str,
) -> Slot {
    Slot::Op(DialectOp {
        name,
        class: OpClass::Type,
        attrs: Attrs::PURE,
        typed: false,
        operands: &[],
        capabilities,
        typing: "",
        doc,
    })
}

/// Partition `STABLE_FEATURE`.
pub static STABLE: &[Slot] = &[
    bits_type(
        "bits.b8",
        &[
            Capability::Int8,
            Capability::StorageBuffer8BitAccess,
            Capability::UniformAndStorageBuffer8BitAccess,
            Capability::StoragePushConstant8,
        ],
        "The 8-bit bit-vector type: a value whose operations, not its type, say whether the bits are an \
         integer or a float (`untype` makes these; `assign-types` removes them).",
    ),
    bits_type(
        "bits.b16",
        &[
            Capability::Int16,
            Capability::Float16,
            Capability::StorageBuffer16BitAccess,
            Capability::UniformAndStorageBuffer16BitAccess,
            Capability::StoragePushConstant16,
            Capability::StorageInputOutput16,
        ],
        "The 16-bit bit-vector type (see bits.b8).",
    ),
    bits_type(
        "bits.b32",
        &[],
        "The 32-bit bit-vector type (see bits.b8). Vectors of it are OpTypeVector of this type.",
    ),
    bits_type(
        "bits.b64",
        &[Capability::Int64, Capability::Float64],
        "The 64-bit bit-vector type (see bits.b8).",
    ),
    Slot::Op(DialectOp {
        name: "qptr.offset",
        class: OpClass::Pointer,
        attrs: Attrs::PURE,
        typed: true,
        operands: &["base", "offset"],
        capabilities: &[],
        typing: "p: p i",
        doc: "The untyped pointer `offset` bytes past `base` (`offset` is an integer constant). The result \
              type is an OpTypeUntypedPointerKHR of the base's storage class.",
    }),
    Slot::Op(DialectOp {
        name: "qptr.dyn_offset",
        class: OpClass::Pointer,
        attrs: Attrs::PURE,
        typed: true,
        operands: &["base", "index", "stride"],
        capabilities: &[],
        typing: "p: p i i",
        doc: "The untyped pointer `index` × `stride` bytes past `base`: a dynamic array index (`stride` is an \
              integer constant, `index` any integer value).",
    }),
    Slot::Op(DialectOp {
        name: "qptr.buffer_data",
        class: OpClass::Pointer,
        attrs: Attrs::PURE,
        typed: true,
        operands: &["buffer"],
        capabilities: &[],
        typing: "p: p",
        doc: "The memory of a buffer: from a buffer handle (a Uniform, StorageBuffer or PushConstant \
              variable, or one handle of an array of them) to an untyped pointer to its first byte. \
              Handles are not memory; this is where memory begins.",
    }),
    Slot::Op(DialectOp {
        name: "qptr.handle_array_index",
        class: OpClass::Pointer,
        attrs: Attrs::PURE,
        typed: true,
        operands: &["handles", "index"],
        capabilities: &[],
        typing: "p: p i",
        doc: "One handle of an array of descriptors (buffers, images or samplers): a typed pointer to the \
              `index`-th element. Selecting a descriptor is not a memory offset, so it stays apart from \
              qptr.offset.",
    }),
];

/// Partition `EXPERIMENTAL` (0x8000): accepted only with `--experimental`; a module that uses one
/// is marked *preview*.
pub static EXPERIMENTAL: &[Slot] = &[Slot::Op(DialectOp {
    name: "qptr.copy",
    class: OpClass::Memory,
    attrs: Attrs::READS_MEMORY.union(Attrs::WRITES_MEMORY),
    typed: false,
    operands: &["dst", "src", "size"],
    capabilities: &[],
        typing: "-: p p i",
    doc: "Copies `size` bytes (an integer constant) from `src` to `dst`, which do not overlap. \
          `qptr-lower` makes it from OpCopyMemory under --experimental (otherwise it expands the copy into \
          a load and a store); `qptr-lift` turns it back into OpCopyMemory.",
})];
