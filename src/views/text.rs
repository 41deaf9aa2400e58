//! Names shortened to fit a column, so that names that differ still look different.

/// `name` in at most `width` characters: cut in the middle (`elimin…ctions`), so that names
/// that share a beginning stay apart.
pub fn shorten_middle(name: &str, width: usize) -> String {
    let n = name.chars().count();
    if n <= width {
        return name.to_string();
    }
    if width <= 1 {
        return name.chars().take(width).collect();
    }
    let keep = width - 1;
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let chars: Vec<char> = name.chars().collect();
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[n - tail..]);
    out
}

/// A pane's title for a border `width` columns wide: ` what (hint) `, the hint left out when
/// both do not fit, and what is left cut in the middle.
pub fn title(what: &str, hint: &str, width: u16) -> String {
    // The corners and a little border stay visible.
    let room = usize::from(width).saturating_sub(4);
    let full = format!(" {what} ({hint}) ");
    if full.chars().count() <= room {
        return full;
    }
    format!(" {} ", shorten_middle(what, room.saturating_sub(2)))
}

/// A pass name in at most `width` characters: an external tool's prefix (`spirv-opt:`), which
/// every step of that pipeline shares, goes before the name itself is cut.
pub fn shorten_pass(name: &str, width: usize) -> String {
    match name.split_once(':') {
        Some((_, pass)) if name.chars().count() > width && width > 1 => {
            format!("…{}", shorten_middle(pass, width - 1))
        }
        _ => shorten_middle(name, width),
    }
}

/// Each of the sorted `names` from `range` in at most `width` characters, apart from its
/// neighbours: what a name shares at the front with the names next to it goes (up to the start
/// of the word where they part), then the middle of what is left, so that the part
/// where neighbours differ and the extension are both kept. Corpus trees name hundreds of files
/// `shaders-hlsl-no-opt.asm.comp.…`: cut at the front or the back they would look alike.
pub fn shorten_apart(names: &[String], range: std::ops::Range<usize>, width: usize) -> Vec<String> {
    // A shared front shorter than this is kept.
    const SHORT_FRONT: usize = 12;
    // How far back a word's start is looked for.
    const WORD: usize = 8;
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    range
        .map(|i| {
            let name = &names[i];
            let n = name.chars().count();
            if n <= width {
                return name.clone();
            }
            let shared = [i.checked_sub(1), Some(i + 1)]
                .into_iter()
                .flatten()
                .filter_map(|j| names.get(j))
                .map(|other| common(name, other))
                .max()
                .unwrap_or(0);
            // From the start of the word where they part, when it is near; a front shared
            // by few characters is kept (the middle goes instead).
            let chars: Vec<char> = name.chars().collect();
            if shared < SHORT_FRONT {
                return shorten_middle(name, width);
            }
            let boundary = |k: usize| k > 0 && matches!(chars[k - 1], '.' | '-' | '_' | '/');
            let mut from = shared.min(n - 1);
            if let Some(k) = (from.saturating_sub(WORD)..=from)
                .rev()
                .find(|&k| boundary(k))
            {
                from = k;
            }
            // What is left is short (the name is its neighbour's less a suffix: `a.spv`
            // beside `a.reduced.spv`): the room is filled from further back, from a word's
            // start, so the rest of the name shows too.
            let room = width.saturating_sub(1);
            if n - from < room {
                let back = n - room;
                from = (back..(back + WORD).min(from))
                    .find(|&k| boundary(k))
                    .unwrap_or(back);
            }
            let rest: String = chars[from..].iter().collect();
            format!("…{}", shorten_middle(&rest, width.saturating_sub(1)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{shorten_apart, shorten_middle, shorten_pass, title};

    #[test]
    fn long_names_are_cut_in_the_middle_and_stay_apart() {
        assert_eq!(shorten_middle("mem2reg", 12), "mem2reg");
        let a = shorten_middle("eliminate-dead-functions", 12);
        assert_eq!(a, "elimin…tions");
        assert_eq!(a.chars().count(), 12);
        assert_ne!(
            shorten_middle("spirv-opt:eliminate-local-single-block", 14),
            shorten_middle("spirv-opt:eliminate-local-single-store", 14)
        );
    }

    #[test]
    fn titles_lose_their_hint_before_their_text() {
        assert_eq!(
            title("history of %5", "x closes", 40),
            " history of %5 (x closes) "
        );
        assert_eq!(
            title("history of %5", "Enter goes to the step, x closes", 30),
            " history of %5 "
        );
        assert!(
            title("a very long title indeed", "hint", 16)
                .chars()
                .count()
                <= 12
        );
    }

    #[test]
    fn a_tools_prefix_goes_first() {
        assert_eq!(
            shorten_pass("spirv-opt:wrap-opkill", 30),
            "spirv-opt:wrap-opkill"
        );
        assert_eq!(shorten_pass("spirv-opt:wrap-opkill", 14), "…wrap-opkill");
        assert_eq!(
            shorten_pass("spirv-opt:eliminate-dead-branches", 14),
            "…elimin…anches"
        );
        assert_eq!(shorten_pass("eliminate-dead-functions", 12), "elimin…tions");
    }

    #[test]
    fn neighbours_sharing_a_long_front_stay_apart() {
        let names: Vec<String> = [
            "shaders-hlsl-no-opt.asm.comp.access-chain-load-store-composite.asm.comp.spv",
            "shaders-hlsl-no-opt.asm.comp.aliased-struct-divergent-member-name.asm.comp.spv",
            "shaders-hlsl-no-opt.asm.comp.atomic-load-store.asm.comp.spv",
            "shaders-hlsl-no-opt.asm.comp.atomic-result-temporary.asm.comp.spv",
            "short.comp",
        ]
        .map(String::from)
        .to_vec();
        let shown = shorten_apart(&names, 0..names.len(), 24);
        assert!(shown.iter().all(|s| s.chars().count() <= 24), "{shown:?}");
        for (i, a) in shown.iter().enumerate() {
            for b in &shown[i + 1..] {
                assert_ne!(a, b, "{shown:?}");
            }
        }
        // The part where they differ, and the extension, are kept.
        assert!(
            shown[2].starts_with("…load-s") && shown[2].ends_with(".spv"),
            "{shown:?}"
        );
        assert!(shown[0].starts_with("…access-"), "{shown:?}");
        assert_eq!(shown[4], "short.comp");
        // Cut at the front or the back alone, they would look the same.
        let front = |s: &str| s.chars().take(23).collect::<String>();
        assert_eq!(front(&names[2]), front(&names[3]));
    }

    /// A name that is its neighbour's less a suffix keeps more than its extension.
    #[test]
    fn a_name_and_its_reduced_copy_stay_readable() {
        let names: Vec<String> = [
            "shaders-hlsl-no-opt.asm.comp.image-atomic.asm.comp.reduced.spv",
            "shaders-hlsl-no-opt.asm.comp.image-atomic.asm.comp.spv",
        ]
        .map(String::from)
        .to_vec();
        let shown = shorten_apart(&names, 0..names.len(), 19);
        assert_eq!(shown, ["…comp.reduced.spv", "…asm.comp.spv"]);
    }
}
