//! What runs and draws are made of: descriptors and the resources they hold, memory, buffers,
//! images and views, command buffers submitted and waited for.

use super::*;
use ash::vk;

/// What one descriptor holds.
#[derive(Clone, Debug)]
pub enum Resource {
    Buffer {
        storage: bool,
        bytes: Vec<u8>,
    },
    /// An image or texel buffer of the shape, format and size `image` says, holding `texels`
    /// (with a sampler when it is combined).
    Image {
        image: images::Image,
        texels: Vec<u8>,
    },
    Sampler,
    /// The harness's scene for ray queries (`bind::scene`): nothing of its own to fill.
    AccelerationStructure,
}

/// One descriptor binding: one resource per element (one for a binding that is not an array).
#[derive(Clone, Debug)]
pub struct Descriptor {
    pub set: u32,
    pub binding: u32,
    pub elements: Vec<Resource>,
}

/// Makes everything the work wrote visible to the host.
// SAFETY: callers pass a command buffer of `d` that is recording, outside a render pass;
// the barrier is a local that outlives the call.
pub(super) unsafe fn to_host(d: &ash::Device, cmd: vk::CommandBuffer) {
    let barrier = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ);
    d.cmd_pipeline_barrier(
        cmd,
        vk::PipelineStageFlags::ALL_COMMANDS,
        vk::PipelineStageFlags::HOST,
        vk::DependencyFlags::empty(),
        &[barrier],
        &[],
        &[],
    );
}

