//! Images, texel buffers and samplers as the interpreter reads and writes them: texels as
//! bytes in a format (`Encoding`, components, bytes per component), addressed as Vulkan
//! does, and sampled as the harness's sampler does — nearest texel, `REPEAT` addressing, one
//! mip level (so the level of detail, implicit or explicit, changes nothing), depth images
//! compared with `LESS_OR_EQUAL`. A sampler the harness does not make is never given.

use super::super::consts::{decode_float, encode_float, Const};
use super::super::ops::fold::Value as V;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    D1,
    D2,
    D3,
    /// Six square faces, one layer each (six per cube of an arrayed one).
    Cube,
    /// An input attachment: as big as the framebuffer, read at the fragment's own pixel
    /// (its coordinates are an offset from there).
    Subpass,
    /// A texel buffer.
    Buffer,
}

/// How a format's components are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Float,
    Unorm,
    Snorm,
    Sint,
    Uint,
}

/// An image (or texel buffer) bound at a descriptor set, binding and array element.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub set: u32,
    pub binding: u32,
    pub element: u32,
    pub dim: Dim,
    pub arrayed: bool,
    /// Width, height, depth and layers.
    pub extent: [u32; 4],
    pub encoding: Encoding,
    pub components: u32,
    /// 1, 2 or 4 (floats: 2 or 4).
    pub component_bytes: u32,
    /// Texels, row by row, layer by layer.
    pub texels: Vec<u8>,
    /// The sampler of a combined image sampler.
    pub sampler: Option<Sampler>,
    /// After a run: the texels a race left undefined (their bytes are any one writer's).
    pub undefined_texels: Vec<usize>,
    /// Samples per texel (1, or 4 for a multisampled image, every sample alike).
    pub samples: u32,
}

/// The harness's sampler: nearest, `REPEAT`, one level; `compare`: depth comparisons with
/// `LESS_OR_EQUAL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler {
    pub compare: bool,
}

/// A sampler bound alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerBinding {
    pub set: u32,
    pub binding: u32,
    pub element: u32,
    pub sampler: Sampler,
}

impl Image {
    fn texel_bytes(&self) -> usize {
        (self.components * self.component_bytes) as usize
    }

    /// The number of texel `[x, y, z, layer]`, when inside the image.
    fn index(&self, at: [i64; 4]) -> Option<usize> {
        let [w, h, d, l] = self.extent.map(i64::from);
        let [x, y, z, layer] = at;
        let inside = (0..w).contains(&x)
            && (0..h).contains(&y)
            && (0..d).contains(&z)
            && (0..l).contains(&layer);
        inside.then(|| (((layer * d + z) * h + y) * w + x) as usize)
    }

    /// The texel at `at` as four components (missing ones read 0, 0, 0, 1), as floats or
    /// integers by the format; `None` outside the image.
    pub fn read(&self, at: [i64; 4]) -> Option<[Const; 4]> {
        self.read_texel(self.index(at)?)
    }

    /// `read` of the texel numbered `t` (in `texels` order).
    pub fn read_texel(&self, t: usize) -> Option<[Const; 4]> {
        let start = t * self.texel_bytes();
        let bytes = self.texels.get(start..start + self.texel_bytes())?;
        let n = self.component_bytes as usize;
        let float = !matches!(self.encoding, Encoding::Sint | Encoding::Uint);
        Some(std::array::from_fn(|c| {
            let Some(raw) = bytes.get(c * n..c * n + n) else {
                let missing = if c == 3 { 1 } else { 0 };
                return if float {
                    f32c(f64::from(missing))
                } else {
                    int(missing)
                };
            };
            let bits = raw
                .iter()
                .rev()
                .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
            let max = |signed: bool| ((1u64 << (8 * n - usize::from(signed))) - 1) as f64;
            let signed = |bits: u64| {
                let shift = 64 - 8 * n;
                ((bits << shift) as i64) >> shift
            };
            match self.encoding {
                Encoding::Float => f32c(decode_float(bits, (8 * n) as u32)),
                Encoding::Unorm => f32c(bits as f64 / max(false)),
                Encoding::Snorm => f32c((signed(bits) as f64 / max(true)).max(-1.0)),
                // 64-bit integer formats read as 64-bit integers.
                Encoding::Sint | Encoding::Uint if n == 8 => {
                    Const::Scalar(V::Int { bits, width: 64 })
                }
                Encoding::Sint => int(signed(bits) as u32),
                Encoding::Uint => int(bits as u32),
            }
        }))
    }

