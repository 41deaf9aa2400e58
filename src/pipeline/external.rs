//! The SPIRV-Tools binaries: `spirv-val` as an optional oracle that checks what a step would
//! emit, and `spirv-opt` as an external pipeline whose passes become steps (`--external`).
//! Linking SPIRV-Tools in-process costs a quarter of an hour of C++ build on our machines
//! (DESIGN §9), so we run the installed tools.

use std::io::Write;
use std::process::{Command, Stdio};

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::Module;

pub const INSTALL_HINT: &str = "install it with `apt-get install -y spirv-tools`";

/// One message from `spirv-val`: its text and the id it names, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct ValMessage {
    pub text: String,
    pub id: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Validation {
    Valid,
    Invalid(Vec<ValMessage>),
}

/// The target environment `spirv-val` should check a module against: the Vulkan version of
/// its SPIR-V version for shaders, the universal environment for kernels and linkable modules.
pub fn target_env(m: &Module) -> String {
    let caps: Vec<spirv::Capability> = m
        .preamble()
        .iter()
        .filter(|i| i.op() == Op::Capability)
        .filter_map(|i| match i.lits().first() {
            Some(Operand::Capability(c)) => Some(*c),
            _ => None,
        })
        .collect();
    let (major, minor) = m.header.version;
    let shader = caps.contains(&spirv::Capability::Shader);
    if !shader
        || caps.contains(&spirv::Capability::Linkage)
        || caps.contains(&spirv::Capability::Kernel)
    {
        return format!("spv{major}.{minor}");
    }
    match minor {
        0..=3 => "vulkan1.1",
        4 | 5 => "vulkan1.2",
        _ => "vulkan1.3",
    }
    .to_string()
}

/// Runs `spirv-val` on `words`; `Err` when the tool cannot be run (with how to install it).
pub fn spirv_val(words: &[u32], env: &str) -> Result<Validation, String> {
    spirv_val_with(words, env, &[])
}

/// `spirv_val` with more of its options (`--scalar-block-layout`, …).
pub fn spirv_val_with(words: &[u32], env: &str, options: &[&str]) -> Result<Validation, String> {
    let mut child = Command::new("spirv-val")
        .args(["--target-env", env])
        .args(options)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("spirv-val is not installed: {INSTALL_HINT}"),
            _ => format!("cannot run spirv-val: {e}"),
        })?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Some(mut stdin) = child.stdin.take() {
        // A write error shows up as a failed run below.
        let _ = stdin.write_all(&bytes);
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("cannot run spirv-val: {e}"))?;
    if out.status.success() {
        return Ok(Validation::Valid);
    }
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    Ok(Validation::Invalid(parse_messages(&text)))
}

/// Splits spirv-val's output into messages: an `error:` line and the indented lines after it.
fn parse_messages(text: &str) -> Vec<ValMessage> {
    let mut out: Vec<ValMessage> = Vec::new();
    for line in text.lines() {
        if line.starts_with("error:") || line.starts_with("warning:") || out.is_empty() {
            if line.trim().is_empty() {
                continue;
            }
            out.push(ValMessage {
                text: line.trim().to_string(),
                id: None,
            });
        } else if !line.trim().is_empty() {
            let last = out.last_mut().expect("not empty");
            last.text.push_str(" — ");
            last.text.push_str(line.trim());
        }
    }
    for m in &mut out {
        m.id = first_id(&m.text);
    }
    out
}

/// The first id spirv-val names, in its `'12[%name]'` form.
fn first_id(text: &str) -> Option<u32> {
    let mut rest = text;
    while let Some(p) = rest.find('\'') {
        let after = &rest[p + 1..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && after[digits.len()..].starts_with("[%") {
            return digits.parse().ok();
        }
        rest = after;
    }
    None
}

/// An optimizer run as a pipeline (`--external 'spirv-opt -O'`): its passes become steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalTool {
    /// The program: a path, or a name looked up on `PATH`.
    pub program: String,
    pub args: Vec<String>,
}

