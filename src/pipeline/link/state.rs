//! Partial pipeline state (after LLPC): what a graphics pipeline fixes outside its shaders —
//! vertex buffer bindings and attributes, colour attachment formats, specialization constant
//! values — read from TOML. A stage compiled with part of it has that part compiled in; what it
//! lacks is generated as glue when the rest arrives at link time (`glue`).
//!
//! ```toml
//! [vertex]
//! buffer_set = 1            # descriptor set the fetch glue reads vertex buffers from
//! bindings = [{ binding = 0, stride = 24, rate = "vertex" }]
//! attributes = [
//!   { location = 0, binding = 0, format = "r32g32b32_sfloat", offset = 0 },
//!   { location = 1, binding = 0, format = "r8g8b8a8_unorm", offset = 12 },
//! ]
//!
//! [[color]]
//! location = 0
//! format = "r8g8b8a8_srgb"
//!
//! [specialization]          # by SpecId
//! 0 = 1.5
//! 1 = true
//! ```

use std::collections::BTreeMap;

/// How one component of a format is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Unsigned normalized: `u / (2^bits - 1)`.
    Unorm,
    /// Signed normalized: `max(s / (2^(bits-1) - 1), -1)`.
    Snorm,
    Uint,
    Sint,
    /// IEEE float of the component width (16 or 32 bits).
    Float,
    /// 8-bit unorm with the sRGB transfer function on R, G and B.
    Srgb,
}

/// Which kind of value a format gives a shader, or takes from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumericClass {
    Float,
    Uint,
    Sint,
}

/// A Vulkan format, as far as fetch and export glue need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The Vulkan name in lower case without `VK_FORMAT_`, as the state file spells it.
    pub name: &'static str,
    pub encoding: Encoding,
    /// Bit width of each component, in memory order.
    pub bits: &'static [u32],
    /// For each component in memory order, which of R, G, B, A (0..4) it is.
    pub channels: &'static [u32],
}

const RGBA: &[u32] = &[0, 1, 2, 3];
const BGRA: &[u32] = &[2, 1, 0, 3];

macro_rules! formats {
    ($($name:literal $enc:ident [$($b:literal),*] $ch:expr;)*) => {
        pub const FORMATS: &[Format] = &[$(Format {
            name: $name,
            encoding: Encoding::$enc,
            bits: &[$($b),*],
            channels: $ch,
        }),*];
    };
}

formats! {
    "r8_unorm" Unorm [8] RGBA;
    "r8g8_unorm" Unorm [8, 8] RGBA;
    "r8g8b8a8_unorm" Unorm [8, 8, 8, 8] RGBA;
    "b8g8r8a8_unorm" Unorm [8, 8, 8, 8] BGRA;
    "r8_snorm" Snorm [8] RGBA;
    "r8g8_snorm" Snorm [8, 8] RGBA;
    "r8g8b8a8_snorm" Snorm [8, 8, 8, 8] RGBA;
    "r8_uint" Uint [8] RGBA;
    "r8g8_uint" Uint [8, 8] RGBA;
    "r8g8b8a8_uint" Uint [8, 8, 8, 8] RGBA;
    "r8_sint" Sint [8] RGBA;
    "r8g8_sint" Sint [8, 8] RGBA;
    "r8g8b8a8_sint" Sint [8, 8, 8, 8] RGBA;
    "r8g8b8a8_srgb" Srgb [8, 8, 8, 8] RGBA;
    "b8g8r8a8_srgb" Srgb [8, 8, 8, 8] BGRA;
    "a2b10g10r10_unorm_pack32" Unorm [10, 10, 10, 2] RGBA;
    "r16_unorm" Unorm [16] RGBA;
    "r16g16_unorm" Unorm [16, 16] RGBA;
    "r16g16b16a16_unorm" Unorm [16, 16, 16, 16] RGBA;
    "r16_snorm" Snorm [16] RGBA;
    "r16g16_snorm" Snorm [16, 16] RGBA;
    "r16g16b16a16_snorm" Snorm [16, 16, 16, 16] RGBA;
    "r16_uint" Uint [16] RGBA;
    "r16g16_uint" Uint [16, 16] RGBA;
    "r16g16b16a16_uint" Uint [16, 16, 16, 16] RGBA;
    "r16_sint" Sint [16] RGBA;
    "r16g16_sint" Sint [16, 16] RGBA;
    "r16g16b16a16_sint" Sint [16, 16, 16, 16] RGBA;
    "r16_sfloat" Float [16] RGBA;
    "r16g16_sfloat" Float [16, 16] RGBA;
    "r16g16b16a16_sfloat" Float [16, 16, 16, 16] RGBA;
    "r32_sfloat" Float [32] RGBA;
    "r32g32_sfloat" Float [32, 32] RGBA;
    "r32g32b32_sfloat" Float [32, 32, 32] RGBA;
    "r32g32b32a32_sfloat" Float [32, 32, 32, 32] RGBA;
    "r32_uint" Uint [32] RGBA;
    "r32g32_uint" Uint [32, 32] RGBA;
    "r32g32b32_uint" Uint [32, 32, 32] RGBA;
    "r32g32b32a32_uint" Uint [32, 32, 32, 32] RGBA;
    "r32_sint" Sint [32] RGBA;
    "r32g32_sint" Sint [32, 32] RGBA;
    "r32g32b32_sint" Sint [32, 32, 32] RGBA;
    "r32g32b32a32_sint" Sint [32, 32, 32, 32] RGBA;
}

