//! The source files a module's debug info names, and where the source pane finds their text:
//! the input itself when it is the file named (a shader compiled in-process or by a configured
//! compiler), the text `OpSource` (`-g`) or `DebugSource` (`-gVS`) embeds, or the file on disk,
//! looked for beside the input and in `[source] paths`. A file on disk is read even when the
//! text is embedded, to say when the two no longer match (the shader was edited since it was
//! compiled, so the embedded text is what the lines refer to).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::listing::expand_tabs;
use crate::ir::{Id, Module};

/// Where a source file's text came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The input the step was compiled from.
    Input,
    /// `OpSource` or `DebugSource` text in the module.
    Embedded,
    /// The file on disk.
    Disk(PathBuf),
}

impl Origin {
    pub fn describe(&self) -> String {
        match self {
            Origin::Input => "the input".into(),
            Origin::Embedded => "embedded".into(),
            Origin::Disk(p) => p.display().to_string(),
        }
    }
}

/// One source file of a module.
#[derive(Clone, Debug)]
pub struct Source {
    /// As the module names it (`OpString`).
    pub name: String,
    /// Its lines as line info numbers them (line `n` is `lines[n - 1]`).
    pub lines: Option<Arc<Vec<String>>>,
    pub origin: Option<Origin>,
    /// The file on disk found for it.
    pub disk: Option<PathBuf>,
    /// The file on disk says something else than the text the module embeds.
    pub differs: bool,
    /// Where it was looked for on disk.
    pub looked: Vec<PathBuf>,
}

impl Source {
    /// Why there is no text, for the pane to say.
    pub fn missing_note(&self) -> String {
        let mut note = format!(
            "{}: the module does not embed its text and no file was found; looked in:",
            self.name
        );
        for p in &self.looked {
            note.push_str(&format!("\n  {}", p.display()));
        }
        note.push_str("\n(add directories to [source] paths in shaderstep.toml)");
        note
    }
}

/// A module's source files, by the `OpString` id that names each, in the order the module
/// names them.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    pub files: BTreeMap<Id, Source>,
    pub order: Vec<Id>,
}

impl Sources {
    pub fn get(&self, id: Id) -> Option<&Source> {
        self.files.get(&id)
    }

    /// The files on disk the sources were read from or compared with (to watch).
    pub fn disk_paths(&self) -> Vec<PathBuf> {
        self.order
            .iter()
            .filter_map(|id| self.files[id].disk.clone())
            .collect()
    }
}

/// Where a file the module names as `name` may be on disk: the name itself when absolute;
/// else beside the input and in each search directory. Then, as the recorded path may be of
/// another machine (a build elsewhere, in CI) or relative to where the compiler ran, the
/// path's tails in the same places, down to the bare file name (`/ci/src/lib/light.glsl`:
/// `src/lib/light.glsl`, `lib/light.glsl`, `light.glsl`); `/` and `\` both separate.
pub fn candidates(name: &str, input: &Path, search: &[PathBuf]) -> Vec<PathBuf> {
    let path = Path::new(name);
    let beside = input
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dirs: Vec<&Path> = std::iter::once(beside)
        .chain(search.iter().map(PathBuf::as_path))
        .collect();
    let mut out: Vec<PathBuf> = Vec::new();
    let mut push = |p: PathBuf| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    if path.is_absolute() {
        push(path.to_path_buf());
    } else {
        for d in &dirs {
            push(d.join(path));
        }
    }
    let parts: Vec<&str> = name
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != "." && *p != ".." && !p.ends_with(':'))
        .collect();
    // Longest tails first: the closest match to the recorded path wins.
    for k in (1..=parts.len()).rev() {
        let tail: PathBuf = parts[parts.len() - k..].iter().collect();
        if tail.as_path() == path {
            continue;
        }
        for d in &dirs {
            push(d.join(&tail));
        }
    }
    out
}

