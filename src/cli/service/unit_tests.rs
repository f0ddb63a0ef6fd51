use super::*;

fn params() -> UnitParams {
    UnitParams {
        exe: PathBuf::from("/home/julia/.cargo/bin/ollim-bot"),
        env_file: PathBuf::from("/home/julia/.ollim-bot/.env"),
        data_dir_arg: None,
        working_dir: PathBuf::from("/home/julia/.ollim-bot"),
        path_env: Some("/home/julia/.local/bin:/usr/bin".to_owned()),
    }
}

fn line<'a>(unit: &'a str, key: &str) -> &'a str {
    unit.lines()
        .find(|l| l.starts_with(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key}= in\n{unit}"))
}

#[test]
fn plain_paths_are_written_bare() {
    let unit = render(&params()).unwrap();
    assert_eq!(
        line(&unit, "ExecStart"),
        "ExecStart=/home/julia/.cargo/bin/ollim-bot --env-file /home/julia/.ollim-bot/.env"
    );
    assert_eq!(
        line(&unit, "WorkingDirectory"),
        "WorkingDirectory=/home/julia/.ollim-bot"
    );
    assert_eq!(
        line(&unit, "Environment"),
        "Environment=\"PATH=/home/julia/.local/bin:/usr/bin\""
    );
}

#[test]
fn the_data_dir_flag_is_passed_when_given() {
    let unit = render(&UnitParams {
        data_dir_arg: Some(PathBuf::from("/srv/ollim")),
        working_dir: PathBuf::from("/srv/ollim"),
        ..params()
    })
    .unwrap();
    assert!(
        line(&unit, "ExecStart")
            .ends_with("--env-file /home/julia/.ollim-bot/.env --data-dir /srv/ollim"),
        "{unit}"
    );
    assert_eq!(
        line(&unit, "WorkingDirectory"),
        "WorkingDirectory=/srv/ollim"
    );
}

#[test]
fn paths_with_spaces_quotes_and_specials_follow_systemd_rules() {
    let unit = render(&UnitParams {
        exe: PathBuf::from("/home/julia/my bots/ollim-bot"),
        env_file: PathBuf::from("/home/julia/say \"hi\"\\.env"),
        data_dir_arg: Some(PathBuf::from("/home/julia/100% $HOME")),
        working_dir: PathBuf::from("/home/julia/100% data"),
        path_env: Some("/opt/a b:/usr/bin".to_owned()),
    })
    .unwrap();
    assert_eq!(
        line(&unit, "ExecStart"),
        r#"ExecStart="/home/julia/my bots/ollim-bot" --env-file "/home/julia/say \"hi\"\\.env" --data-dir "/home/julia/100%% $$HOME""#
    );
    assert_eq!(
        line(&unit, "WorkingDirectory"),
        "WorkingDirectory=/home/julia/100%% data"
    );
    assert_eq!(
        line(&unit, "Environment"),
        "Environment=\"PATH=/opt/a b:/usr/bin\""
    );
}

#[test]
fn a_lone_dollar_or_percent_is_escaped_even_unquoted() {
    assert_eq!(exec_word("/a/$b%c").unwrap(), "/a/$$b%%c");
    assert_eq!(exec_word(";").unwrap(), "\";\"");
}

#[test]
fn line_breaks_and_relative_paths_are_refused() {
    let broken = UnitParams {
        env_file: PathBuf::from("/home/julia/.env\nExecStartPre=/bin/rm"),
        ..params()
    };
    assert!(matches!(
        render(&broken),
        Err(UnitError::ControlCharacter(_))
    ));
    let relative = UnitParams {
        env_file: PathBuf::from(".env"),
        ..params()
    };
    assert_eq!(render(&relative), Err(UnitError::Relative(".env".into())));
}

#[test]
fn restart_stop_and_hardening_directives_are_there() {
    let unit = render(&UnitParams {
        path_env: None,
        ..params()
    })
    .unwrap();
    for directive in [
        "Restart=on-failure",
        "RestartSec=15",
        "StartLimitIntervalSec=600",
        "StartLimitBurst=10",
        "KillMode=mixed",
        "KillSignal=SIGTERM",
        "TimeoutStopSec=90",
        "UMask=0077",
        "NoNewPrivileges=yes",
        "PrivateTmp=yes",
        "ProtectSystem=full",
        "PrivateUsers=yes",
        "RestrictSUIDSGID=yes",
        "LockPersonality=yes",
        "WantedBy=default.target",
    ] {
        assert!(
            unit.lines().any(|l| l == directive),
            "{directive} in\n{unit}"
        );
    }
    assert!(
        !unit.contains("Environment="),
        "no PATH line without a PATH"
    );
    assert!(
        !unit
            .lines()
            .any(|l| !l.starts_with('#') && l.contains("RUST_LOG")),
        "RUST_LOG is left to the .env"
    );
    let start_limit = unit.find("StartLimitBurst").unwrap();
    assert!(
        start_limit < unit.find("[Service]").unwrap(),
        "start limit in [Unit]"
    );
    // Every directive is explained by a comment somewhere above it in its block.
    assert!(unit.lines().filter(|l| l.starts_with('#')).count() > 15);
}

#[test]
fn the_documented_unit_is_what_install_writes() {
    let unit = render(&UnitParams {
        exe: PathBuf::from("/home/you/.cargo/bin/ollim-bot"),
        env_file: PathBuf::from("/home/you/.ollim-bot/.env"),
        data_dir_arg: None,
        working_dir: PathBuf::from("/home/you/.ollim-bot"),
        path_env: Some("/home/you/.local/bin:/usr/local/bin:/usr/bin:/bin".to_owned()),
    })
    .unwrap();
    assert_eq!(unit, include_str!("../../../docs/ollim-bot.service"));
}
