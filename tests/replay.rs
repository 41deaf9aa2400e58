//! Replay scripts in `tests/replay/`: each runs against the real app with a test backend; its
//! `expect` lines must hold and its snapshots match the insta snapshots (plain text).

use std::path::Path;

use shaderstep::app::replay::{run_script, Options};

/// Timings and scratch paths change from run to run.
fn scrub(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut l = line.to_string();
        if let Some(start) = l.find("/shaderstep-replay-") {
            let end = l[start + 1..].find('/').map_or(l.len(), |e| start + 1 + e);
            // The path starts after a space or a pane's border.
            let from = l[..start]
                .char_indices()
                .rfind(|(_, c)| matches!(c, ' ' | '│'))
                .map_or(0, |(i, c)| i + c.len_utf8());
            // The scratch directory is as long as the process id: the row keeps its width,
            // padded after the path, so that what follows stays where it was.
            let pad = l[from..end].chars().count().saturating_sub("$TMP".len());
            let token_end = l[end..].find([' ', '│']).map_or(l.len(), |e| end + e);
            l.insert_str(token_end, &" ".repeat(pad));
            l.replace_range(from..end, "$TMP");
        }
        // Replace every "<digits>[.<digit>](µs|ms|s)" token with a placeholder of equal width.
        let chars: Vec<char> = l.chars().collect();
        let mut res = String::new();
        let mut i = 0;
        while i < chars.len() {
            let at_word_start = i == 0 || !chars[i - 1].is_alphanumeric();
            if at_word_start && chars[i].is_ascii_digit() {
                let mut j = i;
                while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                    j += 1;
                }
                let unit = ["µs", "ms", "s"].iter().find(|u| {
                    let u: Vec<char> = u.chars().collect();
                    chars.len() >= j + u.len()
                        && chars[j..j + u.len()] == u[..]
                        && chars.get(j + u.len()).is_none_or(|c| !c.is_alphanumeric())
                });
                if let Some(u) = unit {
                    // A time under a tool's resolution reads `<1ms`: the `<` goes too.
                    let mut width = j - i + u.chars().count();
                    if res.ends_with('<') {
                        res.pop();
                        width += 1;
                    }
                    // Within a sentence ("executed in 2.1ms, trace …") the text after moves
                    // with the time's width: the placeholder is not padded there.
                    let end = j + u.chars().count();
                    if matches!(chars.get(end), Some(',' | ')' | ';')) {
                        width = 1;
                    }
                    res.push_str(&format!("{:>width$}", "t"));
                    i = end;
                    continue;
                }
            }
            res.push(chars[i]);
            i += 1;
        }
        out.push_str(&res);
        out.push('\n');
    }
    out
}

