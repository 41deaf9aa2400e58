//! The usage tree of a pointer (`qptr-analyze`): how it is accessed, and the pointers made from
//! it by constant and dynamic offsets, with a text form that the IR text carries as an
//! attribute line (`; @usage {load %float, +16 {store %float}}`) and reads back.

use std::collections::BTreeMap;
use std::fmt::{self, Write};

use super::inst::Id;

/// How a pointer is used by one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    Load(Id),
    Store(Id),
    Atomic(Id),
    /// The destination of a copy of this many bytes.
    CopyDst(u64),
    /// The source of a copy of this many bytes.
    CopySrc(u64),
}

/// The usage tree of a pointer: its own accesses, and the pointers made from it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub accesses: Vec<Access>,
    /// Through `qptr.offset`, by offset.
    pub offsets: BTreeMap<i64, Usage>,
    /// Through `qptr.dyn_offset`, by stride.
    pub dyn_offsets: BTreeMap<u64, Usage>,
    /// Through `qptr.buffer_data` (for a buffer handle).
    pub data: Option<Box<Usage>>,
}

impl Usage {
    /// Adds what `other` reaches to this tree.
    pub fn merge(&mut self, other: Usage) {
        for a in other.accesses {
            if !self.accesses.contains(&a) {
                self.accesses.push(a);
            }
        }
        for (k, u) in other.offsets {
            self.offsets.entry(k).or_default().merge(u);
        }
        for (k, u) in other.dyn_offsets {
            self.dyn_offsets.entry(k).or_default().merge(u);
        }
        if let Some(d) = other.data {
            self.data.get_or_insert_with(Default::default).merge(*d);
        }
    }

    /// Renames the types the tree names through `f`.
    pub fn remap_ids(&mut self, f: &impl Fn(Id) -> Id) {
        for a in &mut self.accesses {
            if let Access::Load(t) | Access::Store(t) | Access::Atomic(t) = a {
                *t = f(*t);
            }
        }
        for u in self
            .offsets
            .values_mut()
            .chain(self.dyn_offsets.values_mut())
        {
            u.remap_ids(f);
        }
        if let Some(d) = &mut self.data {
            d.remap_ids(f);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.accesses.is_empty()
            && self.offsets.is_empty()
            && self.dyn_offsets.is_empty()
            && self.data.is_none()
    }

    /// The text form: `{load %v4float, +16 {store %float}, [*48] {load %uint}, data {…}}`.
    pub fn text(&self, name: &dyn Fn(Id) -> String) -> String {
        let mut out = String::new();
        self.write(&mut out, name);
        out
    }

    fn write(&self, out: &mut String, name: &dyn Fn(Id) -> String) {
        out.push('{');
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !first {
                out.push_str(", ");
            }
            first = false;
        };
        for a in &self.accesses {
            sep(out);
            let _ = match a {
                Access::Load(t) => write!(out, "load %{}", name(*t)),
                Access::Store(t) => write!(out, "store %{}", name(*t)),
                Access::Atomic(t) => write!(out, "atomic %{}", name(*t)),
                Access::CopyDst(n) => write!(out, "copy-dst {n}"),
                Access::CopySrc(n) => write!(out, "copy-src {n}"),
            };
        }
        for (k, u) in &self.offsets {
            sep(out);
            let _ = write!(out, "{k:+} ");
            u.write(out, name);
        }
        for (s, u) in &self.dyn_offsets {
            sep(out);
            let _ = write!(out, "[*{s}] ");
            u.write(out, name);
        }
        if let Some(d) = &self.data {
            sep(out);
            out.push_str("data ");
            d.write(out, name);
        }
        out.push('}');
    }

    /// Reads the text form back; `id` maps a `%name` to its id.
    pub fn parse(text: &str, id: &dyn Fn(&str) -> Option<Id>) -> Result<Usage, String> {
        let mut p = UsageParser {
            s: text.as_bytes(),
            i: 0,
            id,
        };
        let u = p.usage()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("unexpected text after the usage at {}", p.i));
        }
        Ok(u)
    }
}

struct UsageParser<'a> {
    s: &'a [u8],
    i: usize,
    id: &'a dyn Fn(&str) -> Option<Id>,
}

impl UsageParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn word(&mut self) -> String {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || b"_-+%*.".contains(&self.s[self.i]))
        {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }
    fn number<T: std::str::FromStr>(&mut self, w: &str) -> Result<T, String> {
        w.parse().map_err(|_| format!("bad number '{w}'"))
    }
    fn usage(&mut self) -> Result<Usage, String> {
        if !self.eat(b'{') {
            return Err("expected '{'".into());
        }
        let mut u = Usage::default();
        if self.eat(b'}') {
            return Ok(u);
        }
        loop {
            if self.eat(b'[') {
                let w = self.word();
                let stride = self.number(w.trim_start_matches('*'))?;
                if !self.eat(b']') {
                    return Err("expected ']'".into());
                }
                let child = self.usage()?;
                u.dyn_offsets.entry(stride).or_default().merge(child);
            } else {
                let w = self.word();
                match w.as_str() {
                    "load" | "store" | "atomic" => {
                        let t = self.word();
                        let ty = (self.id)(t.trim_start_matches('%'))
                            .ok_or_else(|| format!("unknown type {t}"))?;
                        u.accesses.push(match w.as_str() {
                            "load" => Access::Load(ty),
                            "store" => Access::Store(ty),
                            _ => Access::Atomic(ty),
                        });
                    }
                    "copy-dst" | "copy-src" => {
                        let n = self.word();
                        let n: u64 = self.number(&n)?;
                        u.accesses.push(if w == "copy-dst" {
                            Access::CopyDst(n)
                        } else {
                            Access::CopySrc(n)
                        });
                    }
                    "data" => {
                        let child = self.usage()?;
                        u.data = Some(Box::new(child));
                    }
                    w if w.starts_with('+') || w.starts_with('-') => {
                        let k: i64 = self.number(w)?;
                        let child = self.usage()?;
                        u.offsets.entry(k).or_default().merge(child);
                    }
                    other => return Err(format!("unexpected '{other}' in a usage")),
                }
            }
            if self.eat(b'}') {
                return Ok(u);
            }
            if !self.eat(b',') {
                return Err("expected ',' or '}'".into());
            }
        }
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Access::Load(t) => write!(f, "load %{t}"),
            Access::Store(t) => write!(f, "store %{t}"),
            Access::Atomic(t) => write!(f, "atomic %{t}"),
            Access::CopyDst(n) => write!(f, "copy-dst {n}"),
            Access::CopySrc(n) => write!(f, "copy-src {n}"),
        }
    }
}
