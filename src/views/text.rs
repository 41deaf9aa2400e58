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

#[cfg(test)]
mod tests {
    use super::{shorten_middle, shorten_pass, title};

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
}