impl Gpu {
    /// One descriptor set per layout, from a pool of `sizes`.
    // SAFETY: callers pass `self.device` and a non-empty slice of its live set layouts; the
    // create-infos borrow slices alive across the calls, and the pool (which frees the sets) goes
    // into `c`.
    pub(super) unsafe fn descriptor_sets(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        sizes: &[vk::DescriptorPoolSize],
        set_layouts: &[vk::DescriptorSetLayout],
    ) -> Result<Vec<vk::DescriptorSet>, String> {
        let pool = d
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(set_layouts.len() as u32)
                    .pool_sizes(sizes),
                None,
            )
            .map_err(|e| format!("descriptor pool: {e}"))?;
        c.pools.push(pool);
        d.allocate_descriptor_sets(
            &vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(set_layouts),
        )
        .map_err(|e| format!("descriptor sets: {e}"))
    }

    /// A primary command buffer, recording.
    // SAFETY: callers pass `self.device`; the pool is made for `self.family`, the family of
    // `self.queue`, and goes into `c`, so the command buffer lives until the run is cleaned.
    pub(super) unsafe fn begin(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
    ) -> Result<vk::CommandBuffer, String> {
        let err = |what: &str, e: vk::Result| format!("{what}: {e}");
        let cmd_pool = d
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(self.family),
                None,
            )
            .map_err(|e| err("command pool", e))?;
        c.command_pools.push(cmd_pool);
        let cmd = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(cmd_pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1),
            )
            .map_err(|e| err("command buffer", e))?[0];
        d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
            .map_err(|e| err("begin", e))?;
        Ok(cmd)
    }

    /// Ends `cmd`, submits it and waits until it has run.
    // SAFETY: callers pass `self.device` and a recording command buffer from `begin`; only one
    // thread uses `self.queue` (`Gpu` is not `Sync`), and on a timeout `hung` keeps all alive.
    pub(super) unsafe fn submit_and_wait(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        cmd: vk::CommandBuffer,
    ) -> Result<(), String> {
        let err = |what: &str, e: vk::Result| format!("{what}: {e}");
        d.end_command_buffer(cmd).map_err(|e| err("end", e))?;
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .map_err(|e| err("fence", e))?;
        c.fences.push(fence);
        let cmds = [cmd];
        d.queue_submit(
            self.queue,
            &[vk::SubmitInfo::default().command_buffers(&cmds)],
            fence,
        )
        .map_err(|e| err("submit", e))?;
        let nanos = u64::try_from(self.timeout.as_nanos()).unwrap_or(u64::MAX);
        match d.wait_for_fences(&[fence], true, nanos) {
            Ok(()) => Ok(()),
            Err(vk::Result::TIMEOUT) => {
                self.hung.set(true);
                Err(format!(
                    "the shader did not finish within {} s on {}",
                    self.timeout.as_secs(),
                    self.name
                ))
            }
            Err(e) => Err(err("wait", e)),
        }
    }

    // SAFETY: callers pass `self.device`; the type index is below `memory_type_count` and allowed
    // by `req`, the chained `flags` outlives the call, and the memory goes into `c`. `addressed`
    // assumes the bufferDeviceAddress feature (enabled when supported, not checked).
    pub(super) unsafe fn memory(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        req: vk::MemoryRequirements,
        wanted: vk::MemoryPropertyFlags,
        addressed: bool,
    ) -> Result<vk::DeviceMemory, String> {
        let kind = (0..self.memory.memory_type_count)
            .find(|&i| {
                req.memory_type_bits & (1 << i) != 0
                    && self.memory.memory_types[i as usize]
                        .property_flags
                        .contains(wanted)
            })
            .ok_or("no suitable memory")?;
        let mut flags =
            vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let mut info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(kind);
        if addressed {
            info = info.push_next(&mut flags);
        }
        let mem = d
            .allocate_memory(&info, None)
            .map_err(|e| format!("memory: {e}"))?;
        c.memory.push(mem);
        Ok(mem)
    }

    /// A host-visible buffer holding `bytes` (at least `size` bytes long); returns it mapped.
    // SAFETY: as for `host_buffer_with`: callers pass `self.device` and the run's `Cleanup`.
    pub(super) unsafe fn host_buffer(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        usage: vk::BufferUsageFlags,
        bytes: &[u8],
        size: usize,
    ) -> Result<(vk::Buffer, *mut u8), String> {
        self.host_buffer_with(d, c, usage, bytes, size, false)
    }

    /// `host_buffer`, whose memory can give addresses when `addressed`.
    // SAFETY: callers pass `self.device`; buffer and memory go into `c`. The memory is
    // host-visible, coherent and at least `size` bytes (all mapped), and `bytes.len() <= size`,
    // so the writes and the returned pointer stay in range until `c` is cleaned.
    pub(super) unsafe fn host_buffer_with(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        usage: vk::BufferUsageFlags,
        bytes: &[u8],
        size: usize,
        addressed: bool,
    ) -> Result<(vk::Buffer, *mut u8), String> {
        let size = size.max(bytes.len()).max(16);
        let buffer = d
            .create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(size as u64)
                    .usage(usage),
                None,
            )
            .map_err(|e| format!("buffer: {e}"))?;
        c.buffers.push(buffer);
        let req = d.get_buffer_memory_requirements(buffer);
        let mem = self.memory(
            d,
            c,
            req,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            addressed,
        )?;
        d.bind_buffer_memory(buffer, mem, 0)
            .map_err(|e| format!("bind: {e}"))?;
        let ptr = d
            .map_memory(mem, 0, size as u64, vk::MemoryMapFlags::empty())
            .map_err(|e| format!("map: {e}"))? as *mut u8;
        std::ptr::write_bytes(ptr, 0, size);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr, bytes.len());
        Ok((buffer, ptr))
    }

    /// A device-local 2D image of `format`, `w`×`h`, bound to memory.
    // SAFETY: callers pass `self.device`; the create-info is a temporary alive across the call,
    // and the image and its memory go into `c`, bound at offset 0 (always aligned).
    pub(super) unsafe fn image(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        format: vk::Format,
        (w, h): (u32, u32),
        usage: vk::ImageUsageFlags,
    ) -> Result<vk::Image, String> {
        let image = d
            .create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(format)
                    .extent(vk::Extent3D {
                        width: w,
                        height: h,
                        depth: 1,
                    })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .tiling(vk::ImageTiling::OPTIMAL)
                    .usage(usage),
                None,
            )
            .map_err(|e| format!("image {format:?}: {e}"))?;
        c.images.push(image);
        let req = d.get_image_memory_requirements(image);
        let mem = self.memory(d, c, req, vk::MemoryPropertyFlags::empty(), false)?;
        d.bind_image_memory(image, mem, 0)
            .map_err(|e| format!("bind image: {e}"))?;
        Ok(image)
    }

    // SAFETY: callers pass `self.device` and an image of it, alive in `c` and of `format`; the
    // view goes into `c`, which destroys it before the image.
    pub(super) unsafe fn view(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        image: vk::Image,
        format: vk::Format,
        view_type: vk::ImageViewType,
    ) -> Result<vk::ImageView, String> {
        let view = d
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(view_type)
                    .format(format)
                    .subresource_range(COLOR_RANGE),
                None,
            )
            .map_err(|e| format!("view: {e}"))?;
        c.views.push(view);
        Ok(view)
    }
}
