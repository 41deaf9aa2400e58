//! A function's control-flow graph as a reader sees it: its blocks in layout order as boxes
//! (label, what the block is to the structured constructs, instructions, first and last
//! source line), indented by construct nesting, with its edges drawn in lanes to the right of
//! the boxes and the back edges of loops in lanes of their own. The graph of two steps diffs:
//! blocks and edges added, removed or changed are marked. A construct folds into its header.
//!
//! Why boxes in a column rather than a layered layout: the blocks keep the order the code pane
//! lists them in, a graph of any size scrolls in one direction, and at 80 columns the boxes keep
//! room for their text; the lanes show every edge that fits the width (the rest are counted).

use std::fmt::Write;

use crate::ir::analysis::ConstructKind;
use crate::ir::debug::{source_line, DebugSets};
use crate::ir::func::{Function, Merge};
use crate::ir::names::Names;
use crate::ir::{Id, Module};

/// What a block or an edge is in a diff of two steps' graphs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mark {
    #[default]
    Same,
    Added,
    Removed,
    /// The block is in both, with other instructions.
    Changed,
}

impl Mark {
    /// The character that says it in plain text.
    pub fn sign(self) -> char {
        match self {
            Mark::Same => ' ',
            Mark::Added => '+',
            Mark::Removed => '-',
            Mark::Changed => '~',
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub label: Id,
    /// The label as the code pane prints it (`%10`, or its name).
    pub name: String,
    /// What the block is: `entry`, `loop header`, `continue`, `merge`, `selection`, joined.
    pub roles: Vec<&'static str>,
    /// Instructions, debug info aside (label, merge and terminator included).
    pub insts: usize,
    /// The first and last source line its instructions came from.
    pub lines: Option<(u32, u32)>,
    /// Constructs it is nested in (a header counts those around its construct).
    pub depth: usize,
    /// For a header: its merge block and, for a loop, its continue target (names).
    pub merge: Option<String>,
    pub continue_target: Option<String>,
    /// For a header: the blocks of its construct after it (indices into `nodes`), which
    /// folding hides.
    pub inside: Vec<usize>,
    /// The terminator's opcode, as `OpBranchConditional`, without `Op`.
    pub terminator: String,
    pub reachable: bool,
    /// What its instructions are (ids as they are), for a diff to tell a changed block.
    pub content: u64,
    pub mark: Mark,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    Jump,
    True,
    False,
    /// A switch's case, or its default.
    Case,
    Default,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Indices into `nodes`.
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
    /// To a block laid out before (or at) the one it leaves: a loop's back edge.
    pub back: bool,
    pub mark: Mark,
}

/// The graph of one function at one step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    pub function: Id,
    pub name: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

impl Graph {
    /// The graph of `f`, a function of `m`, with ids named as `names` prints them.
    pub fn of(m: &Module, f: &Function, names: &Names) -> Graph {
        let cfg = f.cfg();
        let structure = f.structure();
        let sets = DebugSets::of(m);
        let name = |id: Id| format!("%{}", names.get(id));
        let n = f.blocks().len();
        let mut nodes: Vec<Node> = Vec::with_capacity(n);
        for (b, block) in f.blocks().iter().enumerate() {
            let mut roles = Vec::new();
            if b == 0 {
                roles.push("entry");
            }
            let (mut merge, mut continue_target) = (None, None);
            match &block.merge {
                Some(Merge::Loop {
                    merge: m_,
                    continue_target: c,
                    ..
                }) => {
                    roles.push("loop header");
                    merge = Some(name(*m_));
                    continue_target = Some(name(*c));
                }
                Some(Merge::Selection { merge: m_, .. }) => {
                    roles.push("selection");
                    merge = Some(name(*m_));
                }
                None => {}
            }
            let label = block.label;
            if f.blocks().iter().any(|o| {
                o.merge
                    .as_ref()
                    .and_then(Merge::continue_target)
                    .is_some_and(|c| c == label)
            }) {
                roles.push("continue");
            }
            if f.blocks()
                .iter()
                .any(|o| o.merge.as_ref().is_some_and(|m_| m_.merge_block() == label))
            {
                roles.push("merge");
            }
            let terminator = f.terminator(b);
            match terminator.op() {
                spirv::Op::Return | spirv::Op::ReturnValue => roles.push("return"),
                spirv::Op::Kill | spirv::Op::TerminateInvocation => roles.push("kill"),
                spirv::Op::Unreachable => roles.push("unreachable end"),
                _ => {}
            }
            let code: Vec<&crate::ir::Inst> = block
                .insts
                .iter()
                .map(|&i| f.inst(i))
                .filter(|i| !crate::ir::inst::is_debug(i.op()) && !sets.is_debug_info_inst(i))
                .collect();
            let mut lines: Option<(u32, u32)> = None;
            for &i in &block.insts {
                let at = f.location_of(i);
                if let Some((_, line)) = source_line(m, &sets, at) {
                    lines = Some(match lines {
                        None => (line, line),
                        Some((first, _)) => (first, line),
                    });
                }
            }
            let mut content = 0xcbf2_9ce4_8422_2325u64;
            for i in code.iter().copied().chain(std::iter::once(terminator)) {
                let mut text = format!("{:?}{:?}{:?}", i.op(), i.ty(), i.result());
                for o in i.operands() {
                    let _ = write!(text, " {o:?}");
                }
                for byte in text.bytes() {
                    content = (content ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
                }
            }
            nodes.push(Node {
                label,
                name: name(label),
                roles,
                insts: code.len() + 2 + usize::from(block.merge.is_some()),
                lines,
                depth: 0,
                merge,
                continue_target,
                inside: Vec::new(),
                terminator: format!("{:?}", terminator.op()),
                reachable: cfg.reachable(b),
                content,
                mark: Mark::Same,
            });
        }
        // Nesting: the constructs around each block, less the one it heads.
        for (b, node) in nodes.iter_mut().enumerate() {
            let mut c = structure.innermost.get(b).copied().flatten();
            while let Some(k) = c {
                let construct = &structure.constructs[k];
                if construct.header != b && construct.kind != ConstructKind::Continue {
                    node.depth += 1;
                }
                c = construct.parent;
            }
        }
        for (k, construct) in structure.constructs.iter().enumerate() {
            if construct.kind == ConstructKind::Continue {
                continue;
            }
            let h = construct.header;
            let mut inside: Vec<usize> = (0..n)
                .filter(|&b| b != h && structure.contains(k, b))
                .collect();
            // A loop's continue construct is part of the loop (its target too where nothing
            // reaches it, and no construct is made of it).
            if let Some(ct) = construct.continue_target {
                if ct != h {
                    inside.push(ct);
                }
                for (j, other) in structure.constructs.iter().enumerate() {
                    if other.kind == ConstructKind::Continue && other.header == ct {
                        inside.extend((0..n).filter(|&b| structure.contains(j, b)));
                    }
                }
            }
            inside.sort_unstable();
            inside.dedup();
            nodes[h].inside = inside;
        }
        let mut edges = Vec::new();
        for b in 0..n {
            let t = f.terminator(b);
            let targets = f.successors(b);
            let mut seen: Vec<usize> = Vec::new();
            for (k, target) in targets.iter().enumerate() {
                let Some(to) = cfg.block(*target) else {
                    continue;
                };
                if seen.contains(&to) {
                    continue;
                }
                seen.push(to);
                let kind = match t.op() {
                    spirv::Op::BranchConditional if k == 0 => EdgeKind::True,
                    spirv::Op::BranchConditional => EdgeKind::False,
                    spirv::Op::Switch if k == 0 => EdgeKind::Default,
                    spirv::Op::Switch => EdgeKind::Case,
                    _ => EdgeKind::Jump,
                };
                edges.push(Edge {
                    from: b,
                    to,
                    kind,
                    back: to <= b,
                    mark: Mark::Same,
                });
            }
        }
        Graph {
            function: f.id(),
            name: name(f.id()),
            nodes,
            edges,
        }
    }

    /// The graph of `now` with what changed since `base` marked: blocks are matched by label,
    /// a block only `base` has is shown where it stood (after the block before it there), and
    /// edges are matched by the labels they join.
    pub fn diff(base: &Graph, now: &Graph) -> Graph {
        let mut nodes: Vec<Node> = Vec::new();
        // Where each node of `now` and of `base` lands.
        let mut at_now = vec![0usize; now.nodes.len()];
        let mut at_base = vec![usize::MAX; base.nodes.len()];
        let in_now = |label: Id| now.nodes.iter().position(|n| n.label == label);
        let mut base_next = 0;
        for (i, node) in now.nodes.iter().enumerate() {
            let matched = base.nodes.iter().position(|b| b.label == node.label);
            // Blocks only `base` has, laid out before this one there, come first.
            if let Some(j) = matched {
                while base_next < j {
                    let old = &base.nodes[base_next];
                    if in_now(old.label).is_none() && at_base[base_next] == usize::MAX {
                        at_base[base_next] = nodes.len();
                        nodes.push(Node {
                            mark: Mark::Removed,
                            inside: Vec::new(),
                            ..old.clone()
                        });
                    }
                    base_next += 1;
                }
                base_next = base_next.max(j + 1);
                at_base[j] = nodes.len();
            }
            at_now[i] = nodes.len();
            let mark = match matched {
                None => Mark::Added,
                Some(j) if base.nodes[j].content != node.content => Mark::Changed,
                Some(_) => Mark::Same,
            };
            nodes.push(Node {
                mark,
                ..node.clone()
            });
        }
        for (j, old) in base.nodes.iter().enumerate() {
            if at_base[j] == usize::MAX && in_now(old.label).is_none() {
                at_base[j] = nodes.len();
                nodes.push(Node {
                    mark: Mark::Removed,
                    inside: Vec::new(),
                    ..old.clone()
                });
            }
        }
        // Folding goes by what `now` has inside each header.
        for (i, node) in now.nodes.iter().enumerate() {
            nodes[at_now[i]].inside = node.inside.iter().map(|&b| at_now[b]).collect();
        }
        let key = |g: &Graph, e: &Edge| (g.nodes[e.from].label, g.nodes[e.to].label);
        let mut edges: Vec<Edge> = now
            .edges
            .iter()
            .map(|e| Edge {
                from: at_now[e.from],
                to: at_now[e.to],
                mark: if base.edges.iter().any(|o| key(base, o) == key(now, e)) {
                    Mark::Same
                } else {
                    Mark::Added
                },
                ..*e
            })
            .collect();
        for e in &base.edges {
            if !now.edges.iter().any(|o| key(now, o) == key(base, e)) {
                let (from, to) = (at_base[e.from], at_base[e.to]);
                if from != usize::MAX && to != usize::MAX {
                    edges.push(Edge {
                        from,
                        to,
                        back: to <= from,
                        mark: Mark::Removed,
                        ..*e
                    });
                }
            }
        }
        Graph {
            function: now.function,
            name: now.name.clone(),
            nodes,
            edges,
        }
    }

    /// Blocks, edges and marks in a few words: `12 blocks, 15 edges (2 back)` and, in a diff,
    /// what was added, removed and changed.
    pub fn summary(&self) -> String {
        let back = self.edges.iter().filter(|e| e.back).count();
        let mut text = format!(
            "{} blocks, {} edges ({back} back)",
            self.nodes
                .iter()
                .filter(|n| n.mark != Mark::Removed)
                .count(),
            self.edges
                .iter()
                .filter(|e| e.mark != Mark::Removed)
                .count(),
        );
        let count = |m: Mark| {
            (
                self.nodes.iter().filter(|n| n.mark == m).count(),
                self.edges.iter().filter(|e| e.mark == m).count(),
            )
        };
        let (added, removed, changed) = (
            count(Mark::Added),
            count(Mark::Removed),
            count(Mark::Changed),
        );
        if added != (0, 0) || removed != (0, 0) || changed.0 != 0 {
            let _ = write!(
                text,
                "; blocks +{} -{} ~{}, edges +{} -{}",
                added.0, removed.0, changed.0, added.1, removed.1
            );
        }
        text
    }

    /// The graph as graphviz reads it: boxes with their text, back edges dashed, a header's
    /// merge and continue target as dotted edges, a diff's marks as colours.
    pub fn to_dot(&self) -> String {
        let colour = |m: Mark| match m {
            Mark::Same => "black",
            Mark::Added => "darkgreen",
            Mark::Removed => "red",
            Mark::Changed => "darkorange",
        };
        let mut out = format!(
            "digraph \"{}\" {{\n  node [shape=box, fontname=monospace];\n",
            self.name
        );
        for (i, n) in self.nodes.iter().enumerate() {
            let text = box_text(n).join("\\n").replace('"', "\\\"");
            let _ = writeln!(out, "  b{i} [label=\"{text}\", color={}];", colour(n.mark));
        }
        for e in &self.edges {
            let mut attrs = vec![format!("color={}", colour(e.mark))];
            if e.back {
                attrs.push("style=dashed".into());
            }
            match e.kind {
                EdgeKind::True => attrs.push("label=\"T\"".into()),
                EdgeKind::False => attrs.push("label=\"F\"".into()),
                EdgeKind::Default => attrs.push("label=\"default\"".into()),
                EdgeKind::Case | EdgeKind::Jump => {}
            }
            let _ = writeln!(out, "  b{} -> b{} [{}];", e.from, e.to, attrs.join(", "));
        }
        for (i, n) in self.nodes.iter().enumerate() {
            for (target, what) in [(&n.merge, "merge"), (&n.continue_target, "continue")] {
                if let Some(j) = target
                    .as_ref()
                    .and_then(|t| self.nodes.iter().position(|o| &o.name == t))
                {
                    let _ = writeln!(
                        out,
                        "  b{i} -> b{j} [style=dotted, arrowhead=none, label=\"{what}\", constraint=false];"
                    );
                }
            }
        }
        out.push_str("}\n");
        out
    }
}

/// The lines of a block's box: its label and roles, then its size and lines, then a header's
/// merge (and continue target).
fn box_text(n: &Node) -> Vec<String> {
    let mut head = n.name.clone();
    if !n.roles.is_empty() {
        let _ = write!(head, " · {}", n.roles.join(", "));
    }
    if !n.reachable {
        head.push_str(" · unreachable");
    }
    let mut size = format!("{} inst", n.insts);
    match n.lines {
        Some((a, b)) if a == b => {
            let _ = write!(size, " · line {a}");
        }
        Some((a, b)) => {
            let _ = write!(size, " · lines {a}–{b}");
        }
        None => {}
    }
    let mut out = vec![head, size];
    match (&n.merge, &n.continue_target) {
        (Some(m), Some(c)) => out.push(format!("merge {m} · continue {c}")),
        (Some(m), None) => out.push(format!("merge {m}")),
        _ => {}
    }
    out
}

/// What a character of a drawing is, for a view to colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tag {
    #[default]
    Blank,
    /// A box's border and text, by the block's mark.
    Box(Mark),
    /// A box's label.
    Label(Mark),
    /// Lines of an edge, by its mark.
    Edge(Mark),
    BackEdge(Mark),
}

/// How to draw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrawOptions {
    /// Columns available.
    pub width: usize,
    /// Boxes of two rows (label and size on the top border) rather than three or four.
    pub compact: bool,
    /// Headers (by label) whose construct is folded into them.
    pub folded: Vec<Id>,
}

/// A graph drawn: rows of tagged text, and where each box is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drawing {
    pub rows: Vec<Vec<(String, Tag)>>,
    /// Per box drawn: the node (index into the graph's nodes), its first row and its rows.
    pub boxes: Vec<(usize, usize, usize)>,
    /// Edges not drawn for want of columns (those of the farthest lanes; the title counts them).
    pub hidden_edges: usize,
}

