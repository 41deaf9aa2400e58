//! `shaderstep.toml`: external compilers for the languages naga does not take, by extension.
//!
//! ```toml
//! [compilers]
//! hlsl = "dxc -spirv -T ps_6_0 -E main {input} -Fo {output}"
//! frag = "glslangValidator -V {input} -o {output}"
//! ```
//!
//! The file is looked for in the watched directories, then beside the first file opened, then
//! in the user's config directory (`$XDG_CONFIG_HOME/shaderstep/` or `~/.config/shaderstep/`);
//! the first one found is used.

use std::path::{Path, PathBuf};

use crate::pipeline::input::FrontEnds;

pub const FILE_NAME: &str = "shaderstep.toml";

/// Where the config is looked for, in order.
pub fn candidates(roots: &[PathBuf], files: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = roots.iter().map(|r| r.join(FILE_NAME)).collect();
    if let Some(dir) = files.first().and_then(|f| f.parent()) {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        out.push(dir.join(FILE_NAME));
    }
    let user = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    if let Some(u) = user {
        out.push(u.join("shaderstep").join(FILE_NAME));
    }
    out
}

/// The external compilers of the first config file found; none when there is no file.
pub fn load(roots: &[PathBuf], files: &[PathBuf]) -> Result<(FrontEnds, Option<PathBuf>), String> {
    for path in candidates(roots, files) {
        if path.is_file() {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
            let front = parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            return Ok((front, Some(path)));
        }
    }
    Ok((FrontEnds::default(), None))
}

pub fn parse(text: &str) -> Result<FrontEnds, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        e.to_string()
            .lines()
            .next()
            .unwrap_or("bad TOML")
            .to_string()
    })?;
    let mut front = FrontEnds::default();
    for (key, value) in &table {
        match key.as_str() {
            "compilers" => {
                let t = value
                    .as_table()
                    .ok_or("[compilers] must be a table of extension = \"command\"")?;
                for (ext, cmd) in t {
                    let cmd = cmd.as_str().ok_or_else(|| {
                        format!("compilers.{ext}: expected a command line in quotes")
                    })?;
                    if !cmd.contains("{input}") || !cmd.contains("{output}") {
                        return Err(format!(
                            "compilers.{ext}: the command must contain {{input}} and {{output}}"
                        ));
                    }
                    front.commands.push((ext.clone(), cmd.to_string()));
                }
            }
            other => {
                return Err(format!(
                    "unknown section or key '{other}' (known: compilers)"
                ))
            }
        }
    }
    Ok(front)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_compilers_and_rejects_mistakes() {
        let f = parse("[compilers]\nhlsl = \"dxc -spirv {input} -Fo {output}\"\n").unwrap();
        assert_eq!(
            f.command_for(Path::new("a/b.HLSL")),
            Some("dxc -spirv {input} -Fo {output}")
        );
        assert_eq!(f.command_for(Path::new("b.frag")), None);
        assert!(parse("[compilers]\nhlsl = \"dxc\"\n")
            .unwrap_err()
            .contains("{input} and {output}"));
        assert!(parse("[compiler]\n").unwrap_err().contains("unknown"));
        assert!(parse("[compilers\n").is_err());
        assert!(parse("[compilers]\nhlsl = 3\n")
            .unwrap_err()
            .contains("compilers.hlsl"));
    }
}
