//! The bytes between shaderstep and its GPU worker process (`isolated`): requests (open a
//! device, run a compute shader, draw) and their answers, each a frame of a 32-bit length and
//! that many bytes, little-endian throughout. Both ends are the same binary, so the format
//! only has to agree with itself.

use std::io::{Read, Write};

use ash::vk;

use super::addresses::Sites;
use super::images::{Dim, Image};
use super::reflect::{Kind, Scalar};
use super::{Attachment, Binding, Descriptor, Layout, Rendered, Resource, Setup};

/// The largest frame either end accepts (a run's buffers are 16 KiB each; a draw's
/// attachments a few hundred KiB).
const MAX_FRAME: usize = 1 << 28;

pub fn write_frame(w: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    w.write_all(&(bytes.len() as u32).to_le_bytes())?;
    w.write_all(bytes)?;
    w.flush()
}

/// The next frame; `None` at the end of the stream.
pub fn read_frame(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(std::io::Error::other(format!("a frame of {len} bytes")));
    }
    let mut bytes = vec![0; len];
    r.read_exact(&mut bytes)?;
    Ok(Some(bytes))
}

#[derive(Default)]
pub struct Out(pub Vec<u8>);

impl Out {
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.u32(u32::from(v))
    }
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.u32(v.len() as u32);
        self.0.extend_from_slice(v);
        self
    }
    pub fn str(&mut self, v: &str) -> &mut Self {
        self.bytes(v.as_bytes())
    }
    pub fn words(&mut self, v: &[u32]) -> &mut Self {
        self.u32(v.len() as u32);
        for w in v {
            self.u32(*w);
        }
        self
    }
}

/// Reads what `Out` wrote; a short or malformed message is an error, never a panic.
pub struct In<'a> {
    bytes: &'a [u8],
    at: usize,
}

type R<T> = Result<T, String>;

impl<'a> In<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        In { bytes, at: 0 }
    }
    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or("a message from the GPU worker ends early")?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    pub fn u32(&mut self) -> R<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    pub fn bool(&mut self) -> R<bool> {
        Ok(self.u32()? != 0)
    }
    pub fn bytes(&mut self) -> R<Vec<u8>> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }
    pub fn str(&mut self) -> R<String> {
        Ok(String::from_utf8_lossy(&self.bytes()?).into_owned())
    }
    pub fn words(&mut self) -> R<Vec<u32>> {
        let n = self.u32()? as usize;
        (0..n).map(|_| self.u32()).collect()
    }
    /// A count of items that are at least `min` bytes each (bounds what a bad count allocates).
    fn count(&mut self, min: usize) -> R<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min) > self.bytes.len() - self.at {
            return Err("a message from the GPU worker ends early".into());
        }
        Ok(n)
    }
}

/// What the worker is asked.
pub enum Request {
    /// Open a device (lavapipe first; only lavapipe when `cpu_only`), or with a `name`, the
    /// device named like it.
    Open { cpu_only: bool, name: String },
    /// Describe every device the loader finds (no device needs to be open).
    Describe,
    /// Answer the request inside with what the driver printed meanwhile (its code, under
    /// `GALLIVM_DEBUG`), instead of its results.
    Code(Box<Request>),
    Run {
        words: Vec<u32>,
        layout: Layout,
        groups: [u32; 3],
        buffers: Vec<Vec<u8>>,
    },
    Draw {
        vs: Vec<u32>,
        fs: Vec<u32>,
        vs_entry: String,
        fs_entry: String,
        size: (u32, u32),
        setup: Setup,
    },
}

const OPEN: u32 = 1;
const RUN: u32 = 2;
const DRAW: u32 = 3;
const DESCRIBE: u32 = 4;
const CODE: u32 = 5;

impl Request {
    /// A run of `words` over `groups` workgroups with `buffers` in `layout`'s slots.
    pub fn run(words: &[u32], layout: &Layout, groups: [u32; 3], buffers: &[Vec<u8>]) -> Request {
        Request::Run {
            words: words.to_vec(),
            layout: layout.clone(),
            groups,
            buffers: buffers.to_vec(),
        }
    }