impl Drawing {
    /// The drawing as plain text, a diff's marks as the first character of each box's rows.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for row in &self.rows {
            let line: String = row.iter().map(|(t, _)| t.as_str()).collect();
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// The box on `row`, if one is (index into `boxes`).
    pub fn box_at(&self, row: usize) -> Option<usize> {
        self.boxes
            .iter()
            .position(|&(_, first, rows)| row >= first && row < first + rows)
    }
}

/// Directions a cell of an edge goes: up, down, left, right.
const UP: u8 = 1;
const DOWN: u8 = 2;
const LEFT: u8 = 4;
const RIGHT: u8 = 8;

fn line_glyph(dirs: u8, dashed: bool) -> char {
    match dirs {
        d if d == UP | DOWN => {
            if dashed {
                '╎'
            } else {
                '│'
            }
        }
        d if d == LEFT | RIGHT || d == LEFT || d == RIGHT => {
            if dashed {
                '╌'
            } else {
                '─'
            }
        }
        d if d == UP || d == DOWN => '│',
        d if d == DOWN | RIGHT => '┌',
        d if d == DOWN | LEFT => '┐',
        d if d == UP | RIGHT => '└',
        d if d == UP | LEFT => '┘',
        d if d == UP | DOWN | RIGHT => '├',
        d if d == UP | DOWN | LEFT => '┤',
        d if d == LEFT | RIGHT | DOWN => '┬',
        d if d == LEFT | RIGHT | UP => '┴',
        _ => '┼',
    }
}