/// The source files of `module` (see the module doc). `own` is the input's own text when it
/// was compiled from source; `read` reads a file (the disk, or a test's stand-in).
pub fn resolve(
    module: &Module,
    input: &Path,
    own: Option<&str>,
    search: &[PathBuf],
    read: &mut dyn FnMut(&Path) -> Option<String>,
) -> Sources {
    let mut embedded: BTreeMap<Id, String> = BTreeMap::new();
    for inst in module.debug() {
        if let (Op::Source, [file], [_, _, Operand::LiteralString(text)]) =
            (inst.op(), inst.args(), inst.lits())
        {
            embedded.entry(*file).or_insert_with(|| text.clone());
        }
    }
    for (file, text) in crate::ir::debug::source_texts(module) {
        embedded.entry(file).or_insert(text);
    }
    let names = crate::ir::debug::strings(module);
    let mut out = Sources::default();
    for id in crate::ir::debug::source_file_ids(module) {
        let Some(raw) = names.get(&id) else { continue };
        let name = crate::ir::strings::display(raw).into_owned();
        let is_input = own.is_some()
            && Path::new(&name).file_name().is_some()
            && Path::new(&name).file_name() == input.file_name();
        let looked = candidates(&name, input, search);
        let found = looked
            .iter()
            .find_map(|p| read(p).map(|text| (p.clone(), text)));
        let embedded_lines = embedded
            .get(&id)
            .map(|t| numbered_source(&crate::ir::strings::display(t)));
        let disk_lines = found.as_ref().map(|(_, t)| plain_lines(t));
        let differs = match (&embedded_lines, &disk_lines) {
            (Some(e), Some(d)) => !same_text(e, d),
            _ => false,
        };
        let (lines, origin) = if let (true, Some(text)) = (is_input, own) {
            (Some(plain_lines(text)), Some(Origin::Input))
        } else if let Some(e) = embedded_lines {
            (Some(e), Some(Origin::Embedded))
        } else if let (Some(d), Some((p, _))) = (disk_lines, &found) {
            (Some(d), Some(Origin::Disk(p.clone())))
        } else {
            (None, None)
        };
        out.order.push(id);
        out.files.insert(
            id,
            Source {
                name,
                lines: lines.map(Arc::new),
                origin,
                disk: found.map(|(p, _)| p),
                differs,
                looked,
            },
        );
    }
    out
}

/// A text's lines as shown (tabs expanded).
pub(super) fn plain_lines(text: &str) -> Vec<String> {
    text.lines().map(expand_tabs).collect()
}

/// Whether two texts say the same, line by line, whatever their line ends and trailing blanks.
fn same_text(a: &[String], b: &[String]) -> bool {
    let trim = |v: &[String]| -> Vec<String> {
        let mut v: Vec<String> = v.iter().map(|l| l.trim_end().to_string()).collect();
        while v.last().is_some_and(String::is_empty) {
            v.pop();
        }
        // Lines line info skips (`#line` padding) are empty: compare from the first text.
        let first = v.iter().position(|l| !l.is_empty()).unwrap_or(v.len());
        v.drain(..first);
        v
    };
    trim(a) == trim(b)
}

