//! Steps read as a shading language (`:view glsl|hlsl|msl|wgsl`): which steps the code pane
//! needs decompiled that nobody has asked the decompiler job for (each by the hash of its
//! SPIR-V and the language, so a step that changed nothing is decompiled once), and its
//! answers kept. SPIRV-Cross and naga run in a child process off the UI thread: a large step
//! never holds up a frame.

use super::Effect;
use crate::app::state::{State, TextKind};
use crate::pipeline::decompile::Lang;

/// How many decompiled texts are kept.
const KEPT: usize = 256;

/// The steps the code pane shows in a language, not decompiled yet and not asked for: the
/// selected step and what a diff compares it with, then the steps either side of the selected
/// one, so that stepping through the passes finds them done.
pub(super) fn wanted(s: &mut State) -> Option<Effect> {
    let TextKind::Lang(lang) = s.text else {
        return None;
    };
    let mut needed = super::driver::shown_steps(s);
    let shown = needed.len();
    let doc = s.current()?;
    let run = doc.run.clone()?;
    let generation = doc.generation;
    for i in [s.step + 1, s.step.wrapping_sub(1)] {
        if let Some(st) = run.steps.get(i).filter(|st| !st.is_source()) {
            needed.push(((s.doc, generation, i), st.module.clone()));
        }
    }
    let mut asked = Vec::new();
    let mut waited = Vec::new();
    for (n, (key, module)) in needed.into_iter().enumerate() {
        let new = |c: &crate::app::state::Cache, h| {
            !c.decompiled.contains_key(&(h, lang)) && !c.decompile_pending.contains(&(h, lang))
        };
        let Some((hash, words)) = crate::app::derive::step_spirv(&mut s.cache, key, &module, new)
        else {
            continue;
        };
        s.cache.decompile_pending.insert((hash, lang));
        asked.push((hash, lang, words));
        if n < shown {
            waited.push((hash, lang));
        }
    }
    (!asked.is_empty()).then_some(Effect::Decompile {
        asked,
        shown: waited,
    })
}

/// The decompiler job's answer for the SPIR-V `hash` hashes in `lang`: kept, and the texts
/// that waited for it made again.
pub(super) fn answered(s: &mut State, hash: u64, lang: Lang, result: Result<String, String>) {
    let cache = &mut s.cache;
    cache.decompile_pending.remove(&(hash, lang));
    if cache.decompiled.len() >= KEPT {
        cache.decompiled.clear();
    }
    cache.decompiled.insert((hash, lang), result);
    cache.decompile_answers += 1;
    s.cache
        .texts
        .retain(|k, _| !matches!(k.3, TextKind::Lang(_)));
}
