//! Summaries kept across sessions: reopening a shader tree runs only the shaders whose bytes
//! changed since it was last open, as ccache reruns only what changed. One file per set of
//! watched roots under the user's cache directory, holding the summaries of the runs the last
//! session made or used, by the content of their input (`worker::ContentKey`: the bytes alone
//! decide those runs). The file names what made them (`fingerprint`: this build of shaderstep,
//! the pipeline, the compilers); a file another fingerprint wrote is not read, and is replaced.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::state::{DocStatus, Summary};
use super::worker::ContentKey;
use crate::pipeline::input::FrontEnds;
use crate::pipeline::Pipeline;

const HEADER: &str = "shaderstep summaries 1";

/// Where summaries are kept: `$XDG_CACHE_HOME/shaderstep/summaries`, else
/// `~/.cache/shaderstep/summaries`.
pub fn default_dir() -> Option<PathBuf> {
    let cache = super::user_dir("XDG_CACHE_HOME", ".cache")?;
    Some(cache.join("shaderstep").join("summaries"))
}

/// What decides a run besides its input's bytes: this build (its version, and the size and
/// time of its executable, so that a rebuilt shaderstep runs everything again), the passes
/// and their checks, and the compilers configured.
pub fn fingerprint(pipeline: &Pipeline, front: &FrontEnds) -> String {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            format!("{} {}", m.len(), modified.as_nanos())
        })
        .unwrap_or_default();
    let mut f = format!(
        "{} {exe}; {}; {:?} experimental={} keep_exports={}",
        env!("CARGO_PKG_VERSION"),
        pipeline.names().join(","),
        pipeline.checks,
        pipeline.experimental,
        pipeline.keep_exports,
    );
    for (ext, command) in &front.commands {
        let _ = write!(f, "; {ext}={command}");
    }
    // One line in the file.
    f.replace(['\n', '\t'], " ")
}

/// The file that keeps the summaries of a session watching `roots`, under `dir`.
pub fn file_for(dir: &Path, roots: &[PathBuf]) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut h = crate::ir::fxhash::FxHasher::default();
    for r in roots {
        super::watch::absolute(r).hash(&mut h);
    }
    dir.join(format!("{:016x}.tsv", h.finish()))
}

/// The summaries `path` keeps for `fingerprint` (none when it keeps another's, or cannot be
/// read: a cache only saves time).
pub fn load(path: &Path, fingerprint: &str) -> HashMap<ContentKey, Summary> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return HashMap::new();
    };
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) || lines.next() != Some(fingerprint) {
        return HashMap::new();
    }
    lines.filter_map(parse_line).collect()
}

/// Writes `entries` to `path` for `fingerprint`, whole (a temporary file renamed over it, so
/// that a session reading it never sees half).
pub fn save(
    path: &Path,
    fingerprint: &str,
    entries: &[(ContentKey, Summary)],
) -> std::io::Result<()> {
    let mut out = String::with_capacity(64 + entries.len() * 96);
    out.push_str(HEADER);
    out.push('\n');
    out.push_str(fingerprint);
    out.push('\n');
    for (key, s) in entries {
        let status = match s.status {
            DocStatus::Ok => "ok",
            DocStatus::CompileError => "compile",
            DocStatus::ValidationError => "invalid",
            // Never kept: a summary says how a run ended.
            DocStatus::Running => continue,
        };
        let count = |n: Option<usize>| n.map_or("-".to_string(), |n| n.to_string());
        let _ = writeln!(
            out,
            "{key:032x}\t{status}\t{}\t{}\t{}\t{}\t{:016x}\t{}",
            s.stage.as_deref().map_or("-".to_string(), escape),
            count(s.before),
            count(s.after),
            s.took.as_micros(),
            s.output,
            s.first_error.as_deref().map_or("-".to_string(), escape),
        );
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
        forget_old(dir);
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, out)?;
    std::fs::rename(&tmp, path)
}

/// Trees not opened for this long lose their summaries: the directory does not grow with
/// every folder ever opened.
const FORGOTTEN_AFTER: Duration = Duration::from_secs(30 * 24 * 3600);