impl ExternalTool {
    /// Reads a command line: words apart by spaces, quotes (`'…'`, `"…"`) keep a word whole.
    /// `path` (from `shaderstep.toml`) replaces the program when it names the same tool.
    pub fn parse(command: &str, path: Option<&str>) -> Result<ExternalTool, String> {
        let mut words = Vec::new();
        let mut word = String::new();
        let mut quote = None;
        let mut started = false;
        for c in command.chars() {
            match (quote, c) {
                (None, '\'' | '"') => {
                    quote = Some(c);
                    started = true;
                }
                (Some(q), c) if c == q => quote = None,
                (None, c) if c.is_whitespace() => {
                    if started {
                        words.push(std::mem::take(&mut word));
                        started = false;
                    }
                }
                (_, c) => {
                    word.push(c);
                    started = true;
                }
            }
        }
        if quote.is_some() {
            return Err(format!("--external '{command}': a quote is not closed"));
        }
        if started {
            words.push(word);
        }
        let mut words = words.into_iter();
        let program = words
            .next()
            .ok_or("--external needs a command, e.g. 'spirv-opt -O'")?;
        let label = tool_name(&program);
        if label != "spirv-opt" {
            return Err(format!(
                "--external '{command}': only spirv-opt can be stepped through (its --print-all output becomes the steps)"
            ));
        }
        // The configured binary stands for the bare name, not for a path the user typed.
        let program = match path {
            Some(p) if program == label => p.to_string(),
            _ => program,
        };
        Ok(ExternalTool {
            program,
            args: words.collect(),
        })
    }

    /// The tool's name, as step names carry it (`spirv-opt`).
    pub fn label(&self) -> String {
        tool_name(&self.program)
    }

    /// The command line as the user wrote it, for titles.
    pub fn describe(&self) -> String {
        std::iter::once(self.label())
            .chain(self.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn tool_name(program: &str) -> String {
    std::path::Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.to_string())
}

/// One pass of an external run: its name, the module text after it (`spirv-opt`'s
/// disassembly), and the wall time it reported (`--time-report`, to 10 ms).
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalPass {
    pub name: String,
    pub text: String,
    pub wall: Option<std::time::Duration>,
}

/// What an external run printed and wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalOutput {
    /// The module as the tool printed it before its first pass.
    pub input_text: String,
    pub passes: Vec<ExternalPass>,
    /// The binary it wrote.
    pub output: Vec<u32>,
}

/// How finely `--time-report` gives a pass's time (it prints seconds to two decimals).
pub const TIME_REPORT_RESOLUTION: std::time::Duration = std::time::Duration::from_millis(10);

/// Runs `tool` on `input` with `--print-all --time-report`, the module through stdin and
/// stdout. `Err` says why it did not run (not installed, or the tool's own error).
pub fn run_external(tool: &ExternalTool, input: &[u32]) -> Result<ExternalOutput, String> {
    let label = tool.label();
    let mut child = Command::new(&tool.program)
        .args(&tool.args)
        .args(["--print-all", "--time-report", "-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!(
                "{label} is not installed (looked for '{}'): {INSTALL_HINT}, or give its path in shaderstep.toml ([external] path = \"...\")",
                tool.program
            ),
            _ => format!("cannot run {}: {e}", tool.program),
        })?;
    // The tool writes megabytes of text while it reads: feed it from a thread of its own.
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let stdin = child.stdin.take();
    let feeder = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            // A write error shows up as the tool's failure below.
            let _ = stdin.write_all(&bytes);
        }
    });
    let out = child
        .wait_with_output()
        .map_err(|e| format!("cannot run {}: {e}", tool.program))?;
    let _ = feeder.join();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("error") || l.contains("rror:"))
            .take(8)
            .collect();
        let errors = if errors.is_empty() {
            stderr.lines().rev().take(4).collect::<Vec<_>>()
        } else {
            errors
        };
        return Err(format!(
            "{} failed ({}): {}",
            tool.describe(),
            out.status,
            errors.join(" — ")
        ));
    }
    let output = crate::ir::spirv::read::words_from_bytes(&out.stdout)
        .map_err(|e| format!("{} wrote no SPIR-V: {e}", tool.describe()))?;
    let (input_text, passes) = parse_print_all(&stderr);
    Ok(ExternalOutput {
        input_text,
        passes,
        output,
    })
}

