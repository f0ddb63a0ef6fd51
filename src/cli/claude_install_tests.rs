//! The CLI step's decision and its words.

use super::*;

fn version(text: &str) -> CliVersion {
    CliVersion::parse(text).unwrap()
}

#[test]
fn the_tested_version_needs_nothing_wherever_it_came_from() {
    for origin in [CliOrigin::Named, CliOrigin::BotCopy, CliOrigin::SearchPath] {
        assert_eq!(
            plan(origin, &Found::Version(TESTED_CLI_VERSION)),
            Plan::Ready,
            "{origin:?}"
        );
    }
}

#[test]
fn none_or_another_version_is_offered_unless_the_owner_named_it() {
    let cases = [
        Found::Missing,
        Found::Version(version("2.1.197")),
        Found::Version(version("9.0.0")),
        Found::Broken("printed no version".to_owned()),
    ];
    for found in &cases {
        assert_eq!(plan(CliOrigin::SearchPath, found), Plan::Offer, "{found:?}");
        assert_eq!(plan(CliOrigin::BotCopy, found), Plan::Offer, "{found:?}");
        assert_eq!(
            plan(CliOrigin::Named, found),
            Plan::OwnersChoice,
            "{found:?}"
        );
    }
}

#[test]
fn enter_is_no_and_other_words_are_asked_again() {
    for (answer, meant) in [
        ("y", Some(true)),
        (" YES ", Some(true)),
        ("", Some(false)),
        ("n", Some(false)),
        ("No", Some(false)),
        ("maybe", None),
    ] {
        assert_eq!(yes_or_no(answer), meant, "{answer:?}");
    }
}

#[test]
fn the_cli_is_named_with_its_place_and_origin() {
    let on_path = ClaudeCli {
        path: PathBuf::from("claude"),
        origin: CliOrigin::SearchPath,
    };
    assert_eq!(
        describe(&on_path, None, &Found::Missing),
        "no Claude Code CLI found (no `claude` on PATH)"
    );
    assert_eq!(
        describe(
            &on_path,
            Some(Path::new("/usr/bin/claude")),
            &Found::Version(version("2.1.197"))
        ),
        "Claude Code CLI 2.1.197 (/usr/bin/claude, `claude` on PATH)"
    );
    let named = ClaudeCli {
        path: PathBuf::from("/opt/claude"),
        origin: CliOrigin::Named,
    };
    assert_eq!(
        describe(&named, None, &Found::Missing),
        "no Claude Code CLI found at /opt/claude, named by OLLIM_CLAUDE_CLI"
    );
    assert_eq!(
        manual_install(Path::new("/home/j/.local/share/ollim-bot/claude-cli")),
        format!(
            "npm install --prefix /home/j/.local/share/ollim-bot/claude-cli \
             @anthropic-ai/claude-code@{TESTED_CLI_VERSION}"
        )
    );
}
