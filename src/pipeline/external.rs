//! The SPIRV-Tools binaries as optional oracles: `spirv-val` checks what a step would emit.
//! Linking SPIRV-Tools in-process costs a quarter of an hour of C++ build on our machines
//! (DESIGN §9), so we run the installed tool.

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
        .preamble
        .iter()
        .filter(|i| i.op == Op::Capability)
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
    let mut child = Command::new("spirv-val")
        .args(["--target-env", env, "-"])
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

#[cfg(test)]
mod tests {
    use super::*;

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
