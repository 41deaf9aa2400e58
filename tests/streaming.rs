//! A run's steps arrive before the run is done: the worker reports each step as its pass
//! finishes, and an input with nothing to show yet shows them as they come (a large module's
//! first frame does not wait for its last pass). A reload keeps the complete run on screen;
//! a run that will not come (a compared pipeline that cannot run) is not waited for.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use shaderstep::app::action::{Action, Answer, Answered};
use shaderstep::app::event_loop::{App, AppEvent, Inputs};
use shaderstep::app::state::Summary;
use shaderstep::app::worker::{Done, Job, Report, StepDone, Worker};
use shaderstep::pipeline::compile::{compile, Compiled, Together};
use shaderstep::pipeline::input::{FrontEnds, InputError};
use shaderstep::pipeline::{Pipeline, Step};

fn shader() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/spvasm/phi_loop.spvasm")
}

/// The steps `compile` reports for the shader under `O`, and the run it returns.
fn streamed_compile() -> (Vec<Step>, Compiled) {
    let mut steps = Vec::new();
    let mut results = compile(
        &[shader()],
        &Pipeline::preset("O").unwrap(),
        &FrontEnds::default(),
        &Together::Apart,
        &|| false,
        &mut |p| {
            assert_eq!(p.input, 0);
            steps.push(p.step.clone());
        },
    )
    .expect("nothing cancels");
    let compiled = results.pop().unwrap().expect("the shader loads");
    (steps, compiled)
}

#[test]
fn compile_reports_every_step_of_the_run_it_returns() {
    let (steps, compiled) = streamed_compile();
    let run = &compiled.run;
    assert!(run.steps.len() > 5, "O has many passes");
    assert_eq!(steps.len(), run.steps.len());
    for (reported, step) in steps.iter().zip(&run.steps) {
        assert_eq!(reported.pass, step.pass);
        assert!(
            Arc::ptr_eq(&reported.module, &step.module),
            "{}: a reported step shares its module with the run's",
            step.pass
        );
    }
}

/// Every report a worker sends for one job, up to and with its `Done`.
fn reports(stream: bool) -> (Vec<StepDone>, Done) {
    let worker = Worker::new(
        Arc::new(Pipeline::preset("O").unwrap()),
        Arc::new(FrontEnds::default()),
        None,
        stream,
    );
    worker.submit(Job::steps(0, 1, shader()));
    let mut steps = Vec::new();
    loop {
        match worker.done.recv_timeout(Duration::from_secs(60)) {
            Ok(Report::Step(s)) => steps.push(*s),
            Ok(Report::Done(d)) => return (steps, *d),
            Err(e) => panic!("the worker did not answer: {e}"),
        }
    }
}

#[test]
fn a_streaming_worker_sends_each_step_before_the_run() {
    let (steps, done) = reports(true);
    let Ok(Some(compiled)) = &done.result else {
        panic!("the shader loads")
    };
    let run = &compiled.run;
    assert_eq!(steps.len(), run.steps.len());
    assert!(steps.iter().all(|s| s.doc == 0 && s.token == 1));
    let names: Vec<&str> = steps.iter().map(|s| s.step.pass).collect();
    let expected: Vec<&str> = run.steps.iter().map(|s| s.pass).collect();
    assert_eq!(names, expected);

    let (steps, _) = reports(false);
    assert!(
        steps.is_empty(),
        "a worker that does not stream sends runs only"
    );
}

/// The answer to request `token`: its whole run, or why the input did not load.
fn done(token: u64, result: Result<Compiled, InputError>) -> Answered {
    let summary = match &result {
        Ok(c) => Summary::of_run(&c.run, Duration::ZERO),
        Err(e) => Summary::of_error(e, Duration::ZERO),
    };
    Answered::Run(Done {
        doc: 0,
        token,
        summary,
        result: result.map(Some),
    })
}

fn answer(app: &mut App, answered: Answered) {
    app.handle(AppEvent::Action(Action::Answer(Answer::new(answered))));
}

fn step(token: u64, step: &Step) -> Answered {
    step_with_source(token, step, None)
}

/// A run's first step comes with the input's source text, when it has one.
fn step_with_source(token: u64, step: &Step, source: Option<Arc<str>>) -> Answered {
    Answered::Step(StepDone {
        doc: 0,
        token,
        step: step.clone(),
        source,
    })
}

fn screen(app: &mut App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(120, 30)).unwrap();
    app.draw(&mut terminal).unwrap();
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// An app on the shader whose own worker's answers are never read: the test answers for it.
fn app() -> App {
    let mut app = App::open(
        Inputs {
            files: vec![shader()],
            ..Inputs::default()
        },
        Pipeline::preset("O").unwrap(),
        (120, 30),
        false,
    );
    assert_eq!(app.state.docs[0].requested, 1);
    app.state.status.message = None;
    app
}

