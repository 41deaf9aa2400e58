//! Watching the opened files. We watch their directories, not the files: editors save by
//! writing a temporary file and renaming it over the original, which replaces the inode a
//! file watch would follow. Events are debounced and reduced to "this input changed".

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind};
use notify::RecursiveMode;
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};

pub struct Watcher {
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
    /// Inputs that changed on disk (as given on the command line).
    pub changes: Receiver<PathBuf>,
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

pub const DEBOUNCE: Duration = Duration::from_millis(120);

pub fn watch(inputs: &[PathBuf]) -> notify::Result<Watcher> {
    let wanted: Vec<(PathBuf, PathBuf)> = inputs.iter().map(|p| (absolute(p), p.clone())).collect();
    let (tx, rx) = channel();
    let targets = wanted.clone();
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |res: DebounceEventResult| {
        let Ok(events) = res else { return };
        let mut changed = HashSet::new();
        for ev in events {
            // Reads and metadata changes are noise; a close after writing is a save.
            let relevant = match ev.event.kind {
                EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
                EventKind::Access(_) | EventKind::Other => false,
                EventKind::Modify(notify::event::ModifyKind::Metadata(_)) => false,
                _ => true,
            };
            if !relevant {
                continue;
            }
            for p in &ev.event.paths {
                let p = absolute(p);
                for (abs, given) in &targets {
                    if *abs == p {
                        changed.insert(given.clone());
                    }
                }
            }
        }
        for p in changed {
            let _ = tx.send(p);
        }
    })?;
    let dirs: HashSet<PathBuf> = wanted
        .iter()
        .map(|(abs, _)| {
            abs.parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("."))
        })
        .collect();
    for d in dirs {
        debouncer.watch(&d, RecursiveMode::NonRecursive)?;
    }
    Ok(Watcher {
        _debouncer: debouncer,
        changes: rx,
    })
}
