//! `shaderstep.toml`: external compilers for the languages naga does not take, by extension,
//! and the external optimizer `--external` steps through.
//!
//! ```toml
//! [compilers]
//! hlsl = "dxc -spirv -T ps_6_0 -E main {input} -Fo {output}"
//! frag = "glslangValidator -V {input} -o {output}"
//!
//! [external]
//! path = "/opt/vulkan-sdk/bin/spirv-opt"   # which spirv-opt to run
//! flags = "-O --target-env=vulkan1.2"      # what a bare `--external` runs it with
//!
//! [keys]                                   # key (`<C-d>` notation) = command, or "none"
//! "<C-f>" = "page-down"
//! "w" = "step lift"
//!
//! [source]                                 # where the source pane looks for files that
//! paths = ["../shaders", "/opt/includes"]  # debug info names (relative: to this file)
//!
//! [driver]                                 # the Vulkan driver shaders run on (as --driver):
//! icd = "/opt/mesa/lvp_icd.json"           # an ICD file (relative: to this file),
//! # name = "llvmpipe"                      # or a device named like this
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
    if let Some(u) = super::user_dir("XDG_CONFIG_HOME", ".config") {
        out.push(u.join("shaderstep").join(FILE_NAME));
    }
    out
}

/// What `shaderstep.toml` says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub front_ends: FrontEnds,
    /// `[external] path`: the spirv-opt binary to run.
    pub external_path: Option<String>,
    /// `[external] flags`: the flags of a bare `--external` (default `-O`).
    pub external_flags: Option<String>,
    /// `[keys]`: (key, command) overrides of the key map, in file order.
    pub keys: Vec<(String, String)>,
    /// `[source] paths`: directories the source pane looks in for the files debug info names
    /// (relative ones are relative to the config file).
    pub source_paths: Vec<PathBuf>,
    /// `[driver] icd` or `name`: the Vulkan driver shaders run on, as `--driver` takes it.
    pub driver: Option<String>,
}

impl Config {
    /// The external tool for `--external COMMAND` (an empty command: spirv-opt with the
    /// configured flags, or `-O`).
    pub fn external_tool(
        &self,
        command: &str,
    ) -> Result<crate::pipeline::external::ExternalTool, String> {
        let command = if command.trim().is_empty() {
            format!(
                "spirv-opt {}",
                self.external_flags.as_deref().unwrap_or("-O")
            )
        } else {
            command.to_string()
        };
        crate::pipeline::external::ExternalTool::parse(&command, self.external_path.as_deref())
    }
}

/// The config of the first config file found; the default when there is no file.
pub fn load(roots: &[PathBuf], files: &[PathBuf]) -> Result<(Config, Option<PathBuf>), String> {
    for path in candidates(roots, files) {
        if path.is_file() {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
            let mut config = parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let dir = path.parent().unwrap_or(Path::new("."));
            for p in &mut config.source_paths {
                if p.is_relative() {
                    *p = dir.join(&*p);
                }
            }
            if let Some(icd) = config.driver.as_mut().filter(|d| d.ends_with(".json")) {
                if Path::new(icd.as_str()).is_relative() {
                    *icd = dir.join(&*icd).to_string_lossy().into_owned();
                }
            }
            return Ok((config, Some(path)));
        }
    }
    Ok((Config::default(), None))
}

