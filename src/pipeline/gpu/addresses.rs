//! Buffer device addresses (`PhysicalStorageBuffer` pointers): where a compute shader's
//! buffers and push constants hold pointers, so that a run puts the address of a real buffer
//! there (one of `POINTEES`, allocated for it and filled like any buffer) instead of the fill
//! pattern, which the driver would dereference.

use ash::vk;
use rspirv::dr::Operand;
use spirv::{Op, StorageClass};

use crate::ir::qptr::{Layout as Bytes, Place};
use crate::ir::Module;

use super::{Cleanup, Gpu, BUFFER_SIZE};

/// Buffers pointers point into: pointer sites take them in turn.
pub const POINTEES: usize = 4;

/// Elements of a runtime array of pointers given addresses.
const RUNTIME_ELEMENTS: u64 = 16;

/// Pointer sites of one block, at most this many (a large array of pointers is cut short).
const MAX_SITES: usize = 1024;

/// Byte offsets of pointers: in each binding's blocks, in the push constants, and in the
/// buffers the pointers point to (every pointee type's, together).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sites {
    /// By binding, in `Layout::bindings` order.
    pub bindings: Vec<Vec<u64>>,
    pub push: Vec<u64>,
    pub pointees: Vec<u64>,
}

impl Sites {
    pub fn is_empty(&self) -> bool {
        self.push.is_empty() && self.bindings.iter().all(Vec::is_empty)
    }
}

/// Whether `ty` is a pointer to a physical storage buffer.
fn is_address(m: &Module, ty: u32) -> bool {
    m.global(ty).is_some_and(|t| {
        t.op() == Op::TypePointer
            && t.lits().first() == Some(&Operand::StorageClass(StorageClass::PhysicalStorageBuffer))
    })
}

/// Whether the module makes buffer addresses of integers (`OpConvertUToPtr`, or a bitcast of
/// a 64-bit integer or a pair of 32-bit ones): then any 8 aligned bytes may be read as one.
pub fn makes_addresses(m: &Module) -> bool {
    m.functions().iter().any(|f| {
        f.insts().any(|i| match i.op() {
            Op::ConvertUToPtr => true,
            Op::Bitcast => i.ty().is_some_and(|t| is_address(m, t)),
            _ => false,
        })
    })
}

/// Offsets of the pointers in a value of type `ty` at `base`.
pub fn pointer_offsets(m: &Module, bytes: &Bytes, ty: u32, base: u64, out: &mut Vec<u64>) {
    walk(m, bytes, ty, base, out, 0)
}

