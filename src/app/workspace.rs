//! Shader directories: which files under a watched directory are shaders the browser lists.
//!
//! A file is listed when its extension names a shader language and nothing hides it: hidden
//! files and directories, `target/`, editor swap and backup files, and whatever `.gitignore`
//! files on the way from the root say (git's rules, through the `ignore` crate, also outside a
//! git repository). The same test decides for a directory scan and for a single file that the
//! watcher reports, so a file created later is listed exactly when a rescan would list it.

use std::path::{Path, PathBuf};

/// Extensions of the files the browser lists.
pub static SHADER_EXTENSIONS: &[&str] = &[
    "spv", "spvasm", "wgsl", "vert", "frag", "comp", "geom", "tesc", "tese", "glsl", "hlsl",
    "slang",
];

pub fn has_shader_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SHADER_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Names no listed file or directory may have: hidden entries, build output, editor droppings
/// (vim's `4913` probe, `#autosave#`, `backup~`).
fn hidden_name(name: &str) -> bool {
    name.starts_with('.')
        || name == "target"
        || name == "4913"
        || name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
}

/// Whether `path` (under `root`) is a shader the browser lists.
pub fn is_listed(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    if !has_shader_extension(path) {
        return false;
    }
    if rel
        .components()
        .any(|c| hidden_name(&c.as_os_str().to_string_lossy()))
    {
        return false;
    }
    !gitignored(root, path)
}

/// Whether a `.gitignore` in `root` or a directory between it and `path` ignores `path`.
fn gitignored(root: &Path, path: &Path) -> bool {
    let mut dirs: Vec<&Path> = path
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(root))
        .collect();
    // Deeper files override shallower ones, as in git.
    dirs.reverse();
    let mut ignored = false;
    for dir in dirs {
        let file = dir.join(".gitignore");
        if !file.is_file() {
            continue;
        }
        let (gi, _) = ignore::gitignore::Gitignore::new(&file);
        match gi.matched_path_or_any_parents(path, false) {
            ignore::Match::Ignore(_) => ignored = true,
            ignore::Match::Whitelist(_) => ignored = false,
            ignore::Match::None => {}
        }
    }
    ignored
}

/// Every listed shader under `root`, sorted by path.
pub fn scan(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .parents(false)
        .filter_entry(|e| !hidden_name(&e.file_name().to_string_lossy()))
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .filter(|p| is_listed(root, p))
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_shaders_and_skips_what_git_and_editors_hide() {
        let root = std::env::temp_dir().join(format!("shaderstep-ws-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for f in [
            "a.frag",
            "sub/b.wgsl",
            "sub/deep/c.spvasm",
            "notes.txt",
            ".hidden/d.frag",
            "target/e.spv",
            "a.frag~",
            ".a.frag.swp",
            "gen/f.comp",
            "gen/keep.comp",
            "sub/skip.hlsl",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "gen/\n").unwrap();
        std::fs::write(root.join("sub/.gitignore"), "*.hlsl\n").unwrap();
        let rel: Vec<String> = scan(&root)
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        assert_eq!(rel, ["a.frag", "sub/b.wgsl", "sub/deep/c.spvasm"]);
        // The single-file test agrees with the scan.
        assert!(is_listed(&root, &root.join("sub/new.vert")));
        assert!(!is_listed(&root, &root.join("gen/new.vert")));
        assert!(!is_listed(&root, &root.join("sub/x.hlsl")));
        assert!(!is_listed(&root, &root.join(".git/x.frag")));
        assert!(!is_listed(&root, &root.join("a.frag.bak~")));
        let _ = std::fs::remove_dir_all(&root);
    }
}