pub fn parse(text: &str) -> Result<Config, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        e.to_string()
            .lines()
            .next()
            .unwrap_or("bad TOML")
            .to_string()
    })?;
    let mut front = FrontEnds::default();
    let mut config = Config::default();
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
            "external" => {
                let t = value
                    .as_table()
                    .ok_or("[external] must be a table with path and flags")?;
                for (k, v) in t {
                    let v = v
                        .as_str()
                        .ok_or_else(|| format!("external.{k}: expected a string in quotes"))?;
                    match k.as_str() {
                        "path" => config.external_path = Some(v.to_string()),
                        "flags" => config.external_flags = Some(v.to_string()),
                        other => {
                            return Err(format!(
                                "external.{other}: unknown key (known: path, flags)"
                            ))
                        }
                    }
                }
            }
            "keys" => {
                let t = value
                    .as_table()
                    .ok_or("[keys] must be a table of \"key\" = \"command\"")?;
                for (k, v) in t {
                    let v = v
                        .as_str()
                        .ok_or_else(|| format!("keys.\"{k}\": expected a command in quotes"))?;
                    config.keys.push((k.clone(), v.to_string()));
                }
            }
            "source" => {
                let t = value
                    .as_table()
                    .ok_or("[source] must be a table with paths = [\"dir\", …]")?;
                for (k, v) in t {
                    match k.as_str() {
                        "paths" => {
                            let list = v.as_array().ok_or(
                                "source.paths: expected a list of directories, [\"dir\", …]",
                            )?;
                            for d in list {
                                let d = d
                                    .as_str()
                                    .ok_or("source.paths: expected directories in quotes")?;
                                config.source_paths.push(PathBuf::from(d));
                            }
                        }
                        other => return Err(format!("source.{other}: unknown key (known: paths)")),
                    }
                }
            }
            "driver" => {
                let t = value
                    .as_table()
                    .ok_or("[driver] must be a table with icd = \"ICD.json\" or name = \"NAME\"")?;
                for (k, v) in t {
                    let v = v
                        .as_str()
                        .ok_or_else(|| format!("driver.{k}: expected a string in quotes"))?;
                    match k.as_str() {
                        "icd" if !v.ends_with(".json") => {
                            return Err(format!("driver.icd: '{v}' is not an ICD file (*.json)"))
                        }
                        "icd" | "name" if config.driver.is_some() => {
                            return Err("[driver]: give icd or name, not both".into())
                        }
                        "icd" | "name" => config.driver = Some(v.to_string()),
                        other => {
                            return Err(format!("driver.{other}: unknown key (known: icd, name)"))
                        }
                    }
                }
            }
            other => {
                return Err(format!(
                    "unknown section or key '{other}' (known: compilers, driver, external, keys, source)"
                ))
            }
        }
    }
    config.front_ends = front;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_driver() {
        let c = parse("[driver]\nname = \"llvmpipe\"\n").unwrap();
        assert_eq!(c.driver.as_deref(), Some("llvmpipe"));
        let c = parse("[driver]\nicd = \"/opt/lvp_icd.json\"\n").unwrap();
        assert_eq!(c.driver.as_deref(), Some("/opt/lvp_icd.json"));
        assert!(parse("[driver]\nicd = \"lvp\"\n")
            .unwrap_err()
            .contains("ICD"));
        assert!(parse("[driver]\nicd = \"a.json\"\nname = \"x\"\n")
            .unwrap_err()
            .contains("not both"));
    }

    #[test]
    fn reads_compilers_and_rejects_mistakes() {
        let f = parse("[compilers]\nhlsl = \"dxc -spirv {input} -Fo {output}\"\n")
            .unwrap()
            .front_ends;
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

    #[test]
    fn reads_the_external_optimizer() {
        let c = parse("[external]\npath = \"/opt/bin/spirv-opt\"\nflags = \"-Os\"\n").unwrap();
        let t = c.external_tool("").unwrap();
        assert_eq!(t.program, "/opt/bin/spirv-opt");
        assert_eq!(t.args, ["-Os"]);
        let t = c.external_tool("spirv-opt --legalize-hlsl").unwrap();
        assert_eq!(t.program, "/opt/bin/spirv-opt");
        assert_eq!(t.args, ["--legalize-hlsl"]);
        assert_eq!(Config::default().external_tool("").unwrap().args, ["-O"]);
        let c = parse("[keys]\n\"<C-f>\" = \"page-down\"\nw = \"none\"\n").unwrap();
        assert_eq!(
            c.keys,
            [
                ("<C-f>".to_string(), "page-down".to_string()),
                ("w".to_string(), "none".to_string())
            ]
        );
        assert!(parse("[keys]\nw = 3\n").unwrap_err().contains("keys.\"w\""));
        assert!(parse("[external]\nflag = \"-O\"\n")
            .unwrap_err()
            .contains("external.flag"));
    }

    #[test]
    fn reads_source_paths() {
        let c = parse("[source]\npaths = [\"inc\", \"/abs\"]\n").unwrap();
        assert_eq!(
            c.source_paths,
            [PathBuf::from("inc"), PathBuf::from("/abs")]
        );
        assert!(parse("[source]\npaths = \"inc\"\n")
            .unwrap_err()
            .contains("source.paths"));
        assert!(parse("[source]\npath = []\n")
            .unwrap_err()
            .contains("source.path"));
    }
}
