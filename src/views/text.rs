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

/// `name` in at most `width` characters, told apart from its neighbours (`before`, `after`,
/// the names listed next to it): a long beginning it shares with them is cut to its first
/// word (never the whole front: the name still reads as itself), then what is left loses its
/// middle, keeping where the names part and the extension. A test suite's folder names
/// hundreds of files `shaders-hlsl-no-opt.asm.comp.…`: cut at the front, the back or the
/// middle alone they look alike.
pub fn shorten_beside(
    name: &str,
    before: Option<&str>,
    after: Option<&str>,
    width: usize,
) -> String {
    // A shared front shorter than this is kept whole.
    const SHORT_FRONT: usize = 12;
    // How far back a word's start is looked for.
    const WORD: usize = 8;
    let n = name.chars().count();
    if n <= width {
        return name.to_string();
    }
    let common = |other: &str| {
        name.chars()
            .zip(other.chars())
            .take_while(|(x, y)| x == y)
            .count()
    };
    let shared = [before, after]
        .into_iter()
        .flatten()
        .map(common)
        .max()
        .unwrap_or(0);
    let chars: Vec<char> = name.chars().collect();
    if shared < SHORT_FRONT || width < 12 {
        return shorten_middle(name, width);
    }
    let boundary = |k: usize| k > 0 && matches!(chars[k - 1], '.' | '-' | '_' | '/');
    // Where they part: from the start of that word, when it is near.
    let mut from = shared.min(n - 1);
    if let Some(k) = (from.saturating_sub(WORD)..=from)
        .rev()
        .find(|&k| boundary(k))
    {
        from = k;
    }
    // The front kept: its first word, at most a quarter of the room.
    let most = (width / 4).max(2);
    let head = (1..=most.min(from))
        .rev()
        .find(|&k| boundary(k))
        .unwrap_or(most.min(from));
    let room = width.saturating_sub(head + 1);
    // What is left is short: the room fills from further back, from a word's start.
    if n - from < room {
        let back = n - room;
        from = (back..(back + WORD).min(from))
            .find(|&k| boundary(k))
            .unwrap_or(back);
    }
    let rest: String = chars[from..].iter().collect();
    let front: String = chars[..head].iter().collect();
    format!("{front}…{}", shorten_middle(&rest, room))
}

#[cfg(test)]
mod tests {
    use super::{shorten_beside, shorten_middle, shorten_pass, title};

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
    fn neighbours_sharing_a_long_front_stay_apart_and_keep_their_first_word() {
        let names = [
            "shaders-hlsl-no-opt.asm.comp.access-chain-load-store-composite.asm.comp.spv",
            "shaders-hlsl-no-opt.asm.comp.atomic-load-store.asm.comp.spv",
            "shaders-hlsl-no-opt.asm.comp.atomic-result-temporary.asm.comp.spv",
        ];
        let shown: Vec<String> = (0..names.len())
            .map(|i| {
                let before = i.checked_sub(1).map(|j| names[j]);
                let after = names.get(i + 1).copied();
                shorten_beside(names[i], before, after, 28)
            })
            .collect();
        assert!(shown.iter().all(|s| s.chars().count() <= 28), "{shown:?}");
        assert!(shown.iter().all(|s| s.starts_with("shaders…")), "{shown:?}");
        assert!(shown[0].contains("access-"), "{shown:?}");
        assert!(shown[1].contains("load-store"), "{shown:?}");
        assert!(shown[2].contains("result-tem"), "{shown:?}");
        assert!(shown.iter().all(|s| s.ends_with(".spv")), "{shown:?}");
        // A name that fits, or one whose neighbours share little, is as before.
        assert_eq!(
            shorten_beside("sky.wgsl", Some("lights.wgsl"), None, 28),
            "sky.wgsl"
        );
        assert_eq!(
            shorten_beside(
                "a-very-long-name-of-a-shader.frag",
                Some("b.frag"),
                None,
                20
            ),
            shorten_middle("a-very-long-name-of-a-shader.frag", 20)
        );
    }
}
