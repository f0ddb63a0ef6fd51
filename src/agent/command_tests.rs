use super::*;

fn line(text: &str) -> Result<Command, UsageError> {
    parse_line(text).expect("a session command")
}

/// SLC-1, SLC-3, SLC-15: commands without options.
#[test]
fn bare_commands() {
    assert_eq!(line("/clear"), Ok(Command::Clear));
    assert_eq!(line("/cost"), Ok(Command::Cost));
    assert_eq!(line("/version"), Ok(Command::Version));
    assert_eq!(parse("clear", &CommandArgs::default()), Ok(Command::Clear));
}

/// SLC-2: the instructions are the whole rest of the line; blank means none.
#[test]
fn compact_takes_the_rest_of_the_line() {
    assert_eq!(
        line("/compact  keep the plan and the dentist "),
        Ok(Command::Compact {
            instructions: Some("keep the plan and the dentist".to_owned())
        })
    );
    assert_eq!(
        line("/compact"),
        Ok(Command::Compact { instructions: None })
    );
    let blank = CommandArgs::named([("instructions", "  ")]);
    assert_eq!(
        parse("compact", &blank),
        Ok(Command::Compact { instructions: None })
    );
}

/// SLC-5: with a name it switches, without it shows.
#[test]
fn model() {
    assert_eq!(
        line("/model haiku"),
        Ok(Command::Model(Some("haiku".to_owned())))
    );
    assert_eq!(line("/model"), Ok(Command::Model(None)));
    assert_eq!(
        parse("model", &CommandArgs::named([("name", "opus")])),
        Ok(Command::Model(Some("opus".to_owned())))
    );
}

/// SLC-6: the Discord choice names (with their space), raw modes and budgets; anything else
/// is refused with the Discord wording.
#[test]
fn thinking() {
    assert_eq!(
        line("/thinking 8k budget"),
        Ok(Command::Thinking(Some(Thinking::Budget(8000))))
    );
    assert_eq!(
        parse("thinking", &CommandArgs::named([("mode", "64k budget")])),
        Ok(Command::Thinking(Some(Thinking::Budget(64000))))
    );
    assert_eq!(
        line("/thinking adaptive"),
        Ok(Command::Thinking(Some(Thinking::Adaptive)))
    );
    assert_eq!(
        line("/thinking 12000"),
        Ok(Command::Thinking(Some(Thinking::Budget(12000))))
    );
    assert_eq!(line("/thinking"), Ok(Command::Thinking(None)));
    let refused = line("/thinking lots").unwrap_err();
    assert_eq!(
        refused.to_string(),
        "thinking must be off, adaptive or a token budget."
    );
}

/// SLC-8: the four modes; `plan` is not one of them.
#[test]
fn permissions() {
    assert_eq!(
        line("/permissions dontAsk"),
        Ok(Command::Permissions(Some(PermissionMode::DontAsk)))
    );
    assert_eq!(
        parse(
            "permissions",
            &CommandArgs::named([("mode", "acceptEdits")])
        ),
        Ok(Command::Permissions(Some(PermissionMode::AcceptEdits)))
    );
    assert_eq!(line("/permissions"), Ok(Command::Permissions(None)));
    for bad in ["/permissions plan", "/permissions whatever"] {
        assert_eq!(
            line(bad).unwrap_err().to_string(),
            "permissions must be dontAsk, default, acceptEdits or bypassPermissions."
        );
    }
}

/// SLC-10: no key, a key (display or stored name), a key and a value (the rest of the line).
#[test]
fn config() {
    assert_eq!(line("/config"), Ok(Command::Config(ConfigRequest::ShowAll)));
    assert_eq!(
        line("/config model.main"),
        Ok(Command::Config(ConfigRequest::Show(ConfigKey::ModelMain)))
    );
    assert_eq!(
        line("/config fork_idle_timeout 15"),
        Ok(Command::Config(ConfigRequest::Set(
            ConfigKey::ForkIdleTimeout,
            "15".to_owned()
        )))
    );
    assert_eq!(
        parse(
            "config",
            &CommandArgs::named([("key", "thinking_main"), ("value", "8k budget")])
        ),
        Ok(Command::Config(ConfigRequest::Set(
            ConfigKey::ThinkingMain,
            "8k budget".to_owned()
        )))
    );
    // A value without a key (Discord allows it) still shows everything.
    assert_eq!(
        parse("config", &CommandArgs::named([("value", "15")])),
        Ok(Command::Config(ConfigRequest::ShowAll))
    );
    assert_eq!(
        line("/config colour blue").unwrap_err().to_string(),
        "unknown key: colour"
    );
}

/// Only session commands are read; other lines go to the agent or the terminal itself.
#[test]
fn other_lines_are_not_commands() {
    assert_eq!(parse_line("hello"), None);
    assert_eq!(parse_line("/help"), None);
    assert_eq!(parse_line("/fork topic"), None);
    assert_eq!(parse_line("/improve-routine routines/x.md"), None);
    assert_eq!(
        parse("bogus", &CommandArgs::default()),
        Err(UsageError::UnknownCommand("bogus".to_owned()))
    );
    assert_eq!(
        UsageError::UnknownCommand("bogus".to_owned()).to_string(),
        "unknown command /bogus"
    );
}

/// SLC-2, SLC-3: only the commands that run a CLI turn are slow.
#[test]
fn slow_commands() {
    assert!(Command::Cost.is_slow());
    assert!(Command::Compact { instructions: None }.is_slow());
    assert!(!Command::Clear.is_slow());
    assert!(!Command::Model(None).is_slow());
}
