//! Descriptors made real, for compute dispatches and draws alike: buffers, images of every
//! shape, texel buffers and samplers are created and filled, gathered into descriptor sets,
//! and what the shader may have written (storage buffers, storage images, storage texel
//! buffers) is read back afterwards.

use ash::vk;

use super::images::{Dim, Image};
use super::{Cleanup, Descriptor, Gpu, Resource};

/// Where one element of a descriptor's bytes are after the work.
enum Out {
    /// Host-visible memory (buffers and texel buffers), and whether the shader may write it.
    Mapped(*mut u8, usize, bool),
    /// A storage image, copied out to a host buffer at the end.
    Copied(*mut u8, usize),
    /// What it was given (sampled images), or nothing (samplers).
    Given(Vec<u8>),
}

/// Descriptor sets, with the copies to record around the work.
pub(super) struct Bound {
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    pub sets: Vec<vk::DescriptorSet>,
    /// Images filled from a staging buffer before the work (multisampled ones cleared to a
    /// value from the seed).
    uploads: Vec<(vk::Image, vk::Buffer, Image, u32)>,
    /// Storage images copied to a host buffer after it.
    readbacks: Vec<(vk::Image, vk::Buffer, Image)>,
    /// One per element of every descriptor, in order.
    outs: Vec<Out>,
    /// Input attachments: (index, view, format), for the render pass and framebuffer.
    pub inputs: Vec<(u32, vk::ImageView, vk::Format)>,
}

fn range(image: &Image) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: image.aspect(),
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: image.extent().3,
    }
}

fn copy(image: &Image) -> vk::BufferImageCopy {
    let (width, height, depth, layers) = image.extent();
    vk::BufferImageCopy::default()
        .image_subresource(vk::ImageSubresourceLayers {
            aspect_mask: image.aspect(),
            mip_level: 0,
            base_array_layer: 0,
            layer_count: layers,
        })
        .image_extent(vk::Extent3D {
            width,
            height,
            depth,
        })
}

pub(super) fn descriptor_type(r: &Resource) -> vk::DescriptorType {
    match r {
        Resource::Buffer { storage: true, .. } => vk::DescriptorType::STORAGE_BUFFER,
        Resource::Buffer { .. } => vk::DescriptorType::UNIFORM_BUFFER,
        Resource::Image { image, .. } => image.descriptor_type(),
        Resource::Sampler => vk::DescriptorType::SAMPLER,
        Resource::AccelerationStructure => vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
    }
}