    /// `draw`, to be drawn by the worker.
    pub fn draw(draw: &super::Draw) -> Request {
        Request::Draw {
            vs: draw.vs.to_vec(),
            fs: draw.fs.to_vec(),
            vs_entry: draw.vs_entry.to_string(),
            fs_entry: draw.fs_entry.to_string(),
            size: draw.size,
            setup: draw.setup.clone(),
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut o = Out::default();
        match self {
            Request::Open { cpu_only, name } => {
                o.u32(OPEN).bool(*cpu_only).str(name);
            }
            Request::Describe => {
                o.u32(DESCRIBE);
            }
            Request::Code(inner) => {
                o.u32(CODE);
                o.0.extend_from_slice(&inner.encode());
            }
            Request::Run {
                words,
                layout,
                groups,
                buffers,
            } => {
                o.u32(RUN).words(words).str(&layout.entry);
                o.u32(layout.bindings.len() as u32);
                for b in &layout.bindings {
                    o.u32(b.set).u32(b.binding).u32(b.count);
                    encode_kind(&mut o, &b.kind);
                }
                o.u32(layout.push).bool(layout.zero_push);
                let sites = &layout.addresses;
                o.u32(sites.bindings.len() as u32);
                for b in &sites.bindings {
                    offsets(&mut o, b);
                }
                offsets(&mut o, &sites.push);
                offsets(&mut o, &sites.pointees);
                o.u32(groups[0]).u32(groups[1]).u32(groups[2]);
                o.u32(buffers.len() as u32);
                for b in buffers {
                    o.bytes(b);
                }
            }
            Request::Draw {
                vs,
                fs,
                vs_entry,
                fs_entry,
                size,
                setup,
            } => {
                o.u32(DRAW).words(vs).words(fs).str(vs_entry).str(fs_entry);
                o.u32(size.0).u32(size.1);
                encode_setup(&mut o, setup);
            }
        }
        o.0
    }

    pub fn decode(bytes: &[u8]) -> R<Request> {
        let mut i = In::new(bytes);
        Ok(match i.u32()? {
            OPEN => Request::Open {
                cpu_only: i.bool()?,
                name: i.str()?,
            },
            DESCRIBE => Request::Describe,
            CODE => match Request::decode(&bytes[4..])? {
                Request::Code(_) => return Err("a code request inside a code request".into()),
                inner => Request::Code(Box::new(inner)),
            },
            RUN => {
                let words = i.words()?;
                let entry = i.str()?;
                let n = i.count(16)?;
                let mut bindings = Vec::with_capacity(n);
                for _ in 0..n {
                    bindings.push(Binding {
                        set: i.u32()?,
                        binding: i.u32()?,
                        count: i.u32()?,
                        kind: decode_kind(&mut i)?,
                    });
                }
                let push = i.u32()?;
                let zero_push = i.bool()?;
                let mut addresses = Sites::default();
                for _ in 0..i.count(4)? {
                    addresses.bindings.push(read_offsets(&mut i)?);
                }
                addresses.push = read_offsets(&mut i)?;
                addresses.pointees = read_offsets(&mut i)?;
                let groups = [i.u32()?, i.u32()?, i.u32()?];
                let n = i.count(4)?;
                let buffers = (0..n).map(|_| i.bytes()).collect::<R<_>>()?;
                Request::Run {
                    words,
                    layout: Layout {
                        entry,
                        bindings,
                        push,
                        zero_push,
                        addresses,
                    },
                    groups,
                    buffers,
                }
            }
            DRAW => Request::Draw {
                vs: i.words()?,
                fs: i.words()?,
                vs_entry: i.str()?,
                fs_entry: i.str()?,
                size: (i.u32()?, i.u32()?),
                setup: decode_setup(&mut i)?,
            },
            other => return Err(format!("an unknown request {other} to the GPU worker")),
        })
    }
}

/// Byte offsets (under 4 GiB: they are offsets in buffers of 16 KiB).
fn offsets(o: &mut Out, v: &[u64]) {
    o.u32(v.len() as u32);
    for &x in v {
        o.u32(x as u32);
    }
}

fn read_offsets(i: &mut In) -> R<Vec<u64>> {
    (0..i.count(4)?).map(|_| i.u32().map(u64::from)).collect()
}

fn encode_kind(o: &mut Out, k: &Kind) {
    match k {
        Kind::Buffer { storage } => {
            o.u32(0).bool(*storage);
        }
        Kind::Image(image) => {
            o.u32(1);
            encode_image(o, image);
        }
        Kind::Sampler => {
            o.u32(2);
        }
        Kind::AccelerationStructure => {
            o.u32(3);
        }
    }
}

fn decode_kind(i: &mut In) -> R<Kind> {
    Ok(match i.u32()? {
        0 => Kind::Buffer { storage: i.bool()? },
        1 => Kind::Image(decode_image(i)?),
        2 => Kind::Sampler,
        3 => Kind::AccelerationStructure,
        other => return Err(format!("an unknown descriptor kind {other}")),
    })
}

const SCALARS: [Scalar; 3] = [Scalar::F32, Scalar::I32, Scalar::U32];
const DIMS: [Dim; 5] = [Dim::D1, Dim::D2, Dim::D3, Dim::Cube, Dim::Buffer];

/// Input attachments' shapes are this plus their index.
const SUBPASS: u32 = 100;

fn encode_image(o: &mut Out, image: &Image) {
    let index = |found: Option<usize>| found.unwrap_or(0) as u32;
    o.u32(index(SCALARS.iter().position(|&x| x == image.scalar)))
        .u32(match image.dim {
            Dim::Subpass(k) => SUBPASS + k,
            dim => index(DIMS.iter().position(|&x| x == dim)),
        })
        .bool(image.arrayed)
        .bool(image.storage)
        .bool(image.combined)
        .bool(image.depth)
        .bool(image.multisampled)
        .u32(image.format as u32);
}

fn decode_image(i: &mut In) -> R<Image> {
    let pick = |v: u32, what: &str| format!("an unknown image {what} {v}");
    let scalar = i.u32()?;
    let dim = i.u32()?;
    Ok(Image {
        scalar: *SCALARS
            .get(scalar as usize)
            .ok_or_else(|| pick(scalar, "scalar"))?,
        dim: match dim.checked_sub(SUBPASS) {
            Some(k) => Dim::Subpass(k),
            None => *DIMS.get(dim as usize).ok_or_else(|| pick(dim, "shape"))?,
        },
        arrayed: i.bool()?,
        storage: i.bool()?,
        combined: i.bool()?,
        depth: i.bool()?,
        multisampled: i.bool()?,
        format: {
            let f = i.u32()?;
            spirv::ImageFormat::from_u32(f).ok_or_else(|| pick(f, "format"))?
        },
    })
}

fn encode_setup(o: &mut Out, s: &Setup) {
    o.u32(s.vertex_buffers.len() as u32);
    for (binding, stride, per_instance, bytes) in &s.vertex_buffers {
        o.u32(*binding)
            .u32(*stride)
            .bool(*per_instance)
            .bytes(bytes);
    }
    o.u32(s.attributes.len() as u32);
    for (location, binding, format, offset) in &s.attributes {
        o.u32(*location)
            .u32(*binding)
            .u32(format.as_raw() as u32)
            .u32(*offset);
    }
    o.u32(s.descriptors.len() as u32);
    for d in &s.descriptors {
        o.u32(d.set).u32(d.binding).u32(d.elements.len() as u32);
        for r in &d.elements {
            match r {
                Resource::Buffer { storage, bytes } => {
                    o.u32(0).bool(*storage).bytes(bytes);
                }
                Resource::Image { image, texels } => {
                    o.u32(1);
                    encode_image(o, image);
                    o.bytes(texels);
                }
                Resource::Sampler => {
                    o.u32(2);
                }
                Resource::AccelerationStructure => {
                    o.u32(3);
                }
            }
        }
    }
    o.bytes(&s.push);
    o.u32(s.colors.len() as u32);
    for c in &s.colors {
        match c {
            None => {
                o.u32(0);
            }
            Some(a) => {
                o.u32(1)
                    .u32(a.format.as_raw() as u32)
                    .u32(a.texel_bytes)
                    .u32(a.mask.as_raw());
            }
        }
    }
    o.u32(s.vertices).u32(s.instances);
}

fn decode_setup(i: &mut In) -> R<Setup> {
    let mut s = Setup::default();
    for _ in 0..i.count(16)? {
        s.vertex_buffers
            .push((i.u32()?, i.u32()?, i.bool()?, i.bytes()?));
    }
    for _ in 0..i.count(16)? {
        s.attributes.push((
            i.u32()?,
            i.u32()?,
            vk::Format::from_raw(i.u32()? as i32),
            i.u32()?,
        ));
    }
    for _ in 0..i.count(16)? {
        let (set, binding) = (i.u32()?, i.u32()?);
        let mut elements = Vec::new();
        for _ in 0..i.count(4)? {
            elements.push(match i.u32()? {
                0 => Resource::Buffer {
                    storage: i.bool()?,
                    bytes: i.bytes()?,
                },
                1 => Resource::Image {
                    image: decode_image(i)?,
                    texels: i.bytes()?,
                },
                2 => Resource::Sampler,
                3 => Resource::AccelerationStructure,
                other => return Err(format!("an unknown resource kind {other}")),
            });
        }
        s.descriptors.push(Descriptor {
            set,
            binding,
            elements,
        });
    }
    s.push = i.bytes()?;
    for _ in 0..i.count(4)? {
        s.colors.push(match i.u32()? {
            0 => None,
            _ => Some(Attachment {
                format: vk::Format::from_raw(i.u32()? as i32),
                texel_bytes: i.u32()?,
                mask: vk::ColorComponentFlags::from_raw(i.u32()?),
            }),
        });
    }
    s.vertices = i.u32()?;
    s.instances = i.u32()?;
    Ok(s)
}

fn encode_info(o: &mut Out, d: &super::DeviceInfo) {
    o.str(&d.name)
        .str(&d.kind)
        .str(&d.driver_name)
        .str(&d.driver_info);
    o.str(&d.api).u32(d.subgroup_size);
    o.bool(d.executable_properties)
        .bool(d.gallivm_debug)
        .bool(d.ray_query);
}

fn decode_info(i: &mut In) -> R<super::DeviceInfo> {
    Ok(super::DeviceInfo {
        name: i.str()?,
        kind: i.str()?,
        driver_name: i.str()?,
        driver_info: i.str()?,
        api: i.str()?,
        subgroup_size: i.u32()?,
        executable_properties: i.bool()?,
        gallivm_debug: i.bool()?,
        ray_query: i.bool()?,
    })
}

/// What the worker answers.
pub enum Answer {
    Opened {
        info: super::DeviceInfo,
    },
    Buffers(Vec<Vec<u8>>),
    Rendered(Rendered),
    Devices(Vec<super::DeviceInfo>),
    /// What the driver printed while it compiled and ran a shader.
    Code(String),
    /// The request failed without harm to the worker (the driver refused the shader, …).
    Failed(String),
}

impl Answer {
    pub fn encode(&self) -> Vec<u8> {
        let mut o = Out::default();
        match self {
            Answer::Opened { info } => {
                o.u32(OPEN);
                encode_info(&mut o, info);
            }
            Answer::Buffers(b) => {
                o.u32(RUN).u32(b.len() as u32);
                for x in b {
                    o.bytes(x);
                }
            }
            Answer::Rendered(r) => {
                o.u32(DRAW).u32(r.colors.len() as u32);
                for c in &r.colors {
                    o.bytes(c);
                }
                o.u32(r.buffers.len() as u32);
                for b in &r.buffers {
                    o.bytes(b);
                }
            }
            Answer::Devices(list) => {
                o.u32(DESCRIBE).u32(list.len() as u32);
                for d in list {
                    encode_info(&mut o, d);
                }
            }
            Answer::Code(text) => {
                o.u32(CODE).str(text);
            }
            Answer::Failed(why) => {
                o.u32(0).str(why);
            }
        }
        o.0
    }

