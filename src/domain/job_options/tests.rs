use super::*;
use crate::domain::frontmatter::Fields;

fn fields(yaml: &str) -> Fields {
    let mut keys = vec!["id"];
    keys.extend_from_slice(read::OPTION_TEXT_KEYS);
    Fields::parse(yaml, &keys).unwrap()
}

#[test]
fn run_mode_defaults_differ_by_kind() {
    let empty = fields("id: x\n");
    assert_eq!(
        RunMode::read(&empty, JobKind::Routine),
        Ok(RunMode::Foreground)
    );
    assert_eq!(
        RunMode::read(&empty, JobKind::Reminder),
        Ok(RunMode::Background(BgSession::Forked))
    );
    let foreground = fields("background: false\n");
    assert_eq!(
        RunMode::read(&foreground, JobKind::Webhook),
        Ok(RunMode::Background(BgSession::Forked))
    );
}

#[test]
fn isolated_and_persistent_follow_e1() {
    let isolated = fields("background: true\nisolated: true\n");
    assert_eq!(
        RunMode::read(&isolated, JobKind::Reminder),
        Ok(RunMode::Background(BgSession::Isolated))
    );
    // Background-only options are ignored in the foreground.
    let fg_isolated = fields("isolated: true\n");
    assert_eq!(
        RunMode::read(&fg_isolated, JobKind::Routine),
        Ok(RunMode::Foreground)
    );
    let persistent = fields("background: true\nsession: persistent\n");
    assert_eq!(
        RunMode::read(&persistent, JobKind::Routine),
        Ok(RunMode::Background(BgSession::Persistent))
    );
    // Reminders have no persistent sessions; the key means nothing there.
    assert_eq!(
        RunMode::read(&persistent, JobKind::Reminder),
        Ok(RunMode::Background(BgSession::Forked))
    );
    for (yaml, error) in [
        ("session: persistent\n", "requires background: true"),
        (
            "background: true\nisolated: true\nsession: persistent\n",
            "can't be combined with isolated",
        ),
        (
            "background: true\nsession: daily\n",
            "must be \"persistent\"",
        ),
    ] {
        let got = RunMode::read(&fields(yaml), JobKind::Routine).unwrap_err();
        assert!(got.contains(error), "{yaml}: {got}");
    }
    // Only routines read `session`: a reminder's is not looked at, whatever its shape (E.2).
    let odd = fields("session: [daily]\n");
    assert_eq!(
        RunMode::read(&odd, JobKind::Reminder),
        Ok(RunMode::Background(BgSession::Forked))
    );
}

#[test]
fn options_read_with_defaults_and_the_exclusive_tool_lists() {
    assert_eq!(
        RunOptions::read(&fields("id: x\n")),
        Ok(RunOptions::default())
    );
    let options = RunOptions::read(&fields(
        "model: haiku\nthinking: false\nupdate_main_session: always\nallow-ping: no\n\
         disallowed-tools: [WebFetch]\nskills: [triage]\nsubagent: helper\nreflect: false\n",
    ))
    .unwrap();
    assert_eq!(
        options,
        RunOptions {
            model: Some("haiku".into()),
            thinking: false,
            update_mode: UpdateMode::Always,
            allow_ping: false,
            tools: ToolRestriction::Disallowed(vec!["WebFetch".into()]),
            skills: vec!["triage".into()],
            subagent: Some("helper".into()),
            reflect: false,
        }
    );
    let both = fields("allowed-tools: [Read]\ndisallowed-tools: [Bash]\n");
    assert!(
        RunOptions::read(&both)
            .unwrap_err()
            .contains("can't both be set")
    );
    let bad_mode = fields("update-main-session: sometimes\n");
    assert!(
        RunOptions::read(&bad_mode)
            .unwrap_err()
            .contains("must be one of")
    );
}
