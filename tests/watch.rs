//! The app's reaction to files changing on disk, with the changes injected as events (the
//! watcher itself is exercised by the replay scripts, and below for what it reports): newer
//! saves supersede older runs, files that vanish and come back keep what they had,
//! `.gitignore` edits rescan the directory.

use std::path::{Path, PathBuf};

use shaderstep::app::event_loop::{App, AppEvent};
use shaderstep::app::state::DocStatus;

mod common;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shaderstep-watch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn shader(k: u32) -> String {
    format!("@fragment\nfn main() -> @location(0) vec4<f32> {{\n    return vec4<f32>(0.{k});\n}}\n")
}

fn open_dir(dir: &Path) -> App {
    common::open_dir(dir, "size")
}

fn changed(app: &mut App, paths: &[PathBuf]) {
    let abs = paths
        .iter()
        .map(|p| std::path::absolute(p).unwrap())
        .collect();
    app.handle(AppEvent::FilesChanged(abs));
}

fn listed_names(app: &App) -> Vec<String> {
    let s = &app.state;
    s.listed_docs()
        .iter()
        .map(|&i| s.docs[i].display_name(&s.roots))
        .collect()
}

fn source_text(app: &App, doc: usize) -> String {
    let run = app.state.docs[doc].run.as_ref().expect("a run");
    assert!(run.steps[0].is_source());
    run.steps[0].ir_text().to_string()
}

#[test]
fn a_newer_save_supersedes_runs_still_queued_or_going() {
    let dir = scratch("supersede");
    let path = dir.join("a.wgsl");
    std::fs::write(&path, shader(1)).unwrap();
    let mut app = open_dir(&dir);
    assert_eq!(app.state.docs.len(), 1);
    let generation = app.state.docs[0].generation;
    // Three saves in quick succession, each reported before the previous run finished.
    for k in 2..=4 {
        std::fs::write(&path, shader(k)).unwrap();
        changed(&mut app, std::slice::from_ref(&path));
    }
    app.settle();
    let doc = &app.state.docs[0];
    assert_eq!(doc.requested, doc.answered, "every request is answered");
    assert!(source_text(&app, 0).contains("0.4"), "the last save wins");
    let runs = app.state.docs[0].generation - generation;
    assert!(
        (1..=3).contains(&runs),
        "{runs} runs applied for 3 saves: superseded ones are dropped, never applied late"
    );
    assert_eq!(app.state.docs[0].status(), DocStatus::Ok);
}

#[test]
fn a_shader_that_vanishes_and_comes_back_keeps_its_place() {
    let dir = scratch("vanish");
    std::fs::write(dir.join("a.wgsl"), shader(1)).unwrap();
    std::fs::write(dir.join("b.wgsl"), shader(2)).unwrap();
    let mut app = open_dir(&dir);
    assert_eq!(listed_names(&app), ["a.wgsl", "b.wgsl"]);
    app.handle(AppEvent::Action("shader b.wgsl".parse().unwrap()));
    let b = app.state.doc;
    assert!(app.state.docs[b].abs.ends_with("b.wgsl"));

    std::fs::remove_file(dir.join("b.wgsl")).unwrap();
    changed(&mut app, &[dir.join("b.wgsl")]);
    assert_eq!(listed_names(&app), ["a.wgsl"]);
    assert!(
        app.state.docs[app.state.doc].abs.ends_with("a.wgsl"),
        "the selection moves to a listed shader"
    );

    std::fs::write(dir.join("b.wgsl"), shader(3)).unwrap();
    changed(&mut app, &[dir.join("b.wgsl")]);
    app.settle();
    assert_eq!(listed_names(&app), ["a.wgsl", "b.wgsl"]);
    assert_eq!(app.state.docs.len(), 2, "the same entry is listed again");
    assert!(
        app.state.docs[b].prev_run.is_some(),
        "its earlier run is kept for :diff-prev"
    );
    assert!(source_text(&app, b).contains("0.3"));
}

