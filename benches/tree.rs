//! Benchmark (not a test): a whole shader tree in the TUI. Builds a tree of SHADERS shaders
//! (copies of the project's own test shaders, compiled or assembled once, under many folders
//! and names; every copy is run, nothing is shared between them), or opens a directory given,
//! and measures what the terminal loop does with it: the first frame, the time until every
//! shader's summary is in (wall, after the first frame), the slowest frame meanwhile (the
//! loop's own work: answers applied, the tree derived, the screen drawn), resident memory with
//! the selected shader's steps open, and saves through the real watcher (the selected shader,
//! and one nobody looks at) until the browser shows the new run.
//!
//! cargo bench --bench tree [-- SHADERS | DIR] [distinct] [spirv-opt]
//!
//! Copies have the same bytes as their original, and a run's summary answers the files with
//! the same bytes; `distinct` makes every copy's bytes its own, so that every one is run.
//! `spirv-opt` also times `spirv-opt -O` over the tree's SPIR-V files, one process per file,
//! as many at a time as there are cores: a reference measured in the same run, on the same
//! machine, for a figure that otherwise depends on how fast the machine is.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use shaderstep::app::action::Action;
use shaderstep::app::event_loop::{App, AppEvent, Inputs, FILL_FRAME};
use shaderstep::app::watch::{watch, DEBOUNCE};
use shaderstep::pipeline::Pipeline;

mod common;
use common::status_kib;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The project's shaders as bytes with the extension they are read by: GLSL compiled with
/// glslangValidator (when it is there), SPIR-V assembly assembled, WGSL as it is.
fn own_shaders() -> Vec<(String, &'static str, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let mut out = Vec::new();
    let scratch = std::env::temp_dir().join(format!("shaderstep-tree-src-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for dir in ["glsl", "glslang"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        paths.sort();
        for p in paths {
            let spv = scratch.join("out.spv");
            let ok = std::process::Command::new("glslangValidator")
                .args(["-V", "--target-env", "vulkan1.1", "-o"])
                .arg(&spv)
                .arg(&p)
                .output()
                .is_ok_and(|o| o.status.success());
            if ok {
                let stem = p.file_stem().unwrap().to_string_lossy().replace('.', "_");
                out.push((stem, "spv", std::fs::read(&spv).unwrap()));
            }
        }
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("spvasm"))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "spvasm"))
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        if let Ok(words) = shaderstep::ir::spirv::asm::assemble(&text) {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            out.push((stem, "spv", bytes));
        }
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("wgsl"))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .collect();
    paths.sort();
    for p in paths {
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        out.push((stem, "wgsl", std::fs::read(&p).unwrap()));
    }
    let _ = std::fs::remove_dir_all(&scratch);
    out
}

/// Writes `n` shaders under `dir`: ten families of ten folders, copies named by number. With
/// `distinct`, no two files have the same bytes (the SPIR-V generator word, a WGSL comment),
/// so that none is answered by another's run.
fn build_tree(dir: &Path, n: usize, distinct: bool) {
    let shaders = own_shaders();
    assert!(!shaders.is_empty(), "no shaders to copy");
    for k in 0..n {
        let (stem, ext, bytes) = &shaders[k % shaders.len()];
        let folder = dir.join(format!("family{:02}/set{:02}", k % 10, (k / 10) % 10));
        std::fs::create_dir_all(&folder).unwrap();
        let mut bytes = bytes.clone();
        if distinct {
            if *ext == "spv" {
                bytes[8..12].copy_from_slice(&(k as u32).to_le_bytes());
            } else {
                bytes.extend(format!("// copy {k}\n").bytes());
            }
        }
        std::fs::write(folder.join(format!("{stem}_{k:05}.{ext}")), bytes).unwrap();
    }
}

/// When the loop last drew, and whether answers wait for the next frame of a fill.
struct Pacing {
    drawn: Instant,
    waiting: bool,
}

impl Pacing {
    fn new() -> Self {
        Pacing {
            drawn: Instant::now(),
            waiting: false,
        }
    }
}

thread_local! {
    /// The loop's time in every turn, drawn or not, and the slowest turn that drew nothing.
    static UI_TIME: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
    static SLOWEST_UNDRAWN: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
}

