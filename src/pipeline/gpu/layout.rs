//! What a compute shader binds, read from its reflection: buffers, images, samplers and arrays
//! of them, push constants and where they hold buffer addresses (`Layout::of`).

use super::*;
use crate::ir::spirv::read;
use rspirv::dr::Operand;
use spirv::{Op, StorageClass};

/// Bytes given to every buffer binding.
pub const BUFFER_SIZE: usize = 16 * 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
    /// Descriptors in the binding: 1, the length of an array of them, or
    /// `RUNTIME_ARRAY_BUFFERS` for a runtime array.
    pub count: u32,
    pub kind: reflect::Kind,
}

/// Descriptors given to a runtime array: more than the indices up to 12 the fill pattern
/// puts in buffers (`reflect::mixed`) reach.
pub const RUNTIME_ARRAY_BUFFERS: u32 = 16;

/// The largest array of descriptors run (a larger one is refused).
pub const MAX_ARRAY_DESCRIPTORS: u64 = 64;

/// The resources and entry point of a compute shader, read from its SPIR-V.
#[derive(Clone, Debug)]
pub struct Layout {
    pub entry: String,
    pub bindings: Vec<Binding>,
    /// Bytes of push constants the shader reads (0: none); they hold `push_bytes`, or zeros
    /// with `zero_push` (`push_constants`).
    pub push: u32,
    /// Push constants all zero: where the pattern's values crashed the driver.
    pub zero_push: bool,
    /// Where buffers and push constants hold buffer addresses.
    pub addresses: addresses::Sites,
}

/// What a compute shader's push constants hold: the fixed pattern buffers get, of their own.
pub fn push_bytes(size: u32) -> Vec<u8> {
    let mut bytes = reflect::mixed(0x7075, (size as usize).div_ceil(4));
    bytes.truncate(size as usize);
    bytes
}

impl Layout {
    /// The bytes the push constants hold.
    pub fn push_constants(&self) -> Vec<u8> {
        if self.zero_push {
            vec![0; self.push as usize]
        } else {
            push_bytes(self.push)
        }
    }

    /// Every buffer the bindings hold: (binding, element), in binding order.
    pub fn slots(&self) -> Vec<(Binding, u32)> {
        self.bindings
            .iter()
            .flat_map(|b| (0..b.count).map(move |e| (b.clone(), e)))
            .collect()
    }

    /// The byte offsets of each slot's buffer addresses, in `slots` order (none where the
    /// shader reads no addresses): slot `k`'s take the buffers behind addresses in turn from
    /// `k` (`addresses::write_sites`).
    pub fn slot_sites(&self) -> Vec<&[u64]> {
        self.bindings
            .iter()
            .enumerate()
            .flat_map(|(i, b)| {
                let at = self
                    .addresses
                    .bindings
                    .get(i)
                    .map_or(&[][..], Vec::as_slice);
                (0..b.count).map(move |_| at)
            })
            .collect()
    }

    /// `Err` says why the runner cannot run the module (not compute, a resource of a kind it
    /// does not make, push constants holding addresses…).
    pub fn of(words: &[u32]) -> Result<Layout, String> {
        Layout::of_entry(words, None)
    }