fn run(name: &str) -> Vec<shaderstep::app::replay::Snapshot> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/replay")
        .join(format!("{name}.replay"));
    let script = std::fs::read_to_string(&path).unwrap();
    let snapshots = run_script(
        &script,
        Options {
            size: (110, 30),
            color: true,
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for s in &snapshots {
        insta::assert_snapshot!(format!("{name}__{}", s.name), scrub(&s.text));
    }
    snapshots
}

#[test]
fn basic() {
    run("basic");
}

#[test]
fn memory() {
    run("memory");
}

#[test]
fn optimize() {
    run("optimize");
}

/// The debug build of the bundled example (`assets/examples/lighting.gVS.frag.spv`): the source
/// line under the cursor comes from `DebugLine`.
#[test]
fn debug_lines() {
    run("debug-lines");
}

#[test]
fn diff() {
    run("diff");
}

/// Where the source pane finds its files: embedded (and marked when the disk differs), through
/// `[source] paths`, nowhere (saying where it looked), and read again when they change.
#[test]
fn source_files() {
    run("source-files");
}

/// The prompt's completion and history.
#[test]
fn prompt() {
    run("prompt");
}

/// `:write` never clobbers a file or the open shader, and writes a dialect step lifted.
#[test]
fn write() {
    run("write");
}

/// The debug-info audit: the pass list's -1L, `:lost` and the diff behind an entry.
#[test]
fn lost() {
    run("lost");
}

/// The source pane on the bundled GLSL example (80x24: under the code) and its -gVS build
/// (200x50: beside it); hidden again, the screen is exactly what it was before.
#[test]
fn source_pane() {
    let shots = run("source-pane");
    let text = |name: &str| &shots.iter().find(|s| s.name == name).unwrap().text;
    assert_eq!(text("narrow-off-before"), text("narrow-off-after"));
}

#[test]
fn history() {
    run("history");
}

#[test]
fn navigation() {
    run("navigation");
}

#[test]
fn commands() {
    run("commands");
}

#[test]
fn reload() {
    run("reload");
}

#[test]
fn mouse() {
    run("mouse");
}

#[test]
fn diagnostics() {
    common_tool_check();
    run("diagnostics");
}

#[test]
fn experimental() {
    run("experimental");
}

/// `:bisect` needs spirv-val; fail with how to install it rather than pass vacuously.
fn common_tool_check() {
    require_tools(&["spirv-val"]);
}

#[test]
fn watch_dir() {
    run("watch-dir");
}

/// The external compiler in the script is glslangValidator.
#[test]
fn external_compiler() {
    require_tools(&["glslangValidator"]);
    run("external-compiler");
}

/// The external optimizer in the script is spirv-opt.
#[test]
fn external() {
    require_tools(&["spirv-opt"]);
    run("external");
}

/// Another compiler's dumps as steps: the script's command needs glslangValidator and
/// spirv-opt.
#[test]
fn steps() {
    require_tools(&["spirv-opt", "glslangValidator"]);
    run("steps");
}

/// Fails, saying how to install them, when the command-line tools a script runs are missing.
fn require_tools(tools: &[&str]) {
    for tool in tools {
        let found = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
            .unwrap_or(false);
        assert!(found, "{tool} is not installed; install it with `apt-get install -y spirv-tools glslang-tools` (scripts/test.sh does this)");
    }
}

/// `--steps-cmd --watch`: a save runs the command again (glslang and spirv-opt).
#[test]
fn steps_watch() {
    require_tools(&["spirv-opt", "glslangValidator"]);
    run("steps_watch");
}

/// Lost lines, history, the source pane, `:bisect` and `:compare` over dumps (glslang, spirv-opt,
/// spirv-dis, spirv-as).
#[test]
fn steps_features() {
    require_tools(&[
        "spirv-opt",
        "glslangValidator",
        "spirv-as",
        "spirv-dis",
        "spirv-val",
    ]);
    run("steps_features");
}

/// `:cfg`: the graph, its diff, folding, Enter to the code, compact boxes at 80x24.
#[test]
fn cfg() {
    run("cfg");
}

/// `:view glsl|hlsl|msl|wgsl`: each step decompiled, diffed, with the source pane.
#[test]
fn decompile() {
    run("decompile");
}

/// `:columns 3`: three steps side by side, rows aligned by value.
#[test]
fn columns() {
    run("columns");
}

/// `:compare spirv-opt -O` needs spirv-opt.
#[test]
fn compare() {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("spirv-opt").is_file()))
        .unwrap_or(false);
    assert!(found, "spirv-opt is not installed; install it with `apt-get install -y spirv-tools` (scripts/test.sh does this)");
    run("compare");
}

/// `:bisect run` runs the shader on lavapipe.
#[test]
fn bisect_run() {
    run("bisect-run");
}

/// Key overrides from shaderstep.toml.
#[test]
fn keys() {
    run("keys");
}

#[test]
fn link_modules() {
    run("link-modules");
}

#[test]
fn link_view() {
    run("link-view");
}

#[test]
fn bad_input() {
    run("bad-input");
}

#[test]
fn glsl() {
    run("glsl");
}

#[test]
fn scrub_replaces_timings_and_paths() {
    assert_eq!(
        scrub("│  0 * lower   1.0ms │ 12µs 3s"),
        "│  0 * lower       t │    t  t\n"
    );
    assert_eq!(
        scrub("x /tmp/shaderstep-replay-12-3/a.wgsl y"),
        format!("x $TMP/a.wgsl{} y\n", " ".repeat(27 - 4))
    );
    // Whatever the process id, a pane's row scrubs alike, its border kept.
    let row = |pid: &str| {
        let path = format!("/tmp/shaderstep-replay-{pid}-1/empty");
        scrub(&format!("│{path}{}││", " ".repeat(40 - path.len())))
    };
    assert_eq!(row("7"), row("4194304"));
    assert!(row("7").starts_with("│$TMP/empty "), "{}", row("7"));
    assert_eq!(scrub("%float_2 v4s"), "%float_2 v4s\n");
    assert_eq!(scrub("+17   <1ms |"), "+17      t |\n");
}