/// One turn of the terminal loop, as `run_terminal` turns: what the watcher saw, the answers
/// in, a frame drawn when something changed (summaries of a filling tree at most every
/// `FILL_FRAME`). Returns the turn's time when it drew.
fn turn(
    app: &mut App,
    terminal: &mut Terminal<TestBackend>,
    watcher: Option<&shaderstep::app::watch::Watcher>,
    pacing: &mut Pacing,
) -> Option<Duration> {
    let t = Instant::now();
    let drew = turn_untimed(app, terminal, watcher, pacing);
    let took = t.elapsed();
    UI_TIME.with(|u| u.set(u.get() + took));
    if !drew {
        SLOWEST_UNDRAWN.with(|u| u.set(u.get().max(took)));
    }
    drew.then_some(took)
}

fn turn_untimed(
    app: &mut App,
    terminal: &mut Terminal<TestBackend>,
    watcher: Option<&shaderstep::app::watch::Watcher>,
    pacing: &mut Pacing,
) -> bool {
    let mut dirty = pacing.waiting && pacing.drawn.elapsed() >= FILL_FRAME;
    if let Some(w) = watcher {
        while let Ok(paths) = w.changes.try_recv() {
            app.handle(AppEvent::FilesChanged(paths));
            dirty = true;
        }
    }
    if app.poll_jobs() {
        if app.answers_can_wait() {
            pacing.waiting = true;
        } else {
            dirty = true;
        }
    }
    if dirty {
        app.draw(terminal).unwrap();
        pacing.drawn = Instant::now();
        pacing.waiting = false;
    }
    dirty
}

/// Copies the files under `from` to `to`, folders and all.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::write(&dst, std::fs::read(&src).unwrap()).unwrap();
        }
    }
}

fn save(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Saves `path` (doc `doc`) with new bytes and turns the loop until its new run is in and
/// drawn.
fn measure_save(
    app: &mut App,
    terminal: &mut Terminal<TestBackend>,
    watcher: &shaderstep::app::watch::Watcher,
    path: &Path,
    doc: usize,
) -> Duration {
    // New bytes (a SPIR-V module's generator word, a comment in a text): the save is run, not
    // answered by a run of the same bytes.
    static SAVES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let n = SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "spv") {
        bytes[8..12].copy_from_slice(&(0x5eed_0000 + n).to_le_bytes());
    } else {
        bytes.extend(format!("\n// save {n}\n").bytes());
    }
    let answered = app.state.docs[doc].answered;
    save(path, &bytes);
    let start = Instant::now();
    let mut pacing = Pacing::new();
    loop {
        turn(app, terminal, Some(watcher), &mut pacing);
        let d = &app.state.docs[doc];
        if d.answered > answered && d.answered == d.requested {
            app.draw(terminal).unwrap();
            return start.elapsed();
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the save of {} was not run within 20 s",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The `.spv` files under `dir`, folders and all.
fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            spv_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "spv") {
            out.push(p);
        }
    }
}

/// Wall time of `spirv-opt -O` over `files`, one process per file, `threads` at a time (the
/// outputs go to a scratch folder). `None` when spirv-opt is not installed.
fn spirv_opt_wall(files: &[PathBuf], threads: usize, scratch: &Path) -> Option<Duration> {
    std::process::Command::new("spirv-opt")
        .arg("--version")
        .output()
        .ok()?;
    let out = scratch.join("spirv-opt-out");
    std::fs::create_dir_all(&out).unwrap();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(f) = files.get(k) else { break };
                let _ = std::process::Command::new("spirv-opt")
                    .arg("-O")
                    .arg(f)
                    .arg("-o")
                    .arg(out.join(format!("{k}.spv")))
                    .output();
            });
        }
    });
    Some(start.elapsed())
}

