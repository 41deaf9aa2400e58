//! The source pane (`views::source_view`): showing it, stepping out through the inlined callers,
//! and opening the source line in the user's editor.

use super::Effect;
use crate::app::action::Action;
use crate::app::state::State;

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        // The pane is what it says: no message, so hiding it gives back the screen as it was.
        Action::SourcePane(on) => s.source.shown = on.unwrap_or(!s.source.shown),
        Action::SourceCaller => {
            s.source.shown = true;
            s.source.frame += 1;
        }
        Action::EditSource => match crate::app::derive::cursor_source_path(s) {
            Ok((path, line)) => return vec![Effect::Edit { path, line }],
            Err(why) => s.set_error(why),
        },
        other => unreachable!("not an action of source_view: {other:?}"),
    }
    Vec::new()
}