/// Splits `--print-all --time-report` output into passes: a dump before every pass and one
/// after the last, with each pass's time-report row after its dump. The module after pass k
/// is the dump before pass k + 1 (after the last pass: the last dump). The dump before the
/// first pass is the input and is not a pass: it comes first in the answer.
pub fn parse_print_all(text: &str) -> (String, Vec<ExternalPass>) {
    // (pass about to run, or None for the final dump; dump text; time of that pass)
    let mut dumps: Vec<(Option<String>, String, Option<std::time::Duration>)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("; IR before pass ") {
            dumps.push((Some(name.trim().to_string()), String::new(), None));
            continue;
        }
        if line.starts_with("; IR after last pass") {
            dumps.push((None, String::new(), None));
            continue;
        }
        let Some(last) = dumps.last_mut() else {
            continue;
        };
        if let Some(wall) = time_row(line, last.0.as_deref()) {
            last.2 = Some(wall);
            continue;
        }
        last.1.push_str(line);
        last.1.push('\n');
    }
    let mut passes = Vec::new();
    for k in 0..dumps.len().saturating_sub(1) {
        let Some(name) = dumps[k].0.clone() else {
            continue;
        };
        passes.push(ExternalPass {
            name,
            text: std::mem::take(&mut dumps[k + 1].1),
            wall: dumps[k].2,
        });
    }
    let input = dumps.first_mut().map(|d| std::mem::take(&mut d.1));
    (input.unwrap_or_default(), passes)
}

/// The wall time of a `--time-report` row for `pass`: the name, then CPU, WALL, USR and SYS
/// seconds, RSS and page-fault deltas.
fn time_row(line: &str, pass: Option<&str>) -> Option<std::time::Duration> {
    let mut words = line.split_whitespace();
    let name = words.next()?;
    if Some(name) != pass {
        return None;
    }
    let numbers: Vec<f64> = words
        .map(|w| w.parse::<f64>())
        .collect::<Result<_, _>>()
        .ok()?;
    if numbers.len() < 4 {
        return None;
    }
    std::time::Duration::try_from_secs_f64(numbers[1]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_are_split_and_the_program_checked() {
        let t = ExternalTool::parse("spirv-opt -O --target-env='vulkan1.2'", None).unwrap();
        assert_eq!(t.program, "spirv-opt");
        assert_eq!(t.args, ["-O", "--target-env=vulkan1.2"]);
        assert_eq!(t.describe(), "spirv-opt -O --target-env=vulkan1.2");
        let t = ExternalTool::parse("spirv-opt -Os", Some("/opt/vk/bin/spirv-opt")).unwrap();
        assert_eq!(t.program, "/opt/vk/bin/spirv-opt");
        assert_eq!(t.label(), "spirv-opt");
        let t =
            ExternalTool::parse("/usr/bin/spirv-opt -O", Some("/opt/vk/bin/spirv-opt")).unwrap();
        assert_eq!(t.program, "/usr/bin/spirv-opt");
        assert!(ExternalTool::parse("glslc -O", None).is_err());
        assert!(ExternalTool::parse("spirv-opt '-O", None).is_err());
        assert!(ExternalTool::parse("  ", None).is_err());
    }

    #[test]
    fn print_all_output_becomes_one_entry_per_pass() {
        let text = "                     PASS name    CPU time   WALL time    USR time    SYS time   RSS delta   PGFault delta
; IR before pass wrap-opkill
OpCapability Shader
OpMemoryModel Logical GLSL450
                   wrap-opkill        0.00        0.02        0.00        0.00         384               6
; IR before pass eliminate-dead-branches
OpCapability Shader
OpCapability Int64
OpMemoryModel Logical GLSL450
       eliminate-dead-branches        0.01        0.00        0.00        0.00         128               2
; IR after last pass
OpCapability Shader
OpMemoryModel Logical GLSL450
";
        let (input, p) = parse_print_all(text);
        assert_eq!(
            input,
            "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"
        );
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].name, "wrap-opkill");
        assert!(p[0].text.contains("Int64"), "{}", p[0].text);
        assert_eq!(p[0].wall, Some(std::time::Duration::from_millis(20)));
        assert_eq!(p[1].name, "eliminate-dead-branches");
        assert!(!p[1].text.contains("Int64") && !p[1].text.contains("0.01"));
        assert_eq!(p[1].wall, Some(std::time::Duration::ZERO));
    }

    #[test]
    fn messages_and_ids_are_parsed() {
        let text = "error: line 12: ID '7[%float]' has not been defined\n  %9 = OpFAdd %float %7 %8\n\nerror: second\n";
        let m = parse_messages(text);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].id, Some(7));
        assert!(m[0].text.contains("has not been defined — %9 = OpFAdd"));
        assert_eq!(m[1].id, None);
    }
}
