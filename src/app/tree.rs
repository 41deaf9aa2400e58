//! The shader browser's tree: the listed shaders (present, named like the filter) grouped by
//! folder, each folder with its counts (shaders, failing, changed by the newest run, still
//! running), folded folders hiding what is under them, shaders ordered within their folder by
//! the sort chosen. Built from the docs in one pass over them sorted: a folder's shaders are
//! contiguous in that order, so its counts add up as the walk leaves it.

use std::cmp::Reverse;
use std::hash::{Hash, Hasher};

use super::state::{BrowserRow, DocStatus, FolderCounts, FolderKey, SortBy, State};

/// What the rows are derived from, hashed: the docs' requests and answers (every change of a
/// status, a summary or a run comes with one), presence, the filter, the sort and the folds.
pub fn key(s: &State) -> u64 {
    let mut h = crate::ir::fxhash::FxHasher::default();
    order_key(s).hash(&mut h);
    for d in &s.docs {
        (d.requested, d.answered).hash(&mut h);
    }
    s.browser.folded.hash(&mut h);
    h.finish()
}

/// What the order of the listed shaders is derived from: their names and presence, the
/// filter and the sort, and their statuses only when the sort or the filter reads them.
fn order_key(s: &State) -> u64 {
    let mut h = crate::ir::fxhash::FxHasher::default();
    s.docs.len().hash(&mut h);
    s.roots.len().hash(&mut h);
    let statuses = s.browser.sort != SortBy::Name || s.browser.filter.starts_with('!');
    for d in &s.docs {
        d.present.hash(&mut h);
        if statuses {
            (d.requested, d.answered).hash(&mut h);
        }
    }
    s.browser.filter.hash(&mut h);
    s.browser.sort.hash(&mut h);
    h.finish()
}

/// Whether a status is a failure the browser counts and `]` walks to.
pub fn failing(status: DocStatus) -> bool {
    matches!(status, DocStatus::CompileError | DocStatus::ValidationError)
}

/// A listed shader: where it sits and what it is ordered by.
struct Entry {
    doc: usize,
    root: Option<usize>,
    /// Folders from the top of the tree down to the shader's.
    dirs: Vec<String>,
    file: String,
}

/// The folders a shader is under, from the top: its path's directories under its watched
/// directory, that directory's own name first when several are watched. Files opened by name
/// are at the top.
fn place(s: &State, doc: usize) -> (Vec<String>, String) {
    let d = &s.docs[doc];
    let name = d.display_name(&s.roots);
    let mut parts: Vec<String> = name.split('/').map(str::to_string).collect();
    let file = parts.pop().unwrap_or_default();
    if let (Some(r), true) = (d.root, s.roots.len() > 1) {
        let root = s.roots.get(r).map_or_else(String::new, |p| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        });
        parts.insert(0, root);
    }
    (parts, file)
}

/// The folders of a shader, as keys (the outermost first).
pub fn folders_of(s: &State, doc: usize) -> Vec<FolderKey> {
    let (dirs, _) = place(s, doc);
    let root = s.docs[doc].root;
    (1..=dirs.len())
        .map(|k| FolderKey {
            root,
            path: dirs[..k].join("/"),
        })
        .collect()
}

/// Whether doc `i` is listed by `filter` (a leading `!`: failing ones only; smart case).
fn matches(s: &State, i: usize, filter: &str) -> bool {
    let (failing_only, text) = match filter.strip_prefix('!') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, filter),
    };
    let d = &s.docs[i];
    if failing_only && !failing(d.status()) {
        return false;
    }
    if text.is_empty() {
        return true;
    }
    let name = d.display_name(&s.roots);
    if text.chars().any(char::is_uppercase) {
        name.contains(text)
    } else {
        name.to_lowercase().contains(&text.to_lowercase())
    }
}

/// The listed shaders in order, each with its folders: what the rows are walked from, kept
/// while only statuses change (the order by name does not), so that a tree filling in with
/// summaries costs a walk of integers per frame, not a sort of names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sorted {
    /// `order_key` of the state it was built from.
    key: u64,
    /// Each listed shader and the range of `chains` that is its folders, outermost first.
    entries: Vec<(usize, std::ops::Range<u32>)>,
    chains: Vec<u32>,
    /// Every folder: its key and its name.
    folders: Vec<(FolderKey, String)>,
}

