//! The layering DESIGN.md asks for, checked on the sources: `ir` knows nothing of `pipeline`,
//! `app` or `views`; `pipeline` nothing of `app`, `views` or ratatui; and in `app` only the
//! event loop calls the views (state, update and the rest are plain data and logic), and the
//! event loop changes the state only through `update`.

use std::path::{Path, PathBuf};

fn sources(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    if root.is_file() {
        return vec![root];
    }
    let mut out = Vec::new();
    walk(&root, &mut out);
    out.sort();
    out
}

/// Lines of `path` that are code (not comments) and name `what`.
fn code_naming(path: &Path, what: &[&str]) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//"))
        .filter(|l| what.iter().any(|w| l.contains(w)))
        .map(str::to_string)
        .collect()
}

fn assert_none(dir: &str, what: &[&str], except: &[&str]) {
    let mut bad = Vec::new();
    for path in sources(dir) {
        if except.iter().any(|e| path.ends_with(e)) {
            continue;
        }
        for line in code_naming(&path, what) {
            bad.push(format!("{}: {line}", path.display()));
        }
    }
    assert!(bad.is_empty(), "{dir} names {what:?}:\n{}", bad.join("\n"));
}

#[test]
fn only_the_event_loop_calls_the_views() {
    assert_none("src/app", &["crate::views", "views::"], &["event_loop.rs"]);
}

/// Input depends on `update` (it turns keys and mouse events into actions for it), never the
/// reverse: what both need (`MouseKind`) lives in `action`.
#[test]
fn update_does_not_import_input() {
    assert_none("src/app/update", &["input::"], &[]);
}

#[test]
fn app_state_holds_no_terminal_types() {
    assert_none("src/app/state.rs", &["ratatui"], &[]);
}

#[test]
fn the_core_knows_nothing_of_the_ui() {
    assert_none(
        "src/ir",
        &["crate::pipeline", "crate::app", "crate::views", "ratatui"],
        &[],
    );
    assert_none(
        "src/pipeline",
        &["crate::app", "crate::views", "ratatui"],
        &[],
    );
}

#[test]
fn the_event_loop_changes_state_only_through_update() {
    // It may set up the state it opens with (`App::open`); after that, what it learns (keys,
    // files, answers, what an effect gave) goes to `update` as an action.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app/event_loop.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let after_open = text
        .split("pub fn open(")
        .nth(1)
        .and_then(|rest| rest.split_once("\n    }\n"))
        .map(|(_, rest)| rest)
        .expect("App::open in the event loop");
    let bad: Vec<&str> = after_open
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//"))
        .filter(|l| {
            let assigns = l
                .split_once(" = ")
                .is_some_and(|(lhs, _)| lhs.contains("state.") && !lhs.contains("state.layout"));
            l.contains(".set_error(")
                || l.contains(".set_message(")
                || assigns
                || l.contains("&mut self.state.")
                || l.contains("&mut app.state.")
        })
        .collect();
    assert!(
        bad.is_empty(),
        "the event loop sets state itself:\n{}",
        bad.join("\n")
    );
}

/// Passes edit a function taken out of the module through the rewrite kit's
/// `Module::with_function`/`edit_functions`, not by swapping a stand-in in by hand.
#[test]
fn passes_take_functions_out_through_the_kit() {
    assert_none(
        "src/pipeline/passes",
        &[
            "std::mem::replace(m.function_at_mut",
            "let placeholder = Function::new",
        ],
        &[],
    );
}

/// Passes and the linker make instructions only through the kit's `Builder`, which gives
/// code the location and scope of where it goes (or of what it stands for) and interns the
/// types and constants it declares: no instruction built by hand in `pipeline`.
#[test]
fn passes_make_instructions_through_the_builder() {
    assert_none(
        "src/pipeline",
        &[
            "Inst::new(",
            "Inst::with_args(",
            "Inst::label(",
            "= Inst {",
            "(Inst {",
        ],
        &[],
    );
}

