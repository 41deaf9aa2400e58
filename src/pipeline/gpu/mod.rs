//! Runs shaders on a Vulkan driver (lavapipe, Mesa's CPU driver, when there is one), so that a
//! shader and its compiled form can be checked to compute the same thing: same buffers in, same
//! buffers (and images) out. `:bisect run` and the meaning tests use it. The driver is loaded
//! at run time (`ash`, nothing linked at build time); a machine without one gets an error that
//! says how to install lavapipe.
//!
//! `Gpu::run` takes compute shaders: `Layout::of` says what a module binds (buffers, images of
//! every shape, texel buffers, samplers, arrays of them), its push constants and where they
//! hold buffer addresses (`addresses`), or why it cannot run it. `Gpu::draw` draws with a
//! vertex and a fragment shader into colour attachments, with the same descriptors (`bind`
//! makes them for both), input attachments and push constants. A submission that does not
//! finish within the
//! timeout is given up: the device is then left alone (a shader still running on it cannot be
//! stopped) and refuses further work.
//!
//! `Device` is what the bisects run shaders on: `Gpu` in this process (the meaning tests), or
//! `isolated::Isolated`, a `Gpu` in a worker process that a crashing or hanging driver takes
//! down instead of shaderstep (the app and `run`).

pub mod addresses;
mod bind;
pub mod images;
pub mod isolated;
pub mod reflect;
pub mod stand_in;
pub mod wire;

use std::ffi::CString;

use crate::ir::spirv::read;
use ash::vk;
use rspirv::dr::Operand;
use spirv::{Op, StorageClass};

const COLOR_RANGE: vk::ImageSubresourceRange = vk::ImageSubresourceRange {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    base_mip_level: 0,
    level_count: 1,
    base_array_layer: 0,
    layer_count: 1,
};

const COLOR_LAYERS: vk::ImageSubresourceLayers = vk::ImageSubresourceLayers {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    mip_level: 0,
    base_array_layer: 0,
    layer_count: 1,
};

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
    /// Bytes of push constants the shader reads (0: none); they hold `push_bytes`.
    pub push: u32,
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
    /// Every buffer the bindings hold: (binding, element), in binding order.
    pub fn slots(&self) -> Vec<(Binding, u32)> {
        self.bindings
            .iter()
            .flat_map(|b| (0..b.count).map(move |e| (b.clone(), e)))
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
        if !m.entry_points.iter().any(|e| {
            matches!(
                e.lits().first(),
                Some(Operand::ExecutionModel(spirv::ExecutionModel::GLCompute))
            )
        }) {
            return Err("not a compute shader".into());
        }
        let type_of = |id: u32| m.globals().iter().find(|g| g.result == Some(id));
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
                        if a.op == Op::Decorate && t == id && *d == what =>
                    {
                        Some(*v)
                    }
                    _ => None,
                })
        };
        for g in m.globals() {
            let (Op::Variable, Some(Operand::StorageClass(class))) = (g.op, g.lits().first())
            else {
                continue;
            };
            let pointee =
                g.ty.and_then(type_of)
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
                        match t.op {
                            Op::TypeArray | Op::TypeRuntimeArray => block = t.args[0],
                            _ => break,
                        }
                    }
                    let mut offsets = Vec::new();
                    addresses::pointer_offsets(&m, &bytes, block, 0, &mut offsets);
                    let id = g.result.unwrap_or(0);
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
            addresses: sites,
        })
    }
}

pub struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    pub name: String,
    /// How long a submission may run before it is given up.
    pub timeout: std::time::Duration,
    /// A submission did not finish: the device is left alone from then on.
    hung: std::cell::Cell<bool>,
}

/// Why a device did not give a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    /// The driver refused or failed the work, and is fine.
    Failed(String),
    /// The driver crashed (the worker process died): how (`SIGSEGV`, and its last words).
    Crashed(String),
    /// The work did not finish within the limit (the worker was killed).
    Hung(std::time::Duration),
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceError::Failed(why) => f.write_str(why),
            DeviceError::Crashed(how) => write!(f, "the driver crashed ({how})"),
            DeviceError::Hung(limit) => write!(
                f,
                "the driver did not finish within {:.1} s (a hang, or an endless loop)",
                limit.as_secs_f64()
            ),
        }
    }
}

