//! Benchmark (not a test): the TUI on a large module — time to first frame, frame render times
//! while scrolling, time to compute a diff between two steps, and memory. Prints figures.
//!
//! cargo bench --bench tui [-- FUNCTIONS] [PRESET] [memory]
//!
//! PRESET (default `size`) is the pipeline stepped through; `memory` measures only what the
//! app holds once the whole run is in (resident memory before it opens and after), alone in
//! the process.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use shaderstep::app::action::{Action, StepRef, ViewMode};
use shaderstep::app::derive::step_lines;
use shaderstep::app::event_loop::{App, AppEvent, Inputs};
use shaderstep::app::state::{Focus, TextKind};
use shaderstep::pipeline::diff::diff_lines;
use shaderstep::pipeline::Pipeline;

mod common;
use common::{large_module_text, large_module_with_lines, status_kib};

/// Counts the bytes the process holds on the heap: resident memory also counts what the
/// allocator keeps after it is freed (each thread's arena), which varies with the allocation
/// pattern more than with what the app holds.
struct Counting;

static LIVE: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; only sizes are counted.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        LIVE.fetch_sub(layout.size() as isize, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(
            new as isize - layout.size() as isize,
            std::sync::atomic::Ordering::Relaxed,
        );
        unsafe { std::alloc::System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live_mib() -> f64 {
    LIVE.load(std::sync::atomic::Ordering::Relaxed) as f64 / (1024.0 * 1024.0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Frame times, sorted, of 400 pages down and then 400 lines down (which re-highlights one new
/// row per frame), each an event handled and a frame drawn.
fn scroll_frames(app: &mut App, terminal: &mut Terminal<TestBackend>) -> Vec<Duration> {
    let mut frames = Vec::new();
    for action in [Action::PageDown, Action::Down(1)] {
        for _ in 0..400 {
            let t = Instant::now();
            app.handle(AppEvent::Action(action.clone()));
            app.draw(terminal).unwrap();
            frames.push(t.elapsed());
        }
    }
    frames.sort();
    frames
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let functions: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(1500);
    let memory_only = args.iter().any(|a| a == "memory");
    let preset: &str = args
        .iter()
        .find(|a| a.parse::<usize>().is_err() && *a != "memory" && !a.starts_with('-'))
        .map_or("size", String::as_str);
    let dir = std::env::temp_dir().join(format!("shaderstep-tui-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A binary input, as most real shaders arrive (an .spvasm input adds assembling it).
    let path: PathBuf = dir.join("large.spv");
    let words = shaderstep::ir::spirv::asm::assemble(&large_module_text(functions)).unwrap();
    std::fs::write(
        &path,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let rss_before = status_kib("VmRSS:");
    let live_before = live_mib();
    if !memory_only {
        // Where the first frame's time goes.
        let text = large_module_text(functions);
        let t = Instant::now();
        let words = shaderstep::ir::spirv::asm::assemble(&text).unwrap();
        let t_asm = t.elapsed();
        let t = Instant::now();
        let run = Pipeline::preset(preset)
            .unwrap()
            .run(std::sync::Arc::new(words.clone()));
        let t_run = t.elapsed();
        let t = Instant::now();
        let ir = run.steps[0].ir_text();
        let t_print = t.elapsed();
        let t = Instant::now();
        let v: Vec<String> = ir.lines().map(str::to_string).collect();
        let t_split = t.elapsed();
        let t = Instant::now();
        let _ = shaderstep::ir::spirv::read::read_words(&words).unwrap();
        let t_read = t.elapsed();
        let t = Instant::now();
        let _ = shaderstep::ir::verify::verify(&run.steps[0].module);
        let t_verify = t.elapsed();
        let t = Instant::now();
        let _ = shaderstep::pipeline::cost::Cost::of(&run.steps[0].module);
        let t_cost = t.elapsed();
        println!(
            "breakdown: (assembling the text form {:.1} ms), read {:.1} ms, verify {:.1} ms, pressure and mix {:.1} ms, 6 passes {:.1} ms, print IR {:.1} ms, split {:.1} ms ({} lines)",
            ms(t_asm), ms(t_read), ms(t_verify), ms(t_cost), ms(t_run), ms(t_print), ms(t_split), v.len()
        );
        for st in &run.steps {
            print!("{} {:.1}ms  ", st.pass, ms(st.duration));
        }
        println!();
    }

    let (w, h) = (160u16, 48u16);
    // What a user sees: the app opens, the first step arrives while the later passes run, and
    // the first frame shows it; the rest of the run follows.
    let t0 = Instant::now();
    let mut app = App::open(
        Inputs {
            files: vec![path.clone()],
            ..Inputs::default()
        },
        Pipeline::preset(preset).unwrap(),
        (w, h),
        true,
    );
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    while app.state.run().is_none() {
        if !app.poll_jobs() {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    app.draw(&mut terminal).unwrap();
    let first_frame = t0.elapsed();
    let steps_at_first_frame = app.state.run().map_or(0, |r| r.steps.len());
    app.settle();
    app.draw(&mut terminal).unwrap();
    let whole_run = t0.elapsed();
    if memory_only {
        let steps = app.state.run().map_or(0, |r| r.steps.len());
        println!(
            "memory under {preset}: {steps} steps of {functions} functions; the app holds {:.1} MiB of heap once the run is in (resident +{:.1} MiB, peak {:.1} MiB)",
            live_mib() - live_before,
            (status_kib("VmRSS:") - rss_before) as f64 / 1024.0,
            status_kib("VmHWM:") as f64 / 1024.0
        );
        return;
    }
    let run = app.state.run().unwrap().clone();
    let lines = app.state.panel.len();
    println!(
        "module: {functions} functions, {} instructions; IR text after lower: {lines} lines",
        run.steps[0].inst_count
    );
    println!(
        "first frame (load + lower + print + highlight + draw, {steps_at_first_frame} of {} steps there): {:>8.1} ms",
        run.steps.len(),
        ms(first_frame)
    );
    println!(
        "whole run shown (load + 6 passes + draw):                        {:>8.1} ms",
        ms(whole_run)
    );
    let pipeline_time: Duration = run.steps.iter().map(|s| s.duration).sum();
    println!("  of which passes: {:.1} ms", ms(pipeline_time));
    let step = |name: &str| {
        run.steps
            .iter()
            .position(|s| s.pass == name)
            .expect("pass in the size preset")
    };
    // Realistic differences: what one pass changed.
    for (a, b) in [
        ("verify", "dce"),
        ("dce", "strip-debug"),
        ("strip-debug", "compact-ids"),
    ] {
        let old = step_lines(&mut app.state, step(a), TextKind::Ir);
        let new = step_lines(&mut app.state, step(b), TextKind::Ir);
        for ignore in [false, true] {
            let t = Instant::now();
            let d = diff_lines(&old.lines, &new.lines, ignore);
            println!(
                "diff {a} → {b} ({} vs {} lines{}): {:.1} ms, +{} −{}",
                old.len(),
                new.len(),
                if ignore { ", renumbering ignored" } else { "" },
                ms(t.elapsed()),
                d.added,
                d.removed
            );
        }
    }

    // Scroll the IR of the first step with page-down and measure each frame.
    app.state.focus = Focus::Code;
    let frames = scroll_frames(&mut app, &mut terminal);
    println!(
        "frame while scrolling ({} frames): median {:.2} ms, p99 {:.2} ms, worst {:.2} ms",
        frames.len(),
        ms(frames[frames.len() / 2]),
        ms(frames[frames.len() * 99 / 100]),
        ms(*frames.last().unwrap())
    );

    // The pressure gutter on: the step's cost (computed by the worker in the background, or
    // here when it was not yet) and frames while scrolling with it.
    let t = Instant::now();
    let cost = app.state.run().unwrap().steps[app.state.step].cost();
    println!(
        "pressure and mix of the step shown ({} functions, peak {}): {:.1} ms",
        cost.pressure.functions.len(),
        cost.pressure.max,
        ms(t.elapsed())
    );
    app.handle(AppEvent::Action(Action::Pressure(Some(true))));
    app.handle(AppEvent::Action(Action::Top));
    let frames = scroll_frames(&mut app, &mut terminal);
    println!(
        "frame while scrolling, pressure gutter on ({} frames): median {:.2} ms, p99 {:.2} ms, worst {:.2} ms",
        frames.len(),
        ms(frames[frames.len() / 2]),
        ms(frames[frames.len() * 99 / 100]),
        ms(*frames.last().unwrap())
    );
    app.handle(AppEvent::Action(Action::Pressure(Some(false))));

    let t = Instant::now();
    app.handle(AppEvent::Action(Action::Diff(Some((
        StepRef::Index(step("dce")),
        StepRef::Index(step("strip-debug")),
    )))));
    app.handle(AppEvent::Action(Action::View(ViewMode::Diff)));
    app.draw(&mut terminal).unwrap();
    println!(
        "switch to the diff view dce → strip-debug and draw: {:.1} ms",
        ms(t.elapsed())
    );

    // The same module built with line info, its source beside it: frames while scrolling with
    // the source pane following the cursor and the colour bands on.
    let (text, source) = large_module_with_lines(functions, "large.frag");
    let lined = dir.join("lined.spv");
    let words = shaderstep::ir::spirv::asm::assemble(&text).unwrap();
    std::fs::write(
        &lined,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    std::fs::write(dir.join("large.frag"), source).unwrap();
    let mut app = App::new(vec![lined], Pipeline::preset("size").unwrap(), (w, h), true);
    let t = Instant::now();
    for cmd in ["source on", "bands on", "step lower"] {
        app.handle(AppEvent::Action(cmd.parse().unwrap()));
    }
    println!(
        "source pane and bands on, then the step selected (index of rows by source line): {:.1} ms",
        ms(t.elapsed())
    );
    app.state.focus = Focus::Code;
    app.draw(&mut terminal).unwrap();
    let frames = scroll_frames(&mut app, &mut terminal);
    let shown = app.state.source.line.is_some();
    println!(
        "frame while scrolling, source pane and bands on ({} frames, {} lines of source, a line marked: {shown}): median {:.2} ms, p99 {:.2} ms, worst {:.2} ms",
        frames.len(),
        functions * 45,
        ms(frames[frames.len() / 2]),
        ms(frames[frames.len() * 99 / 100]),
        ms(*frames.last().unwrap())
    );

    let rss_after = status_kib("VmRSS:");
    let peak = status_kib("VmHWM:");
    println!(
        "memory: resident {:.1} MiB after (+{:.1} MiB for the app), peak {:.1} MiB",
        rss_after as f64 / 1024.0,
        rss_after.saturating_sub(rss_before) as f64 / 1024.0,
        peak as f64 / 1024.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}
