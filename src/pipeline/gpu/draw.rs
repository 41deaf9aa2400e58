//! Draws: a vertex and a fragment stage into colour attachments, with the same descriptors as
//! compute runs, input attachments and push constants.

use super::resources::to_host;
use super::*;
use ash::vk;

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
        self.offers_what_is_used(&[draw.vs, draw.fs])?;
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

    // SAFETY: callers pass `d = &self.device` and the draw's `Cleanup`, which owns every handle
    // made here; create-infos borrow locals alive across each call; targets are read after the
    // wait. Assumes `self.family` can do graphics and `texel_bytes` matches each colour format.
    pub(super) unsafe fn draw_inner(
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
            .map_err(|(_, e)| self.refusal("graphics pipeline", e, &[draw.vs, draw.fs]))?[0];
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
