//! Images and texel buffers as shaders declare them (`OpTypeImage`): their shape, the Vulkan
//! format a run gives them, how many texels of how many bytes they hold, and the fixed pattern
//! they are filled with — for compute shaders and draws alike.

use ash::vk;
use spirv::ImageFormat;

use super::reflect::Scalar;

/// Texels per side of the images runs make (3D images are `DEPTH_SIZE` deep instead).
pub const TEXTURE_SIZE: u32 = 8;

/// Texels per side of a 3D image: 4³ keeps it as small as a 2D one.
const DEPTH_SIZE: u32 = 4;

/// Texels of a texel buffer.
const TEXEL_BUFFER_TEXELS: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    D1,
    D2,
    D3,
    Cube,
    /// A texel buffer.
    Buffer,
    /// An input attachment (`SubpassData`), at this `InputAttachmentIndex`: read at the
    /// fragment's own position, as big as the framebuffer.
    Subpass(u32),
}

/// The framebuffer draws use, which an input attachment covers.
pub const FRAMEBUFFER: (u32, u32) = (24, 24);

/// An image (or texel buffer) type of a shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Image {
    /// What its texels read as.
    pub scalar: Scalar,
    pub dim: Dim,
    pub arrayed: bool,
    /// Read and written without a sampler (`Sampled` 2): a storage image or texel buffer.
    pub storage: bool,
    /// With its sampler (`OpTypeSampledImage`).
    pub combined: bool,
    /// A depth image (`Depth` 1): sampled with depth comparisons, in a depth format.
    pub depth: bool,
    /// Four samples per texel, all filled with one value (a multisampled image cannot be
    /// copied into).
    pub multisampled: bool,
    /// The format the type declares (`Unknown` for most sampled images).
    pub format: ImageFormat,
}

/// How a format's components are stored.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Store {
    Float,
    Norm,
    Int,
    /// Packed into one word (10/11-bit floats, 10:10:10:2): any bits are a value.
    Packed,
}

/// The Vulkan format of a declared image format, with (components, bytes per component).
fn declared(f: ImageFormat) -> Option<(vk::Format, Store, u32, u32)> {
    use vk::Format as V;
    use ImageFormat as I;
    use Store::*;
    Some(match f {
        I::Rgba32f => (V::R32G32B32A32_SFLOAT, Float, 4, 4),
        I::Rgba16f => (V::R16G16B16A16_SFLOAT, Float, 4, 2),
        I::R32f => (V::R32_SFLOAT, Float, 1, 4),
        I::Rgba8 => (V::R8G8B8A8_UNORM, Norm, 4, 1),
        I::Rgba8Snorm => (V::R8G8B8A8_SNORM, Norm, 4, 1),
        I::Rg32f => (V::R32G32_SFLOAT, Float, 2, 4),
        I::Rg16f => (V::R16G16_SFLOAT, Float, 2, 2),
        I::R11fG11fB10f => (V::B10G11R11_UFLOAT_PACK32, Packed, 1, 4),
        I::R16f => (V::R16_SFLOAT, Float, 1, 2),
        I::Rgba16 => (V::R16G16B16A16_UNORM, Norm, 4, 2),
        I::Rgb10A2 => (V::A2B10G10R10_UNORM_PACK32, Packed, 1, 4),
        I::Rg16 => (V::R16G16_UNORM, Norm, 2, 2),
        I::Rg8 => (V::R8G8_UNORM, Norm, 2, 1),
        I::R16 => (V::R16_UNORM, Norm, 1, 2),
        I::R8 => (V::R8_UNORM, Norm, 1, 1),
        I::Rgba16Snorm => (V::R16G16B16A16_SNORM, Norm, 4, 2),
        I::Rg16Snorm => (V::R16G16_SNORM, Norm, 2, 2),
        I::Rg8Snorm => (V::R8G8_SNORM, Norm, 2, 1),
        I::R16Snorm => (V::R16_SNORM, Norm, 1, 2),
        I::R8Snorm => (V::R8_SNORM, Norm, 1, 1),
        I::Rgba32i => (V::R32G32B32A32_SINT, Int, 4, 4),
        I::Rgba16i => (V::R16G16B16A16_SINT, Int, 4, 2),
        I::Rgba8i => (V::R8G8B8A8_SINT, Int, 4, 1),
        I::R32i => (V::R32_SINT, Int, 1, 4),
        I::Rg32i => (V::R32G32_SINT, Int, 2, 4),
        I::Rg16i => (V::R16G16_SINT, Int, 2, 2),
        I::Rg8i => (V::R8G8_SINT, Int, 2, 1),
        I::R16i => (V::R16_SINT, Int, 1, 2),
        I::R8i => (V::R8_SINT, Int, 1, 1),
        I::Rgba32ui => (V::R32G32B32A32_UINT, Int, 4, 4),
        I::Rgba16ui => (V::R16G16B16A16_UINT, Int, 4, 2),
        I::Rgba8ui => (V::R8G8B8A8_UINT, Int, 4, 1),
        I::R32ui => (V::R32_UINT, Int, 1, 4),
        I::Rgb10a2ui => (V::A2B10G10R10_UINT_PACK32, Packed, 1, 4),
        I::Rg32ui => (V::R32G32_UINT, Int, 2, 4),
        I::Rg16ui => (V::R16G16_UINT, Int, 2, 2),
        I::Rg8ui => (V::R8G8_UINT, Int, 2, 1),
        I::R16ui => (V::R16_UINT, Int, 1, 2),
        I::R8ui => (V::R8_UINT, Int, 1, 1),
        I::R64ui => (V::R64_UINT, Int, 1, 8),
        I::R64i => (V::R64_SINT, Int, 1, 8),
        I::Unknown => return None,
    })
}

