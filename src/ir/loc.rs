//! Source locations: what every instruction of a function body carries as an attribute (its
//! `loc`), as LLVM's `DILocation` and Cranelift's source locations do.
//!
//! A location is what the three families of location markers say at an instruction: the
//! `OpLine` in force (file, line, column), the `DebugLine` of `NonSemantic.Shader.DebugInfo.100`
//! (a `DebugSource`, line and column ranges) and the `DebugScope` (lexical block or function,
//! and where it was inlined). The reader turns marker ranges into locations
//! ([`Tracker`]); the writer says them again with the fewest markers ([`Emitter`]).
//!
//! What a marker covers, as SPIR-V and spirv-opt read it: an `OpLine` or `DebugLine` holds
//! until the next marker of its family, its `No…` form or the end of the block; a `DebugScope`
//! holds across blocks, in layout order, until the next `DebugScope`/`DebugNoScope` or the end of
//! the function. A scope change ends the `DebugLine` in force (so it is said again after one).
//!
//! Each function interns its locations in its own table ([`Locations`]): an instruction holds
//! a [`Loc`], four bytes, and instructions moved to another function (inlining) are given a
//! location of its table.

use spirv::Op;

use super::debug::{self, DebugSets};
use super::fxhash::FxHashMap;
use super::inst::{Id, Inst};

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

/// The markers in force while reading a function body, marker by marker.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tracker {
    pub state: Location,
}

impl Tracker {
    /// Takes in `inst` if it is a location marker this reader understands (an `OpLine` or
    /// `OpNoLine`, or a `DebugLine`, `DebugNoLine`, `DebugScope` or `DebugNoScope` that fits its
    /// set's grammar); returns whether it did. Anything else is an instruction of its own.
    pub fn take(&mut self, inst: &Inst, sets: &DebugSets) -> bool {
        match inst.op {
            Op::Line => {
                let (Some(file), Some(line), Some(column)) =
                    (inst.arg(0), inst.lit_u32(0), inst.lit_u32(1))
                else {
                    return false;
                };
                self.state.line = Some(SourceLine { file, line, column });
                true
            }
            Op::NoLine => {
                self.state.line = None;
                true
            }
            Op::ExtInst => {
                let Some((flavor, n)) = sets.record(inst) else {
                    return false;
                };
                let (Some(ty), Some(set)) = (inst.ty, inst.arg(0)) else {
                    return false;
                };
                let a = &inst.args[1..];
                match n {
                    debug::LINE if flavor == debug::Flavor::Shader && a.len() == 5 => {
                        self.state.debug_line = Some(DebugLine {
                            set,
                            ty,
                            source: a[0],
                            lines: [a[1], a[2]],
                            columns: [a[3], a[4]],
                        });
                    }
                    debug::NO_LINE if flavor == debug::Flavor::Shader => {
                        self.state.debug_line = None
                    }
                    debug::SCOPE if (1..=2).contains(&a.len()) => {
                        self.state.scope = Some(Scope {
                            set,
                            ty,
                            scope: a[0],
                            inlined_at: a.get(1).copied(),
                        });
                        self.state.debug_line = None;
                    }
                    debug::NO_SCOPE => {
                        self.state.scope = None;
                        self.state.debug_line = None;
                    }
                    _ => return false,
                }
                true
            }
            _ => false,
        }
    }

    /// A new block: lines end with the block before, the scope does not.
    pub fn start_block(&mut self) {
        self.state.line = None;
        self.state.debug_line = None;
    }
}

/// Says locations with markers, the fewest that make a reader in the same place see them: a
/// marker only where what is in force changes. Result ids of the `OpExtInst` markers come from
/// `ids`.
pub struct Emitter {
    said: Location,
}

/// Where markers may stand: `OpLine` anywhere in a block, `OpExtInst` ones only after the
/// block's phis (and the entry block's variables), as spirv-val requires of non-semantic
/// instructions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Anywhere,
    LinesOnly,
}

impl Emitter {
    pub fn new() -> Self {
        Emitter {
            said: Location::default(),
        }
    }

    pub fn start_block(&mut self) {
        self.said.line = None;
        self.said.debug_line = None;
    }

    /// The markers to say before an instruction at `to`, given `id` for each `OpExtInst` one.
    pub fn say(
        &mut self,
        to: &Location,
        place: Place,
        mut id: impl FnMut() -> Id,
        out: &mut impl FnMut(Inst),
    ) {
        if place == Place::Anywhere && to.scope != self.said.scope {
            match (to.scope, self.said.scope) {
                (Some(s), _) => {
                    let mut args = vec![s.scope];
                    args.extend(s.inlined_at);
                    out(debug::record(Some(s.ty), id(), s.set, debug::SCOPE, &args));
                }
                (None, Some(s)) => {
                    out(debug::record(Some(s.ty), id(), s.set, debug::NO_SCOPE, &[]))
                }
                (None, None) => {}
            }
            self.said.scope = to.scope;
            self.said.debug_line = None;
        }
        if place == Place::Anywhere && to.debug_line != self.said.debug_line {
            match (to.debug_line, self.said.debug_line) {
                (Some(d), _) => {
                    let args = [d.source, d.lines[0], d.lines[1], d.columns[0], d.columns[1]];
                    out(debug::record(Some(d.ty), id(), d.set, debug::LINE, &args));
                }
                (None, Some(d)) => out(debug::record(Some(d.ty), id(), d.set, debug::NO_LINE, &[])),
                (None, None) => {}
            }
            self.said.debug_line = to.debug_line;
        }
        if to.line != self.said.line {
            match to.line {
                Some(l) => out(Inst::new(
                    Op::Line,
                    None,
                    None,
                    vec![
                        rspirv::dr::Operand::IdRef(l.file),
                        rspirv::dr::Operand::LiteralBit32(l.line),
                        rspirv::dr::Operand::LiteralBit32(l.column),
                    ],
                )),
                None => out(Inst::new(Op::NoLine, None, None, vec![])),
            }
            self.said.line = to.line;
        }
    }
}

impl Default for Emitter {
    fn default() -> Self {
        Emitter::new()
    }
}