    /// `of` for the compute entry point called `name` when there is one, else the first.
    pub fn of_entry(words: &[u32], name: Option<&str>) -> Result<Layout, String> {
        let m = read::read_words(words).map_err(|e| e.to_string())?;
        if !m.entry_points().iter().any(|e| {
            matches!(
                e.lits().first(),
                Some(Operand::ExecutionModel(spirv::ExecutionModel::GLCompute))
            )
        }) {
            return Err("not a compute shader".into());
        }
        let type_of = |id: u32| m.globals().iter().find(|g| g.result() == Some(id));
        let bytes = crate::ir::qptr::Layout::new(&m);
        let mut push = 0;
        let mut sites = addresses::Sites::default();
        // Pointer sites by (set, binding), for the bindings below.
        let mut in_blocks: Vec<((u32, u32), Vec<u64>)> = Vec::new();
        let decoration = |id: u32, what: spirv::Decoration| {
            m.annotations()
                .iter()
                .find_map(|a| match (a.arg(0), a.lits()) {
                    (Some(t), [Operand::Decoration(d), Operand::LiteralBit32(v), ..])
                        if a.op() == Op::Decorate && t == id && *d == what =>
                    {
                        Some(*v)
                    }
                    _ => None,
                })
        };
        for g in m.globals() {
            let (Op::Variable, Some(Operand::StorageClass(class))) = (g.op(), g.lits().first())
            else {
                continue;
            };
            let pointee = g
                .ty()
                .and_then(type_of)
                .and_then(|p| p.arg(0))
                .ok_or("a variable of unknown type")?;
            match class {
                StorageClass::PushConstant => {
                    let size = addresses::size(&m, &bytes, pointee)
                        .filter(|&s| s <= 256)
                        .ok_or("push constants of a type without a size of at most 256 bytes")?;
                    push = push.max(size as u32);
                    addresses::pointer_offsets(&m, &bytes, pointee, 0, &mut sites.push);
                }
                StorageClass::StorageBuffer | StorageClass::Uniform
                    if holds_address(&m, pointee) =>
                {
                    // The block itself, through an array of blocks.
                    let mut block = pointee;
                    while let Some(t) = m.global(block) {
                        match t.op() {
                            Op::TypeArray | Op::TypeRuntimeArray => block = t.args()[0],
                            _ => break,
                        }
                    }
                    let mut offsets = Vec::new();
                    addresses::pointer_offsets(&m, &bytes, block, 0, &mut offsets);
                    let id = g.result().unwrap_or(0);
                    if let (Some(set), Some(binding)) = (
                        decoration(id, spirv::Decoration::DescriptorSet),
                        decoration(id, spirv::Decoration::Binding),
                    ) {
                        in_blocks.push(((set, binding), offsets));
                    }
                }
                _ => {}
            }
        }
        if !in_blocks.is_empty() || !sites.push.is_empty() {
            sites.pointees = addresses::pointee_sites(&m, &bytes);
        }
        let stage = reflect::reflect_entry(words, spirv::ExecutionModel::GLCompute, name)?;
        let mut bindings: Vec<Binding> = reflect::merged(stage.resources.iter())?
            .into_iter()
            .map(|(set, binding, count, kind)| Binding {
                set,
                binding,
                count,
                kind,
            })
            .collect();
        bindings.sort_by_key(|b| (b.set, b.binding));
        bindings.dedup_by_key(|b| (b.set, b.binding));
        // A shader that makes pointers of integers may read any 8 aligned bytes as one:
        // every such place holds an address.
        if addresses::makes_addresses(&m) {
            let every = |len: u64| (0..len / 8).map(|k| k * 8).collect::<Vec<u64>>();
            sites.push = every(u64::from(push));
            sites.pointees = every(BUFFER_SIZE as u64);
            in_blocks = bindings
                .iter()
                .filter(|b| matches!(b.kind, reflect::Kind::Buffer { .. }))
                .map(|b| ((b.set, b.binding), every(BUFFER_SIZE as u64)))
                .collect();
        }
        if !in_blocks.is_empty() || !sites.push.is_empty() {
            sites.bindings = bindings
                .iter()
                .map(|b| {
                    in_blocks
                        .iter()
                        .find(|(at, _)| *at == (b.set, b.binding))
                        .map(|(_, o)| o.clone())
                        .unwrap_or_default()
                })
                .collect();
        }
        Ok(Layout {
            entry: stage.entry,
            bindings,
            push,
            zero_push: false,
            addresses: sites,
        })
    }
}

/// Whether type `ty` of `m` is or holds (in a struct member or an array element) a pointer to
/// a physical storage buffer: a buffer address, which runs do not allocate yet.
pub(super) fn holds_address(m: &crate::ir::Module, ty: u32) -> bool {
    let mut seen = Vec::new();
    let mut todo = vec![ty];
    while let Some(t) = todo.pop() {
        if seen.contains(&t) {
            continue;
        }
        seen.push(t);
        let Some(def) = m.global(t) else {
            continue;
        };
        match def.op() {
            Op::TypePointer | Op::TypeForwardPointer
                if def.lits().first()
                    == Some(&Operand::StorageClass(StorageClass::PhysicalStorageBuffer)) =>
            {
                return true
            }
            Op::TypeStruct | Op::TypeArray | Op::TypeRuntimeArray => {
                todo.extend(def.args().iter().copied())
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod address_tests {
    /// A buffer address in push constants is told apart from a type without a size: the
    /// refusal names what the shader uses.
    #[test]
    pub(super) fn push_constants_holding_a_buffer_address_are_named() {
        let text = r#"
OpCapability Shader
OpCapability PhysicalStorageBufferAddresses
OpExtension "SPV_KHR_physical_storage_buffer"
OpMemoryModel PhysicalStorageBuffer64 GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %Data Block
OpMemberDecorate %Data 0 Offset 0
OpDecorate %Push Block
OpMemberDecorate %Push 0 Offset 0
OpMemberDecorate %Push 1 Offset 8
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%Data = OpTypeStruct %uint
%ptr_data = OpTypePointer PhysicalStorageBuffer %Data
%Push = OpTypeStruct %ptr_data %uint
%ptr_push = OpTypePointer PushConstant %Push
%push = OpVariable %ptr_push PushConstant
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"#;
        let words = crate::ir::spirv::asm::assemble(text).unwrap();
        let m = crate::ir::spirv::read::read_words(&words).unwrap();
        let structs: Vec<u32> = m
            .globals()
            .iter()
            .filter(|g| g.op() == spirv::Op::TypeStruct)
            .filter_map(|g| g.result())
            .collect();
        // %Data holds a number; %Push holds an address.
        assert!(!super::holds_address(&m, structs[0]));
        assert!(super::holds_address(&m, structs[1]));
    }
}
