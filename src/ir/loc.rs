//! Source locations: what every instruction of a function body carries as an attribute (its
//! `loc`), as LLVM's `DILocation` and Cranelift's source locations do.
//!
//! A location is what the three families of location markers say at an instruction: the
//! `OpLine` in force (file, line, column), the `DebugLine` of `NonSemantic.Shader.DebugInfo.100`
//! (a `DebugSource`, line and column ranges) and the `DebugScope` (lexical block or function,
//! and where it was inlined). The reader turns marker ranges into locations
//! (`markers::Tracker`); the writer says them again with the fewest markers
//! (`markers::Emitter`).
//!
//! What a marker covers, as SPIR-V and spirv-opt read it: an `OpLine` or `DebugLine` holds
//! until the next marker of its family, its `No…` form or the end of the block, and so does a
//! `DebugScope` (until the next `DebugScope`/`DebugNoScope` or the block's terminator: spirv-opt's
//! reader gives the next block no scope until it says one). A scope change ends the `DebugLine`
//! in force (so it is said again after one).
//!
//! Each function interns its locations in its own table ([`Locations`]): an instruction holds
//! a [`Loc`], four bytes, and instructions moved to another function (inlining) are given a
//! location of its table.

use super::fxhash::FxHashMap;

/// An id, as `inst::Id` spells it: location types are a leaf of `ir` and import no instruction.
type Id = spirv::Word;

/// An index into a function's location table; `Loc::NONE` is no location at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc(pub u32);

impl Loc {
    pub const NONE: Loc = Loc(0);

    pub fn is_none(self) -> bool {
        self == Loc::NONE
    }
}

/// `OpLine`: an `OpString` naming the file, a line and a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceLine {
    pub file: Id,
    pub line: u32,
    pub column: u32,
}

/// `DebugLine`: its `DebugSource` and the ids of four 32-bit integer constants (first and last
/// line, first and last column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DebugLine {
    pub set: Id,
    /// The record's result type (`OpTypeVoid`).
    pub ty: Id,
    pub source: Id,
    pub lines: [Id; 2],
    pub columns: [Id; 2],
}

/// `DebugScope`: a lexical block or function, and the `DebugInlinedAt` of inlined code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scope {
    pub set: Id,
    pub ty: Id,
    pub scope: Id,
    pub inlined_at: Option<Id>,
}

/// What the markers in force say at one instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Location {
    pub line: Option<SourceLine>,
    pub debug_line: Option<DebugLine>,
    pub scope: Option<Scope>,
}

impl Location {
    pub fn is_empty(&self) -> bool {
        *self == Location::default()
    }

    /// Every id the location names (what its markers would use).
    pub fn ids(&self) -> impl Iterator<Item = Id> + '_ {
        let line = self.line.iter().map(|l| l.file);
        let debug_line = self.debug_line.iter().flat_map(|d| {
            [d.set, d.ty, d.source]
                .into_iter()
                .chain(d.lines)
                .chain(d.columns)
        });
        let scope = self
            .scope
            .iter()
            .flat_map(|s| [s.set, s.ty, s.scope].into_iter().chain(s.inlined_at));
        line.chain(debug_line).chain(scope)
    }

    pub fn remap_ids(&mut self, f: &impl Fn(Id) -> Id) {
        if let Some(l) = &mut self.line {
            l.file = f(l.file);
        }
        if let Some(d) = &mut self.debug_line {
            d.set = f(d.set);
            d.ty = f(d.ty);
            d.source = f(d.source);
            d.lines = d.lines.map(f);
            d.columns = d.columns.map(f);
        }
        if let Some(s) = &mut self.scope {
            s.set = f(s.set);
            s.ty = f(s.ty);
            s.scope = f(s.scope);
            s.inlined_at = s.inlined_at.map(f);
        }
    }
}

/// A function's interned locations: `Loc(k)` is entry `k`, and entry 0 is the empty location.
#[derive(Clone, Debug)]
pub struct Locations {
    entries: Vec<Location>,
    index: FxHashMap<Location, Loc>,
}

impl PartialEq for Locations {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Default for Locations {
    fn default() -> Self {
        let mut index = FxHashMap::default();
        index.insert(Location::default(), Loc::NONE);
        Locations {
            entries: vec![Location::default()],
            index,
        }
    }
}

impl Locations {
    pub fn get(&self, loc: Loc) -> &Location {
        self.entries.get(loc.0 as usize).unwrap_or(&self.entries[0])
    }

    pub fn intern(&mut self, location: Location) -> Loc {
        if let Some(&loc) = self.index.get(&location) {
            return loc;
        }
        let loc = Loc(self.entries.len() as u32);
        self.entries.push(location);
        self.index.insert(location, loc);
        loc
    }

    /// Whether any location says something.
    pub fn is_empty(&self) -> bool {
        self.entries.len() == 1
    }

    /// Every location of the table (unused ones too).
    pub fn iter(&self) -> impl Iterator<Item = &Location> + '_ {
        self.entries.iter()
    }

    /// Renames the ids the locations name. Two locations that become equal stay two entries
    /// (both say the same), so every `Loc` keeps its meaning.
    pub fn remap_ids(&mut self, f: &impl Fn(Id) -> Id) {
        for e in &mut self.entries {
            e.remap_ids(f);
        }
        self.index.clear();
        for (k, e) in self.entries.iter().enumerate().rev() {
            self.index.insert(*e, Loc(k as u32));
        }
    }
}
