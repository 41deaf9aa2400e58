//! Compute dispatches: buffers in, the shader run over its workgroups, buffers out.

use super::resources::to_host;
use super::*;
use ash::vk;

impl Gpu {
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
        self.offers_what_is_used(&[words])?;
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
    pub(super) unsafe fn run_inner(
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
        let mut push = layout.push_constants();
        let pointees = if sites.is_empty() {
            None
        } else {
            let p = self.pointees(d, c, &sites.pointees)?;
            for (k, offsets) in layout.slot_sites().into_iter().enumerate() {
                if let Some((ptr, len)) = bound.mapped(k) {
                    p.write(ptr, len, offsets, k);
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
            .map_err(|(_, e)| self.refusal("compute pipeline", e, &[words]))?[0];
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
            // Each slot's sites, and where its addresses started (as written above).
            let slot_sites = layout.slot_sites();
            out.extend(p.contents());
            let n = out.len() - super::addresses::POINTEES;
            for (k, bytes) in out.iter_mut().enumerate() {
                let (at, first) = match k.checked_sub(n) {
                    Some(pointee) => (sites.pointees.as_slice(), pointee + 1),
                    None => (slot_sites.get(k).copied().unwrap_or_default(), k),
                };
                p.unaddressed_halves(bytes, at, first);
                p.unaddressed(bytes);
            }
        }
        Ok(out)
    }
}