impl Gpu {
    /// Creates and fills what `descriptors` hold, seen by `stages`, and their sets (one per
    /// set number, empty ones for gaps).
    // SAFETY: callers pass `self.device` and the run's `Cleanup`, which owns everything made here;
    // the infos the descriptor writes point to are locals alive until `update_descriptor_sets`.
    // Relies on each image's `texels` being `image.bytes()` long (as `Kind::holding` makes them).
    pub(super) unsafe fn bind(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        descriptors: &[Descriptor],
        stages: vk::ShaderStageFlags,
    ) -> Result<Bound, String> {
        let err = |what: &str, e: vk::Result| format!("{what}: {e}");
        // One nearest-neighbour sampler for all: no filtering to differ on.
        let sampler = d
            .create_sampler(
                &vk::SamplerCreateInfo::default()
                    .mag_filter(vk::Filter::NEAREST)
                    .min_filter(vk::Filter::NEAREST)
                    .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                    .address_mode_u(vk::SamplerAddressMode::REPEAT)
                    .address_mode_v(vk::SamplerAddressMode::REPEAT)
                    .address_mode_w(vk::SamplerAddressMode::REPEAT),
                None,
            )
            .map_err(|e| err("sampler", e))?;
        c.samplers.push(sampler);
        // Depth images are sampled with comparisons: their combined sampler compares.
        let comparing = d
            .create_sampler(
                &vk::SamplerCreateInfo::default()
                    .mag_filter(vk::Filter::NEAREST)
                    .min_filter(vk::Filter::NEAREST)
                    .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                    .compare_enable(true)
                    .compare_op(vk::CompareOp::LESS_OR_EQUAL),
                None,
            )
            .map_err(|e| err("sampler", e))?;
        c.samplers.push(comparing);
        let mut bound = Bound {
            set_layouts: Vec::new(),
            sets: Vec::new(),
            uploads: Vec::new(),
            readbacks: Vec::new(),
            outs: Vec::new(),
            inputs: Vec::new(),
        };
        let mut buffer_infos: Vec<Vec<vk::DescriptorBufferInfo>> = Vec::new();
        let mut image_infos: Vec<Vec<vk::DescriptorImageInfo>> = Vec::new();
        let mut texel_views: Vec<Vec<vk::BufferView>> = Vec::new();
        let mut structures: Vec<Vec<vk::AccelerationStructureKHR>> = Vec::new();
        // The ray-query scene, built the first time a descriptor holds it.
        let mut scene = None;
        for desc in descriptors {
            let (mut buffers, mut images, mut views) = (Vec::new(), Vec::new(), Vec::new());
            let mut held = Vec::new();
            for resource in &desc.elements {
                match resource {
                    Resource::Buffer { storage, bytes } => {
                        let usage = if *storage {
                            vk::BufferUsageFlags::STORAGE_BUFFER
                        } else {
                            vk::BufferUsageFlags::UNIFORM_BUFFER
                        };
                        let (b, ptr) = self.host_buffer(d, c, usage, bytes, 0)?;
                        bound.outs.push(Out::Mapped(ptr, bytes.len(), *storage));
                        buffers.push(
                            vk::DescriptorBufferInfo::default()
                                .buffer(b)
                                .range(vk::WHOLE_SIZE),
                        );
                    }
                    Resource::Image { image, texels } if image.dim == Dim::Buffer => {
                        let usage = if image.storage {
                            vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
                        } else {
                            vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
                        };
                        let (b, ptr) = self.host_buffer(d, c, usage, texels, 0)?;
                        bound
                            .outs
                            .push(Out::Mapped(ptr, texels.len(), image.storage));
                        let view = d
                            .create_buffer_view(
                                &vk::BufferViewCreateInfo::default()
                                    .buffer(b)
                                    .format(image.vk_format())
                                    .range(vk::WHOLE_SIZE),
                                None,
                            )
                            .map_err(|e| err("texel buffer view", e))?;
                        c.buffer_views.push(view);
                        views.push(view);
                    }
                    Resource::Image { image, texels } => {
                        let usage = vk::ImageUsageFlags::TRANSFER_DST
                            | if image.storage {
                                vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_SRC
                            } else if matches!(image.dim, Dim::Subpass(_)) {
                                vk::ImageUsageFlags::INPUT_ATTACHMENT
                            } else {
                                vk::ImageUsageFlags::SAMPLED
                            };
                        let made = self.image_of(d, c, image, usage)?;
                        let (staging, _) =
                            self.host_buffer(d, c, vk::BufferUsageFlags::TRANSFER_SRC, texels, 0)?;
                        let seed = image.clear_seed(texels);
                        bound.uploads.push((made, staging, *image, seed));
                        if image.storage {
                            let (back, ptr) = self.host_buffer(
                                d,
                                c,
                                vk::BufferUsageFlags::TRANSFER_DST,
                                &[],
                                texels.len(),
                            )?;
                            bound.readbacks.push((made, back, *image));
                            bound.outs.push(Out::Copied(ptr, texels.len()));
                        } else {
                            bound.outs.push(Out::Given(texels.clone()));
                        }
                        let view = d
                            .create_image_view(
                                &vk::ImageViewCreateInfo::default()
                                    .image(made)
                                    .view_type(image.view_type())
                                    .format(image.vk_format())
                                    .subresource_range(range(image)),
                                None,
                            )
                            .map_err(|e| err("image view", e))?;
                        c.views.push(view);
                        if let Dim::Subpass(index) = image.dim {
                            bound.inputs.push((index, view, image.vk_format()));
                        }
                        let layout = if image.storage {
                            vk::ImageLayout::GENERAL
                        } else {
                            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
                        };
                        let mut info = vk::DescriptorImageInfo::default()
                            .image_view(view)
                            .image_layout(layout);
                        if image.combined {
                            info = info.sampler(if image.depth { comparing } else { sampler });
                        }
                        images.push(info);
                    }
                    Resource::Sampler => {
                        bound.outs.push(Out::Given(Vec::new()));
                        images.push(vk::DescriptorImageInfo::default().sampler(sampler))
                    }
                    Resource::AccelerationStructure => {
                        let top = match scene {
                            Some(top) => top,
                            None => *scene.insert(self.scene(d, c)?),
                        };
                        bound.outs.push(Out::Given(Vec::new()));
                        held.push(top);
                    }
                }
            }
            buffer_infos.push(buffers);
            image_infos.push(images);
            texel_views.push(views);
            structures.push(held);
        }
        let kind = |s: &Descriptor| {
            s.elements
                .first()
                .map_or(vk::DescriptorType::UNIFORM_BUFFER, descriptor_type)
        };
        let set_count = descriptors.iter().map(|s| s.set + 1).max().unwrap_or(0);
        for set in 0..set_count {
            let bindings: Vec<vk::DescriptorSetLayoutBinding> = descriptors
                .iter()
                .filter(|s| s.set == set)
                .map(|s| {
                    // Only fragment shaders read input attachments.
                    let seen = if kind(s) == vk::DescriptorType::INPUT_ATTACHMENT {
                        vk::ShaderStageFlags::FRAGMENT
                    } else {
                        stages
                    };
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(s.binding)
                        .descriptor_type(kind(s))
                        .descriptor_count(s.elements.len() as u32)
                        .stage_flags(seen)
                })
                .collect();
            let l = d
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .map_err(|e| err("set layout", e))?;
            c.set_layouts.push(l);
            bound.set_layouts.push(l);
        }
        if bound.set_layouts.is_empty() {
            return Ok(bound);
        }
        let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
        for s in descriptors {
            let n = s.elements.len() as u32;
            match sizes.iter_mut().find(|p| p.ty == kind(s)) {
                Some(p) => p.descriptor_count += n,
                None => sizes.push(
                    vk::DescriptorPoolSize::default()
                        .ty(kind(s))
                        .descriptor_count(n.max(1)),
                ),
            }
        }
        if sizes.is_empty() {
            sizes.push(
                vk::DescriptorPoolSize::default()
                    .ty(vk::DescriptorType::UNIFORM_BUFFER)
                    .descriptor_count(1),
            );
        }
        bound.sets = self.descriptor_sets(d, c, &sizes, &bound.set_layouts)?;
        // Acceleration structures are written through a struct chained to the write.
        let mut structure_writes: Vec<vk::WriteDescriptorSetAccelerationStructureKHR> = structures
            .iter()
            .map(|held| {
                vk::WriteDescriptorSetAccelerationStructureKHR::default()
                    .acceleration_structures(held)
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = descriptors
            .iter()
            .zip(structure_writes.iter_mut())
            .enumerate()
            .filter(|(_, (s, _))| !s.elements.is_empty())
            .map(|(i, (s, structure))| {
                let write = vk::WriteDescriptorSet::default()
                    .dst_set(bound.sets[s.set as usize])
                    .dst_binding(s.binding)
                    .descriptor_type(kind(s));
                match kind(s) {
                    vk::DescriptorType::STORAGE_BUFFER | vk::DescriptorType::UNIFORM_BUFFER => {
                        write.buffer_info(&buffer_infos[i])
                    }
                    vk::DescriptorType::STORAGE_TEXEL_BUFFER
                    | vk::DescriptorType::UNIFORM_TEXEL_BUFFER => {
                        write.texel_buffer_view(&texel_views[i])
                    }
                    vk::DescriptorType::ACCELERATION_STRUCTURE_KHR => write
                        .descriptor_count(structures[i].len() as u32)
                        .push_next(structure),
                    _ => write.image_info(&image_infos[i]),
                }
            })
            .collect();
        d.update_descriptor_sets(&writes, &[]);
        Ok(bound)
    }

    /// A device-local image of `image`'s shape and format, bound to memory.
    // SAFETY: callers pass `self.device`; the create-info is a temporary alive across the call,
    // and the image and its memory go into `c`, bound at offset 0 (always aligned).
    unsafe fn image_of(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        image: &Image,
        usage: vk::ImageUsageFlags,
    ) -> Result<vk::Image, String> {
        let (width, height, depth, layers) = image.extent();
        let flags = if image.dim == Dim::Cube {
            vk::ImageCreateFlags::CUBE_COMPATIBLE
        } else {
            vk::ImageCreateFlags::empty()
        };
        let made = d
            .create_image(
                &vk::ImageCreateInfo::default()
                    .flags(flags)
                    .image_type(image.image_type())
                    .format(image.vk_format())
                    .extent(vk::Extent3D {
                        width,
                        height,
                        depth,
                    })
                    .mip_levels(1)
                    .array_layers(layers)
                    .samples(image.samples())
                    .tiling(vk::ImageTiling::OPTIMAL)
                    .usage(usage),
                None,
            )
            .map_err(|e| format!("{image} in format {:?}: {e}", image.vk_format()))?;
        c.images.push(made);
        let req = d.get_image_memory_requirements(made);
        let mem = self.memory(d, c, req, vk::MemoryPropertyFlags::empty(), false)?;
        d.bind_image_memory(made, mem, 0)
            .map_err(|e| format!("bind image: {e}"))?;
        Ok(made)
    }

    /// Records the images' fills, before the work at `stages`.
    // SAFETY: callers pass `self.device` and a command buffer recording outside a render pass;
    // the images and staging buffers in `bound` are alive in the run's `Cleanup`.
    pub(super) unsafe fn record_uploads(
        &self,
        d: &ash::Device,
        cmd: vk::CommandBuffer,
        bound: &Bound,
        stages: vk::PipelineStageFlags,
    ) {
        for (image, staging, shape, seed) in &bound.uploads {
            let barrier = |from, to, src, dst| {
                vk::ImageMemoryBarrier::default()
                    .image(*image)
                    .subresource_range(range(shape))
                    .old_layout(from)
                    .new_layout(to)
                    .src_access_mask(src)
                    .dst_access_mask(dst)
            };
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier(
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    vk::AccessFlags::empty(),
                    vk::AccessFlags::TRANSFER_WRITE,
                )],
            );
            if shape.multisampled {
                // Multisampled images cannot be copied into: one value for every sample.
                d.cmd_clear_color_image(
                    cmd,
                    *image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &shape.clear_value(*seed),
                    &[range(shape)],
                );
            } else {
                d.cmd_copy_buffer_to_image(
                    cmd,
                    *staging,
                    *image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[copy(shape)],
                );
            }
            let (layout, access) = if shape.storage {
                (
                    vk::ImageLayout::GENERAL,
                    vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                )
            } else {
                (
                    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                    vk::AccessFlags::SHADER_READ,
                )
            };
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TRANSFER,
                stages,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier(
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    layout,
                    vk::AccessFlags::TRANSFER_WRITE,
                    access,
                )],
            );
        }
    }

    /// Records the storage images' copies out, after the work at `stages`.
    // SAFETY: callers pass `self.device` and a command buffer recording outside a render pass,
    // after the work; the images and host buffers in `bound` are alive in the run's `Cleanup`.
    pub(super) unsafe fn record_readbacks(
        &self,
        d: &ash::Device,
        cmd: vk::CommandBuffer,
        bound: &Bound,
        stages: vk::PipelineStageFlags,
    ) {
        for (image, buffer, shape) in &bound.readbacks {
            let to_copy = vk::ImageMemoryBarrier::default()
                .image(*image)
                .subresource_range(range(shape))
                .old_layout(vk::ImageLayout::GENERAL)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ);
            d.cmd_pipeline_barrier(
                cmd,
                stages,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_copy],
            );
            d.cmd_copy_image_to_buffer(
                cmd,
                *image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                *buffer,
                &[copy(shape)],
            );
        }
    }
}