impl Image {
    /// The format a run gives it: the declared one, else four 8-bit normalized components for
    /// sampled floats (values in [0, 1], as textures hold) and four 32-bit components for the
    /// rest.
    fn layout(&self) -> (vk::Format, Store, u32, u32) {
        if self.depth {
            return (vk::Format::D32_SFLOAT, Store::Float, 1, 4);
        }
        declared(self.format).unwrap_or(match (self.scalar, self.storage) {
            (Scalar::F32, false) => (vk::Format::R8G8B8A8_UNORM, Store::Norm, 4, 1),
            (Scalar::F32, true) => (vk::Format::R32G32B32A32_SFLOAT, Store::Float, 4, 4),
            (Scalar::I32, _) => (vk::Format::R32G32B32A32_SINT, Store::Int, 4, 4),
            (Scalar::U32, _) => (vk::Format::R32G32B32A32_UINT, Store::Int, 4, 4),
        })
    }

    pub fn vk_format(&self) -> vk::Format {
        self.layout().0
    }

    pub fn texel_bytes(&self) -> u32 {
        let (_, _, comps, bytes) = self.layout();
        comps * bytes
    }

    /// Width, height, depth and layers.
    pub fn extent(&self) -> (u32, u32, u32, u32) {
        let layers = |n: u32| if self.arrayed { 2 * n } else { n };
        match self.dim {
            Dim::D1 => (TEXTURE_SIZE, 1, 1, layers(1)),
            Dim::D2 => (TEXTURE_SIZE, TEXTURE_SIZE, 1, layers(1)),
            Dim::D3 => (DEPTH_SIZE, DEPTH_SIZE, DEPTH_SIZE, 1),
            Dim::Cube => (TEXTURE_SIZE, TEXTURE_SIZE, 1, layers(6)),
            Dim::Buffer => (TEXEL_BUFFER_TEXELS, 1, 1, 1),
            Dim::Subpass(_) => (FRAMEBUFFER.0, FRAMEBUFFER.1, 1, 1),
        }
    }

    pub fn texels(&self) -> u32 {
        let (w, h, d, l) = self.extent();
        w * h * d * l
    }

    pub fn bytes(&self) -> usize {
        (self.texels() * self.texel_bytes()) as usize
    }

    pub fn image_type(&self) -> vk::ImageType {
        match self.dim {
            Dim::D1 => vk::ImageType::TYPE_1D,
            Dim::D3 => vk::ImageType::TYPE_3D,
            _ => vk::ImageType::TYPE_2D,
        }
    }

    pub fn view_type(&self) -> vk::ImageViewType {
        match (self.dim, self.arrayed) {
            (Dim::D1, false) => vk::ImageViewType::TYPE_1D,
            (Dim::D1, true) => vk::ImageViewType::TYPE_1D_ARRAY,
            (Dim::D3, _) => vk::ImageViewType::TYPE_3D,
            (Dim::Cube, false) => vk::ImageViewType::CUBE,
            (Dim::Cube, true) => vk::ImageViewType::CUBE_ARRAY,
            (_, false) => vk::ImageViewType::TYPE_2D,
            (_, true) => vk::ImageViewType::TYPE_2D_ARRAY,
        }
    }