/// Source lines as line info numbers them: glslang puts `// OpModuleProcessed` comments and a
/// `#line 1` in front of the text it embeds.
pub fn numbered_source(text: &str) -> Vec<String> {
    let lines: Vec<String> = plain_lines(text);
    let directive = lines.iter().take(20).position(|l| l.starts_with("#line "));
    match directive.and_then(|d| {
        let n: usize = lines[d]["#line ".len()..]
            .trim()
            .split(' ')
            .next()?
            .parse()
            .ok()?;
        Some((d, n))
    }) {
        // Line `n` is the one after the directive.
        Some((d, n)) => {
            let mut out = vec![String::new(); n.saturating_sub(1)];
            out.extend(lines[d + 1..].iter().cloned());
            out
        }
        None => lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::spirv::{asm, read};

    fn module(text: &str) -> Module {
        read::read_words(&asm::assemble(text).unwrap()).unwrap()
    }

    const HEAD: &str = "; Version: 1.3\nOpCapability Shader\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n";
    const BODY: &str = "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
        %main = OpFunction %void None %fn\n%e = OpLabel\nOpLine %inc 2 1\nOpReturn\nOpFunctionEnd\n";

    #[test]
    fn looks_beside_the_input_then_in_the_search_paths() {
        let c = candidates(
            "sub/a.glsl",
            Path::new("/w/shaders/x.spv"),
            &[PathBuf::from("/inc")],
        );
        assert_eq!(
            c,
            [
                PathBuf::from("/w/shaders/sub/a.glsl"),
                PathBuf::from("/inc/sub/a.glsl"),
                PathBuf::from("/w/shaders/a.glsl"),
                PathBuf::from("/inc/a.glsl"),
            ]
        );
        // A path of another machine: its tails beside the input and in the search paths.
        assert_eq!(
            candidates(
                "/ci/src/a.glsl",
                Path::new("/w/x.spv"),
                &[PathBuf::from("/inc")]
            ),
            [
                PathBuf::from("/ci/src/a.glsl"),
                PathBuf::from("/w/ci/src/a.glsl"),
                PathBuf::from("/inc/ci/src/a.glsl"),
                PathBuf::from("/w/src/a.glsl"),
                PathBuf::from("/inc/src/a.glsl"),
                PathBuf::from("/w/a.glsl"),
                PathBuf::from("/inc/a.glsl"),
            ]
        );
        assert_eq!(
            candidates("C:\\build\\a.hlsl", Path::new("/w/x.spv"), &[]),
            [
                PathBuf::from("/w/C:\\build\\a.hlsl"),
                PathBuf::from("/w/build/a.hlsl"),
                PathBuf::from("/w/a.hlsl"),
            ]
        );
    }

    #[test]
    fn embedded_text_first_the_disk_for_the_rest_and_where_it_looked() {
        let text = format!(
            "{HEAD}%main_file = OpString \"main.comp\"\n%inc = OpString \"lib/light.glsl\"\n\
             %gone = OpString \"gone.glsl\"\n\
             OpSource GLSL 450 %main_file \"#version 450\nvoid main() {{}}\n\"\n\
             OpSource GLSL 450 %gone\n{BODY}"
        )
        .replace("OpReturn", "OpNop\nOpLine %gone 1 1\nOpReturn");
        let m = module(&text);
        let mut asked = Vec::new();
        let sources = resolve(
            &m,
            Path::new("/w/main.spv"),
            None,
            &[PathBuf::from("/inc")],
            &mut |p| {
                asked.push(p.to_path_buf());
                match p.to_str()? {
                    "/inc/lib/light.glsl" => Some("float f;\nfloat g;\n".into()),
                    "/w/main.comp" => Some("#version 450\nvoid main() { edited(); }\n".into()),
                    _ => None,
                }
            },
        );
        let by_name = |n: &str| sources.files.values().find(|s| s.name == n).unwrap();
        let main = by_name("main.comp");
        assert_eq!(main.origin, Some(Origin::Embedded));
        assert!(main.differs, "the file on disk was edited");
        let inc = by_name("lib/light.glsl");
        assert_eq!(
            inc.origin,
            Some(Origin::Disk(PathBuf::from("/inc/lib/light.glsl")))
        );
        assert_eq!(inc.lines.as_ref().unwrap()[1], "float g;");
        let gone = by_name("gone.glsl");
        assert!(gone.lines.is_none());
        assert!(gone.missing_note().contains("/inc/gone.glsl"));
        assert!(asked.contains(&PathBuf::from("/w/gone.glsl")));
    }

    #[test]
    fn the_input_itself_when_it_is_the_file_named() {
        let text = format!(
            "{HEAD}%inc = OpString \"/elsewhere/main.comp\"\nOpSource GLSL 450 %inc \"old\"\n{BODY}"
        );
        let m = module(&text);
        let sources = resolve(
            &m,
            Path::new("main.comp"),
            Some("new\ntext"),
            &[],
            &mut |_| None,
        );
        let s = sources.files.values().next().unwrap();
        assert_eq!(s.origin, Some(Origin::Input));
        assert_eq!(s.lines.as_ref().unwrap().as_slice(), ["new", "text"]);
    }

    #[test]
    fn the_same_text_with_other_line_ends_matches() {
        let a = numbered_source("// OpModuleProcessed x\n#line 1\nvoid main() {}\n");
        let b = plain_lines("void main() {}  \r\n\n");
        assert!(same_text(&a, &b));
    }

    #[test]
    fn tabs_reach_the_next_stop_of_four_columns() {
        assert_eq!(expand_tabs("\tx = 1;\t// one"), "    x = 1;  // one");
        assert_eq!(expand_tabs("ab\t\tc"), "ab      c");
        assert_eq!(expand_tabs("no tabs"), "no tabs");
        let b = plain_lines("void main() {\n\treturn;\n}\n");
        assert_eq!(b[1], "    return;");
    }

    /// The source view shows bytes of `OpSource` that are not UTF-8 as U+FFFD.
    #[test]
    fn source_text_that_is_not_utf8_shows_replacement_characters() {
        let text = "OpCapability Shader
OpMemoryModel Logical GLSL450
%f = OpString \"caf~.frag\"
OpSource GLSL 450 %f \"// caf~\nvoid main() {}\n\"
";
        let mut words = asm::assemble(text).unwrap();
        for w in &mut words[5..] {
            *w = u32::from_le_bytes(w.to_le_bytes().map(|b| if b == b'~' { 0xe9 } else { b }));
        }
        let m = read::read_words(&words).unwrap();
        let files = resolve(&m, std::path::Path::new("x.spv"), None, &[], &mut |_| None);
        let source = files.files.values().next().unwrap();
        assert_eq!(source.name, "caf\u{fffd}.frag");
        assert_eq!(source.lines.as_deref().unwrap()[0], "// caf\u{fffd}");
    }
}
