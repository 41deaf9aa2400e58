//! Several versions of one function side by side (`:columns N`), their rows aligned by value
//! identity as SPIR-T's multi-version printer aligns them: a line that defines a value stands
//! beside the lines of the other versions that define the same value, whatever else moved, and
//! other lines (stores, branches) align where their text is the same. Each version is aligned
//! with the one before it, so a value a pass renamed lines up again after the rename.

use crate::ir::Id;

/// One line of a version: the value it defines, if any, and its text.
pub type Line = (Option<Id>, String);

/// A row of the aligned versions: per version, the index of its line on this row, if one is.
pub type Row = Vec<Option<usize>>;

/// What a line is matched by: the value it defines, else its text (indentation aside).
fn key((def, text): &Line) -> String {
    match def {
        Some(id) => format!("\u{1}{id}"),
        None => text.trim().to_string(),
    }
}

/// Aligns `versions` (each a function's lines at one step, in order) into rows: every line of
/// every version is on exactly one row, in its version's order.
pub fn align(versions: &[Vec<Line>]) -> Vec<Row> {
    let Some(first) = versions.first() else {
        return Vec::new();
    };
    let n = versions.len();
    let mut rows: Vec<Row> = (0..first.len())
        .map(|i| {
            let mut r = vec![None; n];
            r[0] = Some(i);
            r
        })
        .collect();
    for k in 1..n {
        // A row compares by its line of the version before, if it has one; else it matches
        // nothing (a unique key).
        let old: Vec<String> = rows
            .iter()
            .enumerate()
            .map(|(r, row)| match row[k - 1] {
                Some(i) => key(&versions[k - 1][i]),
                None => format!("\u{0}{r}"),
            })
            .collect();
        let new: Vec<String> = versions[k].iter().map(key).collect();
        let d = super::diff::diff_lines(&old, &new, false);
        let mut merged: Vec<Row> = Vec::with_capacity(rows.len() + new.len());
        for l in &d.lines {
            match (l.old, l.new) {
                (Some(o), Some(j)) => {
                    let mut r = rows[o].clone();
                    r[k] = Some(j);
                    merged.push(r);
                }
                (Some(o), None) => merged.push(rows[o].clone()),
                (None, Some(j)) => {
                    let mut r = vec![None; n];
                    r[k] = Some(j);
                    merged.push(r);
                }
                (None, None) => {}
            }
        }
        rows = merged;
    }
    rows
}

/// Whether `row` is the same in every version: each has the line, with the same text.
pub fn unchanged(versions: &[Vec<Line>], row: &Row) -> bool {
    let mut texts = row
        .iter()
        .enumerate()
        .map(|(k, i)| i.map(|i| versions[k][i].1.trim()));
    let Some(Some(first)) = texts.next() else {
        return false;
    };
    texts.all(|t| t == Some(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(lines: &[(u32, &str)]) -> Vec<Line> {
        lines
            .iter()
            .map(|&(id, t)| ((id != 0).then_some(id), t.to_string()))
            .collect()
    }

    #[test]
    fn values_align_across_versions() {
        let a = version(&[
            (1, "%1 = OpLabel"),
            (2, "%2 = OpLoad %int %x"),
            (3, "%3 = OpIAdd %int %2 %2"),
            (0, "OpStore %y %3"),
            (0, "OpReturn"),
        ]);
        // The load is gone, the add changed, a multiply came before the store.
        let b = version(&[
            (1, "%1 = OpLabel"),
            (3, "%3 = OpIAdd %int %c %c"),
            (4, "%4 = OpIMul %int %3 %3"),
            (0, "OpStore %y %4"),
            (0, "OpReturn"),
        ]);
        // The multiply changed.
        let c = version(&[
            (1, "%1 = OpLabel"),
            (3, "%3 = OpIAdd %int %c %c"),
            (4, "%4 = OpIMul %int %3 %c"),
            (0, "OpStore %y %4"),
            (0, "OpReturn"),
        ]);
        let versions = [a, b, c];
        let rows = align(&versions);
        let by_text = |k: usize, t: &str| {
            rows.iter()
                .position(|r| r[k].is_some_and(|i| versions[k][i].1.starts_with(t)))
                .unwrap()
        };
        // The add is on one row in all three though its text changed, the multiply on one
        // row in the last two, the load alone.
        assert_eq!(
            rows[by_text(0, "%3 =")],
            vec![Some(2), Some(1), Some(1)],
            "{rows:?}"
        );
        let mul = by_text(1, "%4 =");
        assert_eq!(rows[mul], vec![None, Some(2), Some(2)], "{rows:?}");
        assert_eq!(rows[by_text(0, "%2 =")], vec![Some(1), None, None]);
        assert!(unchanged(&versions, &rows[by_text(0, "OpReturn")]));
        assert!(!unchanged(&versions, &rows[mul]));
        assert!(!unchanged(&versions, &rows[by_text(0, "%3 =")]));
    }

    #[test]
    fn every_line_is_on_one_row_in_order_even_when_values_move() {
        let a = version(&[
            (1, "%1 = OpLabel"),
            (3, "%3 = OpIAdd"),
            (4, "%4 = OpIMul"),
            (0, "OpReturn"),
        ]);
        let b = version(&[
            (1, "%1 = OpLabel"),
            (4, "%4 = OpIMul"),
            (3, "%3 = OpIAdd"),
            (0, "OpReturn"),
        ]);
        let versions = [a, b];
        let rows = align(&versions);
        for (k, v) in versions.iter().enumerate() {
            let on: Vec<usize> = rows.iter().filter_map(|r| r[k]).collect();
            assert_eq!(
                on,
                (0..v.len()).collect::<Vec<_>>(),
                "version {k}: {rows:?}"
            );
        }
        // One of the two moved values keeps its row; the other is on a row of each version.
        assert_eq!(rows.len(), 5, "{rows:?}");
    }
}
