//! The bundled examples, carried inside the binary: `shaderstep` with no argument opens
//! `lighting.frag` on any machine the binary is copied to. The app works on files (it watches
//! them, reloads them and finds the source of a debug build beside it), so the examples are
//! written once to a directory of the user's and opened from there; a copy the user edited is
//! left alone.

use std::path::{Path, PathBuf};

/// Every bundled example: its file name and its bytes as built.
pub static EXAMPLES: &[(&str, &[u8])] = &[
    (
        "lighting.frag",
        include_bytes!("../../assets/examples/lighting.frag"),
    ),
    (
        "lighting.gVS.frag.spv",
        include_bytes!("../../assets/examples/lighting.gVS.frag.spv"),
    ),
    (
        "cull.comp",
        include_bytes!("../../assets/examples/cull.comp"),
    ),
    (
        "cull.gVS.comp.spv",
        include_bytes!("../../assets/examples/cull.gVS.comp.spv"),
    ),
    ("sky.wgsl", include_bytes!("../../assets/examples/sky.wgsl")),
];

/// The example opened when no input is named.
pub const DEFAULT: &str = "lighting.frag";

/// Where the examples are written: `$XDG_DATA_HOME/shaderstep/examples`, else
/// `~/.local/share/shaderstep/examples`, else a directory under the system's temporary one.
pub fn directory() -> PathBuf {
    std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .map(|d| d.join("shaderstep/examples"))
        .unwrap_or_else(|| std::env::temp_dir().join("shaderstep-examples"))
}

/// Writes the examples into `dir` where they are missing; an existing file is kept as it is
/// (the user may have edited it). Returns the path of the default example.
pub fn install(dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    for (name, bytes) in EXAMPLES {
        let path = dir.join(name);
        if !path.exists() {
            std::fs::write(&path, bytes)
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        }
    }
    Ok(dir.join(DEFAULT))
}

/// The default example, written out if needed: in the user's directory, else (read-only home,
/// no home) in the temporary directory.
pub fn default_example() -> Result<PathBuf, String> {
    install(&directory()).or_else(|first| {
        install(&std::env::temp_dir().join("shaderstep-examples"))
            .map_err(|second| format!("{first}; {second}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_is_written_once_and_an_edited_copy_is_kept() {
        let dir = std::env::temp_dir().join(format!("shaderstep-examples-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let default = install(&dir).expect("installs");
        assert_eq!(default, dir.join("lighting.frag"));
        for (name, bytes) in EXAMPLES {
            assert_eq!(std::fs::read(dir.join(name)).unwrap(), *bytes, "{name}");
        }
        std::fs::write(&default, "// mine").unwrap();
        install(&dir).expect("installs again");
        assert_eq!(std::fs::read_to_string(&default).unwrap(), "// mine");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Every file in assets/examples a user can open is bundled.
    #[test]
    fn the_bundle_holds_every_example() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples");
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".txt") {
                continue;
            }
            assert!(
                EXAMPLES.iter().any(|(n, _)| *n == name),
                "{name} is not bundled"
            );
        }
    }
}
