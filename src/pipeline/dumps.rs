//! Steps another compiler wrote (`--steps DIR|FILE...|LOG`): the modules it dumped after its
//! passes, binary or assembly, one file a step, or a log that prints them all.
//!
//! - Files: a directory's are taken in the natural order of their names (`2_mem2reg.spv`
//!   before `10-dce.spv`); the first file is the input and every other a step, named after its
//!   file less a number prefix and the extension.
//! - A log in `--print-all` form: spirv-opt's and DXC's (`-fspv-print-all`: `; IR before pass
//!   NAME` before each pass, `; IR after last pass` at the end), or ours (`run
//!   --print-after-all`: `; *** IR after pass N: NAME (…) ***`). The module it prints first is
//!   the input; each pass is a step named after it. `-` reads it from standard input.

use std::path::{Path, PathBuf};

use crate::ir::spirv::asm::{assemble_sharing, SharedNames};
use crate::ir::Module;

/// Where the steps come from.
#[derive(Clone, Debug)]
pub enum Dumps {
    /// The steps after the input, one module a file.
    Files(Vec<PathBuf>),
    /// A directory's modules after its first (the input), listed again at every run: a
    /// compiler (or `--steps-cmd` with `--watch`) may dump them anew.
    Dir(PathBuf),
    /// A log whose first module is the input (read again at every run: a command or an editor
    /// may write it anew).
    Log(PathBuf),
}

/// What `--steps PATHS` opens: the input (a file the pipeline runs on, as any input) and where
/// the steps come from. One file that is a log (or `-`) is a log; else every file a module.
pub fn open(paths: &[PathBuf]) -> Result<(PathBuf, Dumps), String> {
    if let [one] = paths {
        if one.as_os_str() == "-" || (one.is_file() && is_log_file(one)) {
            return Ok((one.clone(), Dumps::Log(one.clone())));
        }
    }
    let files = dump_files(paths)?;
    if let [dir] = paths {
        if dir.is_dir() {
            return Ok((files[0].clone(), Dumps::Dir(dir.clone())));
        }
    }
    Ok((files[0].clone(), Dumps::Files(files[1..].to_vec())))
}

/// The steps a `Dumps` holds now, after the input: a directory is listed again.
pub fn step_files(dumps: &Dumps) -> Result<Vec<PathBuf>, String> {
    match dumps {
        Dumps::Files(files) => Ok(files.clone()),
        Dumps::Dir(dir) => Ok(module_files(std::slice::from_ref(dir))?
            .into_iter()
            .skip(1)
            .collect()),
        Dumps::Log(_) => Ok(Vec::new()),
    }
}

/// The fresh directory a `--steps-cmd` command writes its dumps to, taken away with what is
/// in it when dropped (when the program is done with the steps).
#[derive(Debug)]
pub struct CommandOut {
    pub dir: PathBuf,
}