impl Sorted {
    /// Whether it was built from a state ordered as `s` is.
    pub fn fits(&self, s: &State) -> bool {
        self.key == order_key(s)
    }

    /// The listed shaders in order.
    pub fn order(&self) -> Vec<usize> {
        self.entries.iter().map(|(d, _)| *d).collect()
    }
}

/// Orders the listed shaders (present, named like the filter): files opened by name first,
/// then each watched directory; folders by name, a folder's own shaders before its
/// subfolders, and within a folder by the sort chosen.
pub fn sort(s: &State) -> Sorted {
    let filter = s.browser.filter.as_str();
    let mut entries: Vec<Entry> = (0..s.docs.len())
        .filter(|&i| s.docs[i].present && (filter.is_empty() || matches(s, i, filter)))
        .map(|doc| {
            let (dirs, file) = place(s, doc);
            Entry {
                doc,
                root: s.docs[doc].root,
                dirs,
                file,
            }
        })
        .collect();
    let rank = |e: &Entry| -> (u8, Reverse<usize>, Reverse<std::time::Duration>) {
        let d = &s.docs[e.doc];
        match s.browser.sort {
            SortBy::Name => (0, Reverse(0), Reverse(Default::default())),
            SortBy::Status => {
                let r = match d.status() {
                    DocStatus::CompileError => 0,
                    DocStatus::ValidationError => 1,
                    DocStatus::Running => 2,
                    DocStatus::Ok => 3,
                };
                (r, Reverse(0), Reverse(Default::default()))
            }
            SortBy::Size => (
                0,
                Reverse(d.output_count().unwrap_or(0)),
                Reverse(Default::default()),
            ),
            SortBy::Time => (
                0,
                Reverse(0),
                Reverse(d.summary.as_ref().map(|x| x.took).unwrap_or_default()),
            ),
        }
    };
    entries.sort_by_cached_key(|e| {
        (
            e.root.map_or(0, |r| r + 1),
            e.dirs.clone(),
            rank(e),
            e.file.clone(),
        )
    });
    let mut ids: std::collections::HashMap<FolderKey, u32> = std::collections::HashMap::new();
    let mut sorted = Sorted {
        key: order_key(s),
        ..Sorted::default()
    };
    for e in &entries {
        let from = sorted.chains.len() as u32;
        for k in 0..e.dirs.len() {
            let key = FolderKey {
                root: e.root,
                path: e.dirs[..=k].join("/"),
            };
            let next = sorted.folders.len() as u32;
            let id = *ids.entry(key.clone()).or_insert_with(|| {
                sorted.folders.push((key, e.dirs[k].clone()));
                next
            });
            sorted.chains.push(id);
        }
        sorted
            .entries
            .push((e.doc, from..sorted.chains.len() as u32));
    }
    sorted
}

/// The rows of the tree and what its counts are kept with.
pub struct Tree {
    pub rows: Vec<BrowserRow>,
    /// The counts of every listed shader.
    pub totals: FolderCounts,
    /// What the rows' shape (which rows, in which order) was derived from: the order and
    /// the folds (`shape_key`).
    pub shape: u64,
    /// Each folder row and its folder in `Sorted`: what `recount` writes counts to.
    pub folder_rows: Vec<(u32, u32)>,
}

/// What the rows' shape is derived from: the order of the listed shaders (`sorted`, built
/// from a state ordered as `s` is) and the folds. Statuses change the counts only.
pub fn shape_key(s: &State, sorted: &Sorted) -> u64 {
    let mut h = crate::ir::fxhash::FxHasher::default();
    sorted.key.hash(&mut h);
    s.browser.filter.is_empty().hash(&mut h);
    s.browser.folded.hash(&mut h);
    h.finish()
}

