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
//!
//! By concern: `layout` reads what a shader binds; `device` opens the driver and destroys what a
//! run made; `resources` makes descriptors, memory, buffers and images and submits work;
//! `bind` fills descriptors; `compute` runs dispatches and `draw` draws; `isolated` and `wire`
//! are the worker process and its protocol.

pub mod addresses;
mod bind;
mod compute;
mod device;
mod draw;
pub mod driver;
pub mod images;
pub mod isolated;
mod layout;
pub mod reflect;
mod refusal;
mod resources;
mod scene;
pub mod stand_in;
pub mod wire;

use device::Cleanup;
pub use draw::{Attachment, Draw, Rendered, Setup};
pub use driver::{DeviceInfo, Driver};
pub use layout::{
    push_bytes, Binding, Layout, BUFFER_SIZE, MAX_ARRAY_DESCRIPTORS, RUNTIME_ARRAY_BUFFERS,
};
pub use resources::{Descriptor, Resource};

use std::ffi::CString;

use ash::vk;

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

pub struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    pub name: String,
    /// The device, described (driver, version, what it can show).
    pub info: DeviceInfo,
    /// Acceleration structures, where the driver has ray queries (enabled then).
    accel: Option<ash::khr::acceleration_structure::Device>,
    /// The device extensions the driver offers (for saying why it refuses a shader).
    extensions: Vec<String>,
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

    /// The driver's version as it gives it (`Mesa 25.0.7 (LLVM 15.0.6)`), where known.
    fn version(&self) -> &str {
        ""
    }

    /// The device as a summary says it: its name without build details, and the driver's
    /// version without its own (`llvmpipe, Mesa 25.0.7`).
    fn short_name(&self) -> String {
        let name = self.name().split(" (").next().unwrap_or(self.name());
        let version = self
            .version()
            .split([' ', '-'])
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
        if version.is_empty() {
            name.to_string()
        } else {
            format!("{name}, {version}")
        }
    }

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

    fn version(&self) -> &str {
        &self.info.driver_info
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