#[test]
fn new_files_and_directories_are_listed_and_gitignore_edits_rescan() {
    let dir = scratch("rescan");
    std::fs::write(dir.join("a.wgsl"), shader(1)).unwrap();
    let mut app = open_dir(&dir);
    assert_eq!(listed_names(&app), ["a.wgsl"]);

    // A whole directory moved in at once is reported as one path.
    std::fs::create_dir_all(dir.join("gen/deep")).unwrap();
    std::fs::write(dir.join("gen/deep/x.wgsl"), shader(2)).unwrap();
    std::fs::write(dir.join("gen/notes.txt"), "no").unwrap();
    changed(&mut app, &[dir.join("gen")]);
    app.settle();
    assert_eq!(listed_names(&app), ["a.wgsl", "gen/deep/x.wgsl"]);

    std::fs::write(dir.join(".gitignore"), "gen/\n").unwrap();
    changed(&mut app, &[dir.join(".gitignore")]);
    assert_eq!(listed_names(&app), ["a.wgsl"]);

    std::fs::write(dir.join(".gitignore"), "").unwrap();
    changed(&mut app, &[dir.join(".gitignore")]);
    app.settle();
    assert_eq!(listed_names(&app), ["a.wgsl", "gen/deep/x.wgsl"]);

    // Removing the directory takes its shaders off the list.
    std::fs::remove_dir_all(dir.join("gen")).unwrap();
    changed(&mut app, &[dir.join("gen")]);
    assert_eq!(listed_names(&app), ["a.wgsl"]);
}

#[test]
fn a_broken_save_keeps_the_last_good_run_and_says_why() {
    let dir = scratch("broken");
    let path = dir.join("a.wgsl");
    std::fs::write(&path, shader(1)).unwrap();
    let mut app = open_dir(&dir);
    std::fs::write(&path, "@fragment fn main( {").unwrap();
    changed(&mut app, std::slice::from_ref(&path));
    app.settle();
    let doc = &app.state.docs[0];
    assert_eq!(doc.status(), DocStatus::CompileError);
    assert!(doc.run.is_some(), "the last good run stays");
    let error = doc.error.as_deref().unwrap();
    assert!(
        error.starts_with("a.wgsl:1: WGSL does not compile"),
        "{error}"
    );
    // A half-written binary is an error too, never a panic.
    let spv = dir.join("b.spv");
    std::fs::write(&spv, [0x03, 0x02, 0x23, 0x07, 0, 0]).unwrap();
    changed(&mut app, std::slice::from_ref(&spv));
    app.settle();
    let b = app
        .state
        .docs
        .iter()
        .find(|d| d.abs.ends_with("b.spv"))
        .unwrap();
    assert_eq!(b.status(), DocStatus::CompileError);
    assert!(b.error.as_deref().unwrap().contains("b.spv"));
}

/// A file shaderstep wrote itself and opened (a reduction's output) is not reloaded when the
/// watcher reports that write; a later save is.
#[test]
fn its_own_write_is_not_a_change() {
    let dir = scratch("own-write");
    let path = dir.join("a.wgsl");
    std::fs::write(&path, shader(1)).unwrap();
    let mut app = open_dir(&dir);
    app.state.docs[0].own_write = shaderstep::app::watch::stamp(&path);
    let generation = app.state.docs[0].generation;
    changed(&mut app, std::slice::from_ref(&path));
    app.settle();
    assert_eq!(app.state.docs[0].generation, generation, "not run again");
    assert_eq!(app.state.docs[0].reloads, 0);
    std::fs::write(&path, shader(22)).unwrap();
    changed(&mut app, std::slice::from_ref(&path));
    app.settle();
    assert!(
        source_text(&app, 0).contains("0.22"),
        "a later save is loaded"
    );
    assert_eq!(app.state.docs[0].reloads, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The watcher itself: reading files is no change (a tree's workers read every shader), a
/// write is, and so is an editor's save that renames a temporary file over the original.
#[test]
fn the_watcher_reports_writes_and_renames_not_reads() {
    use shaderstep::app::watch::watch;
    use std::time::{Duration, Instant};
    let dir = scratch("real");
    let a = dir.join("a.wgsl");
    let b = dir.join("b.wgsl");
    std::fs::write(&a, shader(1)).unwrap();
    std::fs::write(&b, shader(2)).unwrap();
    let w = watch(std::slice::from_ref(&dir), &[]).expect("the watcher starts");
    // What it reports within `wait`, every batch together.
    let reported = |wait: Duration| {
        let until = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            if let Ok(batch) = w.changes.recv_timeout(left) {
                seen.extend(batch);
            }
        }
        seen
    };
    for _ in 0..20 {
        std::fs::read(&a).unwrap();
        std::fs::read(&b).unwrap();
    }
    assert_eq!(reported(Duration::from_millis(400)), Vec::<PathBuf>::new());
    std::fs::write(&a, shader(3)).unwrap();
    let seen = reported(Duration::from_millis(600));
    assert!(seen.contains(&std::path::absolute(&a).unwrap()), "{seen:?}");
    let tmp = dir.join(".b.wgsl.tmp");
    std::fs::write(&tmp, shader(4)).unwrap();
    std::fs::rename(&tmp, &b).unwrap();
    let seen = reported(Duration::from_millis(600));
    assert!(seen.contains(&std::path::absolute(&b).unwrap()), "{seen:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