fn walk(m: &Module, bytes: &Bytes, ty: u32, base: u64, out: &mut Vec<u64>, depth: u32) {
    if depth > 16 || out.len() >= MAX_SITES {
        return;
    }
    let Some(t) = m.global(ty) else {
        return;
    };
    match t.op() {
        Op::TypePointer if is_address(m, ty) => out.push(base),
        Op::TypeStruct => {
            for (k, &member) in t.args().iter().enumerate() {
                if let Some(at) = bytes.member_offset(ty, k as u32) {
                    walk(m, bytes, member, base + at, out, depth + 1);
                }
            }
        }
        Op::TypeArray | Op::TypeRuntimeArray => {
            let Some(&element) = t.args().first() else {
                return;
            };
            let count = match t.op() {
                Op::TypeArray => bytes.element_count(ty).unwrap_or(0),
                _ => RUNTIME_ELEMENTS,
            };
            let stride = bytes
                .element_stride(Place::of(ty))
                .filter(|&s| s > 0)
                .or_else(|| is_address(m, element).then_some(8));
            let Some(stride) = stride else {
                return;
            };
            for i in 0..count {
                let at = base + i * stride;
                if at >= BUFFER_SIZE as u64 {
                    break;
                }
                walk(m, bytes, element, at, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Size in bytes of `ty`, pointers to physical storage buffers counting 8.
pub fn size(m: &Module, bytes: &Bytes, ty: u32) -> Option<u64> {
    if is_address(m, ty) {
        return Some(8);
    }
    let t = m.global(ty)?;
    match t.op() {
        Op::TypeStruct => {
            let mut end = 0;
            for (k, &member) in t.args().iter().enumerate() {
                end = end.max(bytes.member_offset(ty, k as u32)? + size(m, bytes, member)?);
            }
            Some(end)
        }
        Op::TypeArray => {
            let n = bytes.element_count(ty)?;
            let stride = bytes.element_stride(Place::of(ty))?;
            Some(stride * n.saturating_sub(1) + size(m, bytes, *t.args().first()?)?)
        }
        _ => bytes.size(Place::of(ty)),
    }
}

/// The pointer sites inside whatever the module's pointers to physical storage buffers point
/// to.
pub fn pointee_sites(m: &Module, bytes: &Bytes) -> Vec<u64> {
    let mut out = Vec::new();
    for g in m.globals() {
        if g.op() == Op::TypePointer && g.result().is_some_and(|r| is_address(m, r)) {
            if let Some(&pointee) = g.args().first() {
                pointer_offsets(m, bytes, pointee, 0, &mut out);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out.retain(|&at| at + 8 <= BUFFER_SIZE as u64);
    out
}

/// The bytes buffer `k` of those pointers point to starts with (before its own pointer sites
/// are written): the same for the driver and the interpreter.
pub fn pointee_fill(k: usize) -> Vec<u8> {
    let mut bytes = super::reflect::mixed(0x5054 + k as u32, BUFFER_SIZE / 4);
    bytes.resize(BUFFER_SIZE, 0);
    bytes
}

/// Writes at `sites` of `bytes` the address of a pointee (`address(k)`), taking the pointees
/// in turn from `first`: each binding element's sites start at its slot number, the push
/// constants' at 0, pointee `k`'s own at `k + 1`.
pub fn write_sites(bytes: &mut [u8], sites: &[u64], first: usize, address: impl Fn(usize) -> u64) {
    for (i, &at) in sites.iter().enumerate() {
        let at = at as usize;
        if let Some(word) = bytes.get_mut(at..at + 8) {
            word.copy_from_slice(&address((first + i) % POINTEES).to_le_bytes());
        }
    }
}

/// Buffers pointers point to, with their addresses.
pub(super) struct Pointees {
    buffers: Vec<(*mut u8, u64)>,
}

impl Gpu {
    /// `POINTEES` buffers with addresses, each `BUFFER_SIZE` bytes of `pointee_fill(k)`, their own
    /// pointer sites holding addresses of the next one.
    // SAFETY: callers pass `self.device` and the run's `Cleanup`; each buffer is bound to memory
    // allocated with DEVICE_ADDRESS before its address is asked, and `write` stays in its mapped
    // BUFFER_SIZE bytes. Assumes bufferDeviceAddress (enabled when supported, not checked).
    pub(super) unsafe fn pointees(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        sites: &[u64],
    ) -> Result<Pointees, String> {
        let mut buffers = Vec::new();
        for k in 0..POINTEES {
            let usage =
                vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
            let bytes = pointee_fill(k);
            let (buffer, ptr) = self.host_buffer_with(d, c, usage, &bytes, 0, true)?;
            let address =
                d.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(buffer));
            buffers.push((ptr, address));
        }
        let p = Pointees { buffers };
        for k in 0..POINTEES {
            let (ptr, _) = p.buffers[k];
            p.write(ptr, BUFFER_SIZE, sites, k + 1);
        }
        Ok(p)
    }
}

impl Pointees {
    /// Writes addresses at `sites` of the `len` bytes at `ptr`, taking the buffers in turn
    /// from `first`.
    // SAFETY: callers pass `ptr` valid for writes of `len` bytes that the device is not using;
    // each write is 8 bytes at an offset `at` with `at + 8 <= len`.
    pub(super) unsafe fn write(&self, ptr: *mut u8, len: usize, sites: &[u64], first: usize) {
        for (i, &at) in sites.iter().enumerate() {
            let at = at as usize;
            if at + 8 > len {
                continue;
            }
            let (_, address) = self.buffers[(first + i) % POINTEES];
            std::ptr::copy_nonoverlapping(address.to_le_bytes().as_ptr(), ptr.add(at), 8);
        }
    }

    /// Writes addresses at `sites` of `bytes`.
    pub(super) fn write_bytes(&self, bytes: &mut [u8], sites: &[u64], first: usize) {
        write_sites(bytes, sites, first, |k| self.buffers[k].1);
    }

    /// Every pointee's bytes after the run.
    // SAFETY: callers call this after the work was waited for and before the run is cleaned: each
    // pointer is BUFFER_SIZE bytes of mapped host-coherent memory that nothing writes then.
    pub(super) unsafe fn contents(&self) -> Vec<Vec<u8>> {
        self.buffers
            .iter()
            .map(|&(ptr, _)| std::slice::from_raw_parts(ptr, BUFFER_SIZE).to_vec())
            .collect()
    }

    /// The pointee a real address is inside, and the offset in it.
    fn place_of(&self, address: u64) -> Option<(usize, u64)> {
        self.buffers.iter().enumerate().find_map(|(k, &(_, a))| {
            (a != 0 && (a..a + BUFFER_SIZE as u64).contains(&address)).then(|| (k, address - a))
        })
    }

    /// Where the shader overwrote half of an address written at a site (a 32-bit store into
    /// it), the half left is the interpreter's half of the same address (as `unaddressed`), so
    /// that what is left compares too.
    pub(super) fn unaddressed_halves(&self, bytes: &mut [u8], sites: &[u64], first: usize) {
        for (i, &at) in sites.iter().enumerate() {
            let at = at as usize;
            let Some(word) = bytes.get_mut(at..at + 8) else {
                continue;
            };
            let v = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            if self.place_of(v).is_some() {
                continue;
            }
            let k = (first + i) % POINTEES;
            let (real, ours) = (self.buffers[k].1, crate::ir::exec::address_of(k));
            let (mut lo, mut hi) = (v & 0xffff_ffff, v >> 32);
            if lo == real & 0xffff_ffff {
                lo = ours & 0xffff_ffff;
            }
            if hi == real >> 32 {
                hi = ours >> 32;
            }
            word.copy_from_slice(&(lo | hi << 32).to_le_bytes());
        }
    }

    /// `bytes` with every address into a pointee replaced by the interpreter's address of the
    /// same place (`exec::address_of(k)` plus the offset): real addresses change from run to
    /// run, the buffer and offset they name do not, and so the driver's results and the
    /// interpreter's compare as they are.
    pub(super) fn unaddressed(&self, bytes: &mut [u8]) {
        for word in bytes.chunks_exact_mut(8) {
            let v = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            if let Some((k, offset)) = self.place_of(v) {
                word.copy_from_slice(&(crate::ir::exec::address_of(k) + offset).to_le_bytes());
            }
        }
    }
}