/// The mutators `ir` keeps to itself (issue 48): the in-place accessors of functions and
/// modules, `Inst`'s `&mut self` methods, and handing out functions or renaming ids other than
/// through the kit (`rewrite::function_at_mut`, `rewrite::remap_ids`, ...).
const IR_ONLY: [&str; 17] = [
    "inst_mut",
    "blocks_mut",
    "block_mut",
    "block_insts_mut",
    "global_mut",
    "globals_mut",
    "annotations_mut",
    "function_list_mut",
    "functions_mut",
    "function_mut",
    "function_at_mut",
    "with_function",
    "edit_functions",
    "set_operands",
    "push_operand",
    "lits_mut",
    "remap_ids",
];

/// Fields of `Module` and `Function` holding instructions: read through the accessor of the
/// same name, changed through the kit (`retain_preamble`, `retain_interfaces`,
/// `set_return_type`, `retype_param`, ...).
const SECTIONS: [&str; 10] = [
    "preamble",
    "entry_points",
    "execution_modes",
    "debug",
    "trailing_debug",
    "def",
    "params",
    "prologue_debug",
    "leading_debug",
    "epilogue_debug",
];

/// Whether `line` changes field `field` of something in place: borrows it mutably, assigns
/// it, or calls a `Vec` method that changes it. Reading it (`m.entry_points()`, another
/// type's field of the same name compared or iterated) is not a change.
fn changes_field(line: &str, field: &str) -> bool {
    let dotted = format!(".{field}");
    line.match_indices(&dotted).any(|(at, _)| {
        let rest = &line[at + dotted.len()..];
        if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '(') {
            return false;
        }
        let receiver =
            line[..at].trim_end_matches(|c: char| c.is_alphanumeric() || "_.".contains(c));
        receiver.ends_with("&mut ")
            || [
                " = ",
                " += ",
                "[",
                ".retain",
                ".push",
                ".insert(",
                ".remove(",
                ".append(",
                ".extend(",
                ".clear(",
                ".iter_mut(",
                ".drain(",
                ".truncate(",
                ".sort",
                ".splice(",
                ".swap(",
                ".dedup",
            ]
            .iter()
            .any(|w| rest.starts_with(w))
    })
}

