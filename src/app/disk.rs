//! What changes on disk do to the state: a shader written is reloaded, one that appears under
//! a watched directory is listed, one that vanishes is unlisted (its runs kept in case it
//! comes back), and a watched directory scanned again lists exactly what it found. The event
//! loop found the facts (`DiskFact`); this decides.

use std::path::PathBuf;

use super::action::DiskFact;
use super::state::{Doc, State};
use super::update::Effect;
use super::watch::absolute;

pub(super) fn apply(s: &mut State, facts: Vec<DiskFact>) -> Vec<Effect> {
    let mut effects = Vec::new();
    let selected = s.doc;
    let known = s.docs.len();
    for fact in facts {
        match fact {
            DiskFact::WatchError(e) => s.set_error(e),
            DiskFact::File {
                path,
                listed_under,
                stamp,
            } => {
                // A source file the source pane read: read again, compared again.
                let read = s
                    .cache
                    .disk_texts
                    .keys()
                    .find(|p| absolute(p) == path)
                    .cloned();
                if let Some(p) = read {
                    s.cache.disk_texts.remove(&p);
                    s.cache.source_files = None;
                    s.set_message(format!("source file changed: {}", p.display()));
                }
                // The shaders that include it run again (before the rest queued).
                let includers: Vec<usize> = (0..s.docs.len())
                    .filter(|&i| {
                        s.docs[i]
                            .summary
                            .as_ref()
                            .is_some_and(|x| x.includes.contains(&path))
                    })
                    .collect();
                for i in includers {
                    effects.push(super::update::load(s, i));
                }
                if let Some(i) = s.docs.iter().position(|d| d.abs == path) {
                    s.docs[i].present = true;
                    // shaderstep's own write of it (opened already) is no change.
                    if stamp.is_none() || stamp != s.docs[i].own_write {
                        effects.push(super::update::load(s, i));
                    }
                } else if let Some(r) = listed_under {
                    effects.extend(list(s, path, r));
                }
            }
            DiskFact::Dir { files } => {
                for (f, r) in files {
                    effects.extend(list(s, f, r));
                }
            }
            DiskFact::Gone(path) => match s.docs.iter().position(|d| d.abs == path) {
                // A file opened by name that vanishes keeps its last run, marked stale, with
                // the reason (the load fails).
                Some(i) if s.docs[i].root.is_none() => effects.push(super::update::load(s, i)),
                Some(i) => unlist(s, i),
                None => {
                    // A directory that went away takes its shaders with it.
                    let gone: Vec<usize> = (0..s.docs.len())
                        .filter(|&i| {
                            let d = &s.docs[i];
                            d.present && d.root.is_some() && d.abs.starts_with(&path)
                        })
                        .collect();
                    for i in gone {
                        unlist(s, i);
                    }
                }
            },
            DiskFact::Rescanned { root, files } => {
                for i in 0..s.docs.len() {
                    let d = &s.docs[i];
                    if d.root == Some(root) && d.present && !files.contains(&d.abs) {
                        unlist(s, i);
                    }
                }
                for f in files {
                    effects.extend(list(s, f, root));
                }
            }
        }
    }
    // A rename is a shader gone and one new in the same burst: the selection follows it
    // (instead of moving to the next shader listed).
    let new: Vec<usize> = (known..s.docs.len()).collect();
    let was = s.docs.get(selected);
    if let (Some(was), [renamed]) = (was, &new[..]) {
        if !was.present && was.root.is_some() {
            let (from, to) = (
                was.display_name(&s.roots),
                s.docs[*renamed].display_name(&s.roots),
            );
            super::update::select_doc(s, *renamed);
            s.set_message(format!("{from} was renamed {to}"));
        }
    }
    effects
}

/// Lists a shader found under root `r` (again, if it had vanished); returns its load.
fn list(s: &mut State, abs: PathBuf, r: usize) -> Option<Effect> {
    match s.docs.iter().position(|d| d.abs == abs) {
        Some(i) if s.docs[i].present => None,
        Some(i) => {
            s.docs[i].present = true;
            s.set_message(format!("{} is back", s.docs[i].display_name(&s.roots)));
            Some(super::update::load(s, i))
        }
        None => {
            s.docs.push(Doc::new(abs, Some(r)));
            let i = s.docs.len() - 1;
            s.set_message(format!("new shader: {}", s.docs[i].display_name(&s.roots)));
            if s.docs.len() == 1 {
                s.doc = 0;
            }
            Some(super::update::load(s, i))
        }
    }
}

/// Takes a vanished shader off the list, keeping its runs in case it comes back. If it was
/// selected, the next listed shader is.
fn unlist(s: &mut State, i: usize) {
    let before = s.listed_docs();
    s.docs[i].present = false;
    let name = s.docs[i].display_name(&s.roots);
    if s.doc == i {
        let pos = before.iter().position(|&d| d == i).unwrap_or(0);
        let after = s.listed_docs();
        if let Some(&next) = after.get(pos.min(after.len().saturating_sub(1))) {
            s.doc = next;
        }
    }
    s.set_message(format!("{name} was removed"));
}
