//! Watching inputs on disk. We watch directories, not files: editors save by writing a
//! temporary file and renaming it over the original, which replaces the inode a file watch
//! would follow. Watched shader directories are watched recursively; the directories of files
//! opened one by one are watched flat. Events are debounced, reads and metadata changes
//! dropped, and what is left is reduced to "this path changed": the app then looks at the disk
//! to see whether the path is there now, which is simpler and more robust than following the
//! create/rename/remove sequences different editors produce.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{EventKindMask, RecursiveMode};
use notify_debouncer_full::{
    new_debouncer_opt, Config, DebounceEventResult, Debouncer, RecommendedCache,
};

pub struct Watcher {
    debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
    /// Directories watched: roots (recursively) and others (flat).
    roots: Vec<PathBuf>,
    flat: BTreeSet<PathBuf>,
    /// Batches of absolute paths that changed, one batch per debounced burst.
    pub changes: Receiver<Vec<PathBuf>>,
    /// What went wrong while watching (a directory removed, the watch limit reached).
    pub errors: Receiver<String>,
}

/// When `p` was last written and its length, if it can be read.
pub fn stamp(p: &Path) -> Option<super::action::FileStamp> {
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len()))
}

pub fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Quiet time before a burst of events is reported: long enough for an editor's
/// write-temp-then-rename save (a few ms), short enough that a reload feels immediate.
pub const DEBOUNCE: Duration = Duration::from_millis(60);

/// Watches `roots` recursively and the directories of `files`.
pub fn watch(roots: &[PathBuf], files: &[PathBuf]) -> notify::Result<Watcher> {
    let (tx, rx) = channel();
    let (err_tx, err_rx) = channel();
    // No reads: with them every file the workers open (a tree's shaders, their includes)
    // woke the watcher's thread twice. A close after writing stays: it is a save.
    let config = Config::default().with_timeout(DEBOUNCE).with_notify_config(
        notify::Config::default()
            .with_event_kinds(EventKindMask::CORE | EventKindMask::ACCESS_CLOSE),
    );
    let handler = move |res: DebounceEventResult| {
        let events = match res {
            Ok(events) => events,
            Err(errors) => {
                let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
                let _ = err_tx.send(format!("file watching: {}", text.join("; ")));
                return;
            }
        };
        let mut changed = BTreeSet::new();
        for ev in events {
            // Reads and metadata changes are noise; a close after writing is a save.
            let relevant = match ev.event.kind {
                EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
                EventKind::Access(_) | EventKind::Other => false,
                EventKind::Modify(ModifyKind::Metadata(_)) => false,
                _ => true,
            };
            if relevant {
                changed.extend(ev.event.paths.iter().map(|p| absolute(p)));
            }
        }
        if !changed.is_empty() {
            let _ = tx.send(changed.into_iter().collect());
        }
    };
    let mut debouncer = new_debouncer_opt::<_, notify::RecommendedWatcher, _>(
        config,
        handler,
        RecommendedCache::new(),
    )?;
    let mut flat: BTreeSet<PathBuf> = BTreeSet::new();
    for f in files {
        let abs = absolute(f);
        let dir = abs
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        if !roots.iter().any(|r| dir.starts_with(absolute(r))) {
            flat.insert(dir);
        }
    }
    for r in roots {
        debouncer.watch(absolute(r), RecursiveMode::Recursive)?;
    }
    for d in &flat {
        debouncer.watch(d, RecursiveMode::NonRecursive)?;
    }
    Ok(Watcher {
        debouncer,
        roots: roots.iter().map(|r| absolute(r)).collect(),
        flat,
        changes: rx,
        errors: err_rx,
    })
}

impl Watcher {
    /// Watches the directory of `file` too (flat), unless it is watched already: source files
    /// the source pane reads from outside the watched directories.
    pub fn watch_beside(&mut self, file: &Path) -> notify::Result<()> {
        let abs = absolute(file);
        let Some(dir) = abs.parent() else {
            return Ok(());
        };
        if self.roots.iter().any(|r| dir.starts_with(r)) || self.flat.contains(dir) {
            return Ok(());
        }
        self.flat.insert(dir.to_path_buf());
        self.debouncer.watch(dir, RecursiveMode::NonRecursive)
    }
}