/// One way to change the IR (issue 48): outside `ir` an instruction's fields and `&mut self`
/// methods are private, and so are the sections of modules and functions and the in-place
/// accessors, so passes, the linker, reduce and the app change a module only through the
/// rewrite kit (`Builder`, `Edits`, `rewrite_inst`, `retype`, `edit_args`, `insert_blocks`,
/// `retain_preamble`, ...). Privacy holds it; this says so where it is read, and checks that
/// what it looks for is what `ir` keeps private.
#[test]
fn pipeline_and_app_change_the_ir_only_through_the_kit() {
    let mut writes: Vec<String> = IR_ONLY.iter().map(|m| format!(".{m}(")).collect();
    writes.extend(
        [
            ".args[",
            ".args.push(",
            ".args.retain(",
            ".args.extend(",
            ".args.clear(",
            ".args.remove(",
            ".args.iter_mut(",
            ".op = ",
            ".ty = ",
            ".result = ",
            ".loc = ",
        ]
        .map(String::from),
    );
    let writes: Vec<&str> = writes.iter().map(String::as_str).collect();
    for dir in ["src/pipeline", "src/app", "src/views"] {
        assert_none(dir, &writes, &[]);
        let mut bad = Vec::new();
        for path in sources(dir) {
            for line in code_naming(&path, &SECTIONS) {
                if SECTIONS.iter().any(|f| changes_field(&line, f)) {
                    bad.push(format!("{}: {line}", path.display()));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{dir} changes a section of a module or function in place:\n{}",
            bad.join("\n")
        );
    }

    // What is looked for is real: each mutator is defined in `ir` and private to it, and each
    // section is a field private to `ir` read through an accessor of its name.
    let ir: String = sources("src/ir")
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    for m in IR_ONLY {
        assert!(
            ["(", "<"]
                .iter()
                .any(|open| ir.contains(&format!("pub(in crate::ir) fn {m}{open}"))),
            "`{m}` is not a method private to ir: update IR_ONLY"
        );
    }
    for f in SECTIONS {
        assert!(
            ir.contains(&format!("pub(in crate::ir) {f}: "))
                && ir.contains(&format!("pub fn {f}(&self)")),
            "`{f}` is not a field private to ir with a reader: update SECTIONS"
        );
    }
    // And the check of sections sees changes, not reads.
    for changed in [
        "for ep in &mut m.entry_points {",
        "m.preamble.retain(|i| keep(i));",
        "out.debug.append(&mut b.debug);",
        "f.def = f.def.clone().retyped(Some(t));",
        "let p = &mut m.functions_mut()[0].params[1];",
    ] {
        assert!(
            SECTIONS.iter().any(|f| changes_field(changed, f)),
            "not seen as a change: {changed}"
        );
    }
    for read in [
        "for ep in m.entry_points() {",
        "if v.def == DefAt::Global {",
        ".or_else(|| m.entry_points.iter().find(of_model))",
        "let n = f.params().len();",
    ] {
        assert!(
            !SECTIONS.iter().any(|f| changes_field(read, f)),
            "seen as a change: {read}"
        );
    }
}

/// Code a pass adds to a function gets the source location in force where it goes: passes add
/// instructions through the kit's insertions (`insert_inst`, `append_inst`, `replace_inst`,
/// `Edits`, `add_inst_like`), never through the arena's bare `add_inst`, and set no
/// location by hand but from another instruction's.
#[test]
fn passes_add_code_where_it_takes_a_location() {
    assert_none("src/pipeline", &[".add_inst(", "Loc(", "Loc::NONE"], &[]);
}

/// The text of `fn NAME` in `path`: its signature and body, through the `}` that closes it at
/// the indentation it opens at.
fn function_text(path: &str, name: &str) -> String {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let start = text
        .find(&format!("fn {name}"))
        .unwrap_or_else(|| panic!("no fn {name} in {path}"));
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[line_start..start]
        [..text[line_start..start].len() - text[line_start..start].trim_start().len()];
    let close = format!("\n{indent}}}\n");
    let end = text[start..]
        .find(&close)
        .unwrap_or_else(|| panic!("fn {name} in {path} does not end"));
    text[start..start + end + close.len()].to_string()
}

/// Drawing only reads the state: what is derived from it (the code pane's rows, the layout, the
/// cursor and scroll kept in view, highlighting) is brought up to date once per event, after
/// `update`, by `derive::settle`; `App::draw` takes the app by shared reference and calls
/// nothing that changes the state, and every view takes `&State`.
#[test]
fn drawing_only_reads_the_state() {
    let draw = function_text("src/app/event_loop.rs", "draw<");
    let (signature, body) = draw.split_once('{').unwrap();
    assert!(
        signature.contains("(&self,"),
        "App::draw must take &self, so it cannot change the state:\n{signature}"
    );
    let body: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//"))
        .filter(|l| {
            [
                "&mut",
                "derive::",
                "settle",
                "layout::plan",
                "refresh",
                ".handle(",
            ]
            .iter()
            .any(|w| l.contains(w))
        })
        .collect();
    assert!(
        body.is_empty(),
        "App::draw changes or derives state:\n{}",
        body.join("\n")
    );
    // The views: `&State` only, and nothing of `derive` (which is what changes it).
    assert_none(
        "src/views",
        &[
            "&mut State",
            "mut s: State",
            "derive::",
            "update::",
            "cell::",
            "Mutex",
        ],
        &[],
    );
    // Settling is the event loop's, after each event (and once after opening).
    let handle = function_text("src/app/event_loop.rs", "handle(");
    assert!(
        handle.contains("self.settle_derived();"),
        "App::handle must settle the derived state after update:\n{handle}"
    );
    let settle = function_text("src/app/event_loop.rs", "settle_derived(");
    assert!(settle.contains("derive::settle("), "{settle}");
}

/// The same rule, seen from the state: after an event the cursor is already in view and the rows
/// on screen highlighted (or handed to the highlighter thread), and drawing leaves the state as
/// it found it.
#[test]
fn the_state_is_settled_by_the_event_not_by_the_draw() {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use shaderstep::app::action::Action;
    use shaderstep::app::event_loop::{App, AppEvent};
    use shaderstep::app::state::Focus;
    use shaderstep::pipeline::Pipeline;

    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/lighting.frag");
    let mut app = App::new(
        vec![example],
        Pipeline::preset("size").unwrap(),
        (100, 30),
        true,
    );
    while app.state.focus != Focus::Code {
        app.handle(AppEvent::Action(Action::Focus));
    }
    // Far down the code: only the cursor moves in `update`; the scroll follows in `settle`.
    app.handle(AppEvent::Action(Action::Down(60)));
    let seen = |app: &App| {
        let s = &app.state;
        (
            s.code.cursor,
            s.code.scroll,
            s.passes.scroll,
            s.source.scroll,
            s.panel.len(),
            s.cache.styles.len(),
            s.layout.clone(),
        )
    };
    let before = seen(&app);
    let (cursor, scroll, rows) = (before.0, before.1, app.state.layout.code_rows());
    assert!(
        cursor >= 60,
        "the code is too short for this test: cursor {cursor}"
    );
    assert!(
        scroll <= cursor && cursor < scroll + rows,
        "after the event the cursor {cursor} is out of view (scroll {scroll}, {rows} rows)"
    );
    // Each row on screen is highlighted before the draw, or handed to the highlighter thread
    // (`derive` highlights within a budget, with compiled grammars only), and highlighted
    // once the app settles.
    let rows_on_screen = |app: &App| {
        let s = &app.state;
        let shaderstep::app::state::Rows::Text { id, range, .. } = &s.panel.rows else {
            panic!("a text, not a diff, is on screen");
        };
        let first = range.start + s.code.scroll;
        (first..(first + rows).min(range.end))
            .map(|i| (*id, i))
            .collect::<Vec<_>>()
    };
    let wanted = |app: &App| -> Vec<(u64, usize)> {
        let w = &app.state.cache.highlight_wanted;
        w.iter().map(|l| l.key).collect()
    };
    for key in rows_on_screen(&app) {
        assert!(
            app.state.cache.styles.contains_key(&key) || wanted(&app).contains(&key),
            "row {key:?} on screen is neither highlighted nor handed to the highlighter"
        );
    }
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    app.draw(&mut terminal).unwrap();
    assert_eq!(seen(&app), before, "drawing changed the state");
    app.settle();
    assert!(wanted(&app).is_empty(), "{:?} left plain", wanted(&app));
    for key in rows_on_screen(&app) {
        assert!(
            app.state.cache.styles.contains_key(&key),
            "row {key:?} plain"
        );
    }
}

/// Every module of `src/ir` (as `ir::a::b`) and the modules it imports from `ir`: the paths it
/// names from `crate::ir::`, `super::` and `self::`, each taken to the longest module it
/// starts with, and names `ir` re-exports taken to where they are defined. A test module at a
/// file's end is not counted.
fn ir_imports() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    use std::collections::{BTreeMap, BTreeSet};
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files: BTreeMap<String, PathBuf> = sources("src/ir")
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).unwrap().with_extension("");
            let mut name = rel.to_string_lossy().replace('/', "::");
            if let Some(parent) = name.strip_suffix("::mod") {
                name = parent.to_string();
            }
            (name, p)
        })
        .collect();
    // `pub use func::{Block, …};` in ir/mod.rs: the name's home.
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    let root = std::fs::read_to_string(&files["ir"]).unwrap();
    for line in root
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub use "))
    {
        let (module, names) = line.split_once("::").unwrap();
        for n in names.trim_matches(|c| "{};".contains(c)).split(',') {
            reexports.insert(n.trim().to_string(), format!("ir::{module}"));
        }
    }
    let resolve = |path: &[&str]| -> Option<String> {
        (1..=path.len()).rev().find_map(|k| {
            let m = path[..k].join("::");
            if m == "ir" {
                return path.get(1).and_then(|n| reexports.get(*n).cloned());
            }
            files.contains_key(&m).then_some(m)
        })
    };
    let mut edges = BTreeMap::new();
    for (module, path) in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let text = match text.find("#[cfg(test)]\nmod ") {
            Some(at) => &text[..at],
            None => &text[..],
        };
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut out = BTreeSet::new();
        let here: Vec<&str> = module.split("::").collect();
        // Each path start, and what follows it: segments, or a `{…}` group of paths.
        let mut paths: Vec<Vec<String>> = Vec::new();
        let bytes = code.as_bytes();
        let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let mut i = 0;
        while i < bytes.len() {
            let start_ok = i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != b':';
            let head = ["crate::ir::", "super::", "self::"]
                .into_iter()
                .find(|h| code.as_bytes()[i..].starts_with(h.as_bytes()));
            let (Some(head), true) = (head, start_ok) else {
                i += 1;
                continue;
            };
            let prefix: Vec<String> = match head {
                "crate::ir::" => vec!["ir".into()],
                _ => {
                    let mut base: Vec<String> = here.iter().map(|s| s.to_string()).collect();
                    let mut j = i;
                    loop {
                        if code.as_bytes()[j..].starts_with("super::".as_bytes()) {
                            base.pop();
                            j += "super::".len();
                        } else if code.as_bytes()[j..].starts_with("self::".as_bytes()) {
                            j += "self::".len();
                        } else {
                            break;
                        }
                    }
                    i = j;
                    paths_from(&code, &mut i, base, &mut paths);
                    continue;
                }
            };
            i += head.len();
            paths_from(&code, &mut i, prefix, &mut paths);
        }
        for p in paths {
            let p: Vec<&str> = p.iter().map(String::as_str).collect();
            if let Some(m) = resolve(&p) {
                if m != *module && m != "ir" {
                    out.insert(m);
                }
            }
        }
        edges.insert(module.clone(), out);
    }
    edges
}