impl DeviceError {
    /// A crash or a hang: something to report about the driver, not a refusal.
    pub fn is_fatal(&self) -> bool {
        !matches!(self, DeviceError::Failed(_))
    }
}

/// What shaders run on: a compute dispatch over buffers, or a draw, each within a time limit.
pub trait Device {
    /// The device's name as the driver gives it.
    fn name(&self) -> &str;

    /// Runs `words` over `groups` workgroups with binding `k` of `layout` holding `buffers[k]`;
    /// each binding's bytes afterwards.
    fn run_buffers(
        &self,
        words: &[u32],
        layout: &Layout,
        groups: [u32; 3],
        buffers: &[Vec<u8>],
        limit: std::time::Duration,
    ) -> Result<Vec<Vec<u8>>, DeviceError>;

    fn draw_limited(
        &self,
        draw: &Draw,
        limit: std::time::Duration,
    ) -> Result<Rendered, DeviceError>;
}

/// In this process, the device's own timeout is the limit (a hung submission leaves it
/// refusing further work; see the module doc).
impl Device for Gpu {
    fn name(&self) -> &str {
        &self.name
    }

    fn run_buffers(
        &self,
        words: &[u32],
        layout: &Layout,
        groups: [u32; 3],
        buffers: &[Vec<u8>],
        _limit: std::time::Duration,
    ) -> Result<Vec<Vec<u8>>, DeviceError> {
        let slots = layout.slots();
        let index = |b: &Binding, e: u32| slots.iter().position(|(x, k)| x == b && *k == e);
        self.run_each(words, layout, groups, &|b, e| {
            index(b, e)
                .and_then(|k| buffers.get(k).cloned())
                .unwrap_or_default()
        })
        .map_err(DeviceError::Failed)
    }

    fn draw_limited(
        &self,
        draw: &Draw,
        _limit: std::time::Duration,
    ) -> Result<Rendered, DeviceError> {
        self.draw(draw).map_err(DeviceError::Failed)
    }
}

pub const INSTALL: &str =
    "install lavapipe and the Vulkan loader: `apt-get install -y mesa-vulkan-drivers libvulkan1`";

impl Gpu {
    /// lavapipe, with every feature it has enabled. The error says how to install it.
    pub fn lavapipe() -> Result<Gpu, String> {
        Self::open(true)
    }