    pub fn aspect(&self) -> vk::ImageAspectFlags {
        if self.depth {
            vk::ImageAspectFlags::DEPTH
        } else {
            vk::ImageAspectFlags::COLOR
        }
    }

    pub fn samples(&self) -> vk::SampleCountFlags {
        if self.multisampled {
            vk::SampleCountFlags::TYPE_4
        } else {
            vk::SampleCountFlags::TYPE_1
        }
    }

    /// The seed of a multisampled image's value, from the bytes it would otherwise hold, so
    /// that runs of the same setup agree.
    pub fn clear_seed(&self, texels: &[u8]) -> u32 {
        texels
            .iter()
            .take(64)
            .fold(0u32, |a, &b| a.wrapping_mul(31).wrapping_add(u32::from(b)))
    }

    /// The one value a multisampled image is cleared to, from `seed`: small values in the
    /// format's range (integers, or eighths for floats), as four components.
    fn clear_components(&self, seed: u32) -> ([u32; 4], bool) {
        let small = |k: u32| (seed.wrapping_mul(2654435761).wrapping_add(k * 7)) % 9;
        ([0, 1, 2, 3].map(small), self.layout().1 == Store::Int)
    }

    /// `clear_components` as Vulkan takes it.
    pub fn clear_value(&self, seed: u32) -> vk::ClearColorValue {
        match self.clear_components(seed) {
            (ints, true) => vk::ClearColorValue { uint32: ints },
            (ints, false) => vk::ClearColorValue {
                float32: ints.map(|k| k as f32 / 8.0),
            },
        }
    }

    pub fn descriptor_type(&self) -> vk::DescriptorType {
        match (self.dim, self.storage, self.combined) {
            (Dim::Subpass(_), _, _) => vk::DescriptorType::INPUT_ATTACHMENT,
            (Dim::Buffer, true, _) => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            (Dim::Buffer, false, _) => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            (_, true, _) => vk::DescriptorType::STORAGE_IMAGE,
            (_, false, true) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            (_, false, false) => vk::DescriptorType::SAMPLED_IMAGE,
        }
    }

    /// The fixed pattern an image starts with, different per `seed`: small values in every
    /// component, valid for its format (no NaN or infinity in float components).
    pub fn fill(&self, seed: u32) -> Vec<u8> {
        let (_, store, comps, bytes) = self.layout();
        let mut out = Vec::with_capacity(self.bytes());
        for i in 0..self.texels() * comps {
            let small = i.wrapping_mul(2654435761).wrapping_add(seed * 7) % 9;
            match (store, bytes) {
                // Depth is stored in [0, 1].
                (Store::Float, 4) if self.depth => {
                    out.extend((small as f32 / 8.0).to_bits().to_le_bytes())
                }
                (Store::Float, 4) => {
                    out.extend((small as f32 * 0.25 - 1.0).to_bits().to_le_bytes())
                }
                // Halves: 0.25 steps from -1 (sign, exponent and mantissa by hand).
                (Store::Float, _) => out.extend(HALVES[small as usize].to_le_bytes()),
                (Store::Norm, _) => {
                    out.push((small * 28) as u8);
                    out.extend(std::iter::repeat_n(0, bytes as usize - 1));
                }
                (Store::Int | Store::Packed, _) => {
                    out.extend(&small.to_le_bytes()[..bytes.min(4) as usize]);
                    out.extend(std::iter::repeat_n(0, bytes.saturating_sub(4) as usize));
                }
            }
        }
        out
    }
}