#[test]
fn the_first_steps_show_while_the_run_goes_on() {
    let (steps, compiled) = streamed_compile();
    let mut app = app();
    assert!(app.state.run().is_none());

    // An assembly input shows its text as a step of its own, before the passes.
    let source = compiled.source.clone();
    assert!(source.is_some());
    answer(&mut app, step_with_source(1, &steps[0], source));
    assert_eq!(app.state.run().unwrap().steps.len(), 2);
    assert!(app.state.run_under_way());
    let generation = app.state.docs[0].generation;
    let screen_then = screen(&mut app);
    assert!(
        screen_then.contains("running…") && screen_then.contains(steps[1].pass),
        "the pass list shows the pass running and those to come:\n{screen_then}"
    );
    // Steps are counted as the whole run will have them.
    assert!(
        screen_then.contains(&format!("step 0/{} ", steps.len())),
        "{screen_then}"
    );
    assert!(
        screen_then.contains("OpCapability Shader"),
        "the first step's IR is shown:\n{screen_then}"
    );
    // What the first frame printed.
    let printed = app.state.run().unwrap().steps[1].ir_listing();

    for st in &steps[1..] {
        answer(&mut app, step(1, st));
    }
    assert_eq!(app.state.run().unwrap().steps.len(), steps.len() + 1);
    assert!(app.state.run_under_way(), "not done until the run is");
    // :bisect waits for the whole run.
    app.handle(AppEvent::Action(Action::Bisect));
    let said = app.state.status.message.as_ref().map(|m| m.text.clone());
    assert!(
        said.as_deref()
            .is_some_and(|m| m.contains("still under way")),
        "{said:?}"
    );

    let n = compiled.run.steps.len() + 1;
    answer(&mut app, done(1, Ok(compiled)));
    let doc = &app.state.docs[0];
    assert!(!app.state.run_under_way());
    assert_eq!(doc.run.as_ref().unwrap().steps.len(), n);
    assert_eq!(
        doc.generation, generation,
        "the same steps, the same caches"
    );
    assert_eq!(doc.reloads, 0, "the first run is not a reload");
    assert!(
        Arc::ptr_eq(&doc.run.as_ref().unwrap().steps[1].ir_listing(), &printed),
        "the complete run keeps the text printed while it streamed"
    );
    let screen_now = screen(&mut app);
    assert!(!screen_now.contains("running…"), "{screen_now}");
}

#[test]
fn a_newer_request_replaces_steps_that_will_not_finish() {
    let (steps, _) = streamed_compile();
    let mut app = app();
    answer(&mut app, step(1, &steps[0]));
    answer(&mut app, step(1, &steps[1]));
    // The file changed: request 2 supersedes request 1, which stops without answering.
    app.state.docs[0].requested = 2;
    answer(&mut app, step(1, &steps[2]));
    assert_eq!(
        app.state.run().unwrap().steps.len(),
        2,
        "a superseded run's steps are dropped"
    );
    answer(&mut app, step(2, &steps[0]));
    assert_eq!(app.state.run().unwrap().steps.len(), 1);
    assert_eq!(app.state.docs[0].streaming, Some(2));

    // Request 2 fails to load after all: nothing complete was ever shown.
    answer(
        &mut app,
        done(
            2,
            Err(InputError {
                path: shader(),
                line: Some(3),
                message: "unknown opcode 'OpFrobnicate'".into(),
                source: None,
            }),
        ),
    );
    assert!(app.state.run().is_none(), "no half run is left on screen");
    assert!(!app.state.run_under_way());
    assert!(app.state.docs[0].error.is_some());
}

#[test]
fn a_reload_keeps_the_complete_run_until_the_new_one_is_done() {
    let (steps, compiled) = streamed_compile();
    let (_, again) = streamed_compile();
    let mut app = app();
    answer(&mut app, done(1, Ok(compiled)));
    let n = app.state.run().unwrap().steps.len();
    app.state.step = n - 1;
    app.state.docs[0].requested = 2;
    answer(&mut app, step(2, &steps[0]));
    assert_eq!(app.state.run().unwrap().steps.len(), n);
    assert!(!app.state.run_under_way());
    screen(&mut app);
    assert_eq!(app.state.step, n - 1, "the step looked at stays selected");
    answer(&mut app, done(2, Ok(again)));
    assert_eq!(app.state.docs[0].reloads, 1);
    assert!(app.state.docs[0].prev_run.is_some());
}

#[test]
fn a_compared_pipeline_that_cannot_run_leaves_no_run_awaited() {
    let mut app = app();
    app.handle(AppEvent::Action(Action::Compare(Some(
        "no-such-preset".into(),
    ))));
    let doc = &app.state.docs[0];
    assert_eq!(doc.compare_answered, doc.compare_requested);
    assert!(app.state.compare.spec.is_none());
    let said = app.state.status.message.as_ref().map(|m| m.text.clone());
    assert!(
        said.as_deref()
            .is_some_and(|m| m.contains("unknown preset 'no-such-preset'")),
        "{said:?}"
    );
    // A compared pipeline that runs asks for a run of every input.
    app.handle(AppEvent::Action(Action::Compare(Some("default".into()))));
    assert_eq!(app.state.compare.spec.as_deref(), Some("default"));
    let doc = &app.state.docs[0];
    assert_eq!(doc.compare_requested, doc.compare_answered + 1);
}
