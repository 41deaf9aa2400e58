//! The `Pass` trait and what a pass sees besides the module.

use std::fmt;
use std::sync::Arc;

use crate::ir::{Id, Module};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// The function and instruction (result id or block label) it is about, if any.
    pub function: Option<Id>,
    pub at: Option<Id>,
    /// The same place as the IR text names it (`at %sum`, `in %main`), where known.
    pub place: Option<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            message: message.into(),
            function: None,
            at: None,
            place: None,
        }
    }
}

impl From<crate::ir::verify::VerifyError> for Diagnostic {
    fn from(e: crate::ir::verify::VerifyError) -> Self {
        Diagnostic {
            severity: match e.level {
                crate::ir::verify::Level::Error => Severity::Error,
                crate::ir::verify::Level::Warning => Severity::Warning,
            },
            message: e.message,
            function: e.function,
            at: e.at,
            place: e.place,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.severity)?;
        if let Some(place) = &self.place {
            return write!(f, "{place}: {}", self.message);
        }
        if let Some(func) = self.function {
            write!(f, "in function %{func}: ")?;
        }
        if let Some(at) = self.at {
            write!(f, "at %{at}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Whether a pass changed the module — a type, not a convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Changed {
    No,
    Yes,
}

impl From<bool> for Changed {
    fn from(b: bool) -> Self {
        if b {
            Changed::Yes
        } else {
            Changed::No
        }
    }
}

/// A pass failed: the pipeline stops here and the error is the step's last diagnostic.
#[derive(Clone, Debug, PartialEq)]
pub struct PassError(pub String);

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub struct PassCx {
    /// The SPIR-V the pipeline started from (what `lower` reads).
    pub input: Arc<Vec<u32>>,
    /// The input already decoded (by input validation) and how long that took, which
    /// `lower` takes instead of decoding again.
    pub decoded: Option<(Module, std::time::Duration)>,
    /// Work a pass did before the pipeline ran, added to its step's time.
    pub earlier_time: std::time::Duration,
    /// The SPIR-V written by `lift`.
    pub output: Option<Vec<u32>>,
    pub diagnostics: Vec<Diagnostic>,
    /// Ops of the experimental partition are accepted, and passes may emit them.
    pub experimental: bool,
    /// The other modules `link` merges into the input.
    pub link_inputs: Vec<crate::pipeline::link::LinkInput>,
    /// `link` keeps `Export` linkage on exports nobody imported.
    pub keep_exports: bool,
    /// Someone looks at every step (the app, `--print-after-all`, `--stats`): a pass may skip
    /// work whose only use is what its step shows, when nobody does.
    pub shown: bool,
}

impl PassCx {
    pub fn new(input: Arc<Vec<u32>>) -> Self {
        PassCx {
            input,
            decoded: None,
            earlier_time: std::time::Duration::ZERO,
            output: None,
            diagnostics: Vec::new(),
            experimental: false,
            link_inputs: Vec::new(),
            keep_exports: false,
            shown: true,
        }
    }

    /// What the verifier accepts in this pipeline.
    pub fn verify_options(&self) -> crate::ir::verify::Options {
        crate::ir::verify::Options {
            experimental: self.experimental,
        }
    }

    pub fn diag(&mut self, severity: Severity, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic::new(severity, message));
    }
}

/// What a pass keeps of the analyses cached in the functions it changes (`ir::analysis`):
/// a pass that only rewrites instructions keeps every CFG analysis (dominators, frontiers,
/// control dependences, the construct tree). The cache itself follows what the function's
/// methods changed; this is the pass's promise, which `--verify-each` holds it to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preserves {
    /// It may change the control-flow graph.
    Nothing,
    /// It changes instructions, never blocks, edges or merge annotations.
    Cfg,
    /// It changes no function body.
    All,
}

pub trait Pass: Send + Sync {
    fn name(&self) -> &'static str;
    /// One line for `shaderstep passes`.
    fn description(&self) -> &'static str;
    fn run(&self, module: &mut Module, cx: &mut PassCx) -> Result<Changed, PassError>;
    /// What it keeps of the cached analyses of the functions it changes.
    fn preserves(&self) -> Preserves {
        Preserves::Nothing
    }
}