impl Format {
    pub fn by_name(name: &str) -> Option<Format> {
        FORMATS
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(name))
            .copied()
    }

    pub fn class(&self) -> NumericClass {
        match self.encoding {
            Encoding::Uint => NumericClass::Uint,
            Encoding::Sint => NumericClass::Sint,
            _ => NumericClass::Float,
        }
    }

    pub fn size_bits(&self) -> u32 {
        self.bits.iter().sum()
    }

    /// Where component `i` (memory order) lives: (word, bit offset). Components never straddle
    /// words: every format here packs into whole 32-bit words.
    pub fn place(&self, i: usize) -> (u32, u32) {
        let start: u32 = self.bits[..i].iter().sum();
        (start / 32, start % 32)
    }

    /// 32-bit words one texel or attribute takes.
    pub fn words(&self) -> u32 {
        self.size_bits().div_ceil(32)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rate {
    Vertex,
    Instance,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexBinding {
    pub binding: u32,
    pub stride: u32,
    pub rate: Rate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexAttribute {
    pub location: u32,
    pub binding: u32,
    pub format: Format,
    pub offset: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColorAttachment {
    pub location: u32,
    pub format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpecValue {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl std::fmt::Display for SpecValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpecValue::Bool(b) => write!(f, "{b}"),
            SpecValue::Int(i) => write!(f, "{i}"),
            SpecValue::Float(x) => write!(f, "{x:?}"),
        }
    }
}

/// A (possibly partial) pipeline state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PipelineState {
    /// The file it came from, for messages.
    pub source: String,
    pub vertex_buffer_set: Option<u32>,
    pub bindings: Vec<VertexBinding>,
    pub attributes: Vec<VertexAttribute>,
    pub attachments: Vec<ColorAttachment>,
    pub specialization: BTreeMap<u32, SpecValue>,
}

fn uint(v: &toml::Value, what: &str) -> Result<u32, String> {
    v.as_integer()
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| format!("{what}: expected a non-negative integer"))
}

fn table_of<'a>(v: &'a toml::Value, what: &str) -> Result<&'a toml::Table, String> {
    v.as_table()
        .ok_or_else(|| format!("{what}: expected a table"))
}

fn array_of<'a>(v: &'a toml::Value, what: &str) -> Result<&'a Vec<toml::Value>, String> {
    v.as_array()
        .ok_or_else(|| format!("{what}: expected an array of tables"))
}