    /// Writes the texel at `at` from `value`'s components (as many as the format has);
    /// `false` outside the image or for a value of another shape.
    pub fn write(&mut self, at: [i64; 4], value: &Const) -> bool {
        match self.index(at) {
            Some(t) => self.write_texel(t, value),
            None => false,
        }
    }

    /// `write` of the texel numbered `t`.
    pub fn write_texel(&mut self, index: usize, value: &Const) -> bool {
        let parts: Vec<&Const> = match value {
            Const::Composite(parts) => parts.iter().collect(),
            scalar => vec![scalar],
        };
        let n = self.component_bytes as usize;
        let start = index * self.texel_bytes();
        for c in 0..self.components as usize {
            let Some(part) = parts.get(c) else { break };
            let bits: u64 = match (self.encoding, part) {
                (Encoding::Float, Const::Scalar(V::Float { value, .. })) => {
                    let Some(b) = encode_float(*value, (8 * n) as u32) else {
                        return false;
                    };
                    b
                }
                (Encoding::Unorm, Const::Scalar(V::Float { value, .. })) => {
                    let max = ((1u64 << (8 * n)) - 1) as f64;
                    (value.clamp(0.0, 1.0) * max).round_ties_even() as u64
                }
                (Encoding::Snorm, Const::Scalar(V::Float { value, .. })) => {
                    let max = ((1u64 << (8 * n - 1)) - 1) as f64;
                    (value.clamp(-1.0, 1.0) * max).round_ties_even() as i64 as u64
                }
                (Encoding::Sint | Encoding::Uint, Const::Scalar(V::Int { bits, .. })) => *bits,
                _ => return false,
            };
            for k in 0..n {
                if let Some(b) = self.texels.get_mut(start + c * n + k) {
                    *b = (bits >> (8 * k)) as u8;
                }
            }
        }
        true
    }

    /// How many coordinates a sample takes (the layer apart): a cube's are a direction.
    pub fn coordinates(&self) -> usize {
        match self.dim {
            Dim::D1 | Dim::Buffer => 1,
            Dim::D2 | Dim::Subpass => 2,
            Dim::D3 | Dim::Cube => 3,
        }
    }

    /// The components of `OpImageQuerySize`: the size of a face for a cube, and the number
    /// of layers (of cubes, for a cube array) after it.
    pub fn size(&self) -> Vec<u32> {
        let mut size = match self.dim {
            Dim::Cube => self.extent[..2].to_vec(),
            _ => self.extent[..self.coordinates()].to_vec(),
        };
        if self.arrayed {
            let per = if self.dim == Dim::Cube { 6 } else { 1 };
            size.push(self.extent[3] / per);
        }
        size
    }

    /// The texel integer coordinates `coords` (and the layer after them) address; a cube's
    /// are `x`, `y` and the face (counted across the cubes of an array).
    pub fn texel_at(&self, coords: &[i64]) -> [i64; 4] {
        let get = |k: usize| coords.get(k).copied().unwrap_or(0);
        if self.dim == Dim::Cube {
            return [get(0), get(1), 0, get(2)];
        }
        let n = self.coordinates();
        let layer = if self.arrayed { get(n) } else { 0 };
        [
            get(0),
            if n > 1 { get(1) } else { 0 },
            if n > 2 { get(2) } else { 0 },
            layer,
        ]
    }

    /// The texel the sampler takes at normalized coordinates `coords` (the layer after
    /// them, unnormalized), moved by `offset` texels: the nearest, wrapped around.
    pub fn nearest(&self, coords: &[f64], offset: &[i64]) -> [i64; 4] {
        if self.dim == Dim::Cube {
            return self.cube_nearest(coords);
        }
        let n = self.coordinates();
        let mut at = [0i64; 4];
        for (k, slot) in at.iter_mut().enumerate().take(n) {
            let size = i64::from(self.extent[k]);
            // In single precision, as a driver computes it.
            let u = (coords.get(k).copied().unwrap_or(0.0) as f32) * size as f32;
            let i = u.floor() as i64 + offset.get(k).copied().unwrap_or(0);
            *slot = i.rem_euclid(size.max(1));
        }
        if self.arrayed {
            let layers = i64::from(self.extent[3]);
            let layer = coords.get(n).copied().unwrap_or(0.0).round_ties_even() as i64;
            at[3] = layer.clamp(0, layers - 1);
        }
        at
    }