fn forget_old(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > FORGOTTEN_AFTER);
        let ours = e.path().extension().is_some_and(|x| x == "tsv");
        if old && ours {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn parse_line(line: &str) -> Option<(ContentKey, Summary)> {
    let fields: Vec<&str> = line.split('\t').collect();
    let [key, status, stage, before, after, took, output, first_error] = fields[..] else {
        return None;
    };
    let optional = |f: &str| (f != "-").then(|| unescape(f));
    let count = |f: &str| -> Option<Option<usize>> {
        match f {
            "-" => Some(None),
            n => n.parse().ok().map(Some),
        }
    };
    Some((
        ContentKey::from_str_radix(key, 16).ok()?,
        Summary {
            status: match status {
                "ok" => DocStatus::Ok,
                "compile" => DocStatus::CompileError,
                "invalid" => DocStatus::ValidationError,
                _ => return None,
            },
            stage: optional(stage),
            before: count(before)?,
            after: count(after)?,
            first_error: optional(first_error),
            took: Duration::from_micros(took.parse().ok()?),
            output: u64::from_str_radix(output, 16).ok()?,
            includes: Vec::new(),
        },
    ))
}

/// A field on one line: tabs, line breaks and backslashes escaped; a lone `-` is "none".
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    if out == "-" {
        out = "\\-".into();
    }
    out
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(status: DocStatus, first_error: Option<&str>) -> Summary {
        Summary {
            status,
            stage: Some("frag".into()),
            before: Some(120),
            after: Some(80),
            first_error: first_error.map(str::to_string),
            took: Duration::from_micros(1234),
            output: 0xdead_beef,
            includes: Vec::new(),
        }
    }

    #[test]
    fn summaries_come_back_as_they_were_written_for_the_same_fingerprint_only() {
        let dir = std::env::temp_dir().join(format!("shaderstep-sumcache-{}", std::process::id()));
        let path = dir.join("x.tsv");
        let entries = vec![
            (1u128 << 100 | 7, summary(DocStatus::Ok, None)),
            (
                42,
                summary(
                    DocStatus::ValidationError,
                    Some("after gvn: at %x\tbad\nsecond line \\ -"),
                ),
            ),
            (43, summary(DocStatus::CompileError, Some("-"))),
        ];
        save(&path, "fp 1", &entries).unwrap();
        let back = load(&path, "fp 1");
        assert_eq!(back.len(), 3);
        for (k, s) in &entries {
            assert_eq!(back.get(k), Some(s), "entry {k:x}");
        }
        assert!(
            load(&path, "fp 2").is_empty(),
            "another fingerprint's file is not read"
        );
        std::fs::write(&path, "garbage").unwrap();
        assert!(load(&path, "fp 1").is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_write_forgets_the_files_of_trees_not_opened_for_a_month() {
        let dir = std::env::temp_dir().join(format!("shaderstep-sumold-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (old, recent, other) = (dir.join("a.tsv"), dir.join("b.tsv"), dir.join("notes"));
        for p in [&old, &recent, &other] {
            std::fs::write(p, "x").unwrap();
        }
        let long_ago = std::time::SystemTime::now() - Duration::from_secs(40 * 24 * 3600);
        for p in [&old, &other] {
            let f = std::fs::File::options().write(true).open(p).unwrap();
            f.set_modified(long_ago).unwrap();
        }
        save(&dir.join("c.tsv"), "fp", &[]).unwrap();
        assert!(!old.exists());
        assert!(recent.exists() && other.exists() && dir.join("c.tsv").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn one_file_per_set_of_roots() {
        let dir = Path::new("/c");
        let a = file_for(dir, &[PathBuf::from("/x/shaders")]);
        assert_eq!(a, file_for(dir, &[PathBuf::from("/x/shaders")]));
        assert_ne!(a, file_for(dir, &[PathBuf::from("/x/other")]));
        assert!(a.starts_with(dir));
    }
}
