//! The scene ray-query shaders trace against: a bottom-level acceleration structure of two
//! large triangles, one across z = 1 and one across z = -1 (so that a ray along either
//! direction of z from near the origin hits one, and rays in the plane miss), in a top-level
//! structure of one instance with the identity transform and culling off. Built on the device
//! once per run that binds one.

use super::device::Cleanup;
use super::Gpu;
use ash::vk;

/// Half the width of each triangle: larger than any coordinate a test ray starts from.
const REACH: f32 = 1000.0;

impl Gpu {
    /// Builds the scene and gives its top-level structure.
    // SAFETY: callers pass `self.device` and the run's `Cleanup`, which owns every buffer,
    // memory and structure made here (the structures destroyed before their buffers); each
    // build is waited for before what it reads is used or freed.
    pub(super) unsafe fn scene(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
    ) -> Result<vk::AccelerationStructureKHR, String> {
        let loader = self.accel.as_ref().ok_or_else(|| {
            format!(
                "{} has no ray queries (VK_KHR_acceleration_structure and VK_KHR_ray_query)",
                self.name
            )
        })?;
        let address = |b: vk::Buffer| {
            d.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(b))
        };
        let mut vertices = Vec::new();
        for z in [1.0f32, -1.0] {
            for (x, y) in [
                (-REACH, -REACH),
                (REACH * 3.0, -REACH),
                (-REACH, REACH * 3.0),
            ] {
                vertices.extend([x, y, z]);
            }
        }
        let bytes: Vec<u8> = vertices.iter().flat_map(|v| v.to_le_bytes()).collect();
        let input = vk::BufferUsageFlags::ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_KHR
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        let (vertex_buffer, _) = self.host_buffer_with(d, c, input, &bytes, 0, true)?;
        let triangles = vk::AccelerationStructureGeometryTrianglesDataKHR::default()
            .vertex_format(vk::Format::R32G32B32_SFLOAT)
            .vertex_data(vk::DeviceOrHostAddressConstKHR {
                device_address: address(vertex_buffer),
            })
            .vertex_stride(12)
            .max_vertex(5)
            .index_type(vk::IndexType::NONE_KHR);
        let geometry = vk::AccelerationStructureGeometryKHR::default()
            .geometry_type(vk::GeometryTypeKHR::TRIANGLES)
            .geometry(vk::AccelerationStructureGeometryDataKHR { triangles })
            .flags(vk::GeometryFlagsKHR::OPAQUE);
        let bottom = self.build(
            d,
            c,
            loader,
            vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL,
            geometry,
            2,
        )?;
        let reference = loader.get_acceleration_structure_device_address(
            &vk::AccelerationStructureDeviceAddressInfoKHR::default()
                .acceleration_structure(bottom),
        );
        let instance = vk::AccelerationStructureInstanceKHR {
            transform: vk::TransformMatrixKHR {
                matrix: [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            },
            instance_custom_index_and_mask: vk::Packed24_8::new(0, 0xff),
            instance_shader_binding_table_record_offset_and_flags: vk::Packed24_8::new(
                0,
                vk::GeometryInstanceFlagsKHR::TRIANGLE_FACING_CULL_DISABLE.as_raw() as u8,
            ),
            acceleration_structure_reference: vk::AccelerationStructureReferenceKHR {
                device_handle: reference,
            },
        };
        // The instance as the device reads it: the struct's own bytes (`repr(C)`, 64 bytes).
        let instance_bytes = std::slice::from_raw_parts(
            (&raw const instance).cast::<u8>(),
            std::mem::size_of::<vk::AccelerationStructureInstanceKHR>(),
        );
        let (instance_buffer, _) = self.host_buffer_with(d, c, input, instance_bytes, 0, true)?;
        let instances = vk::AccelerationStructureGeometryInstancesDataKHR::default().data(
            vk::DeviceOrHostAddressConstKHR {
                device_address: address(instance_buffer),
            },
        );
        let geometry = vk::AccelerationStructureGeometryKHR::default()
            .geometry_type(vk::GeometryTypeKHR::INSTANCES)
            .geometry(vk::AccelerationStructureGeometryDataKHR { instances })
            .flags(vk::GeometryFlagsKHR::OPAQUE);
        self.build(
            d,
            c,
            loader,
            vk::AccelerationStructureTypeKHR::TOP_LEVEL,
            geometry,
            1,
        )
    }

    /// One acceleration structure of `geometry` (`primitives` triangles or instances), built on
    /// the device and waited for.
    // SAFETY: as `scene`; `geometry` points at buffers alive in `c`.
    unsafe fn build(
        &self,
        d: &ash::Device,
        c: &mut Cleanup,
        loader: &ash::khr::acceleration_structure::Device,
        ty: vk::AccelerationStructureTypeKHR,
        geometry: vk::AccelerationStructureGeometryKHR,
        primitives: u32,
    ) -> Result<vk::AccelerationStructureKHR, String> {
        let geometries = [geometry];
        let mut info = vk::AccelerationStructureBuildGeometryInfoKHR::default()
            .ty(ty)
            .flags(vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_TRACE)
            .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
            .geometries(&geometries);
        let mut sizes = vk::AccelerationStructureBuildSizesInfoKHR::default();
        loader.get_acceleration_structure_build_sizes(
            vk::AccelerationStructureBuildTypeKHR::DEVICE,
            &info,
            &[primitives],
            &mut sizes,
        );
        let storage = vk::BufferUsageFlags::ACCELERATION_STRUCTURE_STORAGE_KHR
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        let (holder, _) = self.host_buffer_with(
            d,
            c,
            storage,
            &[],
            sizes.acceleration_structure_size as usize,
            true,
        )?;
        let made = loader
            .create_acceleration_structure(
                &vk::AccelerationStructureCreateInfoKHR::default()
                    .buffer(holder)
                    .size(sizes.acceleration_structure_size)
                    .ty(ty),
                None,
            )
            .map_err(|e| format!("acceleration structure: {e}"))?;
        c.acceleration_structures.push((loader.clone(), made));
        // Scratch space, its address aligned as generously as any driver asks (256 bytes).
        const ALIGN: u64 = 256;
        let scratch_usage =
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        let scratch_size = sizes.build_scratch_size as usize + ALIGN as usize;
        let (scratch, _) = self.host_buffer_with(d, c, scratch_usage, &[], scratch_size, true)?;
        let scratch_address = d
            .get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(scratch))
            .div_ceil(ALIGN)
            * ALIGN;
        info = info
            .dst_acceleration_structure(made)
            .scratch_data(vk::DeviceOrHostAddressKHR {
                device_address: scratch_address,
            });
        let range =
            [vk::AccelerationStructureBuildRangeInfoKHR::default().primitive_count(primitives)];
        let cmd = self.begin(d, c)?;
        loader.cmd_build_acceleration_structures(cmd, &[info], &[&range]);
        self.submit_and_wait(d, c, cmd)?;
        Ok(made)
    }
}