    /// The other texels `nearest` may take at `coords` within a driver's precision: where a
    /// coordinate lies within 1/256 of a texel (the sub-texel precision lavapipe reports) of
    /// a boundary, the texel on its other side too. Cubes and layers are not moved.
    pub fn nearest_alternatives(&self, coords: &[f64], offset: &[i64]) -> Vec<[i64; 4]> {
        let first = self.nearest(coords, offset);
        if self.dim == Dim::Cube {
            return Vec::new();
        }
        let mut out = vec![first];
        for k in 0..self.coordinates() {
            let size = i64::from(self.extent[k]);
            let u = (coords.get(k).copied().unwrap_or(0.0) as f32) * size as f32;
            if (u - u.round()).abs() >= 1.0 / 256.0 {
                continue;
            }
            let other = (u.round() as i64 + offset.get(k).copied().unwrap_or(0)
                - i64::from(u >= u.round()))
            .rem_euclid(size.max(1));
            let moved: Vec<[i64; 4]> = out
                .iter()
                .map(|t| {
                    let mut t = *t;
                    t[k] = other;
                    t
                })
                .collect();
            out.extend(moved);
        }
        out.retain(|t| *t != first);
        out
    }

    /// The face a direction points at and where on it (in [0, 1]), as Vulkan's cube map face
    /// selection says: the major axis, `z` before `y` before `x` where two are as long (the
    /// specification leaves ties to the implementation; this is llvmpipe's order).
    fn cube_face(coords: &[f64]) -> (i64, f32, f32) {
        let r = |k: usize| coords.get(k).copied().unwrap_or(0.0) as f32;
        let (x, y, z) = (r(0), r(1), r(2));
        let (face, sc, tc, ma) = if z.abs() >= x.abs() && z.abs() >= y.abs() {
            if z.is_sign_negative() {
                (5, -x, -y, z)
            } else {
                (4, x, -y, z)
            }
        } else if y.abs() >= x.abs() {
            if y.is_sign_negative() {
                (3, x, -z, y)
            } else {
                (2, x, z, y)
            }
        } else if x.is_sign_negative() {
            (1, z, -y, x)
        } else {
            (0, -z, -y, x)
        };
        let ma = ma.abs();
        (face, (sc / ma) * 0.5 + 0.5, (tc / ma) * 0.5 + 0.5)
    }

    /// `nearest` on a cube: its face, the texel there clamped to the edge (cube maps ignore
    /// the sampler's addressing), the cube of an array after the direction.
    fn cube_nearest(&self, coords: &[f64]) -> [i64; 4] {
        let (face, s, t) = Self::cube_face(coords);
        let texel =
            |u: f32, size: u32| ((u * size as f32).floor() as i64).clamp(0, i64::from(size) - 1);
        let cube = if self.arrayed {
            let cubes = i64::from(self.extent[3] / 6).max(1);
            let c = coords.get(3).copied().unwrap_or(0.0).round_ties_even() as i64;
            c.clamp(0, cubes - 1)
        } else {
            0
        };
        [
            texel(s, self.extent[0]),
            texel(t, self.extent[1]),
            0,
            cube * 6 + face,
        ]
    }

    /// The 2×2 texels linear filtering would read around `coords`, in `OpImageGather`'s order:
    /// (i0, j1), (i1, j1), (i1, j0), (i0, j0). `None` on a cube where they cross an edge:
    /// seamless filtering takes texels of the next face there, which this does not follow.
    pub fn footprint(&self, coords: &[f64], offset: &[i64]) -> Option<[[i64; 4]; 4]> {
        let base = self.nearest(coords, offset);
        let (i0, i1, j0, j1) = if self.dim == Dim::Cube {
            let (_, s, t) = Self::cube_face(coords);
            let corner = |u: f32, size: u32| {
                let i0 = (u * size as f32 - 0.5).floor() as i64;
                (i0 >= 0 && i0 + 1 < i64::from(size)).then_some((i0, i0 + 1))
            };
            let (i0, i1) = corner(s, self.extent[0])?;
            let (j0, j1) = corner(t, self.extent[1])?;
            (i0, i1, j0, j1)
        } else {
            let corner = |k: usize| {
                let size = i64::from(self.extent[k]);
                let u = (coords.get(k).copied().unwrap_or(0.0) as f32) * size as f32 - 0.5;
                let i0 = u.floor() as i64 + offset.get(k).copied().unwrap_or(0);
                (i0.rem_euclid(size.max(1)), (i0 + 1).rem_euclid(size.max(1)))
            };
            let (i0, i1) = corner(0);
            let (j0, j1) = if self.coordinates() > 1 {
                corner(1)
            } else {
                (0, 0)
            };
            (i0, i1, j0, j1)
        };
        let at = |i: i64, j: i64| [i, j, base[2], base[3]];
        Some([at(i0, j1), at(i1, j1), at(i1, j0), at(i0, j0)])
    }
}