    /// A device with every feature it has enabled: lavapipe (a CPU device, whose results do not
    /// depend on the machine's GPU) when there is one, else, unless `cpu_only`, the first one.
    pub fn open(cpu_only: bool) -> Result<Gpu, String> {
        // SAFETY: the loaded entry is kept in `Gpu` and outlives the instance and device; every
        // create-info (app info, priorities, feature chain) is a local alive across its call; on
        // error only the instance made here is destroyed, once, before any device was made of it.
        unsafe {
            let entry =
                ash::Entry::load().map_err(|e| format!("no Vulkan loader ({e}): {INSTALL}"))?;
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .map_err(|e| format!("cannot create a Vulkan instance ({e}): {INSTALL}"))?;
            // Everything made from the instance, or the instance destroyed with the error.
            let made = (|| -> Result<_, String> {
                let devices = instance
                    .enumerate_physical_devices()
                    .map_err(|e| e.to_string())?;
                let physical = devices
                    .iter()
                    .copied()
                    .find(|&pd| {
                        let props = instance.get_physical_device_properties(pd);
                        props.device_type == vk::PhysicalDeviceType::CPU
                    })
                    .or_else(|| devices.first().copied().filter(|_| !cpu_only));
                let Some(physical) = physical else {
                    return Err(format!("no CPU Vulkan device (lavapipe): {INSTALL}"));
                };
                let props = instance.get_physical_device_properties(physical);
                let name = props
                    .device_name_as_c_str()
                    .map(|c| c.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let family = instance
                    .get_physical_device_queue_family_properties(physical)
                    .iter()
                    .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
                    .ok_or("no compute queue")? as u32;
                let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
                let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
                let mut features = vk::PhysicalDeviceFeatures2::default()
                    .push_next(&mut v11)
                    .push_next(&mut v12);
                instance.get_physical_device_features2(physical, &mut features);
                let priorities = [1.0f32];
                let queues = [vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(family)
                    .queue_priorities(&priorities)];
                let info = vk::DeviceCreateInfo::default()
                    .queue_create_infos(&queues)
                    .push_next(&mut features);
                let device = instance
                    .create_device(physical, &info, None)
                    .map_err(|e| format!("cannot create a device on {name}: {e}"))?;
                let queue = device.get_device_queue(family, 0);
                let memory = instance.get_physical_device_memory_properties(physical);
                Ok((device, queue, family, memory, name))
            })();
            let (device, queue, family, memory, name) = match made {
                Ok(m) => m,
                Err(e) => {
                    instance.destroy_instance(None);
                    return Err(e);
                }
            };
            Ok(Gpu {
                _entry: entry,
                instance,
                device,
                queue,
                family,
                memory,
                name,
                timeout: std::time::Duration::from_secs(10),
                hung: std::cell::Cell::new(false),
            })
        }
    }

    fn usable(&self) -> Result<(), String> {
        if self.hung.get() {
            return Err(format!(
                "{} is still busy with a shader that did not finish",
                self.name
            ));
        }
        Ok(())
    }

    /// Destroys what a run made, unless the device hung (then it is left as it is).
    // SAFETY: callers pass the `Cleanup` of one run on `self.device`, once, after its work was
    // waited for; a hung run's objects are left alive, since the device may still be using them.
    unsafe fn clean(&self, c: &mut Cleanup) {
        if !self.hung.get() {
            c.destroy(&self.device);
        }
    }

    /// Runs `words` once over `groups` workgroups with every binding of `layout` holding the
    /// bytes `fill` gives it; returns each binding's bytes afterwards, in layout order.
    pub fn run(
        &self,
        words: &[u32],
        layout: &Layout,
        groups: [u32; 3],
        fill: impl Fn(&Binding) -> Vec<u8>,
    ) -> Result<Vec<Vec<u8>>, String> {
        self.run_each(words, layout, groups, &|b, _| fill(b))
    }

    /// `run` with the bytes of each buffer of each binding (`Layout::slots`): `fill(binding,
    /// element)`; the buffers' bytes afterwards, in slot order.
    pub fn run_each(
        &self,
        words: &[u32],
        layout: &Layout,
        groups: [u32; 3],
        fill: &dyn Fn(&Binding, u32) -> Vec<u8>,
    ) -> Result<Vec<Vec<u8>>, String> {
        self.usable()?;
        let d = &self.device;
        let mut cleanup = Cleanup::default();
        // SAFETY: `d` is this Gpu's live device and `cleanup` is fresh, so everything `run_inner`
        // makes is owned by it and destroyed only by the `clean` below.
        let result = unsafe { self.run_inner(d, words, layout, groups, fill, &mut cleanup) };
        // SAFETY: called once, after `run_inner` returned: its submission was waited for (or the
        // device is marked hung and `clean` leaves it alone), and nothing it made is used after.
        unsafe { self.clean(&mut cleanup) };
        result
    }

    #[allow(clippy::too_many_arguments)]
    // SAFETY: callers pass `d = &self.device` and the run's `Cleanup`, which owns every handle
    // made here; create-infos borrow locals alive across each call, and mapped memory is read
    // only after `submit_and_wait` has waited for the work.
    unsafe fn run_inner(
        &self,
        d: &ash::Device,
        words: &[u32],
        layout: &Layout,
        groups: [u32; 3],
        fill: &dyn Fn(&Binding, u32) -> Vec<u8>,
        c: &mut Cleanup,
    ) -> Result<Vec<Vec<u8>>, String> {
        let err = |what: &str, e: vk::Result| format!("{what}: {e}");
        // Every buffer is `BUFFER_SIZE` bytes, whatever `fill` gives it.
        let descriptors: Vec<Descriptor> = layout
            .bindings
            .iter()
            .map(|b| Descriptor {
                set: b.set,
                binding: b.binding,
                elements: (0..b.count)
                    .map(|e| {
                        let mut bytes = fill(b, e);
                        if matches!(b.kind, reflect::Kind::Buffer { .. }) {
                            bytes.resize(BUFFER_SIZE, 0);
                        }
                        b.kind.holding(bytes)
                    })
                    .collect(),
            })
            .collect();
        let bound = self.bind(d, c, &descriptors, vk::ShaderStageFlags::COMPUTE)?;
        // Buffer addresses: real buffers where the shader reads pointers.
        let sites = &layout.addresses;
        let mut push = push_bytes(layout.push);
        let pointees = if sites.is_empty() {
            None
        } else {
            let p = self.pointees(d, c, &sites.pointees, &|k| {
                reflect::mixed(0x5054 + k as u32, BUFFER_SIZE / 4)
            })?;
            let mut k = 0;
            for (b, offsets) in layout.bindings.iter().zip(&sites.bindings) {
                for _ in 0..b.count {
                    if let Some((ptr, len)) = bound.mapped(k) {
                        p.write(ptr, len, offsets, k);
                    }
                    k += 1;
                }
            }
            p.write_bytes(&mut push, &sites.push, 0);
            Some(p)
        };
        let push_ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(layout.push)];
        let pipeline_layout = d
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&bound.set_layouts)
                    .push_constant_ranges(if layout.push > 0 { &push_ranges } else { &[] }),
                None,
            )
            .map_err(|e| err("pipeline layout", e))?;
        c.pipeline_layouts.push(pipeline_layout);
        let module = d
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
            .map_err(|e| err("shader module", e))?;
        c.modules.push(module);
        let name = CString::new(layout.entry.clone()).map_err(|e| e.to_string())?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(&name);
        let pipeline = d
            .create_compute_pipelines(
                vk::PipelineCache::null(),
                &[vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(pipeline_layout)],
                None,
            )
            .map_err(|(_, e)| err("compute pipeline", e))?[0];
        c.pipelines.push(pipeline);
        let cmd = self.begin(d, c)?;
        let shader = vk::PipelineStageFlags::COMPUTE_SHADER;
        self.record_uploads(d, cmd, &bound, shader);
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
        bound.record_binding(d, cmd, vk::PipelineBindPoint::COMPUTE, pipeline_layout);
        if layout.push > 0 {
            d.cmd_push_constants(
                cmd,
                pipeline_layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &push,
            );
        }
        d.cmd_dispatch(cmd, groups[0], groups[1], groups[2]);
        self.record_readbacks(d, cmd, &bound, shader);
        to_host(d, cmd);
        self.submit_and_wait(d, c, cmd)?;
        let mut out = bound.contents();
        if let Some(p) = pointees {
            out.extend(p.contents());
            for bytes in &mut out {
                p.unaddressed(bytes);
            }
        }
        Ok(out)
    }
}