/// A listed shader's share of its folders' counts.
fn counted(s: &State, doc: usize) -> FolderCounts {
    let d = &s.docs[doc];
    let status = d.status();
    FolderCounts {
        shaders: 1,
        failing: usize::from(failing(status)),
        changed: usize::from(d.changed),
        running: usize::from(status == DocStatus::Running),
    }
}

/// The counts of `rows` (made by `rows` for this shape) brought up to date in place, while
/// only statuses changed: summaries filling in cost a walk of the shaders, not new rows.
/// Returns the counts of every listed shader.
pub fn recount(
    s: &State,
    sorted: &Sorted,
    rows: &mut [BrowserRow],
    folder_rows: &[(u32, u32)],
) -> FolderCounts {
    let mut per_folder = vec![FolderCounts::default(); sorted.folders.len()];
    let mut totals = FolderCounts::default();
    for (doc, range) in &sorted.entries {
        let one = counted(s, *doc);
        totals.add(one);
        for &id in &sorted.chains[range.start as usize..range.end as usize] {
            per_folder[id as usize].add(one);
        }
    }
    for &(row, id) in folder_rows {
        if let Some(BrowserRow::Folder { counts, .. }) = rows.get_mut(row as usize) {
            *counts = per_folder[id as usize];
        }
    }
    totals
}

/// The rows shown, from the listed shaders in order: folders with their counts, folded ones'
/// contents left out (none while filtering); and the counts of every listed shader.
pub fn rows(s: &State, sorted: &Sorted) -> Tree {
    let folding = s.browser.filter.is_empty();
    let folded: Vec<bool> = sorted
        .folders
        .iter()
        .map(|(k, _)| folding && s.browser.folded.contains(k))
        .collect();
    let mut rows: Vec<BrowserRow> = Vec::with_capacity(sorted.entries.len() + sorted.folders.len());
    let mut folder_rows: Vec<(u32, u32)> = Vec::new();
    let mut totals = FolderCounts::default();
    // The folders the walk is in: their id, their row (when shown) and counts so far; and
    // how many of them are folded.
    let mut open: Vec<(u32, Option<usize>, FolderCounts)> = Vec::new();
    let mut folded_open = 0usize;
    let close = |open: &mut Vec<(u32, Option<usize>, FolderCounts)>,
                 folded_open: &mut usize,
                 rows: &mut Vec<BrowserRow>| {
        let (id, row, c) = open.pop().expect("a folder to close");
        if folded[id as usize] {
            *folded_open -= 1;
        }
        if let Some(BrowserRow::Folder { counts, .. }) = row.and_then(|r| rows.get_mut(r)) {
            *counts = c;
        }
        if let Some((_, _, parent)) = open.last_mut() {
            parent.add(c);
        }
    };
    for (doc, range) in &sorted.entries {
        let chain = &sorted.chains[range.start as usize..range.end as usize];
        let common = open
            .iter()
            .zip(chain)
            .take_while(|((a, _, _), b)| a == *b)
            .count();
        while open.len() > common {
            close(&mut open, &mut folded_open, &mut rows);
        }
        for (depth, &id) in chain.iter().enumerate().skip(open.len()) {
            let row = (folded_open == 0).then(|| {
                folder_rows.push((rows.len() as u32, id));
                let (key, name) = &sorted.folders[id as usize];
                rows.push(BrowserRow::Folder {
                    key: key.clone(),
                    name: name.clone(),
                    depth,
                    folded: folded[id as usize],
                    counts: FolderCounts::default(),
                });
                rows.len() - 1
            });
            if folded[id as usize] {
                folded_open += 1;
            }
            open.push((id, row, FolderCounts::default()));
        }
        let one = counted(s, *doc);
        totals.add(one);
        if let Some((_, _, c)) = open.last_mut() {
            c.add(one);
        }
        if folded_open == 0 {
            rows.push(BrowserRow::Shader {
                doc: *doc,
                depth: chain.len(),
            });
        }
    }
    while !open.is_empty() {
        close(&mut open, &mut folded_open, &mut rows);
    }
    Tree {
        rows,
        totals,
        shape: shape_key(s, sorted),
        folder_rows,
    }
}