impl Drop for CommandOut {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A fresh directory for a command's `$OUT`: `tag` tells a first run from a later one.
fn fresh_dir(tag: &str) -> Result<PathBuf, String> {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "shaderstep-steps-{}-{}{tag}",
        std::process::id(),
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Runs `command` through `sh` with `$OUT` the empty directory `dir`; when it writes nothing
/// there but prints a `--print-all` log, what it printed goes to `dir/printed.log`. Errors
/// say what the command said.
fn run_into(command: &str, dir: &Path) -> Result<(), String> {
    let ran = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .env("OUT", dir)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run '{command}': {e}"))?;
    let said = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = text.lines().rev().take(4).collect();
        lines.into_iter().rev().collect::<Vec<_>>().join(" — ")
    };
    if !ran.status.success() {
        return Err(format!(
            "--steps-cmd failed ({}): {}",
            ran.status,
            said(&ran.stderr)
        ));
    }
    let wrote = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .next()
        .is_some();
    if !wrote {
        let printed = [ran.stdout.as_slice(), ran.stderr.as_slice()].concat();
        let is_log = std::str::from_utf8(&printed).is_ok_and(|t| parse_log(t).is_some());
        if !is_log {
            return Err("--steps-cmd wrote nothing to $OUT and printed no --print-all log".into());
        }
        let log = dir.join(PRINTED_LOG);
        std::fs::write(&log, printed).map_err(|e| format!("{}: {e}", log.display()))?;
    }
    Ok(())
}

/// Where a command's printed `--print-all` log is kept.
const PRINTED_LOG: &str = "printed.log";

/// What a command wrote to `dir` opens as: its one log, or its modules as `open` opens a
/// directory.
fn open_written(dir: &Path) -> Result<(PathBuf, Dumps), String> {
    let wrote: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    match wrote.as_slice() {
        [one] if is_log_file(one) => Ok((one.clone(), Dumps::Log(one.clone()))),
        _ => open(&[dir.to_path_buf()]),
    }
}

/// Runs `command` (through `sh`, with `$OUT` a fresh directory) and opens what it wrote there
/// as `open` opens a directory: modules, or one `--print-all` log. A command that writes
/// nothing there but prints a log (spirv-opt's or DXC's `--print-all` go to standard error)
/// has what it printed read as that log. Errors say what the command said.
pub fn from_command(command: &str) -> Result<(PathBuf, Dumps, CommandOut), String> {
    let dir = fresh_dir("")?;
    let out = CommandOut { dir: dir.clone() };
    run_into(command, &dir)?;
    let (input, dumps) = open_written(&dir)?;
    Ok((input, dumps, out))
}

/// Runs `command` again (`--steps-cmd` with `--watch`: a source was saved) and puts what it
/// wrote in `out` in place of what the first run wrote, so the input and the steps opened
/// from `out` read the new dumps at their next run. The input must keep its name (the first
/// module, or the one log): what the app shows is that file. Says what it found.
pub fn rerun(command: &str, out: &Path, input: &Path) -> Result<String, String> {
    let next = CommandOut {
        dir: fresh_dir("-next")?,
    };
    run_into(command, &next.dir)?;
    let (new_input, dumps) = open_written(&next.dir)?;
    if new_input.file_name() != input.file_name() {
        return Err(format!(
            "--steps-cmd now writes {} first, not {}: open it again",
            file_name(&new_input),
            file_name(input)
        ));
    }
    let steps = match &dumps {
        Dumps::Log(log) => log_text(log)
            .ok()
            .and_then(|t| parse_log(&t))
            .map_or(0, |p| p.len().saturating_sub(1)),
        other => step_files(other)?.len(),
    };
    // Files the first run wrote and this one did not go; the others are renamed over theirs.
    let entries = |dir: &Path| -> Result<Vec<PathBuf>, String> {
        Ok(std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect())
    };
    let written = entries(&next.dir)?;
    for old in entries(out)? {
        if !written.iter().any(|w| w.file_name() == old.file_name()) {
            let _ = std::fs::remove_file(&old).or_else(|_| std::fs::remove_dir_all(&old));
        }
    }
    for w in &written {
        let to = out.join(w.file_name().unwrap_or_default());
        if to.is_dir() {
            let _ = std::fs::remove_dir_all(&to);
        }
        std::fs::rename(w, &to).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    Ok(format!("{steps} step{}", if steps == 1 { "" } else { "s" }))
}

/// The steps `paths` hold after an input given apart (`exec`, `cost`, `reduce`): a log's
/// modules after its first, or every module file (one that is the input again is a step that
/// changes nothing).
pub fn steps_after(paths: &[PathBuf]) -> Result<Dumps, String> {
    if let [one] = paths {
        if one.as_os_str() == "-" || (one.is_file() && is_log_file(one)) {
            return Ok(Dumps::Log(one.clone()));
        }
    }
    Ok(Dumps::Files(module_files(paths)?))
}

/// The input, where the steps come from, and a command's `$OUT`, to keep while the steps
/// are in use.
pub type Opened = (PathBuf, Dumps, Option<CommandOut>);

/// What `--steps PATHS` or `--steps-cmd COMMAND` opens (one of them, as the command line
/// allows); `None` for neither.
pub fn from_flags(
    steps: Option<&[PathBuf]>,
    command: Option<&str>,
) -> Result<Option<Opened>, String> {
    if let Some(command) = command {
        let (input, dumps, out) = from_command(command)?;
        return Ok(Some((input, dumps, Some(out))));
    }
    let opened = steps.map(open).transpose()?;
    Ok(opened.map(|(input, dumps)| (input, dumps, None)))
}

fn is_log_file(path: &Path) -> bool {
    std::fs::read(path)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .is_some_and(|t| is_log(&t))
}

/// Whether `text` is a `--print-all` log: a header `parse_log` reads opens a line.
pub fn is_log(text: &str) -> bool {
    text.lines()
        .any(|l| l.starts_with("; IR before pass ") || l.starts_with(OURS))
}

/// One module a log prints: the pass after which (`input` for the first) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    pub name: String,
    pub text: String,
}

/// Our own `--print-after-all` header.
const OURS: &str = "; *** IR after pass ";

/// The modules a `--print-all` log prints, the input first; `None` when `text` is not one.
pub fn parse_log(text: &str) -> Option<Vec<Printed>> {
    if text.lines().any(|l| l.starts_with("; IR before pass ")) {
        let (input, passes) = super::external::parse_print_all(text);
        let steps = std::iter::once(Printed {
            name: "input".into(),
            text: input,
        })
        .chain(passes.into_iter().map(|p| Printed {
            name: p.name,
            text: p.text,
        }))
        .collect();
        return Some(steps);
    }
    let mut steps: Vec<Printed> = Vec::new();
    let mut in_step = false;
    for line in text.lines() {
        if let Some(header) = line.strip_prefix(OURS) {
            // `N: NAME (changed) [...] ***`
            let name = header
                .split_once(": ")
                .map_or(header, |(_, rest)| rest)
                .split(" (")
                .next()
                .unwrap_or_default();
            steps.push(Printed {
                name: name.trim().to_string(),
                text: String::new(),
            });
            in_step = true;
            continue;
        }
        // The source text a shader compiled from is no module.
        if line.starts_with("; *** step ") {
            in_step = false;
            continue;
        }
        if let (true, Some(step)) = (in_step, steps.last_mut()) {
            step.text.push_str(line);
            step.text.push('\n');
        }
    }
    (!steps.is_empty()).then_some(steps)
}

/// The module a log prints: our IR text (which says where each instruction came from) or
/// SPIR-V assembly, whose names take the ids `names` gives them at every step.
pub fn read_printed(text: &str, names: &mut SharedNames) -> Result<Module, String> {
    if is_ir_text(text) {
        return crate::ir::parse::parse(text)
            .map_err(|e| format!("line {}: {}", e.line, e.message));
    }
    let words = printed_words(text, names)?;
    crate::ir::spirv::read::read_words(&words).map_err(|e| e.to_string())
}

/// The words of a module a log prints (`read_printed`), for a loader that decodes them itself.
pub fn printed_words(text: &str, names: &mut SharedNames) -> Result<Vec<u32>, String> {
    if is_ir_text(text) {
        let m =
            crate::ir::parse::parse(text).map_err(|e| format!("line {}: {}", e.line, e.message))?;
        return Ok(crate::ir::spirv::write::write_words(&m));
    }
    assemble_sharing(text, names)
        .map(|a| a.words)
        .map_err(|e| format!("line {}: {}", e.line, e.message))
}

/// Our own IR text (which says where each instruction came from), not SPIR-V assembly.
fn is_ir_text(text: &str) -> bool {
    text.contains("; @loc") || text.starts_with("; shaderstep IR")
}

/// The text of a log at `path` (`-`: standard input, read once for the program's life).
pub fn log_text(path: &Path) -> Result<String, String> {
    let bytes = if path.as_os_str() == "-" {
        super::input::stdin_bytes().to_vec()
    } else {
        std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?
    };
    String::from_utf8(bytes).map_err(|_| format!("{}: not a text log", path.display()))
}

/// The extensions a dumped module has.
const MODULES: [&str; 3] = ["spv", "spvasm", "spirv"];

/// The files `paths` name, in order: a file as given, a directory's modules in natural order
/// of their names. At least two (an input and a step), or why not.
pub fn dump_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let files = module_files(paths)?;
    if files.len() < 2 {
        return Err(format!(
            "--steps needs an input and at least one step (or one --print-all log): {} module(s) found",
            files.len()
        ));
    }
    Ok(files)
}

