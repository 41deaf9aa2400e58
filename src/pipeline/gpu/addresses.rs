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

/// Buffers pointers point to, with their addresses.
pub(super) struct Pointees {
    buffers: Vec<(*mut u8, u64)>,
}

impl Gpu {
    /// `POINTEES` buffers with addresses, each `BUFFER_SIZE` bytes of `fill(k)`, their own
    /// pointer sites holding addresses of the next one.
    // SAFETY: callers pass `self.device` and the run's `Cleanup`; each buffer is bound to memory
    // allocated with DEVICE_ADDRESS before its address is asked, and `write` stays in its mapped
    // BUFFER_SIZE bytes. Assumes bufferDeviceAddress (enabled when supported, not checked).
    pub(super) unsafe fn pointees(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        sites: &[u64],
        fill: &dyn Fn(usize) -> Vec<u8>,
    ) -> Result<Pointees, String> {
        let mut buffers = Vec::new();
        for k in 0..POINTEES {
            let usage =
                vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
            let mut bytes = fill(k);
            bytes.resize(BUFFER_SIZE, 0);
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
        for (i, &at) in sites.iter().enumerate() {
            let at = at as usize;
            if let Some(word) = bytes.get_mut(at..at + 8) {
                let (_, address) = self.buffers[(first + i) % POINTEES];
                word.copy_from_slice(&address.to_le_bytes());
            }
        }
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

    /// `bytes` with every address of a pointee replaced by its number (1 up): addresses
    /// change from run to run, the buffer they name does not.
    pub(super) fn unaddressed(&self, bytes: &mut [u8]) {
        for word in bytes.chunks_exact_mut(8) {
            let v = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            if let Some(k) = self.buffers.iter().position(|&(_, a)| a == v && a != 0) {
                word.copy_from_slice(&(k as u64 + 1).to_le_bytes());
            }
        }
    }
}