/// A 32-bit float (`x` rounded to single precision).
pub fn f32c(x: f64) -> Const {
    Const::Scalar(V::Float {
        value: f64::from(x as f32),
        width: 32,
    })
}

/// A 32-bit integer.
pub fn int(x: u32) -> Const {
    Const::Scalar(V::Int {
        bits: u64::from(x),
        width: 32,
    })
}

/// The image operands' ids, by `ImageOperands` bit (operands come in the order of the bits).
struct Operands {
    offset: Vec<i64>,
    /// `ConstOffsets`: one offset for each texel a gather reads.
    offsets: Option<Vec<Vec<i64>>>,
    sample: Option<i64>,
    lod: Option<i64>,
}

/// The first of the pseudo-roots race detection knows images' texels by: image `k`'s texel
/// `t` is place `[t]` of root `IMAGE_ROOTS + k`.
pub(super) const IMAGE_ROOTS: usize = usize::MAX / 2;

impl super::Machine<'_> {
    /// Notes a read or write of texel `at` of image `k` for race detection; `true` when the
    /// texel is one a race made undefined.
    fn texel_access(
        &mut self,
        inv: &super::Invocation,
        (k, at): (usize, [i64; 4]),
        write: bool,
        (func, inst_at, inst): (super::Id, super::super::func::InstId, &super::Inst),
    ) -> bool {
        let Some(t) = self.images[k].index(at) else {
            return false;
        };
        let place = super::Pointer {
            root: IMAGE_ROOTS + k,
            path: smallvec::smallvec![t as u32],
        };
        self.access(inv, &place, write, func, inst_at, inst);
        self.raced.contains(&(place.root, place.path))
    }

    /// `OpImageTexelPointer`: a pointer to a texel of a storage image, for atomics: place
    /// `[t]` of the image's pseudo-root, as race detection knows texels. Out of the image it
    /// is an out-of-bounds finding and an undefined pointer.
    pub(super) fn texel_pointer(
        &mut self,
        inv: &super::Invocation,
        inst: &super::Inst,
        func: super::Id,
    ) -> Result<super::Value, super::Refusal> {
        let image = match self.value(inv, inst.arg(0).unwrap_or(0)) {
            super::Value::Pointer(p) => self
                .handles
                .get(&p.root)
                .and_then(|h| h.get(p.path.first().copied().unwrap_or(0) as usize))
                .copied()
                .flatten()
                .and_then(|h| h.image),
            _ => None,
        };
        let Some(k) = image else {
            return Ok(super::Value::Undef);
        };
        if !matches!(self.images[k].component_bytes, 4 | 8) {
            return Err(super::Refusal(
                "atomics on a texel of other than 32 or 64 bits are not run yet".into(),
            ));
        }
        let Some(coords) = self.components(inv, inst.arg(1).unwrap_or(0)) else {
            return Ok(super::Value::Undef);
        };
        let coords: Vec<i64> = coords.iter().filter_map(signed).collect();
        let at = self.images[k].texel_at(&coords);
        match self.images[k].index(at) {
            Some(t) => Ok(super::Value::Pointer(super::Pointer {
                root: IMAGE_ROOTS + k,
                path: smallvec::smallvec![t as u32],
            })),
            None => {
                self.find(
                    super::FindingKind::OutOfBounds,
                    inv.number,
                    func,
                    super::id_of(inst),
                    None,
                    format!(
                        "texel {coords:?} of an image {:?} large",
                        self.images[k].extent
                    ),
                );
                Ok(super::Value::Undef)
            }
        }
    }

    fn handle(&self, inv: &super::Invocation, id: super::Id) -> Option<super::Handle> {
        match self.value(inv, id) {
            super::Value::Handle(h) => Some(h),
            _ => None,
        }
    }

    fn components(&self, inv: &super::Invocation, id: super::Id) -> Option<Vec<Const>> {
        match self.value(inv, id) {
            super::Value::Const(Const::Composite(parts)) => Some(parts),
            super::Value::Const(c) => Some(vec![c]),
            _ => None,
        }
    }

    fn operands(&self, inv: &super::Invocation, inst: &super::Inst, first: usize) -> Operands {
        let mask = inst
            .lits()
            .iter()
            .find_map(|o| match o {
                rspirv::dr::Operand::ImageOperands(m) => Some(m.bits()),
                _ => None,
            })
            .unwrap_or(0);
        let ids = inst.args().get(first..).unwrap_or_default();
        let mut out = Operands {
            offset: Vec::new(),
            offsets: None,
            sample: None,
            lod: None,
        };
        let ints = |id: super::Id| -> Vec<i64> {
            self.components(inv, id)
                .unwrap_or_default()
                .iter()
                .map(|c| signed(c).unwrap_or(0))
                .collect()
        };
        let mut k = 0;
        // Bias, Lod, Grad (two), ConstOffset, Offset, ConstOffsets, Sample, MinLod,
        // MakeTexelAvailable, MakeTexelVisible: how many ids each bit takes.
        let widths = [1, 1, 2, 1, 1, 1, 1, 1, 1, 1];
        for (bit, width) in widths.iter().enumerate() {
            if mask & (1 << bit) == 0 {
                continue;
            }
            if let Some(&id) = ids.get(k) {
                match bit {
                    1 => out.lod = ints(id).first().copied(),
                    3 | 4 => out.offset = ints(id),
                    5 => {
                        out.offsets = match self.value(inv, id) {
                            super::Value::Const(Const::Composite(parts)) => Some(
                                parts
                                    .iter()
                                    .map(|p| match p {
                                        Const::Composite(xy) => {
                                            xy.iter().map(|c| signed(c).unwrap_or(0)).collect()
                                        }
                                        _ => Vec::new(),
                                    })
                                    .collect(),
                            ),
                            _ => None,
                        }
                    }
                    6 => out.sample = ints(id).first().copied(),
                    _ => {}
                }
            }
            k += width;
        }
        out
    }

    /// Runs an image instruction.
    pub(super) fn image_op(
        &mut self,
        inv: &mut super::Invocation,
        inst: &super::Inst,
        func: super::Id,
        at: super::super::func::InstId,
    ) -> Result<super::Value, super::Refusal> {
        use super::Value;
        use spirv::Op;
        let args = inst.args();
        let arg = |k: usize| args.get(k).copied().unwrap_or(0);
        let handle = self.handle(inv, arg(0));
        match inst.op() {
            Op::SampledImage => {
                // A sampler read out of its array's bounds (found where it was read) makes
                // the pair undefined.
                let Some(sampler) = self.handle(inv, arg(1)).map(|h| h.sampler) else {
                    return Ok(Value::Undef);
                };
                return Ok(handle.map_or(Value::Undef, |h| {
                    Value::Handle(super::Handle {
                        image: h.image,
                        sampler,
                    })
                }));
            }
            Op::Image => {
                return Ok(handle.map_or(Value::Undef, |h| {
                    Value::Handle(super::Handle {
                        image: h.image,
                        sampler: None,
                    })
                }))
            }
            _ => {}
        }
        let Some((k, sampler)) = handle.and_then(|h| Some((h.image?, h.sampler))) else {
            return Ok(Value::Undef);
        };
        let img = &self.images[k];
        match inst.op() {
            Op::ImageQuerySizeLod
                if self
                    .components(inv, arg(1))
                    .and_then(|c| c.first().and_then(signed))
                    != Some(0) =>
            {
                // The image has one level: the size of any other is undefined.
                return Ok(Value::Undef);
            }
            Op::ImageQuerySize | Op::ImageQuerySizeLod => {
                let mut size: Vec<Const> = img.size().into_iter().map(int).collect();
                return Ok(Value::Const(if size.len() == 1 {
                    size.remove(0)
                } else {
                    Const::Composite(size)
                }));
            }
            Op::ImageQueryLevels => return Ok(Value::Const(int(1))),
            // The level a sample would read is the one level (the harness's sampler clamps
            // the LOD to [0, 0]); the LOD it computes first is the implementation's: Vulkan
            // lets it approximate the scale factor and the logarithm, so it has no one value
            // and is taken as undefined (as `Round` of a halfway case is).
            Op::ImageQueryLod => {
                if sampler.is_none() {
                    return Err(super::Refusal("an image queried without a sampler".into()));
                }
                return Ok(Value::Partly(vec![Value::Const(f32c(0.0)), Value::Undef]));
            }
            Op::ImageQuerySamples => return Ok(Value::Const(int(img.samples))),
            _ => {}
        }
        let Some(coords) = self.components(inv, arg(1)) else {
            return Ok(Value::Undef);
        };
        let fetch = matches!(inst.op(), Op::ImageFetch | Op::ImageRead | Op::ImageWrite);
        let first_operand = match inst.op() {
            Op::ImageWrite
            | Op::ImageGather
            | Op::ImageDrefGather
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod => 3,
            _ => 2,
        };
        let operands = self.operands(inv, inst, first_operand);
        // A projective sample divides the coordinates, and a depth reference too, by q.
        let mut q = 1.0f32;
        if operands
            .sample
            .is_some_and(|s| !(0..i64::from(img.samples)).contains(&s))
        {
            // A sample the image does not have.
            return Ok(Value::Undef);
        }
        let texel_at = if fetch {
            let ints: Vec<i64> = coords
                .iter()
                .map(|c| signed(c).unwrap_or(i64::MIN))
                .collect();
            let mut at = img.texel_at(&ints);
            for (a, o) in at.iter_mut().zip(&operands.offset) {
                *a += o;
            }
            if img.dim == Dim::Subpass {
                let Some([x, y]) = inv.pixel else {
                    return Err(super::Refusal(
                        "an input attachment read outside a fragment stage".into(),
                    ));
                };
                at[0] += i64::from(x);
                at[1] += i64::from(y);
            }
            // The image has one level: any other is outside it.
            if operands.lod.is_some_and(|l| l != 0) {
                at[0] = -1;
            }
            at
        } else {
            if sampler.is_none() {
                return Err(super::Refusal("an image sampled without a sampler".into()));
            }
            let mut floats: Vec<f64> = coords
                .iter()
                .map(|c| float(c).unwrap_or(f64::NAN))
                .collect();
            if matches!(
                inst.op(),
                Op::ImageSampleProjImplicitLod
                    | Op::ImageSampleProjExplicitLod
                    | Op::ImageSampleProjDrefImplicitLod
                    | Op::ImageSampleProjDrefExplicitLod
            ) {
                q = floats.get(img.coordinates()).copied().unwrap_or(1.0) as f32;
                for f in floats.iter_mut().take(img.coordinates()) {
                    *f = f64::from((*f as f32) / q);
                }
            }
            if floats.iter().any(|f| !f.is_finite()) {
                return Ok(Value::Undef);
            }
            if img.dim == Dim::Cube && floats.iter().take(3).all(|&f| f as f32 == 0.0) {
                // A cube sampled towards no direction: no face, no texel.
                return Ok(Value::Undef);
            }
            let compares = matches!(
                inst.op(),
                Op::ImageDrefGather
                    | Op::ImageSampleDrefImplicitLod
                    | Op::ImageSampleDrefExplicitLod
                    | Op::ImageSampleProjDrefImplicitLod
                    | Op::ImageSampleProjDrefExplicitLod
            );
            if compares && !sampler.is_some_and(|s| s.compare) {
                // A depth comparison through a sampler that does not compare is undefined
                // (a separate sampler, as the harness binds it, never compares).
                return Ok(Value::Undef);
            }
            if matches!(inst.op(), Op::ImageGather | Op::ImageDrefGather) {
                let edge = || {
                    super::Refusal(
                        "a gather across the edge of a cube's face is not run yet".into(),
                    )
                };
                let texels: [Option<[Const; 4]>; 4] = match &operands.offsets {
                    // Each texel from its own offset's footprint, its (i0, j0) texel.
                    Some(offsets) => {
                        let mut texels: [Option<[Const; 4]>; 4] = Default::default();
                        for (i, t) in texels.iter_mut().enumerate() {
                            let offset = offsets.get(i).cloned().unwrap_or_default();
                            *t = img.read(img.footprint(&floats, &offset).ok_or_else(edge)?[3]);
                        }
                        texels
                    }
                    None => img
                        .footprint(&floats, &operands.offset)
                        .ok_or_else(edge)?
                        .map(|t| img.read(t)),
                };
                let component = match inst.op() {
                    Op::ImageGather => self
                        .components(inv, arg(2))
                        .and_then(|c| c.first().and_then(signed))
                        .unwrap_or(0) as usize,
                    _ => 0,
                };
                let reference = self
                    .components(inv, arg(2))
                    .and_then(|c| c.first().and_then(float));
                let parts: Option<Vec<Const>> = texels
                    .iter()
                    .map(|t| {
                        let c = t.as_ref()?[component.min(3)].clone();
                        Some(match (inst.op(), reference) {
                            (Op::ImageDrefGather, Some(r)) => compare(r, &c)?,
                            _ => c,
                        })
                    })
                    .collect();
                return Ok(parts.map_or(Value::Undef, |p| Value::Const(Const::Composite(p))));
            }
            let texel = img.nearest(&floats, &operands.offset);
            // A fragment's coordinates are mostly interpolated, which Vulkan leaves to the
            // driver's precision: next to a texel boundary, the texel is the driver's to
            // choose, and where the choices differ the result is taken as undefined.
            if self.model == spirv::ExecutionModel::Fragment {
                let here = img.read(texel);
                let alternatives = img.nearest_alternatives(&floats, &operands.offset);
                if alternatives.into_iter().any(|t| img.read(t) != here) {
                    return Ok(Value::Undef);
                }
            }
            texel
        };
        if inst.op() == Op::ImageWrite {
            if inv.helper {
                return Ok(Value::Undef);
            }
            let value = match self.value(inv, arg(2)) {
                Value::Const(c) => c,
                _ => {
                    // What an undefined value leaves in a texel is undefined (partly
                    // undefined texels too: the bytes of a format mix the components).
                    if let Some(t) = self.images[k].index(texel_at) {
                        self.texel_access(inv, (k, texel_at), true, (func, at, inst));
                        self.raced
                            .insert((IMAGE_ROOTS + k, smallvec::smallvec![t as u32]));
                    }
                    return Ok(Value::Undef);
                }
            };
            self.texel_access(inv, (k, texel_at), true, (func, at, inst));
            if !self.images[k].write(texel_at, &value) {
                self.find(
                    super::FindingKind::OutOfBounds,
                    inv.number,
                    func,
                    inst.args().first().copied().unwrap_or(0),
                    Some(at),
                    format!("an image write at {texel_at:?}, outside the image"),
                );
            }
            return Ok(Value::Undef);
        }
        if fetch && self.texel_access(inv, (k, texel_at), false, (func, at, inst)) {
            // What a racing read gets is undefined.
            return Ok(Value::Undef);
        }
        let img = &self.images[k];
        let Some(texel) = img.read(texel_at) else {
            self.find(
                super::FindingKind::OutOfBounds,
                inv.number,
                func,
                super::id_of(inst),
                Some(at),
                format!("a texel read at {texel_at:?}, outside the image"),
            );
            return Ok(Value::Undef);
        };
        let dref = matches!(
            inst.op(),
            Op::ImageSampleDrefImplicitLod
                | Op::ImageSampleDrefExplicitLod
                | Op::ImageSampleProjDrefImplicitLod
                | Op::ImageSampleProjDrefExplicitLod
        );
        if dref {
            let reference = self
                .components(inv, arg(2))
                .and_then(|c| c.first().and_then(float))
                .map(|r| f64::from((r as f32) / q));
            return Ok(reference
                .and_then(|r| compare(r, &texel[0]))
                .map_or(Value::Undef, Value::Const));
        }
        // The result has as many components as its type (a storage image may be read into
        // fewer than four).
        let n = inst
            .ty()
            .and_then(|t| super::super::types::vector_len(self.m, t))
            .unwrap_or(1) as usize;
        let mut parts: Vec<Const> = texel.into_iter().take(n.max(1)).collect();
        Ok(Value::Const(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Const::Composite(parts)
        }))
    }
}

