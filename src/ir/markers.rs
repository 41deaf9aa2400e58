//! Location markers, read and written: the reader turns the markers of a function body into
//! the locations its instructions carry ([`Tracker`]); the writer says locations again with the
//! fewest markers ([`Emitter`]). What a marker covers is told in `loc`'s module doc.

use spirv::Op;

use super::ext_sets::{self as debug, ExtSets as DebugSets};
use super::inst::{Id, Inst};
use super::loc::{DebugLine, Loc, Location, Scope, SourceLine};

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

    /// A new block: every marker ends with the block before, the scope too (spirv-opt's
    /// reader gives a block that says no `DebugScope` none).
    pub fn start_block(&mut self) {
        self.state = Location::default();
    }
}

/// Says locations with markers, the fewest that make a reader in the same place see them: a
/// marker only where what is in force changes. Result ids of the `OpExtInst` markers come from
/// `ids`.
pub struct Emitter {
    said: Location,
    /// The location markers carry (`loc` of what `say` hands out).
    marker: Loc,
    /// The `OpLine`, `DebugLine` and `DebugScope` said last, changed in place for the next of
    /// their kind: a module is written, verified and its uses counted many times, and making
    /// each marker anew allocated its operands every time.
    line: Option<Inst>,
    debug_line: Option<Inst>,
    scope: Option<Inst>,
}

/// Where markers may stand: `OpLine` anywhere in a block, `OpExtInst` ones only after the
/// block's phis (and the entry block's variables), as spirv-val requires of non-semantic
/// instructions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Anywhere,
    LinesOnly,
}

/// `record` kept in `slot`, made there the first time and then given `ty`, `id` and `args`
/// (its set first, then its operands, one fewer or more than before as a scope's
/// `inlined_at` comes and goes; the record's number stays).
fn reuse<'s>(
    slot: &'s mut Option<Inst>,
    marker: Loc,
    ty: Id,
    id: Id,
    set: Id,
    n: u32,
    args: &[Id],
) -> &'s Inst {
    let inst = slot.get_or_insert_with(|| {
        let mut made = debug::record(Some(ty), id, set, n, args);
        made.loc = marker;
        made
    });
    inst.ty = Some(ty);
    inst.result = Some(id);
    inst.args.truncate(1);
    inst.args[0] = set;
    inst.args.extend_from_slice(args);
    inst
}

impl Emitter {
    pub fn new(marker: Loc) -> Self {
        Emitter {
            said: Location::default(),
            marker,
            line: None,
            debug_line: None,
            scope: None,
        }
    }

    /// A new block: nothing said before holds, so a block's scope is said in it again.
    pub fn start_block(&mut self) {
        self.said = Location::default();
    }

    /// The markers to say before an instruction at `to`, given `id` for each `OpExtInst` one.
    pub fn say(
        &mut self,
        to: &Location,
        place: Place,
        mut id: impl FnMut() -> Id,
        out: &mut impl FnMut(&Inst),
    ) {
        let marker = self.marker;
        let fresh = |mut inst: Inst| {
            inst.loc = marker;
            inst
        };
        if place == Place::Anywhere && to.scope != self.said.scope {
            match (to.scope, self.said.scope) {
                (Some(s), _) => {
                    let inlined: &[Id] = match &s.inlined_at {
                        Some(at) => std::slice::from_ref(at),
                        None => &[],
                    };
                    let args: smallvec::SmallVec<[Id; 2]> = std::iter::once(s.scope)
                        .chain(inlined.iter().copied())
                        .collect();
                    let (ty, id) = (s.ty, id());
                    out(reuse(
                        &mut self.scope,
                        marker,
                        ty,
                        id,
                        s.set,
                        debug::SCOPE,
                        &args,
                    ));
                }
                (None, Some(s)) => out(&fresh(debug::record(
                    Some(s.ty),
                    id(),
                    s.set,
                    debug::NO_SCOPE,
                    &[],
                ))),
                (None, None) => {}
            }
            self.said.scope = to.scope;
            self.said.debug_line = None;
        }
        if place == Place::Anywhere && to.debug_line != self.said.debug_line {
            match (to.debug_line, self.said.debug_line) {
                (Some(d), _) => {
                    let args = [d.source, d.lines[0], d.lines[1], d.columns[0], d.columns[1]];
                    let (ty, id) = (d.ty, id());
                    out(reuse(
                        &mut self.debug_line,
                        marker,
                        ty,
                        id,
                        d.set,
                        debug::LINE,
                        &args,
                    ));
                }
                (None, Some(d)) => out(&fresh(debug::record(
                    Some(d.ty),
                    id(),
                    d.set,
                    debug::NO_LINE,
                    &[],
                ))),
                (None, None) => {}
            }
            self.said.debug_line = to.debug_line;
        }
        if to.line != self.said.line {
            match to.line {
                Some(l) => {
                    let inst = self.line.get_or_insert_with(|| {
                        fresh(Inst::new(
                            Op::Line,
                            None,
                            None,
                            vec![
                                rspirv::dr::Operand::IdRef(l.file),
                                rspirv::dr::Operand::LiteralBit32(l.line),
                                rspirv::dr::Operand::LiteralBit32(l.column),
                            ],
                        ))
                    });
                    inst.args[0] = l.file;
                    if let [line, column] = inst.lits_mut() {
                        *line = rspirv::dr::Operand::LiteralBit32(l.line);
                        *column = rspirv::dr::Operand::LiteralBit32(l.column);
                    }
                    out(inst)
                }
                None => out(&fresh(Inst::new(Op::NoLine, None, None, vec![]))),
            }
            self.said.line = to.line;
        }
    }
}