/// Reads the fields of `t`, erroring on unknown ones (a misspelt key must not be ignored).
fn fields<'a>(
    t: &'a toml::Table,
    what: &str,
    known: &[&str],
) -> Result<BTreeMap<&'a str, &'a toml::Value>, String> {
    let mut out = BTreeMap::new();
    for (k, v) in t {
        if !known.contains(&k.as_str()) {
            return Err(format!(
                "{what}: unknown key '{k}' (known: {})",
                known.join(", ")
            ));
        }
        out.insert(k.as_str(), v);
    }
    for k in known {
        if !out.contains_key(k) && *k != "rate" && *k != "buffer_set" {
            return Err(format!("{what}: missing '{k}'"));
        }
    }
    Ok(out)
}

fn format_of(v: &toml::Value, what: &str) -> Result<Format, String> {
    let name = v
        .as_str()
        .ok_or_else(|| format!("{what}: expected a format name in quotes"))?;
    Format::by_name(name).ok_or_else(|| {
        format!(
            "{what}: unknown format '{name}' (known: {})",
            FORMATS
                .iter()
                .map(|f| f.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

impl PipelineState {
    pub fn load(path: &std::path::Path) -> Result<PipelineState, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let mut s = PipelineState::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        s.source = path.display().to_string();
        Ok(s)
    }

    pub fn parse(text: &str) -> Result<PipelineState, String> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let msg = e.to_string();
            msg.lines().next().unwrap_or("bad TOML").to_string()
        })?;
        let mut s = PipelineState::default();
        for (key, value) in &table {
            match key.as_str() {
                "vertex" => {
                    let t = table_of(value, "[vertex]")?;
                    for (k, v) in t {
                        match k.as_str() {
                            "buffer_set" => {
                                s.vertex_buffer_set = Some(uint(v, "vertex.buffer_set")?)
                            }
                            "bindings" => {
                                for (n, b) in array_of(v, "vertex.bindings")?.iter().enumerate() {
                                    let what = format!("vertex.bindings[{n}]");
                                    let f = fields(
                                        table_of(b, &what)?,
                                        &what,
                                        &["binding", "stride", "rate"],
                                    )?;
                                    let rate = match f.get("rate").map(|r| r.as_str()) {
                                        None | Some(Some("vertex")) => Rate::Vertex,
                                        Some(Some("instance")) => Rate::Instance,
                                        _ => {
                                            return Err(format!(
                                                "{what}.rate: expected \"vertex\" or \"instance\""
                                            ))
                                        }
                                    };
                                    s.bindings.push(VertexBinding {
                                        binding: uint(f["binding"], &format!("{what}.binding"))?,
                                        stride: uint(f["stride"], &format!("{what}.stride"))?,
                                        rate,
                                    });
                                }
                            }
                            "attributes" => {
                                for (n, a) in
                                    array_of(v, "vertex.attributes")?.iter().enumerate()
                                {
                                    let what = format!("vertex.attributes[{n}]");
                                    let f = fields(
                                        table_of(a, &what)?,
                                        &what,
                                        &["location", "binding", "format", "offset"],
                                    )?;
                                    s.attributes.push(VertexAttribute {
                                        location: uint(
                                            f["location"],
                                            &format!("{what}.location"),
                                        )?,
                                        binding: uint(f["binding"], &format!("{what}.binding"))?,
                                        format: format_of(f["format"], &format!("{what}.format"))?,
                                        offset: uint(f["offset"], &format!("{what}.offset"))?,
                                    });
                                }
                            }
                            other => {
                                return Err(format!(
                                "[vertex]: unknown key '{other}' (known: buffer_set, bindings, attributes)"
                            ))
                            }
                        }
                    }
                }
                "color" => {
                    for (n, a) in array_of(value, "[[color]]")?.iter().enumerate() {
                        let what = format!("color[{n}]");
                        let f = fields(table_of(a, &what)?, &what, &["location", "format"])?;
                        s.attachments.push(ColorAttachment {
                            location: uint(f["location"], &format!("{what}.location"))?,
                            format: format_of(f["format"], &format!("{what}.format"))?,
                        });
                    }
                }
                "specialization" => {
                    for (k, v) in table_of(value, "[specialization]")? {
                        let id: u32 = k.parse().map_err(|_| {
                            format!("specialization.{k}: keys are SpecIds (non-negative integers)")
                        })?;
                        let value = match v {
                            toml::Value::Boolean(b) => SpecValue::Bool(*b),
                            toml::Value::Integer(i) => SpecValue::Int(*i),
                            toml::Value::Float(x) => SpecValue::Float(*x),
                            _ => {
                                return Err(format!(
                                    "specialization.{k}: expected a boolean, an integer or a float"
                                ))
                            }
                        };
                        s.specialization.insert(id, value);
                    }
                }
                other => {
                    return Err(format!(
                        "unknown section '{other}' (known: vertex, color, specialization)"
                    ))
                }
            }
        }
        s.check()?;
        Ok(s)
    }

    /// Consistency of the state on its own: every attribute's binding exists, locations are
    /// unique, attributes sit on whole words (the fetch glue reads 32-bit words).
    fn check(&self) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for a in &self.attributes {
            if !seen.insert(a.location) {
                return Err(format!(
                    "vertex attribute location {} given twice",
                    a.location
                ));
            }
            let Some(b) = self.binding(a.binding) else {
                if self.bindings.is_empty() {
                    // A partial state may give attributes before it knows the buffers.
                    continue;
                }
                return Err(format!(
                    "vertex attribute at location {} uses binding {}, which vertex.bindings does not declare",
                    a.location, a.binding
                ));
            };
            if a.offset % 4 != 0 || b.stride % 4 != 0 {
                return Err(format!(
                    "vertex attribute at location {}: offset {} and stride {} must be multiples of 4 (the fetch glue reads whole words)",
                    a.location, a.offset, b.stride
                ));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for c in &self.attachments {
            if !seen.insert(c.location) {
                return Err(format!(
                    "colour attachment location {} given twice",
                    c.location
                ));
            }
        }
        Ok(())
    }

    pub fn binding(&self, binding: u32) -> Option<&VertexBinding> {
        self.bindings.iter().find(|b| b.binding == binding)
    }

    pub fn attribute(&self, location: u32) -> Option<&VertexAttribute> {
        self.attributes.iter().find(|a| a.location == location)
    }

    pub fn attachment(&self, location: u32) -> Option<&ColorAttachment> {
        self.attachments.iter().find(|a| a.location == location)
    }

    /// What `link` gives beyond `self` (the state the stages were compiled with); an error when
    /// the two disagree on something both give.
    pub fn remainder(&self, link: &PipelineState) -> Result<PipelineState, String> {
        let mut rest = PipelineState {
            source: link.source.clone(),
            vertex_buffer_set: link.vertex_buffer_set.or(self.vertex_buffer_set),
            bindings: link.bindings.clone(),
            ..Default::default()
        };
        for b in &self.bindings {
            if !rest.bindings.contains(b) {
                rest.bindings.push(*b);
            }
        }
        for a in &link.attributes {
            match self.attribute(a.location) {
                Some(c) if c != a => {
                    return Err(format!(
                        "{}: vertex attribute at location {} is {} at offset {} of binding {}, but the stages were compiled with {} at offset {} of binding {}",
                        link.source, a.location, a.format.name, a.offset, a.binding, c.format.name, c.offset, c.binding
                    ))
                }
                Some(_) => {}
                None => rest.attributes.push(*a),
            }
        }
        for a in &link.attachments {
            match self.attachment(a.location) {
                Some(c) if c != a => {
                    return Err(format!(
                        "{}: colour attachment {} is {}, but the stages were compiled with {}",
                        link.source, a.location, a.format.name, c.format.name
                    ))
                }
                Some(_) => {}
                None => rest.attachments.push(*a),
            }
        }
        for (id, v) in &link.specialization {
            match self.specialization.get(id) {
                Some(c) if c != v => {
                    return Err(format!(
                        "{}: specialization constant {id} is {v}, but the stages were compiled with {c}",
                        link.source
                    ))
                }
                Some(_) => {}
                None => {
                    rest.specialization.insert(*id, *v);
                }
            }
        }
        rest.check()?;
        Ok(rest)
    }

    pub fn is_empty(&self) -> bool {
        self.attributes.is_empty() && self.attachments.is_empty() && self.specialization.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = r#"
[vertex]
buffer_set = 2
bindings = [{ binding = 0, stride = 24 }, { binding = 1, stride = 4, rate = "instance" }]
attributes = [
  { location = 0, binding = 0, format = "r32g32b32_sfloat", offset = 0 },
  { location = 1, binding = 1, format = "r8g8b8a8_unorm", offset = 0 },
]

[[color]]
location = 0
format = "r8g8b8a8_srgb"

[specialization]
0 = 1.5
3 = true
"#;

    #[test]
    fn reads_a_full_state() {
        let s = PipelineState::parse(FULL).unwrap();
        assert_eq!(s.vertex_buffer_set, Some(2));
        assert_eq!(s.bindings[1].rate, Rate::Instance);
        assert_eq!(s.attribute(1).unwrap().format.name, "r8g8b8a8_unorm");
        assert_eq!(s.attachment(0).unwrap().format.encoding, Encoding::Srgb);
        assert_eq!(s.specialization[&0], SpecValue::Float(1.5));
        assert_eq!(s.specialization[&3], SpecValue::Bool(true));
    }

    #[test]
    fn rejects_mistakes_with_their_place() {
        let err = |t: &str| PipelineState::parse(t).unwrap_err();
        assert!(err(
            "[vertex]\nattributes = [{ location = 0, binding = 0, format = \"r9\", offset = 0 }]"
        )
        .contains("vertex.attributes[0].format: unknown format 'r9'"));
        assert!(err("[[color]]\nlocation = 0\n").contains("color[0]: missing 'format'"));
        assert!(
            err("[[color]]\nlocation = 0\nformat = \"r8_unorm\"\nblend = 1")
                .contains("unknown key 'blend'")
        );
        assert!(err("[specialization]\nx = 1").contains("SpecIds"));
        assert!(err("[vertex]\nbindings = [{ binding = 0, stride = 6 }]\nattributes = [{ location = 0, binding = 0, format = \"r16g16b16a16_sfloat\", offset = 0 }]")
            .contains("multiples of 4"));
        assert!(err("[vertex]\nbindings = [{ binding = 0, stride = 8 }]\nattributes = [{ location = 0, binding = 3, format = \"r32_sfloat\", offset = 0 }]")
            .contains("binding 3"));
        assert!(err("[blend]").contains("unknown section 'blend'"));
    }

    #[test]
    fn the_remainder_is_what_the_link_state_adds() {
        let full = PipelineState::parse(FULL).unwrap();
        let partial = PipelineState::parse("[specialization]\n0 = 1.5\n").unwrap();
        let rest = partial.remainder(&full).unwrap();
        assert_eq!(rest.attributes.len(), 2);
        assert_eq!(rest.attachments.len(), 1);
        assert_eq!(rest.specialization.len(), 1);
        let other = PipelineState::parse("[specialization]\n0 = 2.5\n").unwrap();
        assert!(other
            .remainder(&full)
            .unwrap_err()
            .contains("specialization constant 0 is 1.5, but the stages were compiled with 2.5"));
    }

    #[test]
    fn formats_place_components_in_words() {
        let f = Format::by_name("R16G16B16A16_SFLOAT").unwrap();
        assert_eq!(f.words(), 2);
        assert_eq!(f.place(3), (1, 16));
        let p = Format::by_name("a2b10g10r10_unorm_pack32").unwrap();
        assert_eq!(p.place(3), (0, 30));
    }
}