/// Makes everything the work wrote visible to the host.
// SAFETY: callers pass a command buffer of `d` that is recording, outside a render pass;
// the barrier is a local that outlives the call.
unsafe fn to_host(d: &ash::Device, cmd: vk::CommandBuffer) {
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

impl Drop for Gpu {
    fn drop(&mut self) {
        // A device still running a shader cannot be destroyed: it is left to the process's end.
        if self.hung.get() {
            return;
        }
        // SAFETY: not hung, so every run that returned destroyed its objects in `clean` (one that
        // panicked would leak them); after waiting for idle, the device and then the instance it
        // came from are destroyed once, before `_entry` (the loader) is dropped.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Everything one run created, destroyed when it ends however it ends.
#[derive(Default)]
struct Cleanup {
    buffers: Vec<vk::Buffer>,
    buffer_views: Vec<vk::BufferView>,
    memory: Vec<vk::DeviceMemory>,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    pipeline_layouts: Vec<vk::PipelineLayout>,
    modules: Vec<vk::ShaderModule>,
    pipelines: Vec<vk::Pipeline>,
    pools: Vec<vk::DescriptorPool>,
    command_pools: Vec<vk::CommandPool>,
    fences: Vec<vk::Fence>,
    images: Vec<vk::Image>,
    views: Vec<vk::ImageView>,
    render_passes: Vec<vk::RenderPass>,
    framebuffers: Vec<vk::Framebuffer>,
    samplers: Vec<vk::Sampler>,
}

impl Cleanup {
    // SAFETY: callers pass the device these handles were made from; after waiting for idle (its
    // error is ignored) none is in use, each is drained so destroyed once, and views, buffers and
    // images go before the memory they use.
    unsafe fn destroy(&mut self, d: &ash::Device) {
        let _ = d.device_wait_idle();
        for f in self.fences.drain(..) {
            d.destroy_fence(f, None);
        }
        for s in self.samplers.drain(..) {
            d.destroy_sampler(s, None);
        }
        for f in self.framebuffers.drain(..) {
            d.destroy_framebuffer(f, None);
        }
        for r in self.render_passes.drain(..) {
            d.destroy_render_pass(r, None);
        }
        for v in self.views.drain(..) {
            d.destroy_image_view(v, None);
        }
        for i in self.images.drain(..) {
            d.destroy_image(i, None);
        }
        for p in self.command_pools.drain(..) {
            d.destroy_command_pool(p, None);
        }
        for p in self.pools.drain(..) {
            d.destroy_descriptor_pool(p, None);
        }
        for p in self.pipelines.drain(..) {
            d.destroy_pipeline(p, None);
        }
        for m in self.modules.drain(..) {
            d.destroy_shader_module(m, None);
        }
        for l in self.pipeline_layouts.drain(..) {
            d.destroy_pipeline_layout(l, None);
        }
        for l in self.set_layouts.drain(..) {
            d.destroy_descriptor_set_layout(l, None);
        }
        for v in self.buffer_views.drain(..) {
            d.destroy_buffer_view(v, None);
        }
        for b in self.buffers.drain(..) {
            d.destroy_buffer(b, None);
        }
        for m in self.memory.drain(..) {
            d.free_memory(m, None);
        }
    }
}

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
}

/// One descriptor binding: one resource per element (one for a binding that is not an array).
#[derive(Clone, Debug)]
pub struct Descriptor {
    pub set: u32,
    pub binding: u32,
    pub elements: Vec<Resource>,
}

/// A colour attachment: its format, bytes per texel and the components the pipeline writes.
#[derive(Clone, Copy, Debug)]
pub struct Attachment {
    pub format: vk::Format,
    pub texel_bytes: u32,
    pub mask: vk::ColorComponentFlags,
}

/// What a draw feeds its shaders and where it draws: vertex input, descriptors, push
/// constants and colour attachments; the same for a shader pair before and after its passes.
#[derive(Clone, Default)]
pub struct Setup {
    /// Fixed-function vertex buffers: (binding, stride, per instance, bytes).
    pub vertex_buffers: Vec<(u32, u32, bool, Vec<u8>)>,
    /// Fixed-function attributes: (location, binding, format, offset).
    pub attributes: Vec<(u32, u32, vk::Format, u32)>,
    /// Descriptor bindings both stages see.
    pub descriptors: Vec<Descriptor>,
    /// Push constant bytes both stages see (none when empty).
    pub push: Vec<u8>,
    /// Colour attachments by location (`None`: no attachment there).
    pub colors: Vec<Option<Attachment>>,
    pub vertices: u32,
    pub instances: u32,
}

/// One draw call of a graphics pipeline.
pub struct Draw<'a> {
    pub vs: &'a [u32],
    pub fs: &'a [u32],
    /// Entry point names; empty means `main`.
    pub vs_entry: &'a str,
    pub fs_entry: &'a str,
    pub size: (u32, u32),
    pub setup: &'a Setup,
}

/// Whether type `ty` of `m` is or holds (in a struct member or an array element) a pointer to
/// a physical storage buffer: a buffer address, which runs do not allocate yet.
fn holds_address(m: &crate::ir::Module, ty: u32) -> bool {
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
        match def.op {
            Op::TypePointer | Op::TypeForwardPointer
                if def.lits().first()
                    == Some(&Operand::StorageClass(StorageClass::PhysicalStorageBuffer)) =>
            {
                return true
            }
            Op::TypeStruct | Op::TypeArray | Op::TypeRuntimeArray => {
                todo.extend(def.args.iter().copied())
            }
            _ => {}
        }
    }
    false
}

