//! Mutations aimed at debug info (`NonSemantic.Shader.DebugInfo.100`, `OpenCL.DebugInfo.100`,
//! other `NonSemantic.*` sets), shared by `tests/robustness.rs` and `examples/fuzz.rs`: they
//! work on a binary's instructions, so what comes out still splits into instructions and
//! reaches the passes, unlike random words. A debug `OpExtInst` gets another instruction
//! number, loses, repeats or swaps operands, names another id (a type, a function, an id
//! nothing defines), is cut short, or moves (between blocks, before an `OpPhi`, to module
//! level); an import is renamed to another set.

/// A module's header and instructions (each with its opcode word first).
struct Insts {
    header: Vec<u32>,
    insts: Vec<Vec<u32>>,
}

const OP_EXT_INST_IMPORT: u32 = 11;
const OP_EXT_INST: u32 = 12;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_END: u32 = 56;
const OP_PHI: u32 = 245;
const OP_LABEL: u32 = 248;

fn split(words: &[u32]) -> Option<Insts> {
    let header = words.get(..5)?.to_vec();
    let mut insts = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let n = (words[at] >> 16) as usize;
        if n == 0 || at + n > words.len() {
            return None;
        }
        insts.push(words[at..at + n].to_vec());
        at += n;
    }
    Some(Insts { header, insts })
}

fn join(m: Insts) -> Vec<u32> {
    let mut out = m.header;
    for mut i in m.insts {
        i[0] = (i[0] & 0xffff) | ((i.len() as u32) << 16);
        out.extend(i);
    }
    out
}

fn opcode(i: &[u32]) -> u32 {
    i[0] & 0xffff
}

