//! `shaderstep completions SHELL` and `shaderstep man`: what installing shaderstep needs beside
//! the binary, generated from the clap definition the binary parses with, so neither can drift
//! from the real options.

use clap::CommandFactory;

use super::cli::Cli;

/// The completion script for `shell` (`generate` builds every subcommand's arguments, which
/// `Deferred` holds back until clap enters a subcommand).
pub fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "shaderstep", &mut out);
    out
}

/// The man page, one page for every command: the top-level command's sections, then a section
/// per subcommand (`SHADERSTEP RUN`…) holding its synopsis, description, options and examples
/// as subsections, so `man shaderstep` finds it all. clap_mangen writes a page per command;
/// its pieces are put together here.
pub fn man() -> String {
    // `help` is clap's own and says nothing the page does not. Built: every subcommand's
    // arguments, which `Deferred` holds back until clap enters a subcommand.
    let mut cmd = Cli::command()
        .bin_name("shaderstep")
        .disable_help_subcommand(true);
    cmd.build();
    let top = clap_mangen::Man::new(cmd.clone());
    let mut title = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = top.render_title(&mut title);
    let mut page = String::from_utf8_lossy(&title).into_owned();
    page += &piece(|w| top.render_name_section(w), "SH");
    page += &piece(|w| top.render_synopsis_section(w), "SH");
    page += &piece(|w| top.render_description_section(w), "SH");
    page += &piece(|w| top.render_options_section(w), "SH");
    page += &piece(|w| top.render_extra_section(w), "SH");
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        page += &format!(".SH \"SHADERSTEP {}\"\n", sub.get_name().to_uppercase());
        let man = clap_mangen::Man::new(sub.clone());
        page += &piece(|w| man.render_synopsis_section(w), "SS");
        page += &piece(|w| man.render_description_section(w), "SS");
        page += &piece(|w| man.render_options_section(w), "SS");
        if sub.get_after_help().is_some() {
            page += &piece(|w| man.render_extra_section(w), "SS");
        }
    }
    page += &piece(|w| top.render_version_section(w), "SH");
    page
}

/// One section of a page as clap_mangen renders it, headed by `heading` (`SH` a section, `SS`
/// a subsection): without the string definitions every piece repeats (the title's open the
/// page), and the after-help section named for what it holds, EXAMPLES, instead of the
/// "EXTRA" heading and "Examples:" line.
fn piece(render: impl Fn(&mut Vec<u8>) -> std::io::Result<()>, heading: &str) -> String {
    let mut out = Vec::new();
    let _ = render(&mut out);
    let mut kept = String::new();
    for line in String::from_utf8_lossy(&out).lines() {
        match line.strip_prefix(".SH ") {
            Some("EXTRA") => kept += &format!(".{heading} EXAMPLES\n"),
            Some(name) => kept += &format!(".{heading} {name}\n"),
            None if matches!(
                line,
                ".ie \\n(.g .ds Aq \\(aq" | ".el .ds Aq '" | "Examples:"
            ) => {}
            None => {
                kept += line;
                kept.push('\n');
            }
        }
    }
    kept
}