impl Bound {
    /// Records the binding of the sets, if there are any.
    // SAFETY: callers pass the device the sets came from, a recording command buffer and a
    // pipeline layout made from `self.set_layouts`, all alive until the run is cleaned.
    pub(super) unsafe fn record_binding(
        &self,
        d: &ash::Device,
        cmd: vk::CommandBuffer,
        point: vk::PipelineBindPoint,
        layout: vk::PipelineLayout,
    ) {
        if !self.sets.is_empty() {
            d.cmd_bind_descriptor_sets(cmd, point, layout, 0, &self.sets, &[]);
        }
    }

    /// Every element's bytes after the work (once it has finished), in descriptor order.
    // SAFETY: callers call this after the work was waited for and before the run is cleaned: each
    // pointer is mapped host-coherent memory of at least `len` bytes that nothing writes then.
    pub(super) unsafe fn contents(&self) -> Vec<Vec<u8>> {
        self.outs
            .iter()
            .map(|o| match o {
                Out::Mapped(ptr, len, _) | Out::Copied(ptr, len) => {
                    std::slice::from_raw_parts(*ptr, *len).to_vec()
                }
                Out::Given(bytes) => bytes.clone(),
            })
            .collect()
    }

    /// Where element `k` (in descriptor order) of a buffer is mapped, and its length.
    pub(super) fn mapped(&self, k: usize) -> Option<(*mut u8, usize)> {
        match self.outs.get(k) {
            Some(Out::Mapped(ptr, len, _)) => Some((*ptr, *len)),
            _ => None,
        }
    }

    /// The bytes of the elements the shader may have written, in descriptor order.
    // SAFETY: callers call this after the work was waited for and before the run is cleaned: each
    // pointer is mapped host-coherent memory of at least `len` bytes that nothing writes then.
    pub(super) unsafe fn written(&self) -> Vec<Vec<u8>> {
        self.outs
            .iter()
            .filter_map(|o| match o {
                Out::Mapped(ptr, len, true) | Out::Copied(ptr, len) => {
                    Some(std::slice::from_raw_parts(*ptr, *len).to_vec())
                }
                _ => None,
            })
            .collect()
    }
}