/// One cell of the grid a drawing is made on.
#[derive(Clone, Copy, Default)]
struct Cell {
    ch: Option<char>,
    dirs: u8,
    /// Only back edges pass here.
    dashed: bool,
    tag: Tag,
}

/// Draws `g` as `opts` asks (see the module's comment).
pub fn draw(g: &Graph, opts: &DrawOptions) -> Drawing {
    // Which nodes are shown, and where hidden ones are folded into.
    let mut shown_as: Vec<usize> = (0..g.nodes.len()).collect();
    for (h, node) in g.nodes.iter().enumerate() {
        if opts.folded.contains(&node.label) && shown_as[h] == h {
            for &b in &node.inside {
                if shown_as[b] == b {
                    shown_as[b] = h;
                }
            }
        }
    }
    let visible: Vec<usize> = (0..g.nodes.len()).filter(|&i| shown_as[i] == i).collect();
    let texts: Vec<Vec<String>> = visible
        .iter()
        .map(|&i| {
            let n = &g.nodes[i];
            let mut lines = box_text(n);
            if opts.folded.contains(&n.label) && !n.inside.is_empty() {
                let insts: usize = n.inside.iter().map(|&b| g.nodes[b].insts).sum();
                lines.push(format!("folded: {} blocks, {insts} inst", n.inside.len()));
            }
            if opts.compact {
                vec![lines[..2].join(" · ")]
            } else {
                lines
            }
        })
        .collect();
    let indent = |i: usize| 2 * g.nodes[i].depth.min(8);
    // Every box ends at column `right` (its corner); lanes start two columns after.
    let widest = visible
        .iter()
        .zip(&texts)
        .map(|(&i, t)| indent(i) + t.iter().map(|l| l.chars().count()).max().unwrap_or(0) + 4)
        .max()
        .unwrap_or(10);
    // Edges between shown boxes, folded ones redirected to their header.
    let mut edges: Vec<Edge> = Vec::new();
    for e in &g.edges {
        let (from, to) = (shown_as[e.from], shown_as[e.to]);
        if from == to && (e.from != from || e.to != to) {
            continue;
        }
        if edges
            .iter()
            .any(|o| o.from == from && o.to == to && o.mark == e.mark)
        {
            continue;
        }
        edges.push(Edge { from, to, ..*e });
    }
    // Rows of each shown box: its top border holds the first line of text, its bottom
    // border none (a compact box has one line: two rows).
    let mut first_row = vec![usize::MAX; g.nodes.len()];
    let mut heights = vec![0usize; g.nodes.len()];
    let mut row = 0;
    for (k, &i) in visible.iter().enumerate() {
        let h = texts[k].len() + 1;
        first_row[i] = row;
        heights[i] = h;
        row += h;
    }
    let total_rows = row;
    // Lanes: forward edges first (short spans nearest the boxes), back edges apart after them.
    let span = |e: &Edge| {
        let out_row = first_row[e.from] + heights[e.from] - 1;
        let in_row = first_row[e.to];
        (out_row.min(in_row), out_row.max(in_row))
    };
    let mut order: Vec<usize> = (0..edges.len()).collect();
    order.sort_by_key(|&k| {
        let (a, b) = span(&edges[k]);
        (edges[k].back, b - a, a)
    });
    let mut lanes: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut lane_of = vec![usize::MAX; edges.len()];
    let mut first_back_lane = None;
    for &k in &order {
        let (a, b) = span(&edges[k]);
        let start = if edges[k].back {
            *first_back_lane.get_or_insert(lanes.len())
        } else {
            0
        };
        let lane = (start..lanes.len())
            .find(|&l| lanes[l].iter().all(|&(x, y)| b < x || y < a))
            .unwrap_or_else(|| {
                lanes.push(Vec::new());
                lanes.len() - 1
            });
        lanes[lane].push((a, b));
        lane_of[k] = lane;
    }
    // Fit the width: lanes closer together, then narrower boxes, then fewer lanes.
    let width = opts.width.max(24);
    let min_right = visible.iter().map(|&i| indent(i) + 16).max().unwrap_or(16);
    let mut gap = 2;
    let mut right = widest.min(width.saturating_sub(2)).max(min_right);
    if right + 2 + gap * lanes.len() > width {
        gap = 1;
    }
    if right + 2 + gap * lanes.len() > width {
        right = width.saturating_sub(2 + lanes.len()).max(min_right);
    }
    let max_lanes = width.saturating_sub(right + 2) / gap;
    let mut hidden_edges = 0;
    for l in &mut lane_of {
        if *l != usize::MAX && *l >= max_lanes {
            *l = usize::MAX;
            hidden_edges += 1;
        }
    }
    let cols = (right + 2 + gap * lanes.len().min(max_lanes)).max(right + 1);
    let mut grid = vec![vec![Cell::default(); cols]; total_rows];
    let put = |grid: &mut Vec<Vec<Cell>>, r: usize, c: usize, ch: char, tag: Tag| {
        if let Some(cell) = grid.get_mut(r).and_then(|row| row.get_mut(c)) {
            cell.ch = Some(ch);
            cell.tag = tag;
        }
    };
    // The boxes.
    let mut boxes = Vec::new();
    for (k, &i) in visible.iter().enumerate() {
        let n = &g.nodes[i];
        let (top, h, x0) = (first_row[i], heights[i], indent(i));
        boxes.push((i, top, h));
        let tag = Tag::Box(n.mark);
        let inner = right.saturating_sub(x0 + 1);
        let sign = n.mark.sign();
        // Top border: the label's line in it.
        put(&mut grid, top, x0, '┌', tag);
        let head: Vec<char> = format!("{sign}{} ", texts[k][0]).chars().collect();
        for c in 0..inner {
            let ch = head.get(c).copied().unwrap_or('─');
            let ch = if c == 0 && sign == ' ' { '─' } else { ch };
            let t = if c > 0 && c < head.len() {
                Tag::Label(n.mark)
            } else {
                tag
            };
            put(&mut grid, top, x0 + 1 + c, ch, t);
        }
        put(&mut grid, top, right, '┐', tag);
        // Inner rows.
        for (j, text) in texts[k].iter().enumerate().skip(1) {
            let r = top + j;
            put(&mut grid, r, x0, '│', tag);
            let chars: Vec<char> = format!(" {text}").chars().collect();
            for c in 0..inner {
                put(
                    &mut grid,
                    r,
                    x0 + 1 + c,
                    chars.get(c).copied().unwrap_or(' '),
                    tag,
                );
            }
            put(&mut grid, r, right, '│', tag);
        }
        let bottom = top + h - 1;
        put(&mut grid, bottom, x0, '└', tag);
        for c in 0..inner {
            put(&mut grid, bottom, x0 + 1 + c, '─', tag);
        }
        put(&mut grid, bottom, right, '┘', tag);
    }
    // The edges: out of a box's bottom row, along a lane, into a box's top row.
    let dirs = |grid: &mut Vec<Vec<Cell>>, r: usize, c: usize, d: u8, e: &Edge| {
        if let Some(cell) = grid.get_mut(r).and_then(|row| row.get_mut(c)) {
            if cell.ch.is_some() {
                return;
            }
            let fresh = cell.dirs == 0;
            cell.dirs |= d;
            cell.dashed = if fresh { e.back } else { cell.dashed && e.back };
            cell.tag = if e.back {
                Tag::BackEdge(e.mark)
            } else {
                Tag::Edge(e.mark)
            };
        }
    };
    for (k, e) in edges.iter().enumerate() {
        let lane = lane_of[k];
        if lane == usize::MAX {
            continue;
        }
        let x = right + 2 + gap * lane;
        let out_row = first_row[e.from] + heights[e.from] - 1;
        let in_row = first_row[e.to];
        for c in right + 1..x {
            dirs(&mut grid, out_row, c, LEFT | RIGHT, e);
            dirs(&mut grid, in_row, c, LEFT | RIGHT, e);
        }
        let (a, b) = (out_row.min(in_row), out_row.max(in_row));
        dirs(&mut grid, a, x, LEFT | DOWN, e);
        dirs(&mut grid, b, x, LEFT | UP, e);
        for r in a + 1..b {
            dirs(&mut grid, r, x, UP | DOWN, e);
        }
        let arrow_tag = if e.back {
            Tag::BackEdge(e.mark)
        } else {
            Tag::Edge(e.mark)
        };
        put(&mut grid, in_row, right + 1, '◄', arrow_tag);
    }
    let rows = grid
        .into_iter()
        .map(|cells| {
            let mut spans: Vec<(String, Tag)> = Vec::new();
            for cell in cells {
                let ch = cell.ch.unwrap_or_else(|| {
                    if cell.dirs == 0 {
                        ' '
                    } else {
                        line_glyph(cell.dirs, cell.dashed)
                    }
                });
                match spans.last_mut() {
                    Some((text, tag)) if *tag == cell.tag => text.push(ch),
                    _ => spans.push((ch.to_string(), cell.tag)),
                }
            }
            spans
        })
        .collect();
    Drawing {
        rows,
        boxes,
        hidden_edges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> Module {
        crate::ir::parse::parse(text).unwrap_or_else(|e| panic!("{}: {}", e.line, e.message))
    }

    const LOOP: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
OpName %entry \"entry\"
OpName %header \"header\"
OpName %check \"check\"
OpName %body \"body\"
OpName %continue \"continue\"
OpName %merge \"merge\"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%int = OpTypeInt 32 1
%int_0 = OpConstant %int 0
%int_1 = OpConstant %int 1
%int_4 = OpConstant %int 4
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %header
%header = OpLabel
%i = OpPhi %int %int_0 %entry %next %continue
OpLoopMerge %merge %continue None
OpBranch %check
%check = OpLabel
%more = OpSLessThan %bool %i %int_4
OpBranchConditional %more %body %merge
%body = OpLabel
OpBranch %continue
%continue = OpLabel
%next = OpIAdd %int %i %int_1
OpBranch %header
%merge = OpLabel
OpReturn
OpFunctionEnd
";

    fn graph(text: &str) -> Graph {
        let m = module(text);
        let names = Names::for_module(&m);
        Graph::of(&m, &m.functions()[0], &names)
    }

    #[test]
    fn a_loop_has_its_header_back_edge_and_constructs() {
        let g = graph(LOOP);
        let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "%entry",
                "%header",
                "%check",
                "%body",
                "%continue",
                "%merge"
            ]
        );
        assert_eq!(g.nodes[1].roles, ["loop header"]);
        assert_eq!(g.nodes[1].merge.as_deref(), Some("%merge"));
        assert_eq!(g.nodes[1].continue_target.as_deref(), Some("%continue"));
        assert_eq!(g.nodes[4].roles, ["continue"]);
        assert_eq!(g.nodes[5].roles, ["merge", "return"]);
        assert_eq!(
            g.nodes[1].inside,
            [2, 3, 4],
            "the loop's blocks, continue included"
        );
        assert_eq!(
            (g.nodes[0].depth, g.nodes[1].depth, g.nodes[3].depth),
            (0, 0, 1)
        );
        let back: Vec<(usize, usize)> = g
            .edges
            .iter()
            .filter(|e| e.back)
            .map(|e| (e.from, e.to))
            .collect();
        assert_eq!(back, [(4, 1)]);
        assert_eq!(g.summary(), "6 blocks, 6 edges (1 back)");
        let kinds: Vec<EdgeKind> = g
            .edges
            .iter()
            .filter(|e| e.from == 2)
            .map(|e| e.kind)
            .collect();
        assert_eq!(kinds, [EdgeKind::True, EdgeKind::False]);
    }

    #[test]
    fn the_drawing_has_a_box_per_block_and_a_lane_per_edge() {
        let g = graph(LOOP);
        let d = draw(
            &g,
            &DrawOptions {
                width: 80,
                ..Default::default()
            },
        );
        let text = d.to_text();
        assert_eq!(d.boxes.len(), 6, "{text}");
        assert_eq!(d.hidden_edges, 0, "{text}");
        assert!(text.contains("┌─%header · loop header "), "{text}");
        assert!(
            text.contains("│ merge %merge · continue %continue"),
            "{text}"
        );
        assert!(text.contains('╎'), "the back edge is dashed:\n{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        // Every box's top row has an arrow in, but the entry's.
        let arrows = text.lines().filter(|l| l.contains('◄')).count();
        assert_eq!(arrows, 5, "{text}");
        // Folding the loop leaves its header and what is around it.
        let folded = draw(
            &g,
            &DrawOptions {
                width: 80,
                folded: vec![g.nodes[1].label],
                ..Default::default()
            },
        );
        assert_eq!(folded.boxes.len(), 3, "{}", folded.to_text());
        assert!(
            folded.to_text().contains("folded: 3 blocks"),
            "{}",
            folded.to_text()
        );
        // Compact boxes are two rows.
        let compact = draw(
            &g,
            &DrawOptions {
                width: 80,
                compact: true,
                ..Default::default()
            },
        );
        assert_eq!(compact.rows.len(), 12, "{}", compact.to_text());
        // Narrow: the boxes keep 16 columns and edges that do not fit are counted.
        let narrow = draw(
            &g,
            &DrawOptions {
                width: 24,
                ..Default::default()
            },
        );
        assert!(
            narrow.to_text().lines().all(|l| l.chars().count() <= 26),
            "{}",
            narrow.to_text()
        );
    }

    #[test]
    fn a_diff_marks_blocks_and_edges() {
        let base = graph(LOOP);
        // The body folded into the check: %body gone, the check branches to %continue.
        let now_text = LOOP
            .replace(
                "OpBranchConditional %more %body %merge",
                "OpBranchConditional %more %continue %merge",
            )
            .replace("%body = OpLabel\nOpBranch %continue\n", "")
            .replace(
                "%next = OpIAdd %int %i %int_1",
                "%next = OpIAdd %int %i %int_4",
            );
        let now = graph(&now_text);
        let d = Graph::diff(&base, &now);
        let marks: Vec<(&str, Mark)> = d.nodes.iter().map(|n| (n.name.as_str(), n.mark)).collect();
        assert_eq!(
            marks,
            [
                ("%entry", Mark::Same),
                ("%header", Mark::Same),
                ("%check", Mark::Changed),
                ("%body", Mark::Removed),
                ("%continue", Mark::Changed),
                ("%merge", Mark::Same),
            ]
        );
        let edge = |from: &str, to: &str| {
            d.edges
                .iter()
                .find(|e| d.nodes[e.from].name == from && d.nodes[e.to].name == to)
                .map(|e| e.mark)
        };
        assert_eq!(edge("%check", "%continue"), Some(Mark::Added));
        assert_eq!(edge("%check", "%body"), Some(Mark::Removed));
        assert_eq!(edge("%body", "%continue"), Some(Mark::Removed));
        assert!(
            d.summary().ends_with("blocks +0 -1 ~2, edges +1 -2"),
            "{}",
            d.summary()
        );
        let text = draw(
            &d,
            &DrawOptions {
                width: 80,
                ..Default::default()
            },
        )
        .to_text();
        assert!(text.contains("┌-%body"), "{text}");
        assert!(text.contains("┌~%check"), "{text}");
        let dot = d.to_dot();
        assert!(
            dot.contains("color=red") && dot.contains("style=dashed"),
            "{dot}"
        );
    }
}