    pub fn decode(bytes: &[u8]) -> R<Answer> {
        let mut i = In::new(bytes);
        let list = |i: &mut In| -> R<Vec<Vec<u8>>> {
            let n = i.count(4)?;
            (0..n).map(|_| i.bytes()).collect()
        };
        Ok(match i.u32()? {
            OPEN => Answer::Opened {
                info: decode_info(&mut i)?,
            },
            RUN => Answer::Buffers(list(&mut i)?),
            DRAW => Answer::Rendered(Rendered {
                colors: list(&mut i)?,
                buffers: list(&mut i)?,
            }),
            DESCRIBE => {
                let n = i.count(36)?;
                let mut list = Vec::with_capacity(n);
                for _ in 0..n {
                    list.push(decode_info(&mut i)?);
                }
                Answer::Devices(list)
            }
            CODE => Answer::Code(i.str()?),
            0 => Answer::Failed(i.str()?),
            other => return Err(format!("an unknown answer {other} from the GPU worker")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_answers_read_back_as_written() {
        let setup = Setup {
            vertex_buffers: vec![(0, 16, false, vec![1, 2, 3])],
            attributes: vec![(0, 0, vk::Format::R32G32B32A32_SFLOAT, 0)],
            descriptors: vec![Descriptor {
                set: 0,
                binding: 1,
                elements: vec![
                    Resource::Sampler,
                    Resource::Image {
                        image: Image {
                            scalar: Scalar::U32,
                            dim: Dim::Subpass(3),
                            arrayed: true,
                            storage: true,
                            combined: false,
                            depth: false,
                            multisampled: true,
                            format: spirv::ImageFormat::Rgba8ui,
                        },
                        texels: vec![9; 8],
                    },
                ],
            }],
            push: vec![7; 4],
            colors: vec![
                None,
                Some(Attachment {
                    format: vk::Format::R32_UINT,
                    texel_bytes: 4,
                    mask: vk::ColorComponentFlags::R,
                }),
            ],
            vertices: 3,
            instances: 1,
        };
        let r = Request::Draw {
            vs: vec![0x0723_0203, 1],
            fs: vec![2],
            vs_entry: "main".into(),
            fs_entry: "fs".into(),
            size: (4, 4),
            setup,
        };
        let Ok(Request::Draw {
            vs,
            fs_entry,
            setup,
            ..
        }) = Request::decode(&r.encode())
        else {
            panic!("not a draw")
        };
        assert_eq!(vs, [0x0723_0203, 1]);
        assert_eq!(fs_entry, "fs");
        assert_eq!(setup.descriptors[0].elements.len(), 2);
        assert!(matches!(
            &setup.descriptors[0].elements[1],
            Resource::Image { image, texels }
                if image.dim == Dim::Subpass(3) && image.format == spirv::ImageFormat::Rgba8ui && texels.len() == 8
        ));
        let layout = Layout {
            entry: "main".into(),
            bindings: vec![Binding {
                set: 1,
                binding: 2,
                count: 3,
                kind: Kind::Image(Image {
                    scalar: Scalar::F32,
                    dim: Dim::Buffer,
                    arrayed: false,
                    storage: false,
                    combined: false,
                    depth: true,
                    multisampled: false,
                    format: spirv::ImageFormat::Unknown,
                }),
            }],
            push: 0,
            zero_push: false,
            addresses: Sites {
                bindings: vec![vec![8, 24]],
                push: vec![0],
                pointees: vec![],
            },
        };
        let r = Request::Run {
            words: vec![1],
            layout: layout.clone(),
            groups: [1, 1, 1],
            buffers: vec![],
        };
        let Ok(Request::Run { layout: back, .. }) = Request::decode(&r.encode()) else {
            panic!("not a run")
        };
        assert_eq!(back.bindings, layout.bindings);
        assert_eq!(back.addresses, layout.addresses);
        assert_eq!(
            setup.colors[1].map(|c| c.format),
            Some(vk::Format::R32_UINT)
        );
        let a = Answer::Buffers(vec![vec![1, 2], vec![]]).encode();
        assert!(matches!(Answer::decode(&a), Ok(Answer::Buffers(b)) if b == [vec![1, 2], vec![]]));
        // Cut short or nonsense: an error, never a panic.
        for n in 0..a.len() {
            let _ = Answer::decode(&a[..n]);
        }
        assert!(Request::decode(&[0xff; 12]).is_err());
    }
}
