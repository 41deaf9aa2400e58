//! The device: opening lavapipe (or another driver) with the features it has, and what one run
//! made, destroyed when it ends however it ends (`Cleanup`).

use super::*;
use ash::vk;

/// The device extensions ray queries need, enabled together where the driver offers them all.
const RAY_QUERY: [&std::ffi::CStr; 3] = [
    c"VK_KHR_acceleration_structure",
    c"VK_KHR_ray_query",
    c"VK_KHR_deferred_host_operations",
];

impl Gpu {
    /// lavapipe, with every feature it has enabled. The error says how to install it.
    pub fn lavapipe() -> Result<Gpu, String> {
        Self::open(true)
    }

    /// A device with every feature it has enabled: lavapipe (a CPU device, whose results do not
    /// depend on the machine's GPU) when there is one, else, unless `cpu_only`, the first one.
    pub fn open(cpu_only: bool) -> Result<Gpu, String> {
        Self::open_named(cpu_only, "")
    }

    /// `open`, or with a `name`, the device whose name, driver name or driver info contains it.
    pub fn open_named(cpu_only: bool, name: &str) -> Result<Gpu, String> {
        // SAFETY: the loaded entry is kept in `Gpu` and outlives the instance and device; every
        // create-info (app info, priorities, feature chain) is a local alive across its call; on
        // error only the instance made here is destroyed, once, before any device was made of it.
        let (entry, instance) = super::driver::instance()?;
        unsafe {
            // Everything made from the instance, or the instance destroyed with the error.
            let made = (|| -> Result<_, String> {
                let devices = instance
                    .enumerate_physical_devices()
                    .map_err(|e| e.to_string())?;
                let physical = if name.is_empty() {
                    devices
                        .iter()
                        .copied()
                        .find(|&pd| {
                            let props = instance.get_physical_device_properties(pd);
                            props.device_type == vk::PhysicalDeviceType::CPU
                        })
                        .or_else(|| devices.first().copied().filter(|_| !cpu_only))
                        .ok_or_else(|| format!("no CPU Vulkan device (lavapipe): {INSTALL}"))?
                } else {
                    let described: Vec<_> = devices
                        .iter()
                        .map(|&pd| (pd, super::driver::describe(&instance, pd)))
                        .collect();
                    match described.iter().find(|(_, d)| d.matches(name)) {
                        Some((pd, _)) => *pd,
                        None => {
                            let found: Vec<String> = described
                                .iter()
                                .map(|(_, d)| format!("{} ({})", d.name, d.driver_info))
                                .collect();
                            return Err(format!(
                                "no Vulkan device named like '{name}' (found: {}; `shaderstep drivers` lists them)",
                                if found.is_empty() { "none".into() } else { found.join(", ") }
                            ));
                        }
                    }
                };
                let described = super::driver::describe(&instance, physical);
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
                let extensions = super::driver::device_extensions(&instance, physical);
                // Ray queries, where the driver has them: enabled with what they need, so that
                // shaders using them run against the scene `scene` builds.
                let ray = RAY_QUERY
                    .iter()
                    .all(|x| extensions.iter().any(|e| e.as_bytes() == x.to_bytes()));
                let enabled: Vec<*const std::ffi::c_char> = if ray {
                    RAY_QUERY.iter().map(|x| x.as_ptr()).collect()
                } else {
                    Vec::new()
                };
                let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
                let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
                let mut accel = vk::PhysicalDeviceAccelerationStructureFeaturesKHR::default();
                let mut query = vk::PhysicalDeviceRayQueryFeaturesKHR::default();
                let mut features = vk::PhysicalDeviceFeatures2::default()
                    .push_next(&mut v11)
                    .push_next(&mut v12);
                if ray {
                    features = features.push_next(&mut accel).push_next(&mut query);
                }
                instance.get_physical_device_features2(physical, &mut features);
                let priorities = [1.0f32];
                let queues = [vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(family)
                    .queue_priorities(&priorities)];
                let info = vk::DeviceCreateInfo::default()
                    .queue_create_infos(&queues)
                    .enabled_extension_names(&enabled)
                    .push_next(&mut features);
                let device = instance
                    .create_device(physical, &info, None)
                    .map_err(|e| format!("cannot create a device on {name}: {e}"))?;
                let queue = device.get_device_queue(family, 0);
                let memory = instance.get_physical_device_memory_properties(physical);
                let accel =
                    ray.then(|| ash::khr::acceleration_structure::Device::new(&instance, &device));
                let described = (described, accel);
                Ok((device, queue, family, memory, name, extensions, described))
            })();
            let (device, queue, family, memory, name, extensions, (info, accel)) = match made {
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
                info,
                accel,
                extensions,
                timeout: std::time::Duration::from_secs(10),
                hung: std::cell::Cell::new(false),
            })
        }
    }

    pub(super) fn usable(&self) -> Result<(), String> {
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
    pub(super) unsafe fn clean(&self, c: &mut Cleanup) {
        if !self.hung.get() {
            c.destroy(&self.device);
        }
    }
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
pub(super) struct Cleanup {
    pub(super) buffers: Vec<vk::Buffer>,
    pub(super) buffer_views: Vec<vk::BufferView>,
    pub(super) memory: Vec<vk::DeviceMemory>,
    pub(super) set_layouts: Vec<vk::DescriptorSetLayout>,
    pub(super) pipeline_layouts: Vec<vk::PipelineLayout>,
    pub(super) modules: Vec<vk::ShaderModule>,
    pub(super) pipelines: Vec<vk::Pipeline>,
    pub(super) pools: Vec<vk::DescriptorPool>,
    pub(super) command_pools: Vec<vk::CommandPool>,
    pub(super) fences: Vec<vk::Fence>,
    pub(super) images: Vec<vk::Image>,
    pub(super) views: Vec<vk::ImageView>,
    pub(super) render_passes: Vec<vk::RenderPass>,
    pub(super) framebuffers: Vec<vk::Framebuffer>,
    pub(super) samplers: Vec<vk::Sampler>,
    /// Acceleration structures, with the loader that destroys them.
    pub(super) acceleration_structures: Vec<(
        ash::khr::acceleration_structure::Device,
        vk::AccelerationStructureKHR,
    )>,
}

impl Cleanup {
    // SAFETY: callers pass the device these handles were made from; after waiting for idle (its
    // error is ignored) none is in use, each is drained so destroyed once, and views, buffers and
    // images go before the memory they use.
    pub(super) unsafe fn destroy(&mut self, d: &ash::Device) {
        let _ = d.device_wait_idle();
        // Before the buffers that hold them.
        for (loader, a) in self.acceleration_structures.drain(..) {
            loader.destroy_acceleration_structure(a, None);
        }
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