fn main() {
    let distinct = std::env::args().any(|a| a == "distinct");
    let reference = std::env::args().any(|a| a == "spirv-opt");
    let arg = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-') && a != "distinct" && a != "spirv-opt");
    let scratch = std::env::temp_dir().join(format!("shaderstep-tree-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let (dir, given) = match arg.as_deref().map(PathBuf::from) {
        // A copy: the saves measured write to the files.
        Some(p) if p.is_dir() => {
            copy_tree(&p, &scratch);
            (scratch.clone(), Some(p))
        }
        other => {
            let n = other
                .and_then(|p| p.to_str()?.parse().ok())
                .unwrap_or(10_000);
            build_tree(&scratch, n, distinct);
            (scratch.clone(), None)
        }
    };
    let rss_start = status_kib("VmRSS:");
    let watcher = watch(std::slice::from_ref(&dir), &[]).expect("the watcher starts");
    let (w, h) = (160, 50);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    // Summaries kept for the next session (as the TUI keeps them), in a directory of the
    // bench's own: empty at first, so that the first opening runs every shader.
    let cache = std::env::temp_dir().join(format!("shaderstep-tree-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let open = || {
        App::open(
            Inputs {
                roots: vec![dir.clone()],
                summary_cache: Some(cache.clone()),
                ..Inputs::default()
            },
            Pipeline::preset(shaderstep::app::DEFAULT_PRESET).unwrap(),
            (w, h),
            true,
        )
    };
    let t0 = Instant::now();
    let mut app = open();
    app.draw(&mut terminal).unwrap();
    let first_frame = t0.elapsed();
    let shaders = app.state.docs.len();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());

    // Every summary in, the loop turning as the terminal's does (a 10 ms poll while busy).
    let t1 = Instant::now();
    let mut frames = Vec::new();
    let mut worst = (Duration::ZERO, 0);
    // The first turn also shows the selected shader's first step (its code highlighted).
    let mut first_turn = None;
    // When the selected shader's code is on screen with every row highlighted (rows whose
    // grammar is not compiled yet are drawn plain and highlighted on another thread).
    let mut coloured = None;
    let mut pacing = Pacing::new();
    UI_TIME.with(|u| u.set(Duration::ZERO));
    SLOWEST_UNDRAWN.with(|u| u.set(Duration::ZERO));
    while app.busy() {
        std::thread::sleep(Duration::from_millis(10));
        if let Some(f) = turn(&mut app, &mut terminal, Some(&watcher), &mut pacing) {
            let s = &app.state;
            if coloured.is_none() && !s.panel.is_empty() && s.cache.highlight_wanted.is_empty() {
                coloured = Some(t1.elapsed());
            }
            if first_turn.is_none() {
                first_turn = Some(f);
            } else if f > worst.0 {
                worst = (f, frames.len());
            }
            frames.push(f);
        }
        assert!(
            t1.elapsed() < Duration::from_secs(600),
            "not done in 10 minutes"
        );
    }
    let filled = t1.elapsed();
    frames.sort();
    let failing = app
        .state
        .docs
        .iter()
        .filter(|d| shaderstep::app::tree::failing(d.status()))
        .count();
    let with_steps = app.state.docs.iter().filter(|d| d.run.is_some()).count();
    let run_time: Duration = app
        .state
        .docs
        .iter()
        .filter_map(|d| d.summary.as_ref().map(|s| s.took))
        .sum();
    let ui_time = UI_TIME.with(|u| u.get());
    let slowest_undrawn = SLOWEST_UNDRAWN.with(|u| u.get());
    let rss_filled = status_kib("VmRSS:");

    // A user walking the list: each selection runs that shader's steps; older ones drop them.
    let mut walk = Vec::new();
    for _ in 0..30 {
        app.handle(AppEvent::Action(Action::NextInput));
        let t = Instant::now();
        loop {
            turn(&mut app, &mut terminal, Some(&watcher), &mut pacing);
            if !app.busy() {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        walk.push(t.elapsed());
    }
    walk.sort();
    let kept = app.state.docs.iter().filter(|d| d.run.is_some()).count();
    let rss_walked = status_kib("VmRSS:");

    // Saves: the selected shader, and one the user is not looking at.
    std::thread::sleep(DEBOUNCE * 4);
    while let Ok(paths) = watcher.changes.try_recv() {
        app.handle(AppEvent::FilesChanged(paths));
    }
    app.settle();
    let selected = app.state.doc;
    let other = (0..shaders)
        .find(|&i| i != selected && app.state.docs[i].run.is_none())
        .unwrap_or(0);
    let mut saves_selected = Vec::new();
    let mut saves_other = Vec::new();
    for _ in 0..5 {
        let p = app.state.docs[selected].abs.clone();
        saves_selected.push(measure_save(
            &mut app,
            &mut terminal,
            &watcher,
            &p,
            selected,
        ));
        std::thread::sleep(DEBOUNCE * 3);
        let p = app.state.docs[other].abs.clone();
        saves_other.push(measure_save(&mut app, &mut terminal, &watcher, &p, other));
        std::thread::sleep(DEBOUNCE * 3);
    }
    saves_selected.sort();
    saves_other.sort();
    let hwm = status_kib("VmHWM:");

    let pct = |v: &[Duration], p: f64| v[((v.len() - 1) as f64 * p) as usize];
    println!(
        "{} shaders ({}), {threads} cores",
        shaders,
        match &given {
            Some(p) => format!("a copy of {}", p.display()),
            None if distinct =>
                "copies of the project's shaders, each with bytes of its own".into(),
            None => "copies of the project's shaders".into(),
        }
    );
    println!(
        "  first frame          {:>8.1} ms (scan, tree, first draw)",
        ms(first_frame)
    );
    println!(
        "  every summary in     {:>8.0} ms wall after the first frame ({failing} failing)",
        ms(filled)
    );
    println!(
        "  time in runs         {:>8.0} ms as the summaries say ({:.2} ms a shader; a file answered by another's run says that run's), {:.0} ms on the UI thread",
        ms(run_time),
        ms(run_time) / shaders.max(1) as f64,
        ms(ui_time)
    );
    println!(
        "  frames while filling {:>8.2} ms median, {:.2} ms p99, {:.2} ms worst (frame {} of {}); the slowest turn that drew nothing {:.2} ms; the first, with the selected shader's code, {:.2} ms; its code highlighted {:.0} ms after the first frame",
        ms(pct(&frames, 0.5)),
        ms(pct(&frames, 0.99)),
        ms(worst.0),
        worst.1 + 1,
        frames.len(),
        ms(slowest_undrawn),
        ms(first_turn.unwrap_or_default()),
        ms(coloured.unwrap_or_default())
    );
    println!(
        "  resident memory      {:>8.1} MiB filled ({with_steps} with steps), {:.1} MiB after selecting 30 ({kept} with steps), peak {:.1} MiB (start {:.1} MiB)",
        rss_filled as f64 / 1024.0,
        rss_walked as f64 / 1024.0,
        hwm as f64 / 1024.0,
        rss_start as f64 / 1024.0
    );
    println!(
        "  selecting a shader   {:>8.1} ms median, {:.1} ms worst until its steps are in",
        ms(pct(&walk, 0.5)),
        ms(*walk.last().unwrap())
    );
    println!(
        "  save, selected       {:>8.1} ms median, {:.1} ms worst (watcher debounce {} ms included)",
        ms(pct(&saves_selected, 0.5)),
        ms(*saves_selected.last().unwrap()),
        DEBOUNCE.as_millis()
    );
    println!(
        "  save, not selected   {:>8.1} ms median, {:.1} ms worst",
        ms(pct(&saves_other, 0.5)),
        ms(*saves_other.last().unwrap())
    );
    // Opened again, as the next session: only what changed since would run (nothing here).
    app.keep_summaries();
    drop(app);
    let t2 = Instant::now();
    let mut app = open();
    app.draw(&mut terminal).unwrap();
    let reopened_frame = t2.elapsed();
    let t3 = Instant::now();
    let mut pacing = Pacing::new();
    while app.busy() {
        std::thread::sleep(Duration::from_millis(10));
        turn(&mut app, &mut terminal, None, &mut pacing);
    }
    println!(
        "  opened again         {:>8.0} ms wall after the first frame ({:.1} ms), the summaries kept by the session before answering",
        ms(t3.elapsed()),
        ms(reopened_frame)
    );
    drop(app);
    let _ = std::fs::remove_dir_all(&cache);
    if reference {
        let mut files = Vec::new();
        spv_files(&dir, &mut files);
        files.sort();
        match spirv_opt_wall(&files, threads, &scratch) {
            Some(wall) => println!(
                "  spirv-opt -O         {:>8.0} ms wall over the tree's {} SPIR-V files ({threads} at a time); every summary in / that = {:.2}",
                ms(wall),
                files.len(),
                filled.as_secs_f64() / wall.as_secs_f64()
            ),
            None => println!("  spirv-opt -O         not installed (apt-get install spirv-tools)"),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