/// A depth comparison, `LESS_OR_EQUAL`: 1.0 when the reference is at most the texel's depth.
/// The reference is not clamped: Vulkan clamps it to [0, 1] for normalized depth formats
/// only, and the harness's depth images are 32-bit floats.
fn compare(reference: f64, texel: &Const) -> Option<Const> {
    let depth = float(texel)?;
    let r = f64::from(reference as f32);
    Some(f32c(if r <= depth { 1.0 } else { 0.0 }))
}

fn float(c: &Const) -> Option<f64> {
    match c {
        Const::Scalar(V::Float { value, .. }) => Some(*value),
        _ => None,
    }
}

fn signed(c: &Const) -> Option<i64> {
    let (bits, width) = c.as_int_bits()?;
    let shift = 64 - width.min(64);
    Some(((bits << shift) as i64) >> shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(encoding: Encoding, component_bytes: u32, texels: Vec<u8>) -> Image {
        Image {
            set: 0,
            binding: 0,
            element: 0,
            dim: Dim::D2,
            arrayed: false,
            extent: [2, 2, 1, 1],
            encoding,
            components: 4,
            component_bytes,
            texels,
            sampler: None,
            undefined_texels: Vec::new(),
            samples: 1,
        }
    }

    /// Normalized texels read as Vulkan converts them, and write back rounded.
    #[test]
    fn unorm_texels_read_and_write() {
        let mut img = image(Encoding::Unorm, 1, (0..16).map(|k| k * 17).collect());
        let t = img.read([1, 0, 0, 0]).unwrap();
        assert_eq!(t[0], f32c(68.0 / 255.0));
        assert!(img.write(
            [1, 1, 0, 0],
            &Const::Composite(vec![f32c(1.0), f32c(0.5), f32c(-3.0), f32c(0.0)])
        ));
        assert_eq!(&img.texels[12..16], &[255, 128, 0, 0]);
        assert!(img.read([2, 0, 0, 0]).is_none(), "outside");
    }

    /// Nearest sampling wraps (`REPEAT`) and takes the texel the coordinate falls in.
    #[test]
    fn sixty_four_bit_texels_read_and_write_whole() {
        let mut img = image(Encoding::Uint, 8, vec![0; 4 * 8]);
        img.components = 1;
        let big = Const::Scalar(V::Int {
            bits: 0x1234_5678_9abc_def0,
            width: 64,
        });
        assert!(img.write([1, 0, 0, 0], &big));
        assert_eq!(img.read([1, 0, 0, 0]).map(|[c, ..]| c), Some(big));
    }

    #[test]
    fn texels_next_to_a_boundary_have_their_neighbour_as_an_alternative() {
        let mut img = image(Encoding::Uint, 1, vec![0; 4 * 4 * 4]);
        img.extent = [4, 4, 1, 1];
        // 0.5 * 4 = 2: the boundary between texels 1 and 2.
        assert_eq!(img.nearest(&[0.5, 0.6], &[]), [2, 2, 0, 0]);
        assert_eq!(
            img.nearest_alternatives(&[0.5, 0.6], &[]),
            vec![[1, 2, 0, 0]]
        );
        assert_eq!(img.nearest_alternatives(&[0.5, 0.5], &[]).len(), 3);
        assert!(img.nearest_alternatives(&[0.55, 0.6], &[]).is_empty());
        // Just below a boundary: the texel above is the alternative.
        assert_eq!(
            img.nearest_alternatives(&[0.499_999, 0.6], &[]),
            vec![[2, 2, 0, 0]]
        );
    }

    #[test]
    fn cube_directions_choose_faces_by_their_major_axis() {
        let mut img = image(Encoding::Uint, 1, vec![0; 8 * 8 * 12 * 4]);
        img.dim = Dim::Cube;
        img.arrayed = true;
        img.extent = [8, 8, 1, 12];
        // +X looks down -z: s grows towards -z, t towards -y.
        assert_eq!(img.nearest(&[1.0, 0.9, -0.9], &[]), [7, 0, 0, 0]);
        assert_eq!(img.nearest(&[-1.0, -0.9, -0.9, 1.0], &[]), [0, 7, 0, 7]);
        assert_eq!(img.nearest(&[0.1, 2.0, 0.1], &[]), [4, 4, 0, 2]);
        assert_eq!(img.nearest(&[0.1, -2.0, 0.1], &[]), [4, 3, 0, 3]);
        // Ties go to z, then y.
        assert_eq!(img.nearest(&[1.0, 1.0, 1.0], &[])[3], 4);
        assert_eq!(img.nearest(&[1.0, -1.0, 0.5], &[])[3], 3);
        assert_eq!(img.size(), vec![8, 8, 2]);
        assert_eq!(img.texel_at(&[1, 2, 9]), [1, 2, 0, 9]);
        // Filtering across a face's edge reads the next face: not followed.
        assert!(img.footprint(&[1.0, 0.99, 0.0], &[]).is_none());
        assert!(img.footprint(&[1.0, 0.3, 0.1], &[]).is_some());
    }

    #[test]
    fn nearest_sampling_wraps() {
        let img = image(Encoding::Float, 4, vec![0; 64]);
        assert_eq!(img.nearest(&[0.75, 0.25], &[]), [1, 0, 0, 0]);
        assert_eq!(img.nearest(&[-0.25, 1.25], &[]), [1, 0, 0, 0]);
        assert_eq!(img.nearest(&[0.25, 0.25], &[1, 0]), [1, 0, 0, 0]);
        assert_eq!(img.footprint(&[0.5, 0.5], &[]).unwrap()[3], [0, 0, 0, 0]);
    }
}