impl Image {
    /// The image as the interpreter takes it (`ir::exec::Image`), holding `texels`, bound at
    /// `set`, `binding` and array element `element`; `Err` says why it cannot.
    pub fn for_exec(
        &self,
        (set, binding, element): (u32, u32, u32),
        texels: Vec<u8>,
    ) -> Result<crate::ir::exec::Image, String> {
        use crate::ir::exec::{Encoding, ImageDim, Sampler};
        let dim = match self.dim {
            Dim::D1 => ImageDim::D1,
            Dim::D2 => ImageDim::D2,
            Dim::D3 => ImageDim::D3,
            Dim::Buffer => ImageDim::Buffer,
            Dim::Cube => ImageDim::Cube,
            Dim::Subpass(_) => ImageDim::Subpass,
        };
        let (format, store, components, component_bytes) = self.layout();
        let name = format!("{format:?}");
        let encoding = match store {
            Store::Float => Encoding::Float,
            Store::Norm if name.contains("SNORM") => Encoding::Snorm,
            Store::Norm => Encoding::Unorm,
            Store::Int if name.contains("SINT") => Encoding::Sint,
            Store::Int => Encoding::Uint,
            Store::Packed => {
                return Err(format!(
                    "{self} in a packed format ({name}), which exec does not run yet"
                ))
            }
        };
        let (w, h, d, layers) = self.extent();
        let mut image = crate::ir::exec::Image {
            set,
            binding,
            element,
            dim,
            arrayed: self.arrayed,
            extent: [w, h, d, layers],
            encoding,
            components,
            component_bytes,
            texels,
            sampler: (self.combined || self.depth).then_some(Sampler {
                compare: self.depth,
            }),
            undefined_texels: Vec::new(),
            samples: if self.multisampled { 4 } else { 1 },
        };
        if self.multisampled {
            // Every sample of every texel holds the value the driver clears it to.
            let (small, int) = self.clear_components(self.clear_seed(&image.texels));
            let parts = small
                .into_iter()
                .map(|k| {
                    if int {
                        crate::ir::exec::texel_int(k)
                    } else {
                        crate::ir::exec::texel_float(f64::from(k) / 8.0)
                    }
                })
                .collect();
            let value = crate::ir::consts::Const::Composite(parts);
            for t in 0..self.texels() as usize {
                image.write_texel(t, &value);
            }
        }
        Ok(image)
    }
}

/// -1, -0.75, … 1 as IEEE halves.
const HALVES: [u16; 9] = [
    0xbc00, 0xba00, 0xb800, 0xb400, 0x0000, 0x3400, 0x3800, 0x3a00, 0x3c00,
];

/// Said to a person: "a storage image of floats (3D)", "an arrayed combined image sampler of
/// floats", "a uniform texel buffer of unsigned integers".
impl std::fmt::Display for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match (self.dim, self.storage, self.combined) {
            (Dim::Subpass(_), _, _) => "input attachment",
            (Dim::Buffer, true, _) => "storage texel buffer",
            (Dim::Buffer, false, _) => "uniform texel buffer",
            (_, true, _) => "storage image",
            (_, false, true) => "combined image sampler",
            (_, false, false) => "sampled image",
        };
        let of = match self.scalar {
            Scalar::F32 => "floats",
            Scalar::I32 => "signed integers",
            Scalar::U32 => "unsigned integers",
        };
        let what = match (self.depth, self.multisampled) {
            (true, _) => format!("depth {what}"),
            (_, true) => format!("multisampled {what}"),
            _ => what.to_string(),
        };
        let dim = match self.dim {
            Dim::D1 => " (1D)",
            Dim::D3 => " (3D)",
            Dim::Cube => " (cube)",
            Dim::D2 | Dim::Buffer | Dim::Subpass(_) => "",
        };
        if self.arrayed {
            write!(f, "an arrayed {what} of {of}{dim}")
        } else if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
            write!(f, "an {what} of {of}{dim}")
        } else {
            write!(f, "a {what} of {of}{dim}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_match_their_formats() {
        let image = |dim, format, arrayed| Image {
            scalar: Scalar::F32,
            dim,
            arrayed,
            storage: true,
            combined: false,
            depth: false,
            multisampled: false,
            format,
        };
        let cube = image(Dim::Cube, ImageFormat::Rgba16f, true);
        assert_eq!(cube.extent(), (8, 8, 1, 12));
        assert_eq!(cube.fill(3).len(), cube.bytes());
        assert_eq!(cube.bytes(), 8 * 8 * 12 * 8);
        let r32 = image(Dim::D3, ImageFormat::R32f, false);
        assert_eq!(r32.bytes(), 64 * 4);
        assert!(r32
            .fill(1)
            .chunks(4)
            .all(|w| f32::from_le_bytes(w.try_into().unwrap()).abs() <= 1.0));
        assert_eq!(
            image(Dim::Buffer, ImageFormat::Unknown, false).to_string(),
            "a storage texel buffer of floats"
        );
        assert_eq!(
            image(Dim::Cube, ImageFormat::Unknown, true).to_string(),
            "an arrayed storage image of floats (cube)"
        );
    }
}