/// The module files `paths` name: a file as given, a directory's in natural order of names.
fn module_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("{}: cannot read: {e}", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && p.extension()
                            .is_some_and(|x| MODULES.contains(&&*x.to_string_lossy()))
                })
                .collect();
            if found.is_empty() {
                return Err(format!(
                    "{}: no modules in it (.spv, .spvasm or .spirv files)",
                    path.display()
                ));
            }
            found.sort_by(|a, b| natural_cmp(&file_name(a), &file_name(b)));
            files.extend(found);
        } else if path.exists() {
            files.push(path.clone());
        } else {
            return Err(format!("{}: no such file or directory", path.display()));
        }
    }
    Ok(files)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
}

/// A step's name from its file: `01-inline.spv` is `inline`, `2_mem2reg.spvasm` `mem2reg`, and
/// a name that is only a number stays that number.
pub fn step_name(path: &Path) -> String {
    let stem = file_name(path);
    let stem = match stem.rsplit_once('.') {
        Some((s, ext)) if MODULES.contains(&ext) => s.to_string(),
        _ => stem,
    };
    let rest = stem.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.trim_start_matches(['-', '_', '.', ' ']);
    if rest.is_empty() || rest.len() == stem.len() {
        stem
    } else {
        rest.to_string()
    }
}