fn string_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn string_of(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Where things are: the debug imports, the debug records (inside functions or not), and ids
/// to point operands at.
struct Survey {
    imports: Vec<usize>,
    records: Vec<usize>,
    in_functions: Vec<usize>,
    types: Vec<u32>,
    functions: Vec<u32>,
    locals: Vec<u32>,
    undefined: Vec<u32>,
}

fn survey(m: &Insts) -> Survey {
    let mut s = Survey {
        imports: Vec::new(),
        records: Vec::new(),
        in_functions: Vec::new(),
        types: Vec::new(),
        functions: Vec::new(),
        locals: Vec::new(),
        undefined: Vec::new(),
    };
    let mut debug_sets = Vec::new();
    let mut defined = std::collections::HashSet::new();
    let mut in_function = false;
    for (k, i) in m.insts.iter().enumerate() {
        let op = opcode(i);
        match op {
            OP_EXT_INST_IMPORT if i.len() > 2 => {
                let name = string_of(&i[2..]);
                if name.starts_with("NonSemantic.") || name == "OpenCL.DebugInfo.100" {
                    s.imports.push(k);
                    debug_sets.push(i[1]);
                }
                defined.insert(i[1]);
            }
            OP_EXT_INST if i.len() > 3 && debug_sets.contains(&i[3]) => {
                s.records.push(k);
                if in_function {
                    s.in_functions.push(k);
                }
            }
            _ => {}
        }
        if op == OP_FUNCTION && i.len() > 2 {
            in_function = true;
            s.functions.push(i[2]);
        }
        if op == OP_FUNCTION_END {
            in_function = false;
        }
        if (19..=39).contains(&op) && i.len() > 1 {
            s.types.push(i[1]);
        }
        // Result ids: the second word of types, the third of most else.
        let result = if (19..=39).contains(&op) {
            i.get(1)
        } else {
            i.get(2)
        };
        if let Some(&r) = result {
            defined.insert(r);
            if in_function && op != OP_FUNCTION {
                s.locals.push(r);
            }
        }
    }
    let bound = m.header.get(3).copied().unwrap_or(1).max(1);
    s.undefined = (1..bound.min(1 << 16))
        .filter(|id| !defined.contains(id))
        .take(4)
        .collect();
    s.undefined.push(bound);
    s
}

const SET_NAMES: [&str; 6] = [
    "NonSemantic.Acme.Unknown.7",
    "NonSemantic.DebugPrintf",
    "NonSemantic.Shader.DebugInfo.100",
    "NonSemantic.Shader.DebugInfo.99",
    "OpenCL.DebugInfo.100",
    "NonSemantic.",
];

/// One mutation of `words` aimed at its debug info; `below(n)` picks a number under `n`.
/// Returns the mutated binary and what was done (`None` when the module has no debug info or
/// does not split into instructions).
pub fn mutate(words: &[u32], below: &mut dyn FnMut(usize) -> usize) -> Option<(Vec<u32>, String)> {
    let mut m = split(words)?;
    let s = survey(&m);
    if s.records.is_empty() {
        return None;
    }
    let mut what = Vec::new();
    for _ in 0..1 + below(3) {
        let pick = |v: &[usize], below: &mut dyn FnMut(usize) -> usize| v[below(v.len())];
        let r = if !s.in_functions.is_empty() && below(2) == 0 {
            pick(&s.in_functions, below)
        } else {
            pick(&s.records, below)
        };
        let len = m.insts[r].len();
        // Operands after the set and the instruction number start at word 5.
        let operands = len.saturating_sub(5);
        match below(10) {
            0 if len > 4 => {
                let n = match below(4) {
                    0 => below(110) as u32,
                    1 => m.insts[r][4] ^ (1 << below(8)),
                    2 => [0xffff_ffff, 0x8000_0000, 1000, 0xffff][below(4)],
                    _ => m.insts[r][4].wrapping_add(1),
                };
                m.insts[r][4] = n;
                what.push(format!("instruction {r}: number {n}"));
            }
            1 if operands > 0 => {
                let k = 5 + below(operands);
                m.insts[r].remove(k);
                what.push(format!("instruction {r}: operand {k} dropped"));
            }
            2 if operands > 0 => {
                let k = 5 + below(operands);
                let w = m.insts[r][k];
                m.insts[r].insert(k, w);
                what.push(format!("instruction {r}: operand {k} repeated"));
            }
            3 if operands > 1 => {
                let (a, b) = (5 + below(operands), 5 + below(operands));
                m.insts[r].swap(a, b);
                what.push(format!("instruction {r}: operands {a} and {b} swapped"));
            }
            4 if operands > 0 => {
                let k = 5 + below(operands);
                let choices: [&[u32]; 4] = [&s.types, &s.functions, &s.undefined, &s.locals];
                let from = choices[below(choices.len())];
                if let Some(&id) = from.get(below(from.len())) {
                    m.insts[r][k] = id;
                    what.push(format!("instruction {r}: operand {k} names %{id}"));
                }
            }
            5 => {
                let keep = 1 + below(len);
                m.insts[r].truncate(keep);
                what.push(format!("instruction {r}: cut to {keep} words"));
            }
            6 if len > 1 => {
                let choices: [&[u32]; 3] = [&s.types, &s.functions, &s.undefined];
                let from = choices[below(choices.len())];
                if let Some(&id) = from.get(below(from.len())) {
                    m.insts[r][1] = id;
                    what.push(format!("instruction {r}: result type %{id}"));
                }
            }
            7 if !s.imports.is_empty() => {
                let k = s.imports[below(s.imports.len())];
                let name = SET_NAMES[below(SET_NAMES.len())];
                m.insts[k].truncate(2);
                m.insts[k].extend(string_words(name));
                what.push(format!("import {k} renamed {name}"));
            }
            _ => {
                // Move (or, one time in four, copy) the record elsewhere.
                let inst = if below(4) == 0 {
                    m.insts[r].clone()
                } else {
                    m.insts.remove(r)
                };
                let n = m.insts.len();
                let positions: Vec<usize> = match below(4) {
                    // Before an OpPhi.
                    0 => (0..n).filter(|&k| opcode(&m.insts[k]) == OP_PHI).collect(),
                    // Before or after a label: between blocks, or at a block's start.
                    1 => (0..n)
                        .filter(|&k| opcode(&m.insts[k]) == OP_LABEL)
                        .flat_map(|k| [k, k + 1])
                        .collect(),
                    // Module level: before the first function, or at the end.
                    2 => {
                        let first = (0..n).find(|&k| opcode(&m.insts[k]) == OP_FUNCTION);
                        first.into_iter().chain([n]).collect()
                    }
                    _ => vec![below(n + 1)],
                };
                let at = positions
                    .get(below(positions.len()))
                    .copied()
                    .unwrap_or(n)
                    .min(n);
                m.insts.insert(at, inst);
                what.push(format!("instruction {r} moved to {at}"));
                // Indexes shifted: one change of this kind per mutant.
                break;
            }
        }
    }
    Some((join(m), what.join("; ")))
}

/// `NonSemantic.Shader.DebugInfo.100` records a function body may go without: no instruction
/// uses their (void) results, and the set asks for none of them where code is.
const DROPPABLE: [(u32, &str); 6] = [
    (23, "DebugScope"),
    (24, "DebugNoScope"),
    (28, "DebugDeclare"),
    (29, "DebugValue"),
    (103, "DebugLine"),
    (104, "DebugNoLine"),
];

/// Drops one to three of a function body's `DROPPABLE` records: a valid module stays valid,
/// with less debug info (a variable one declare less described, a stretch of code without its
/// line or scope). `None` when there are none.
pub fn drop_records(
    words: &[u32],
    below: &mut dyn FnMut(usize) -> usize,
) -> Option<(Vec<u32>, String)> {
    let mut m = split(words)?;
    let sets: Vec<u32> = m
        .insts
        .iter()
        .filter(|i| opcode(i) == OP_EXT_INST_IMPORT && i.len() > 2)
        .filter(|i| string_of(&i[2..]) == "NonSemantic.Shader.DebugInfo.100")
        .map(|i| i[1])
        .collect();
    let s = survey(&m);
    let droppable: Vec<usize> = s
        .in_functions
        .iter()
        .copied()
        .filter(|&k| {
            let i = &m.insts[k];
            i.len() > 4 && sets.contains(&i[3]) && DROPPABLE.iter().any(|(n, _)| *n == i[4])
        })
        .collect();
    if droppable.is_empty() {
        return None;
    }
    let mut picked: Vec<usize> = (0..1 + below(3))
        .map(|_| droppable[below(droppable.len())])
        .collect();
    picked.sort_unstable();
    picked.dedup();
    let what: Vec<String> = picked
        .iter()
        .map(|&k| {
            let n = m.insts[k][4];
            let name = DROPPABLE.iter().find(|(d, _)| *d == n).map_or("", |d| d.1);
            format!("{name} at instruction {k} dropped")
        })
        .collect();
    for &k in picked.iter().rev() {
        m.insts.remove(k);
    }
    Some((join(m), what.join("; ")))
}