/// What a draw left: each colour attachment's texels (row by row, in location order, `None`
/// locations left out) and each storage buffer's bytes (in descriptor order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub colors: Vec<Vec<u8>>,
    pub buffers: Vec<Vec<u8>>,
}

impl Gpu {
    /// Draws and returns what the attachments and storage buffers hold afterwards.
    pub fn draw(&self, draw: &Draw) -> Result<Rendered, String> {
        self.usable()?;
        let d = &self.device;
        let mut cleanup = Cleanup::default();
        // SAFETY: `d` is this Gpu's live device and `cleanup` is fresh, so everything `draw_inner`
        // makes is owned by it and destroyed only by the `clean` below.
        let result = unsafe { self.draw_inner(d, draw, &mut cleanup) };
        // SAFETY: called once, after `draw_inner` returned: its submission was waited for (or the
        // device is marked hung and `clean` leaves it alone), and nothing it made is used after.
        unsafe { self.clean(&mut cleanup) };
        result
    }

    /// One descriptor set per layout, from a pool of `sizes`.
    // SAFETY: callers pass `self.device` and a non-empty slice of its live set layouts; the
    // create-infos borrow slices alive across the calls, and the pool (which frees the sets) goes
    // into `c`.
    unsafe fn descriptor_sets(
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
    unsafe fn begin(&self, d: &ash::Device, c: &mut Cleanup) -> Result<vk::CommandBuffer, String> {
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
    unsafe fn submit_and_wait(
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
    unsafe fn memory(
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
    unsafe fn host_buffer(
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
    unsafe fn host_buffer_with(
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
    unsafe fn image(
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
    unsafe fn view(
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

    // SAFETY: callers pass `d = &self.device` and the draw's `Cleanup`, which owns every handle
    // made here; create-infos borrow locals alive across each call; targets are read after the
    // wait. Assumes `self.family` can do graphics and `texel_bytes` matches each colour format.
    unsafe fn draw_inner(
        &self,
        d: &ash::Device,
        draw: &Draw,
        c: &mut Cleanup,
    ) -> Result<Rendered, String> {
        let err = |what: &str, e: vk::Result| format!("{what}: {e}");
        let (w, h) = draw.size;
        let bound = self.bind(
            d,
            c,
            &draw.setup.descriptors,
            vk::ShaderStageFlags::ALL_GRAPHICS,
        )?;
        // The attachments, each with a buffer it is copied to.
        let mut targets = Vec::new();
        let mut attachments = Vec::new();
        let mut color_refs = Vec::new();
        let mut views = Vec::new();
        let mut blend_attachments = Vec::new();
        for a in &draw.setup.colors {
            let Some(a) = a else {
                color_refs
                    .push(vk::AttachmentReference::default().attachment(vk::ATTACHMENT_UNUSED));
                blend_attachments.push(vk::PipelineColorBlendAttachmentState::default());
                continue;
            };
            let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
            let image = self.image(d, c, a.format, draw.size, usage)?;
            views.push(self.view(d, c, image, a.format, vk::ImageViewType::TYPE_2D)?);
            let size = (w * h * a.texel_bytes) as usize;
            let (buffer, ptr) =
                self.host_buffer(d, c, vk::BufferUsageFlags::TRANSFER_DST, &[], size)?;
            targets.push((image, buffer, ptr, size));
            color_refs.push(
                vk::AttachmentReference::default()
                    .attachment(attachments.len() as u32)
                    .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
            );
            attachments.push(
                vk::AttachmentDescription::default()
                    .format(a.format)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .load_op(vk::AttachmentLoadOp::CLEAR)
                    .store_op(vk::AttachmentStoreOp::STORE)
                    .initial_layout(vk::ImageLayout::UNDEFINED)
                    .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
            );
            blend_attachments
                .push(vk::PipelineColorBlendAttachmentState::default().color_write_mask(a.mask));
        }
        // Input attachments come after the colour ones, filled before the render pass and
        // read where each fragment is.
        let mut input_refs = Vec::new();
        for &(index, view, format) in &bound.inputs {
            let index = index as usize;
            if input_refs.len() <= index {
                input_refs.resize(
                    index + 1,
                    vk::AttachmentReference::default().attachment(vk::ATTACHMENT_UNUSED),
                );
            }
            input_refs[index] = vk::AttachmentReference::default()
                .attachment(attachments.len() as u32)
                .layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL);
            attachments.push(
                vk::AttachmentDescription::default()
                    .format(format)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .load_op(vk::AttachmentLoadOp::LOAD)
                    .store_op(vk::AttachmentStoreOp::DONT_CARE)
                    .initial_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
                    .final_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL),
            );
            views.push(view);
        }
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&color_refs)
            .input_attachments(&input_refs)];
        let dependency = [vk::SubpassDependency::default()
            .src_subpass(0)
            .dst_subpass(vk::SUBPASS_EXTERNAL)
            .src_stage_mask(vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT)
            .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags::TRANSFER)
            .dst_access_mask(vk::AccessFlags::TRANSFER_READ)];
        let render_pass = d
            .create_render_pass(
                &vk::RenderPassCreateInfo::default()
                    .attachments(&attachments)
                    .subpasses(&subpass)
                    .dependencies(&dependency),
                None,
            )
            .map_err(|e| err("render pass", e))?;
        c.render_passes.push(render_pass);
        let framebuffer = d
            .create_framebuffer(
                &vk::FramebufferCreateInfo::default()
                    .render_pass(render_pass)
                    .attachments(&views)
                    .width(w)
                    .height(h)
                    .layers(1),
                None,
            )
            .map_err(|e| err("framebuffer", e))?;
        c.framebuffers.push(framebuffer);
        let mut vertex = Vec::new();
        for (binding, _, _, bytes) in &draw.setup.vertex_buffers {
            let (b, _) = self.host_buffer(d, c, vk::BufferUsageFlags::VERTEX_BUFFER, bytes, 0)?;
            vertex.push((*binding, b));
        }
        let push_ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::ALL_GRAPHICS)
            .size(draw.setup.push.len() as u32)];
        let layout = d
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&bound.set_layouts)
                    .push_constant_ranges(if draw.setup.push.is_empty() {
                        &[]
                    } else {
                        &push_ranges
                    }),
                None,
            )
            .map_err(|e| err("pipeline layout", e))?;
        c.pipeline_layouts.push(layout);
        let mut modules = Vec::new();
        for code in [draw.vs, draw.fs] {
            let m = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                .map_err(|e| err("shader module", e))?;
            c.modules.push(m);
            modules.push(m);
        }
        let entry = |name: &str| {
            CString::new(if name.is_empty() { "main" } else { name }).map_err(|e| e.to_string())
        };
        let (vs_name, fs_name) = (entry(draw.vs_entry)?, entry(draw.fs_entry)?);
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(modules[0])
                .name(&vs_name),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(modules[1])
                .name(&fs_name),
        ];
        let bindings: Vec<vk::VertexInputBindingDescription> = draw
            .setup
            .vertex_buffers
            .iter()
            .map(|(b, stride, instance, _)| {
                vk::VertexInputBindingDescription::default()
                    .binding(*b)
                    .stride(*stride)
                    .input_rate(if *instance {
                        vk::VertexInputRate::INSTANCE
                    } else {
                        vk::VertexInputRate::VERTEX
                    })
            })
            .collect();
        let attributes: Vec<vk::VertexInputAttributeDescription> = draw
            .setup
            .attributes
            .iter()
            .map(|(l, b, f, o)| {
                vk::VertexInputAttributeDescription::default()
                    .location(*l)
                    .binding(*b)
                    .format(*f)
                    .offset(*o)
            })
            .collect();
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&bindings)
            .vertex_attribute_descriptions(&attributes);
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewports = [vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: w as f32,
            height: h as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }];
        let scissors = [vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: w,
                height: h,
            },
        }];
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewports(&viewports)
            .scissors(&scissors);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let blend =
            vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend)
            .layout(layout)
            .render_pass(render_pass)
            .subpass(0);
        let pipeline = d
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
            .map_err(|(_, e)| err("graphics pipeline", e))?[0];
        c.pipelines.push(pipeline);
        let cmd = self.begin(d, c)?;
        let shaders =
            vk::PipelineStageFlags::VERTEX_SHADER | vk::PipelineStageFlags::FRAGMENT_SHADER;
        self.record_uploads(d, cmd, &bound, shaders);
        // All-zero bits: the same clear for float and integer attachments.
        let clear = vec![
            vk::ClearValue {
                color: vk::ClearColorValue { uint32: [0; 4] },
            };
            attachments.len()
        ];
        d.cmd_begin_render_pass(
            cmd,
            &vk::RenderPassBeginInfo::default()
                .render_pass(render_pass)
                .framebuffer(framebuffer)
                .render_area(scissors[0])
                .clear_values(&clear),
            vk::SubpassContents::INLINE,
        );
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
        for (binding, buffer) in &vertex {
            d.cmd_bind_vertex_buffers(cmd, *binding, &[*buffer], &[0]);
        }
        bound.record_binding(d, cmd, vk::PipelineBindPoint::GRAPHICS, layout);
        if !draw.setup.push.is_empty() {
            d.cmd_push_constants(
                cmd,
                layout,
                vk::ShaderStageFlags::ALL_GRAPHICS,
                0,
                &draw.setup.push,
            );
        }
        d.cmd_draw(cmd, draw.setup.vertices, draw.setup.instances, 0, 0);
        d.cmd_end_render_pass(cmd);
        for &(image, buffer, _, _) in &targets {
            d.cmd_copy_image_to_buffer(
                cmd,
                image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                buffer,
                &[vk::BufferImageCopy::default()
                    .image_subresource(COLOR_LAYERS)
                    .image_extent(vk::Extent3D {
                        width: w,
                        height: h,
                        depth: 1,
                    })],
            );
        }
        self.record_readbacks(d, cmd, &bound, shaders);
        to_host(d, cmd);
        self.submit_and_wait(d, c, cmd)?;
        Ok(Rendered {
            colors: targets
                .iter()
                .map(|&(_, _, ptr, size)| std::slice::from_raw_parts(ptr, size).to_vec())
                .collect(),
            buffers: bound.written(),
        })
    }
}

#[cfg(test)]
mod address_tests {
    /// A buffer address in push constants is told apart from a type without a size: the
    /// refusal names what the shader uses.
    #[test]
    fn push_constants_holding_a_buffer_address_are_named() {
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
            .filter(|g| g.op == spirv::Op::TypeStruct)
            .filter_map(|g| g.result)
            .collect();
        // %Data holds a number; %Push holds an address.
        assert!(!super::holds_address(&m, structs[0]));
        assert!(super::holds_address(&m, structs[1]));
    }
}