/// With colour off (NO_COLOR), the screen carries no colours at all, only modifiers.
#[test]
fn no_color_means_no_colours() {
    use ratatui::backend::TestBackend;
    use ratatui::style::Color;
    use ratatui::Terminal;
    use shaderstep::app::event_loop::App;
    use shaderstep::pipeline::Pipeline;

    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/lighting.frag");
    for color in [false, true] {
        let mut app = App::new(
            vec![example.clone()],
            Pipeline::preset("size").unwrap(),
            (100, 30),
            color,
        );
        app.handle(shaderstep::app::event_loop::AppEvent::Action(
            "view diff".parse().unwrap(),
        ));
        let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        app.draw(&mut terminal).unwrap();
        let buf = terminal.backend().buffer();
        let coloured = buf
            .content()
            .iter()
            .filter(|c| c.fg != Color::Reset || c.bg != Color::Reset)
            .count();
        if color {
            assert!(
                coloured > 500,
                "expected a coloured screen, {coloured} coloured cells"
            );
        } else {
            assert_eq!(coloured, 0, "NO_COLOR screen has coloured cells");
        }
        // Without colours the focused pane (one) has a thick frame.
        let thick = buf.content().iter().filter(|c| c.symbol() == "┏").count();
        assert_eq!(thick, usize::from(!color), "thick corners (colour {color})");
    }
}

#[test]
fn the_selected_value_is_marked_wherever_it_stands() {
    use ratatui::backend::TestBackend;
    use ratatui::style::Modifier;
    use ratatui::Terminal;
    use shaderstep::app::event_loop::{App, AppEvent};
    use shaderstep::pipeline::Pipeline;

    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/lighting.frag");
    // Without colours the marks are underlines, which the cells keep.
    let mut app = App::new(
        vec![example],
        Pipeline::preset("size").unwrap(),
        (110, 40),
        false,
    );
    for action in ["step 1", "find %float = OpTypeFloat"] {
        app.handle(AppEvent::Action(action.parse().unwrap()));
    }
    let mut terminal = Terminal::new(TestBackend::new(110, 40)).unwrap();
    app.draw(&mut terminal).unwrap();
    let buf = terminal.backend().buffer();
    // Every `%float` on screen is underlined: the definition and the lines using it.
    let (w, h) = (buf.area.width as usize, buf.area.height as usize);
    let cells = buf.content();
    let mut found = 0;
    for y in 0..h {
        let row: String = (0..w).map(|x| cells[y * w + x].symbol()).collect();
        for (at, _) in row.match_indices("%float") {
            let after = row[at + 6..].chars().next();
            if after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let x = row[..at].chars().count();
            assert!(
                cells[y * w + x].modifier.contains(Modifier::UNDERLINED),
                "%float at row {y} is not marked: {row}"
            );
            found += 1;
        }
    }
    assert!(
        found >= 3,
        "expected %float on several lines, found {found}"
    );
}