/// Reads the path at `*i` (segments joined by `::`, possibly ending in a `{…}` group) after
/// `prefix`, pushing each full path it names.
fn paths_from(code: &str, i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let bytes = code.as_bytes();
    let mut path = prefix;
    loop {
        let start = *i;
        while *i < bytes.len() && (bytes[*i].is_ascii_alphanumeric() || bytes[*i] == b'_') {
            *i += 1;
        }
        if *i > start {
            path.push(code[start..*i].to_string());
        }
        if code.as_bytes()[*i..].starts_with("::{".as_bytes()) {
            *i += 3;
            loop {
                while *i < bytes.len() && (bytes[*i] as char).is_whitespace() {
                    *i += 1;
                }
                if *i >= bytes.len() || bytes[*i] == b'}' {
                    *i += 1;
                    out.push(path.clone());
                    return;
                }
                paths_from(code, i, path.clone(), out);
                while *i < bytes.len() && !matches!(bytes[*i], b',' | b'}') {
                    *i += 1;
                }
                if *i < bytes.len() && bytes[*i] == b',' {
                    *i += 1;
                }
            }
        }
        if code.as_bytes()[*i..].starts_with("::".as_bytes()) {
            *i += 2;
            continue;
        }
        out.push(path);
        return;
    }
}

/// DESIGN: `src/ir` has no module cycles. No two of its files import each other, directly or
/// around a loop (location types are a leaf; the op table sits above the grammar).
#[test]
fn the_core_has_no_import_circle() {
    let edges = ir_imports();
    assert!(
        edges["ir::inst"].contains("ir::loc") && edges["ir::func"].contains("ir::markers"),
        "the import reader misses imports: {edges:?}"
    );
    // Depth-first search for a path back to where it started.
    fn back_to(
        edges: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        start: &str,
        at: &str,
        path: &mut Vec<String>,
        seen: &mut std::collections::BTreeSet<String>,
    ) -> bool {
        for next in edges.get(at).into_iter().flatten() {
            path.push(next.clone());
            if next == start
                || (seen.insert(next.clone()) && back_to(edges, start, next, path, seen))
            {
                return true;
            }
            path.pop();
        }
        false
    }
    for module in edges.keys() {
        let mut path = vec![module.clone()];
        let mut seen = std::collections::BTreeSet::new();
        assert!(
            !back_to(&edges, module, module, &mut path, &mut seen),
            "an import circle in src/ir: {}",
            path.join(" → ")
        );
    }
}