/// Names compared with their runs of digits as numbers: `2` before `10`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.chars().next(), b.chars().next()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, _) => return std::cmp::Ordering::Less,
            (_, None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
                let (na, nb) = (digits(a), digits(b));
                let (da, db) = (
                    a[..na].trim_start_matches('0'),
                    b[..nb].trim_start_matches('0'),
                );
                let order = da.len().cmp(&db.len()).then_with(|| da.cmp(db));
                if order != std::cmp::Ordering::Equal {
                    return order;
                }
                a = &a[na..];
                b = &b[nb..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
                a = &a[x.len_utf8()..];
                b = &b[y.len_utf8()..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_their_number_and_extension() {
        assert_eq!(step_name(Path::new("d/01-inline.spv")), "inline");
        assert_eq!(step_name(Path::new("2_mem2reg.spvasm")), "mem2reg");
        assert_eq!(step_name(Path::new("after.dce.spv")), "after.dce");
        assert_eq!(step_name(Path::new("007.spv")), "007");
        assert_eq!(step_name(Path::new("ssa")), "ssa");
    }

    #[test]
    fn logs_of_spirv_opt_and_ours_are_read() {
        let theirs = "; IR before pass wrap-opkill\nOpCapability Shader\n; IR before pass dce\nOpCapability Shader\nOpCapability Int64\n; IR after last pass\nOpCapability Shader\n";
        let names: Vec<String> = parse_log(theirs)
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, ["input", "wrap-opkill", "dce"]);
        let ours = "; *** step 0: the source text ***\n#version 450\n; *** IR after pass 1: lower (changed) ***\nOpCapability Shader\n; *** IR after pass 2: dce (unchanged) [a.comp] ***\nOpCapability Shader\n";
        let steps = parse_log(ours).unwrap();
        assert_eq!(steps.len(), 2);
        assert_eq!(
            (steps[0].name.as_str(), steps[1].name.as_str()),
            ("lower", "dce")
        );
        assert_eq!(steps[0].text, "OpCapability Shader\n");
        assert!(parse_log("OpCapability Shader\n").is_none());
    }

    #[test]
    fn numbers_sort_as_numbers() {
        let mut names = vec![
            "10-dce.spv",
            "2_mem2reg.spv",
            "01-inline.spv",
            "b.spv",
            "a.spv",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            [
                "01-inline.spv",
                "2_mem2reg.spv",
                "10-dce.spv",
                "a.spv",
                "b.spv"
            ]
        );
    }
}
