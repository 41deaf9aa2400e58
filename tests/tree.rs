//! Whole shader trees in the browser: folders with counts that fold, the filter (`!` for the
//! failing ones), the order within folders, `]` walking the failing shaders; only the shaders
//! selected last keeping their steps (the others their summaries, run again when selected);
//! and the worker's queue: urgent jobs first, a newer request replacing an older one.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use shaderstep::app::action::Action;
use shaderstep::app::event_loop::{App, AppEvent};
use shaderstep::app::state::{BrowserRow, DocStatus, Focus, SortBy, Summary, STEPS_KEPT};
use shaderstep::app::worker::{Job, Report, Worker};
use shaderstep::pipeline::input::FrontEnds;
use shaderstep::pipeline::Pipeline;

mod common;

fn scratch(name: &str) -> PathBuf {
    common::temp_dir(name)
}

/// A fragment shader whose output depends on `k` (more `k`: more instructions).
fn shader(k: usize) -> String {
    let mut body = String::from("    var c = vec4<f32>(0.5);\n");
    for i in 0..k {
        body.push_str(&format!("    c = c * vec4<f32>(1.{i}) + c.yzwx;\n"));
    }
    format!("@fragment\nfn main() -> @location(0) vec4<f32> {{\n{body}    return c;\n}}\n")
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Twelve shaders: lights/ (3, and shadows/ under it with 3), post/ (4, one broken), and two
/// at the top.
fn tree(name: &str) -> PathBuf {
    let dir = scratch(name);
    for (k, rel) in [
        "lights/point.wgsl",
        "lights/spot.wgsl",
        "lights/sun.wgsl",
        "lights/shadows/pcf.wgsl",
        "lights/shadows/vsm.wgsl",
        "lights/shadows/csm.wgsl",
        "post/bloom.wgsl",
        "post/blur.wgsl",
        "post/tonemap.wgsl",
        "main.wgsl",
        "sky.wgsl",
    ]
    .iter()
    .enumerate()
    {
        write(&dir, rel, &shader(k));
    }
    write(&dir, "post/broken.wgsl", "@fragment fn main( {\n");
    dir
}

fn open_dir(dir: &Path) -> App {
    common::open_dir(dir, "size")
}

/// Opens `dir` and returns at once, while its shaders run.
fn open_filling(dir: &Path, preset: &str) -> App {
    let inputs = shaderstep::app::event_loop::Inputs {
        roots: vec![dir.to_path_buf()],
        ..Default::default()
    };
    App::open(inputs, Pipeline::preset(preset).unwrap(), (120, 40), false)
}

fn act(app: &mut App, action: Action) {
    app.handle(AppEvent::Action(action));
    app.settle();
}

/// The rows as text: `name/ shaders failing` for folders, the file name for shaders, indented.
fn rows(app: &App) -> Vec<String> {
    let s = &app.state;
    s.browser
        .rows
        .iter()
        .map(|r| match r {
            BrowserRow::Folder {
                name,
                depth,
                folded,
                counts,
                ..
            } => format!(
                "{}{}{name}/ {} {}",
                "  ".repeat(*depth),
                if *folded { "+" } else { "" },
                counts.shaders,
                counts.failing
            ),
            BrowserRow::Shader { doc, depth } => format!(
                "{}{}",
                "  ".repeat(*depth),
                s.docs[*doc].path.file_name().unwrap().to_string_lossy()
            ),
        })
        .collect()
}

fn folder_at_cursor(app: &App) -> Option<&str> {
    app.state
        .browser
        .on_folder
        .as_ref()
        .map(|k| k.path.as_str())
}

fn selected_name(app: &App) -> String {
    let s = &app.state;
    s.docs[s.doc].display_name(&s.roots)
}

#[test]
fn folders_count_fold_filter_and_sort() {
    let dir = tree("folders");
    let mut app = open_dir(&dir);
    assert_eq!(
        rows(&app),
        [
            "main.wgsl",
            "sky.wgsl",
            "lights/ 6 0",
            "  point.wgsl",
            "  spot.wgsl",
            "  sun.wgsl",
            "  shadows/ 3 0",
            "    csm.wgsl",
            "    pcf.wgsl",
            "    vsm.wgsl",
            "post/ 4 1",
            "  bloom.wgsl",
            "  blur.wgsl",
            "  broken.wgsl",
            "  tonemap.wgsl",
        ]
    );
    // Folding: the cursor goes to a folder, which folds; its counts stay.
    app.state.focus = Focus::Shaders;
    act(&mut app, Action::Shader("lights/shadows/pcf".into()));
    act(&mut app, Action::Fold);
    assert_eq!(folder_at_cursor(&app), Some("lights/shadows"));
    act(&mut app, Action::Fold);
    let r = rows(&app);
    assert!(r.contains(&"  +shadows/ 3 0".to_string()), "{r:#?}");
    assert!(!r.iter().any(|x| x.contains("pcf")), "{r:#?}");
    // Moving down from the folded folder goes to the next folder, not into it.
    act(&mut app, Action::Down(1));
    assert_eq!(folder_at_cursor(&app), Some("post"));
    act(&mut app, Action::Open);
    assert!(rows(&app).contains(&"+post/ 4 1".to_string()));
    act(&mut app, Action::Open);
    // `]` walks to the failing one, unfolding what hides it.
    act(&mut app, Action::Fold);
    act(&mut app, Action::NextFailing(true));
    assert_eq!(selected_name(&app), "post/broken.wgsl");
    assert!(rows(&app).iter().any(|r| r.contains("broken")));
    // What it says (the failing one's own run says why after it).
    let said = common::messages(&app);
    assert!(
        said.iter()
            .any(|m| m.starts_with("failing 1 of 1: post/broken.wgsl")),
        "{said:?}"
    );
    // The filter: `!` lists the failing ones only, with their folders.
    act(&mut app, Action::Filter("!".into()));
    assert_eq!(rows(&app), ["post/ 1 1", "  broken.wgsl"]);
    act(&mut app, Action::Filter("sh".into()));
    assert_eq!(
        rows(&app),
        [
            "lights/ 3 0",
            "  shadows/ 3 0",
            "    csm.wgsl",
            "    pcf.wgsl",
            "    vsm.wgsl"
        ],
        "folded folders open while filtering"
    );
    act(&mut app, Action::Filter(String::new()));
    // By size: the largest output first in each folder; by status: failing first.
    act(&mut app, Action::Sort(Some(SortBy::Size)));
    let r = rows(&app);
    let post: Vec<&String> = r.iter().skip_while(|x| !x.starts_with("post/")).collect();
    assert_eq!(post[1], "  tonemap.wgsl", "{r:#?}");
    act(&mut app, Action::Sort(Some(SortBy::Status)));
    let r = rows(&app);
    let post: Vec<&String> = r.iter().skip_while(|x| !x.starts_with("post/")).collect();
    assert_eq!(post[1], "  broken.wgsl", "{r:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// While summaries fill in, the rows keep their shape and only their counts are brought up to
/// date, in place: on the way and at the end they agree with rows built afresh.
#[test]
fn counts_brought_up_to_date_in_place_agree_with_rows_built_afresh() {
    use shaderstep::app::tree;
    let dir = tree("recount");
    let mut app = open_filling(&dir, "size");
    let agree = |app: &App| {
        let s = &app.state;
        let fresh = tree::rows(s, &s.browser.sorted);
        assert_eq!(*s.browser.rows, fresh.rows);
        assert_eq!(s.browser.totals, fresh.totals);
    };
    // Built once, when nothing had run yet.
    assert_eq!(app.state.browser.totals.running, 12);
    let built = Arc::as_ptr(&app.state.browser.rows);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while app.busy() && std::time::Instant::now() < deadline {
        if app.poll_jobs() {
            agree(&app);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    app.settle();
    agree(&app);
    assert_eq!(app.state.browser.totals.running, 0);
    assert_eq!(app.state.browser.totals.failing, 1);
    assert!(
        built == Arc::as_ptr(&app.state.browser.rows),
        "the rows were brought up to date where they are, not built again"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn only_the_shaders_selected_last_keep_their_steps() {
    let dir = tree("kept");
    let mut app = open_dir(&dir);
    let with_steps = |app: &App| {
        (0..app.state.docs.len())
            .filter(|&i| app.state.docs[i].run.is_some())
            .collect::<Vec<usize>>()
    };
    // Opened: every shader has its summary, the selected one its steps too.
    assert!(app.state.docs.iter().all(|d| d.summary.is_some()));
    assert_eq!(with_steps(&app), [app.state.doc]);
    let first = app.state.doc;
    let first_summary = app.state.docs[first].summary.clone().unwrap();
    for _ in 0..11 {
        act(&mut app, Action::NextInput);
        let kept = with_steps(&app);
        let d = &app.state.docs[app.state.doc];
        assert!(
            kept.contains(&app.state.doc) || d.status() == DocStatus::CompileError,
            "the selected one has its steps"
        );
        assert!(kept.len() <= STEPS_KEPT, "{} kept", kept.len());
    }
    assert!(
        app.state.docs[first].run.is_none(),
        "the first selected dropped its steps"
    );
    assert_eq!(app.state.docs[first].summary.as_ref(), Some(&first_summary));
    // Selected again, it runs again and shows its steps.
    let name = app.state.docs[first].display_name(&app.state.roots);
    act(&mut app, Action::Shader(name));
    assert_eq!(app.state.doc, first);
    let run = app.state.docs[first].run.as_ref().expect("its steps again");
    assert_eq!(
        run.steps.last().map(|s| s.inst_count),
        first_summary.after,
        "the same run as its summary says"
    );
    // The broken one keeps its error as its summary.
    let broken = app
        .state
        .docs
        .iter()
        .find(|d| d.path.ends_with("broken.wgsl"))
        .unwrap();
    assert_eq!(broken.status(), DocStatus::CompileError);
    assert!(broken.summary.as_ref().unwrap().first_error.is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_save_during_a_tree_wide_run_is_run_and_later_requests_replace_earlier_ones() {
    let dir = tree("save");
    let mut app = open_dir(&dir);
    let sky = dir.join("sky.wgsl");
    let i = app
        .state
        .docs
        .iter()
        .position(|d| d.path.ends_with("sky.wgsl"))
        .unwrap();
    let before = app.state.docs[i].summary.clone().unwrap();
    // A tree-wide run, then a save, then another tree-wide run: each shader answers the
    // newest request, and the saved one shows what was saved.
    app.handle(AppEvent::Action(Action::Reload));
    std::fs::write(&sky, shader(30)).unwrap();
    app.handle(AppEvent::FilesChanged(vec![
        std::path::absolute(&sky).unwrap()
    ]));
    app.handle(AppEvent::Action(Action::Reload));
    app.settle();
    assert!(app.state.docs.iter().all(|d| d.answered == d.requested));
    let after = app.state.docs[i].summary.clone().unwrap();
    assert!(after.after > before.after, "{before:?} → {after:?}");
    assert!(app.state.docs[i].changed, "the save changed its output");
    let changed = app.state.docs.iter().filter(|d| d.changed).count();
    assert_eq!(changed, 1, "only the saved shader changed");
    let said = common::messages(&app);
    assert!(
        said.iter()
            .any(|m| m.starts_with("reloaded sky.wgsl (not shown): ")),
        "{said:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_queue_runs_urgent_jobs_first_and_skips_replaced_ones() {
    let dir = tree("queue");
    let mut paths: Vec<PathBuf> = Vec::new();
    for e in std::fs::read_dir(dir.join("lights")).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            paths.push(p);
        }
    }
    let worker = Worker::with_threads(
        Arc::new(Pipeline::preset("O").unwrap()),
        Arc::new(FrontEnds::default()),
        None,
        false,
        1,
    );
    let job = |doc: usize, token: u64, urgent: bool| Job {
        doc,
        token,
        path: paths[doc % paths.len()].clone(),
        steps: false,
        urgent,
    };
    let mut later: Vec<Job> = (0..20).map(|d| job(d, 1, false)).collect();
    // Doc 5 asked again: its first request is skipped when it comes up.
    later.push(job(5, 2, false));
    // Queued together with them (under one lock), the urgent job is first whatever the
    // scheduler does; submitted after them, a loaded machine let the thread take two first.
    later.push(job(99, 1, true));
    worker.submit_many(later);
    let mut answered = Vec::new();
    while answered.len() < 21 {
        match worker.done.recv_timeout(Duration::from_secs(60)) {
            Ok(Report::Done(d)) => {
                assert!(
                    d.result.as_ref().is_ok_and(Option::is_none),
                    "summaries only"
                );
                answered.push((d.doc, d.token));
            }
            Ok(Report::Step(_)) => panic!("a job for the summary streams no steps"),
            Err(e) => panic!("the worker did not answer: {e}"),
        }
    }
    let urgent_at = answered.iter().position(|&a| a == (99, 1)).unwrap();
    assert_eq!(urgent_at, 0, "{answered:?}");
    assert!(!answered.contains(&(5, 1)), "{answered:?}");
    assert!(answered.contains(&(5, 2)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn saving_an_included_file_runs_the_shaders_that_include_it() {
    common::tool("glslangValidator");
    let dir = scratch("include");
    write(
        &dir,
        "lib/tint.h",
        "vec4 tint(vec4 c) { return c * 0.5; }\n",
    );
    let frag = |body: &str| {
        format!(
            "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"lib/tint.h\"\nlayout(location = 0) out vec4 o;\nvoid main() {{ {body} }}\n"
        )
    };
    write(&dir, "a.frag", &frag("o = tint(vec4(1.0));"));
    write(
        &dir,
        "b.frag",
        "#version 450\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(0.25); }\n",
    );
    // More shaders than keep their steps, so that summaries alone are asked for.
    for k in 0..STEPS_KEPT {
        write(&dir, &format!("other/s{k}.wgsl"), &shader(k));
    }
    let mut app = open_dir(&dir);
    let doc = |app: &App, name: &str| {
        app.state
            .docs
            .iter()
            .position(|d| d.path.ends_with(name))
            .unwrap()
    };
    let (a, b) = (doc(&app, "a.frag"), doc(&app, "b.frag"));
    let header = std::path::absolute(dir.join("lib/tint.h")).unwrap();
    assert_eq!(
        app.state.docs[a].summary.as_ref().unwrap().includes,
        std::slice::from_ref(&header)
    );
    let before = app.state.docs[a].summary.clone().unwrap();
    let (requested_a, requested_b) = (app.state.docs[a].requested, app.state.docs[b].requested);
    // The header gains a line of work: a.frag runs again and its output grows; b.frag does
    // not run.
    write(
        &dir,
        "lib/tint.h",
        "vec4 tint(vec4 c) { return sqrt(c) * 0.5 + c.wzyx; }\n",
    );
    app.handle(AppEvent::FilesChanged(vec![header]));
    app.settle();
    assert_eq!(app.state.docs[a].requested, requested_a + 1);
    assert_eq!(app.state.docs[b].requested, requested_b);
    let after = app.state.docs[a].summary.clone().unwrap();
    assert!(after.after > before.after, "{before:?} → {after:?}");
    assert!(app.state.docs[a].changed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tree_wide_run_runs_the_compared_pipeline_on_the_shaders_that_keep_their_steps() {
    let dir = scratch("compare");
    write(&dir, "a.wgsl", &shader(1));
    write(&dir, "b.wgsl", &shader(2));
    let mut app = open_dir(&dir);
    act(&mut app, Action::Compare(Some("O".into())));
    let before: Vec<u64> = app.state.docs.iter().map(|d| d.compare_answered).collect();
    assert!(before.iter().all(|&t| t > 0), "{before:?}");
    act(&mut app, Action::Reload);
    for (d, was) in app.state.docs.iter().zip(before) {
        assert!(
            d.compare_answered > was,
            "{}: the compared run is of the file as it is now",
            d.path.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_list_scrolls_only_as_far_as_the_cursor_needs() {
    let dir = scratch("scroll");
    for k in 0..40 {
        write(&dir, &format!("many/s{k:02}.wgsl"), &shader(k % 3));
    }
    let mut app = open_dir(&dir);
    app.state.focus = Focus::Shaders;
    let rows = app.state.layout.shaders.unwrap().inner_rows();
    assert!(rows < 40, "the pane shows {rows} rows");
    let start = app.state.browser_cursor_row();
    for _ in 0..30 {
        act(&mut app, Action::Down(1));
    }
    let cursor = app.state.browser_cursor_row();
    assert_eq!(cursor, start + 30);
    assert_eq!(
        app.state.browser.scroll,
        cursor + 1 - rows,
        "the cursor at the bottom"
    );
    let scrolled = app.state.browser.scroll;
    // Up a row: the cursor moves within the pane, the list stays.
    act(&mut app, Action::Up(1));
    assert_eq!(app.state.browser.scroll, scrolled);
    // Up past the top of the pane: the list follows, the cursor at the top.
    for _ in 0..rows {
        act(&mut app, Action::Up(1));
    }
    assert_eq!(app.state.browser.scroll, app.state.browser_cursor_row());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sibling folders whose names share a long beginning (a corpus's `repo.data.shaders.NAME`)
/// are told apart in a narrow list: each keeps where it parts from the folders beside it.
#[test]
fn sibling_folders_with_a_long_shared_beginning_stay_apart() {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    let dir = scratch("siblings");
    let names = [
        "Vulkan-glTF-PBR.data.shaders.filtercube-irradiancecube",
        "Vulkan-glTF-PBR.data.shaders.filtercube-prefilterenvmap",
        "Vulkan-glTF-PBR.data.shaders.skybox-skybox",
    ];
    for (k, n) in names.iter().enumerate() {
        write(&dir, &format!("{n}/s.wgsl"), &shader(k));
    }
    let app = open_dir(&dir);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    app.draw(&mut terminal).unwrap();
    let screen = shaderstep::app::replay::screen_text(terminal.backend().buffer());
    let folders: Vec<&str> = screen
        .lines()
        .filter_map(|l| l.split_once('▾').map(|(_, rest)| rest))
        .map(|rest| rest.split(" (").next().unwrap_or("").trim())
        .collect();
    assert_eq!(folders.len(), 3, "{screen}");
    for (shown, part) in folders.iter().zip(["irra", "pref", "skyb"]) {
        assert!(
            shown.contains(part),
            "{shown:?} does not say {part}:\n{screen}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Opens `dir` as the TUI does, keeping summaries for the next session under `cache`.
fn open_keeping(dir: &Path, cache: &Path, preset: &str) -> App {
    let mut app = App::open(
        shaderstep::app::event_loop::Inputs {
            roots: vec![dir.to_path_buf()],
            summary_cache: Some(cache.to_path_buf()),
            ..Default::default()
        },
        Pipeline::preset(preset).unwrap(),
        (120, 40),
        false,
    );
    app.settle();
    app
}

#[test]
fn a_tree_opened_again_runs_only_the_shaders_changed_since() {
    let dir = tree("kept");
    let cache = scratch("kept-cache");
    let sky = dir.join("sky.wgsl");
    let at = |app: &App, name: &str| {
        let d = app
            .state
            .docs
            .iter()
            .find(|d| d.path.ends_with(name))
            .unwrap();
        d.summary.clone().unwrap()
    };
    let mut first = open_keeping(&dir, &cache, "size");
    // The selected shader (main.wgsl) runs for its steps, not for a summary: look at others.
    assert!(first.state.docs[first.state.doc]
        .path
        .ends_with("main.wgsl"));
    let bloom_before = at(&first, "post/bloom.wgsl");
    let sky_before = at(&first, "sky.wgsl");
    first.keep_summaries();
    drop(first);
    assert_eq!(
        std::fs::read_dir(&cache).unwrap().count(),
        1,
        "one file for the tree"
    );

    std::fs::write(&sky, shader(30)).unwrap();
    let second = open_keeping(&dir, &cache, "size");
    // A summary taken from the last session says that session's run, time and all (a run
    // again would not take the same nanoseconds: kept, they are whole microseconds); the
    // changed file ran again, and so does one that does not compile (its error is not kept).
    let bloom_after = at(&second, "post/bloom.wgsl");
    assert_eq!(bloom_after.took.subsec_nanos() % 1000, 0, "{bloom_after:?}");
    assert_eq!(bloom_after.took.as_micros(), bloom_before.took.as_micros());
    assert_eq!(
        Summary {
            took: bloom_before.took,
            ..bloom_after
        },
        bloom_before
    );
    let said = common::messages(&second);
    assert!(
        said.iter()
            .any(|m| m == "10 summaries from the last session; --no-cache runs all"),
        "{said:?}"
    );
    let broken = at(&second, "post/broken.wgsl");
    assert_eq!(broken.status, DocStatus::CompileError);
    let sky_after = at(&second, "sky.wgsl");
    assert!(
        sky_after.after > sky_before.after,
        "{sky_before:?} → {sky_after:?}"
    );
    drop(second);

    // Another pipeline's summaries are not taken: every shader runs.
    let mut third = open_keeping(&dir, &cache, "O");
    assert_ne!(at(&third, "post/bloom.wgsl").took, bloom_after.took);
    third.keep_summaries();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn summaries_of_a_filling_tree_wait_for_the_next_frame_and_the_last_one_does_not() {
    let dir = scratch("pacing");
    for k in 0..80 {
        // Bytes of its own each: none is answered by another's run.
        let text = format!("{}// {k}\n", shader(8 + k % 5));
        write(&dir, &format!("f{}/s{k:02}.wgsl", k % 4), &text);
    }
    let mut app = open_filling(&dir, "O");
    let selected = app.state.doc;
    let mut polls = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while app.busy() && std::time::Instant::now() < deadline {
        if app.poll_jobs() {
            let running = app
                .state
                .docs
                .iter()
                .any(|d| d.status() == DocStatus::Running);
            let selected_done = app.state.docs[selected].run.is_some();
            polls.push((app.answers_can_wait(), running, selected_done));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    // Waiting is for summaries while others still run; the fill's last answer draws at once.
    assert!(
        polls.iter().all(|&(wait, running, _)| !wait || running),
        "{polls:?}"
    );
    assert_eq!(polls.last().map(|p| p.0), Some(false), "{polls:?}");
    assert!(
        polls.iter().any(|p| p.0),
        "some summaries waited: {polls:?}"
    );
    // The selected shader's steps never wait.
    let first_steps = polls.iter().position(|p| p.2).unwrap();
    assert!(!polls[first_steps].0, "{polls:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