/// `e` opens the editor at the source line of the instruction at the cursor (`+LINE FILE`); an
/// instruction with no line says so and opens nothing. `VISUAL` is a script that records its
/// arguments (no other test opens an editor, so the variable is this test's own).
#[test]
fn edit_opens_the_editor_at_the_source_line() {
    let dir = std::env::temp_dir().join(format!("shaderstep-edit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("args");
    let editor = dir.join("editor.sh");
    std::fs::write(
        &editor,
        format!("#!/bin/sh\necho \"$@\" > '{}'\n", record.display()),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::env::set_var("VISUAL", &editor);
    let script = "size 110x30\n\
                  open assets/examples/lighting.frag\n\
                  cmd :step lower\n\
                  cmd :find %1 = OpString\n\
                  key e\n\
                  expect \"no source line for the instruction at the cursor\"\n\
                  cmd :find %42 = OpFMul\n\
                  key e\n\
                  expect \"edited \"\n\
                  expect \"lighting.frag:40\"\n";
    run_script(
        script,
        Options {
            size: (110, 30),
            color: false,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let args = std::fs::read_to_string(&record).expect("the editor ran");
    let args: Vec<&str> = args.split_whitespace().collect();
    assert_eq!(args.len(), 2, "{args:?}");
    assert_eq!(args[0], "+40");
    assert!(
        args[1].ends_with("assets/examples/lighting.frag"),
        "{args:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `:bands on`: a source line and the code that came from it share a background colour in both
/// panes; neighbouring lines differ; `:bands off` takes them away.
#[test]
fn colour_bands_tie_source_lines_to_their_code() {
    use ratatui::backend::TestBackend;
    use ratatui::style::Color;
    use ratatui::Terminal;
    use shaderstep::app::event_loop::{App, AppEvent};
    use shaderstep::pipeline::Pipeline;

    let example =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/lighting.gVS.frag.spv");
    let mut app = App::new(
        vec![example],
        Pipeline::preset("O").unwrap(),
        (200, 50),
        true,
    );
    for cmd in [
        "source on",
        "step mem2reg",
        "find %1076 = OpFMul",
        "bands on",
    ] {
        app.handle(AppEvent::Action(cmd.parse().unwrap()));
    }
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).unwrap();
    app.draw(&mut terminal).unwrap();
    let buf = terminal.backend().buffer();
    let row_text =
        |y: u16| -> String { (0..200).map(|x| buf[(x, y)].symbol().to_string()).collect() };
    // The background of the first cell of `needle`'s text on the screen, left or right pane.
    let bg_of = |needle: &str, right: bool| -> Option<Color> {
        (0..50).find_map(|y| {
            let text = row_text(y);
            let at = if right {
                text.rfind(needle)
            } else {
                text.find(needle)
            }?;
            let x = text[..at].chars().count() as u16;
            Some(buf[(x, y)].bg)
        })
    };
    // Line 41 (`a2 = a * a`) and its multiply, in the code pane and in the source pane.
    let code = bg_of("%1080 = OpFMul", false).expect("the multiply of line 41 on screen");
    let source = bg_of("float a2 = a * a;", true).expect("line 41 in the source pane");
    assert_ne!(code, Color::Reset, "the code has a band");
    assert_eq!(code, source, "the line and its code share the band");
    let other = bg_of("float d = n_dot_h", true).expect("line 42 in the source pane");
    assert_ne!(other, source, "neighbouring lines have other bands");
    app.handle(AppEvent::Action("bands off".parse().unwrap()));
    app.draw(&mut terminal).unwrap();
    let buf = terminal.backend().buffer();
    let text: Vec<String> = (0..50)
        .map(|y| (0..200).map(|x| buf[(x, y)].symbol().to_string()).collect())
        .collect();
    let y = text
        .iter()
        .position(|l| l.contains("%1080 = OpFMul"))
        .unwrap() as u16;
    let x = text[y as usize][..text[y as usize].find("%1080").unwrap()]
        .chars()
        .count() as u16;
    assert_eq!(buf[(x, y)].bg, Color::Reset);
}

/// The prompt's history is kept across runs in the history file: read when the app opens,
/// appended to as commands run.
#[test]
fn prompt_history_is_kept_across_runs() {
    use shaderstep::app::action::Action;
    use shaderstep::app::event_loop::{App, AppEvent, Inputs};
    use shaderstep::app::state::Mode;
    use shaderstep::pipeline::Pipeline;

    let dir = std::env::temp_dir().join(format!("shaderstep-history-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let file = dir.join("state/history");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "cmd step verify\nfind OpFMul\n").unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/lighting.frag");
    let open = || {
        let mut app = App::open(
            Inputs {
                files: vec![example.clone()],
                history_file: Some(file.clone()),
                ..Inputs::default()
            },
            Pipeline::preset("size").unwrap(),
            (100, 30),
            false,
        );
        app.settle();
        app
    };
    let mut app = open();
    for a in [Action::CommandLine, Action::PromptHistory(true)] {
        app.handle(AppEvent::Action(a));
    }
    assert_eq!(app.state.prompt.mode, Mode::Command("step verify".into()));
    // A command run now is there for the next run.
    app.handle(AppEvent::Action(Action::PromptCancel));
    app.handle(AppEvent::Action(Action::CommandLine));
    for c in "view diff".chars() {
        app.handle(AppEvent::Action(Action::PromptInsert(c)));
    }
    app.handle(AppEvent::Action(Action::PromptSubmit));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.ends_with("cmd view diff\n"), "{text}");
    let mut app = open();
    for a in [Action::CommandLine, Action::PromptHistory(true)] {
        app.handle(AppEvent::Action(a));
    }
    assert_eq!(app.state.prompt.mode, Mode::Command("view diff".into()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shader browser at 80x24: long names keep their beginning and end, and the `/` filter.
#[test]
fn browser() {
    run("browser");
}

/// A tree of shaders: folders with counts that fold, `]` to the failing one, `/!`, the sort.
#[test]
fn tree() {
    run("tree");
}

/// The left column's width: the same for every shader, moved by keys, `:split` and a drag.
#[test]
fn split() {
    let shots = run("split");
    let edge = |name: &str| {
        let text = &shots.iter().find(|s| s.name == name).unwrap().text;
        let first = text.lines().next().unwrap();
        first.chars().position(|c| c == '┐').unwrap() + 1
    };
    assert_eq!(edge("first"), 40);
    assert_eq!(edge("second"), 40, "the layout jumps between shaders");
    assert_eq!(edge("wider"), 44);
    assert_eq!(edge("narrower"), 36);
    assert_eq!(edge("at-60"), 60);
    assert_eq!(edge("default"), 40);
    assert_eq!(edge("dragged"), 71);
    assert_eq!(edge("not-dragged"), 71);
}

/// shaderstep.toml is reloaded when it changes.
#[test]
fn config_reload() {
    run("config-reload");
}

/// Every pane at 80x24 and at 220x60 (`sizes.replay`, run at both sizes).
#[test]
fn sizes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replay/sizes.replay");
    let body = std::fs::read_to_string(&path).unwrap();
    for (w, h) in [(80, 24), (220, 60)] {
        let script = format!("size {w}x{h}\n{body}");
        let snapshots = run_script(
            &script,
            Options {
                size: (w, h),
                color: true,
            },
        )
        .unwrap_or_else(|e| panic!("{} at {w}x{h}: {e}", path.display()));
        assert_eq!(snapshots.len(), 12);
        for s in &snapshots {
            insta::assert_snapshot!(format!("sizes_{w}x{h}__{}", s.name), scrub(&s.text));
        }
    }
}

/// Register pressure and the instruction mix: the pass list's column, the gutter, the values
/// live at the peak, the cost pane and its chart.
#[test]
fn cost() {
    run("cost");
}

/// The values column: a compute shader's invocations (a loop's counts, `:invocation`, hex,
/// another step) and a fragment shader's pixels (the branch not taken marked not run).
#[test]
fn exec() {
    run("exec");
}

/// `:first-difference`: a shader and a copy with a planted change, compute and fragment; steps
/// of one run that compute the same; a name that is neither a step nor an input.
#[test]
fn first_difference() {
    run("first-difference");
}

/// Watching with the values column: after a save, `p` shows the values the edit changed.
#[test]
fn values_after_save() {
    run("values-after-save");
}

/// Stepping through an execution: next, previous, the next iteration, on to the cursor's line,
/// the last result, and off.
#[test]
fn trace() {
    run("trace");
}

/// A key's name written bare (`key Enter`) would type its letters — `e` among them opens the
/// editor and the replay would wait on it: the script is refused, naming the key to write.
#[test]
fn a_bare_key_name_is_refused() {
    let open = format!(
        "size 80x24\nopen {}/assets/examples/cull.comp\n",
        env!("CARGO_MANIFEST_DIR")
    );
    let script = format!("{open}key Enter\n");
    let options = Options {
        size: (80, 24),
        color: false,
    };
    let e = match run_script(&script, options) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a bare key name was typed"),
    };
    assert!(e.contains("the key is <Enter>"), "{e}");
    let options = Options {
        size: (80, 24),
        color: false,
    };
    if let Err(e) = run_script(&format!("{open}key jk\nkey <Esc>\n"), options) {
        panic!("plain keys are typed: {e}");
    }
}
