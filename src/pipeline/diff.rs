//! Line diffs between step texts, with word-level detail for changed lines.
//!
//! Patience diff (lines unique on both sides anchor the alignment) with Myers' O(ND) algorithm
//! for the gaps between anchors, so a large module whose every line moved still diffs in
//! near-linear time. With `ignore_renumbering`, numeric ids (`%123`) compare equal to any
//! other numeric id, so lines that differ only by renumbering are not shown as changes.

use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineChange {
    Same,
    Removed,
    Added,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiffLine {
    pub change: LineChange,
    /// Line index in the old text (for `Same` and `Removed`).
    pub old: Option<usize>,
    /// Line index in the new text (for `Same` and `Added`).
    pub new: Option<usize>,
}

#[derive(Clone, Debug, Default)]
pub struct Diff {
    pub lines: Vec<DiffLine>,
    /// Index into `lines` where each hunk (run of changes) starts.
    pub hunks: Vec<usize>,
    pub added: usize,
    pub removed: usize,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.added == 0 && self.removed == 0
    }
}

/// Edit-graph cells one diff may explore in Myers' algorithm (tens of milliseconds at most).
const MYERS_BUDGET: usize = 2_500_000;

/// A fast 64-bit hash (FxHash's mixing step) for line and token keys.
fn mix(h: u64, x: u64) -> u64 {
    (h.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

fn hash_str(h: u64, s: &str) -> u64 {
    hash_bytes(h, s.as_bytes())
}

fn hash_bytes(h: u64, s: &[u8]) -> u64 {
    let mut h = h;
    let mut chunks = s.chunks_exact(8);
    for c in &mut chunks {
        h = mix(h, u64::from_le_bytes(c.try_into().expect("8 bytes")));
    }
    for &b in chunks.remainder() {
        h = mix(h, u64::from(b));
    }
    mix(h, 0xff)
}

/// The keys a line compares by: its tokens (alignment padding is not content), and the same
/// with numeric ids masked. One pass over the bytes, eight at a time into the hash: this is
/// most of the time of diffing two large texts that differ little.
fn line_keys(line: &str) -> (u64, u64) {
    let bytes = line.as_bytes();
    let (mut exact, mut masked) = (0, 0);
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b' ' || bytes[at] == b'\t' {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && bytes[at] != b' ' && bytes[at] != b'\t' {
            at += 1;
        }
        let tok = &bytes[start..at];
        let numbered = tok.len() > 1 && tok[0] == b'%' && tok[1..].iter().all(u8::is_ascii_digit);
        exact = hash_bytes(exact, tok);
        masked = hash_bytes(masked, if numbered { b"%#" } else { tok });
    }
    (exact, masked)
}

/// The exact keys of `lines`, and the masked ones when renumbering is ignored.
fn keys_of<S: AsRef<str>>(lines: &[S], ignore_renumbering: bool) -> (Vec<u64>, Option<Vec<u64>>) {
    if !ignore_renumbering {
        return (
            lines.iter().map(|l| line_keys(l.as_ref()).0).collect(),
            None,
        );
    }
    let (exact, masked) = lines.iter().map(|l| line_keys(l.as_ref())).unzip();
    (exact, Some(masked))
}

/// Keys are already hashes: the map need not hash them again.
#[derive(Default)]
struct IdentityHasher(u64);

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(self.0, u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type KeyMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<IdentityHasher>>;

pub fn diff_lines<S: AsRef<str> + Sync>(old: &[S], new: &[S], ignore_renumbering: bool) -> Diff {
    // Ignoring renumbering compares lines with ids masked, but still anchors on exact lines:
    // masked lines repeat too much to be unique. The two sides' keys are made at once.
    let ((exact_a, masked_a), (exact_b, masked_b)) = if old.len() + new.len() > 20_000 {
        std::thread::scope(|s| {
            let other = s.spawn(|| keys_of(new, ignore_renumbering));
            let mine = keys_of(old, ignore_renumbering);
            (mine, other.join().expect("keys of the new text"))
        })
    } else {
        (
            keys_of(old, ignore_renumbering),
            keys_of(new, ignore_renumbering),
        )
    };
    let cmp_a = masked_a.as_deref().unwrap_or(&exact_a);
    let cmp_b = masked_b.as_deref().unwrap_or(&exact_b);
    let a = Keys {
        cmp: cmp_a,
        anchor: &exact_a,
    };
    let b = Keys {
        cmp: cmp_b,
        anchor: &exact_b,
    };
    let mut ops = Vec::with_capacity(a.len().max(b.len()));
    let mut budget = MYERS_BUDGET;
    diff_range(a, b, 0, 0, &mut budget, &mut ops);
    let mut d = Diff {
        lines: ops,
        ..Diff::default()
    };
    let mut in_hunk = false;
    for (i, l) in d.lines.iter().enumerate() {
        match l.change {
            LineChange::Same => in_hunk = false,
            c => {
                if c == LineChange::Added {
                    d.added += 1;
                } else {
                    d.removed += 1;
                }
                if !in_hunk {
                    d.hunks.push(i);
                    in_hunk = true;
                }
            }
        }
    }
    d
}

fn same(out: &mut Vec<DiffLine>, i: usize, j: usize) {
    out.push(DiffLine {
        change: LineChange::Same,
        old: Some(i),
        new: Some(j),
    });
}

/// The keys a diff works on: lines are equal when their `cmp` keys are; `anchor` keys (equal
/// to or finer than `cmp`) pick the unique lines that pin the alignment.
#[derive(Clone, Copy)]
struct Keys<'k> {
    cmp: &'k [u64],
    anchor: &'k [u64],
}

impl<'k> Keys<'k> {
    fn len(&self) -> usize {
        self.cmp.len()
    }
    fn slice(&self, r: std::ops::Range<usize>) -> Keys<'k> {
        Keys {
            cmp: &self.cmp[r.clone()],
            anchor: &self.anchor[r],
        }
    }
}

fn diff_range(a: Keys, b: Keys, oa: usize, ob: usize, budget: &mut usize, out: &mut Vec<DiffLine>) {
    // Common prefix and suffix.
    let pre = a.cmp.iter().zip(b.cmp).take_while(|(x, y)| x == y).count();
    let suf = a.cmp[pre..]
        .iter()
        .rev()
        .zip(b.cmp[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    for k in 0..pre {
        same(out, oa + k, ob + k);
    }
    let (ma, mb) = (a.slice(pre..a.len() - suf), b.slice(pre..b.len() - suf));
    let (moa, mob) = (oa + pre, ob + pre);
    if ma.len() == 0 || mb.len() == 0 {
        for k in 0..ma.len() {
            out.push(DiffLine {
                change: LineChange::Removed,
                old: Some(moa + k),
                new: None,
            });
        }
        for k in 0..mb.len() {
            out.push(DiffLine {
                change: LineChange::Added,
                old: None,
                new: Some(mob + k),
            });
        }
    } else {
        let mut anchors = patience_anchors(ma, mb, 1);
        if anchors.is_empty() && ma.len() + mb.len() > 64 {
            // No line is unique (repetitive code): anchor on rare lines, pairing their k-th
            // occurrences, as histogram diff does.
            anchors = patience_anchors(ma, mb, 4);
        }
        if anchors.is_empty() {
            myers(ma.cmp, mb.cmp, moa, mob, budget, out);
        } else {
            let (mut pi, mut pj) = (0, 0);
            for (i, j) in anchors {
                diff_range(
                    ma.slice(pi..i),
                    mb.slice(pj..j),
                    moa + pi,
                    mob + pj,
                    budget,
                    out,
                );
                same(out, moa + i, mob + j);
                pi = i + 1;
                pj = j + 1;
            }
            diff_range(
                ma.slice(pi..ma.len()),
                mb.slice(pj..mb.len()),
                moa + pi,
                mob + pj,
                budget,
                out,
            );
        }
    }
    for k in 0..suf {
        same(out, oa + a.len() - suf + k, ob + b.len() - suf + k);
    }
}

/// Lines that occur the same number of times (at most `max_count`, at most 4) on each side,
/// their k-th occurrences paired, in the longest order increasing on both sides. With
/// `max_count` 1 these are patience diff's unique lines.
fn patience_anchors(ka: Keys, kb: Keys, max_count: usize) -> Vec<(usize, usize)> {
    let (a, b) = (ka.anchor, kb.anchor);
    #[derive(Default)]
    struct Seen {
        na: usize,
        nb: usize,
        ia: [u32; 4],
        ib: [u32; 4],
    }
    let mut seen: KeyMap<Seen> = KeyMap::default();
    seen.reserve(a.len());
    for (i, k) in a.iter().enumerate() {
        let e = seen.entry(*k).or_default();
        if e.na < 4 {
            e.ia[e.na] = i as u32;
        }
        e.na += 1;
    }
    for (j, k) in b.iter().enumerate() {
        if let Some(e) = seen.get_mut(k) {
            if e.nb < 4 {
                e.ib[e.nb] = j as u32;
            }
            e.nb += 1;
        }
    }
    let mut pairs: Vec<(usize, usize)> = seen
        .values()
        .filter(|e| e.na == e.nb && e.na <= max_count.min(4))
        .flat_map(|e| (0..e.na).map(move |k| (e.ia[k] as usize, e.ib[k] as usize)))
        .filter(|&(i, j)| ka.cmp[i] == kb.cmp[j])
        .collect();
    pairs.sort_unstable();
    // Longest increasing subsequence on the `b` index (patience sorting).
    let mut tails: Vec<usize> = Vec::new(); // index into pairs
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, &(_, j)) in pairs.iter().enumerate() {
        let pos = tails.partition_point(|&t| pairs[t].1 < j);
        if pos > 0 {
            prev[k] = Some(tails[pos - 1]);
        }
        if pos == tails.len() {
            tails.push(k);
        } else {
            tails[pos] = k;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(k) = cur {
        out.push(pairs[k]);
        cur = prev[k];
    }
    out.reverse();
    out
}

/// Myers' greedy diff. `budget` is the work (cells of the edit graph) the whole diff may still
/// spend here; when a gap would exceed it, the gap is reported as replaced, which keeps
/// pathological inputs (everything different, nothing unique) near-linear.
fn myers(a: &[u64], b: &[u64], oa: usize, ob: usize, budget: &mut usize, out: &mut Vec<DiffLine>) {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let width = (n + m) as usize;
    let replace_all = |out: &mut Vec<DiffLine>| {
        for k in 0..a.len() {
            out.push(DiffLine {
                change: LineChange::Removed,
                old: Some(oa + k),
                new: None,
            });
        }
        for k in 0..b.len() {
            out.push(DiffLine {
                change: LineChange::Added,
                old: None,
                new: Some(ob + k),
            });
        }
    };
    let limit = (*budget / width.max(1)).min(width);
    if limit == 0 {
        replace_all(out);
        return;
    }
    let offset = limit as isize + 1;
    let mut v = vec![0isize; 2 * limit + 3];
    // trace[d] holds v[offset-d-1 ..= offset+d+1] before round d: O(d²) memory in all.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let mut found = None;
    'outer: for d in 0..=limit as isize {
        trace.push(v[(offset - d - 1) as usize..=(offset + d + 1) as usize].to_vec());
        *budget = budget.saturating_sub(width / 2 + 1);
        let mut k = -d;
        while k <= d {
            let idx = (k + offset) as usize;
            let mut x = if k == -d || (k != d && v[idx - 1] < v[idx + 1]) {
                v[idx + 1]
            } else {
                v[idx - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[idx] = x;
            if x >= n && y >= m {
                found = Some(d);
                break 'outer;
            }
            k += 2;
        }
    }
    let Some(dmax) = found else {
        replace_all(out);
        return;
    };
    // Backtrack through the recorded rounds.
    let mut rev = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..=dmax).rev() {
        let tv = &trace[d as usize];
        let at = |k: isize| tv[(k + d + 1) as usize];
        let k = x - y;
        let prev_k = if k == -d || (k != d && at(k - 1) < at(k + 1)) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = at(prev_k);
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            x -= 1;
            y -= 1;
            rev.push(DiffLine {
                change: LineChange::Same,
                old: Some(oa + x as usize),
                new: Some(ob + y as usize),
            });
        }
        if x == prev_x {
            y -= 1;
            rev.push(DiffLine {
                change: LineChange::Added,
                old: None,
                new: Some(ob + y as usize),
            });
        } else {
            x -= 1;
            rev.push(DiffLine {
                change: LineChange::Removed,
                old: Some(oa + x as usize),
                new: None,
            });
        }
    }
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        rev.push(DiffLine {
            change: LineChange::Same,
            old: Some(oa + x as usize),
            new: Some(ob + y as usize),
        });
    }
    rev.reverse();
    out.extend(rev);
}

/// Byte ranges of the tokens that differ between two versions of a line (word-level diff).
pub fn word_changes(
    old: &str,
    new: &str,
) -> (Vec<std::ops::Range<usize>>, Vec<std::ops::Range<usize>>) {
    fn tokens(s: &str) -> Vec<(std::ops::Range<usize>, u64)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in s.char_indices() {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some(i),
                (true, Some(st)) => {
                    out.push(st..i);
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(st) = start {
            out.push(st..s.len());
        }
        out.into_iter()
            .map(|r| {
                let h = hash_str(0, &s[r.clone()]);
                (r, h)
            })
            .collect()
    }
    let (ta, tb) = (tokens(old), tokens(new));
    let ka: Vec<u64> = ta.iter().map(|t| t.1).collect();
    let kb: Vec<u64> = tb.iter().map(|t| t.1).collect();
    let mut ops = Vec::new();
    let mut budget = MYERS_BUDGET;
    let (a, b) = (
        Keys {
            cmp: &ka,
            anchor: &ka,
        },
        Keys {
            cmp: &kb,
            anchor: &kb,
        },
    );
    diff_range(a, b, 0, 0, &mut budget, &mut ops);
    let mut ra = Vec::new();
    let mut rb = Vec::new();
    for op in ops {
        match op.change {
            LineChange::Removed => ra.push(ta[op.old.unwrap()].0.clone()),
            LineChange::Added => rb.push(tb[op.new.unwrap()].0.clone()),
            LineChange::Same => {}
        }
    }
    (ra, rb)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(old: &[&str], new: &[&str], d: &Diff) -> Vec<String> {
        d.lines
            .iter()
            .map(|l| match l.change {
                LineChange::Same => format!(" {}", old[l.old.unwrap()]),
                LineChange::Removed => format!("-{}", old[l.old.unwrap()]),
                LineChange::Added => format!("+{}", new[l.new.unwrap()]),
            })
            .collect()
    }

    #[test]
    fn simple_change() {
        let old = ["a", "b", "c", "d"];
        let new = ["a", "x", "c", "d", "e"];
        let d = diff_lines(&old, &new, false);
        assert_eq!(
            render(&old, &new, &d),
            vec![" a", "-b", "+x", " c", " d", "+e"]
        );
        assert_eq!(d.hunks, vec![1, 5]);
        assert_eq!((d.added, d.removed), (2, 1));
    }

    #[test]
    fn renumbering_is_ignored_on_request() {
        let old = ["%5 = OpFAdd %float %3 %4", "OpReturn"];
        let new = ["%7 = OpFAdd %float %1 %2", "OpReturn"];
        assert_eq!(diff_lines(&old, &new, false).added, 1);
        assert!(diff_lines(&old, &new, true).is_empty());
        // A named id is not a renumbering.
        let new2 = ["%x = OpFAdd %float %1 %2", "OpReturn"];
        assert_eq!(diff_lines(&old, &new2, true).added, 1);
    }

    #[test]
    fn renumbering_a_whole_module_is_ignored_but_a_real_change_is_not() {
        // Renumbered lines repeat once ids are ignored, so nothing is unique to anchor on;
        // the exact diff anchors and the hunks are realigned.
        let old: Vec<String> = (1..2000)
            .map(|i| format!("%{i} = OpFAdd %float %{} %c", i - 1))
            .collect();
        let mut new: Vec<String> = (1..2000)
            .map(|i| format!("%{} = OpFAdd %float %{} %c", i + 5000, i + 4999))
            .collect();
        new[700] = "%5700 = OpFMul %float %5699 %c".into();
        let d = diff_lines(&old, &new, true);
        assert_eq!((d.added, d.removed), (1, 1));
        assert_eq!(d.hunks.len(), 1);
        assert_eq!(diff_lines(&old, &new, false).added, 1999);
    }

    #[test]
    fn every_line_maps_to_a_side() {
        let old: Vec<String> = (0..300).map(|i| format!("line {}", i % 17)).collect();
        let new: Vec<String> = (0..280).map(|i| format!("line {}", (i * 7) % 19)).collect();
        let d = diff_lines(&old, &new, false);
        let olds: Vec<usize> = d.lines.iter().filter_map(|l| l.old).collect();
        let news: Vec<usize> = d.lines.iter().filter_map(|l| l.new).collect();
        assert_eq!(olds, (0..300).collect::<Vec<_>>());
        assert_eq!(news, (0..280).collect::<Vec<_>>());
        for l in &d.lines {
            if l.change == LineChange::Same {
                assert_eq!(old[l.old.unwrap()], new[l.new.unwrap()]);
            }
        }
    }

    #[test]
    fn word_level_changes() {
        let (a, b) = word_changes("%x = OpFAdd %float %a %b", "%x = OpFMul %float %a %c");
        let old = "%x = OpFAdd %float %a %b";
        let new = "%x = OpFMul %float %a %c";
        let pick = |s: &str, r: &[std::ops::Range<usize>]| {
            r.iter()
                .map(|r| s[r.clone()].to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(pick(old, &a), vec!["OpFAdd", "%b"]);
        assert_eq!(pick(new, &b), vec!["OpFMul", "%c"]);
    }
}
