use serde_json::{Value, json};

use super::*;

#[path = "file_tests.rs"]
mod file;

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

fn set_err(key: ConfigKey, raw: &str) -> String {
    let mut config = RuntimeConfig::default();
    let error = config.set(key, raw).unwrap_err();
    assert_eq!(
        config,
        RuntimeConfig::default(),
        "a refused value changed the config"
    );
    error
}

#[test]
fn keys_names_and_order() {
    let display: Vec<_> = ConfigKey::ALL.iter().map(|k| k.display_name()).collect();
    assert_eq!(
        display,
        [
            "model.main",
            "model.fork",
            "thinking.main",
            "thinking.fork",
            "bg_fork_timeout",
            "bg_max_turns",
            "bg_max_concurrent",
            "bg_daily_budget",
            "fork_idle_timeout",
            "permission_mode",
            "auto_update",
            "auto_update_interval",
            "auto_update_hour",
            "google_calendars",
            "google_task_list",
            "home_channel",
            "notify_in",
            "fork_threads",
            "quiet_hours",
            "quiet_when_busy",
            "cli_idle_minutes",
            "recall_language",
        ]
    );
    for key in ConfigKey::ALL {
        assert_eq!(ConfigKey::from_name(key.name()), Some(key));
        assert_eq!(ConfigKey::from_name(key.display_name()), Some(key));
        assert!(!key.valid_values().is_empty());
    }
    assert_eq!(
        ConfigKey::from_name(" Thinking.Main "),
        Some(ConfigKey::ThinkingMain)
    );
    assert_eq!(ConfigKey::from_name("model"), None);
    let choices = ConfigKey::choices();
    assert_eq!(choices[0], ("model.main", "model_main"));
    assert_eq!(choices[12], ("auto_update_hour", "auto_update_hour"));
    assert!(
        choices
            .iter()
            .all(|(_, value)| !value.starts_with("google"))
    );
    assert!(!ConfigKey::GoogleCalendars.in_dropdown());
    assert_eq!(
        ConfigKey::ModelMain.help_line(),
        "**model.main**: Default model for main session — `opus / sonnet / haiku / fable / opusplan / a full model id / default`"
    );
}

#[test]
fn parses_valid_values() {
    let mut config = RuntimeConfig::default();
    let cases: &[(&str, &str)] = &[
        ("model.main", " SONNET "),
        ("model_fork", "Haiku"),
        ("thinking.main", "Adaptive"),
        ("thinking_fork", " 32000 "),
        ("bg_fork_timeout", "3600"),
        ("fork_idle_timeout", "15"),
        ("permission_mode", " bypassPermissions "),
        ("auto_update", "YES"),
        ("auto_update_interval", "5"),
        ("auto_update_hour", "0"),
        (
            "google_calendars",
            " primary , work@group.calendar.google.com ,,",
        ),
        ("google_task_list", " abc "),
    ];
    for (name, raw) in cases {
        config.set_named(name, raw).unwrap();
    }
    assert_eq!(config.model_main.as_deref(), Some("sonnet"));
    assert_eq!(config.model_fork.as_deref(), Some("haiku"));
    assert_eq!(config.fork_model(), Some("haiku"));
    assert_eq!(config.thinking_main, Thinking::Adaptive);
    assert_eq!(config.thinking_fork, Thinking::Budget(32000));
    assert_eq!(config.bg_fork_timeout_duration(), Duration::from_secs(3600));
    assert_eq!(
        config.fork_idle_timeout_duration(),
        Duration::from_secs(900)
    );
    assert_eq!(config.permission_mode, PermissionMode::BypassPermissions);
    assert!(config.auto_update);
    assert_eq!(
        config.auto_update_interval_duration(),
        Duration::from_secs(300)
    );
    assert_eq!(config.auto_update_hour, 0);
    assert_eq!(
        config.google_calendars,
        ["primary", "work@group.calendar.google.com"]
    );
    assert_eq!(config.google_task_list, "abc");

    for reset in ["", "null", "NONE", " default "] {
        config.set(ConfigKey::ModelMain, reset).unwrap();
        assert_eq!(config.model_main, None);
    }
    assert_eq!(config.fork_model(), Some("haiku"));
    config.set(ConfigKey::ModelFork, "default").unwrap();
    assert_eq!(config.fork_model(), None);
    config.set(ConfigKey::GoogleCalendars, " , ").unwrap();
    assert_eq!(config.google_calendars, ["primary"]);
    config.set(ConfigKey::GoogleTaskList, "  ").unwrap();
    assert_eq!(config.google_task_list, "@default");
    for (raw, expected) in [("on", true), ("0", false), ("True", true), ("no", false)] {
        config.set(ConfigKey::AutoUpdate, raw).unwrap();
        assert_eq!(config.auto_update, expected);
    }
    config.set(ConfigKey::AutoUpdateHour, "23").unwrap();
    assert_eq!(config.auto_update_hour, 23);
}

#[test]
fn parse_errors_have_the_exact_texts() {
    use ConfigKey as K;
    let model = "unknown model 'gpt4': use opus, sonnet, haiku, fable or opusplan, or a full model id \
                 such as claude-sonnet-4-5";
    let near = "unknown model 'claude-opus': use opus, sonnet, haiku, fable or opusplan, or a full \
                model id such as claude-sonnet-4-5";
    let thinking = "must be 'off', 'adaptive', or a positive integer (budget tokens)";
    let positive = "must be a positive integer";
    let hour = "must be an integer 0-23";
    let boolean = "must be on/off";
    let permission = "must be one of: acceptEdits, bypassPermissions, default, dontAsk";
    let cases: &[(ConfigKey, &str, &str)] = &[
        (K::ModelMain, "gpt4", model),
        (K::ModelFork, "claude-opus", near),
        (K::ThinkingMain, "maybe", thinking),
        (K::ThinkingMain, "0", thinking),
        (K::ThinkingMain, "-1", thinking),
        (K::ThinkingFork, "+8000", thinking),
        (K::ThinkingFork, "99999999999", thinking),
        (K::ThinkingFork, "true", thinking),
        (K::BgForkTimeout, "0", positive),
        (K::BgForkTimeout, "1.5", positive),
        (K::ForkIdleTimeout, "-3", positive),
        (K::ForkIdleTimeout, "", positive),
        (K::AutoUpdateInterval, "ten", positive),
        (K::AutoUpdateInterval, "99999999999999999999999", positive),
        (K::AutoUpdateHour, "24", hour),
        (K::AutoUpdateHour, "-1", hour),
        (K::AutoUpdateHour, "6am", hour),
        (K::AutoUpdate, "maybe", boolean),
        (K::AutoUpdate, "", boolean),
        (K::PermissionMode, "dontask", permission),
        (K::PermissionMode, "plan", permission),
        (K::PermissionMode, "admin", permission),
    ];
    for (key, raw, expected) in cases {
        assert_eq!(set_err(*key, raw), *expected, "{key} {raw:?}");
    }
    let mut config = RuntimeConfig::default();
    assert_eq!(
        config.set_named("nonexistent", "1").unwrap_err(),
        "unknown key: nonexistent"
    );
}

#[test]
fn renders_defaults() {
    let expected = "\
**model.main**: (default)
**model.fork**: (inherit main)
**thinking.main**: off (default)
**thinking.fork**: adaptive (default)
**bg_fork_timeout**: 1800s (default)
**bg_max_turns**: 50 (default)
**bg_max_concurrent**: 3 (default)
**bg_daily_budget**: $5.00 a day (default)
**fork_idle_timeout**: 10m (default)
**permission_mode**: dontAsk (default)
**auto_update**: off (default)
**auto_update_interval**: 60m (default)
**auto_update_hour**: 6:00 (default)
**google_calendars**: primary (default)
**google_task_list**: @default (default)
**home_channel**: (none)
**notify_in**: dm (default)
**fork_threads**: public (default)
**quiet_hours**: off (default)
**quiet_when_busy**: off (default)
**cli_idle_minutes**: 10m (default)
**recall_language**: english (default)";
    assert_eq!(RuntimeConfig::default().render_all(), expected);
}

#[test]
fn renders_changed_values() {
    let mut config = RuntimeConfig::default();
    for (key, raw) in [
        (ConfigKey::ModelMain, "opus"),
        (ConfigKey::ModelFork, "haiku"),
        (ConfigKey::ThinkingMain, "32000"),
        (ConfigKey::ThinkingFork, "off"),
        (ConfigKey::BgForkTimeout, "600"),
        (ConfigKey::BgMaxTurns, "12"),
        (ConfigKey::BgMaxConcurrent, "2"),
        (ConfigKey::BgDailyBudget, "$2.5"),
        (ConfigKey::ForkIdleTimeout, "15"),
        (ConfigKey::PermissionMode, "acceptEdits"),
        (ConfigKey::AutoUpdate, "on"),
        (ConfigKey::AutoUpdateInterval, "30"),
        (ConfigKey::AutoUpdateHour, "23"),
        (ConfigKey::GoogleCalendars, "a,b"),
        (ConfigKey::GoogleTaskList, "list1"),
        (ConfigKey::HomeChannel, "1234567890123456789"),
        (ConfigKey::NotifyIn, "Home"),
        (ConfigKey::ForkThreads, "Private"),
        (ConfigKey::QuietHours, "10pm-7am"),
        (ConfigKey::QuietWhenBusy, "on"),
        (ConfigKey::CliIdleMinutes, "never"),
        (ConfigKey::RecallLanguage, " German"),
    ] {
        config.set(key, raw).unwrap();
    }
    let lines: Vec<_> = ConfigKey::ALL
        .iter()
        .map(|key| config.display_value(*key))
        .collect();
    assert_eq!(
        lines,
        [
            "opus",
            "haiku",
            "32k budget",
            "off",
            "600s",
            "12",
            "2",
            "$2.50 a day",
            "15m",
            "acceptEdits",
            "on",
            "30m",
            "23:00",
            "a, b",
            "list1",
            "<#1234567890123456789>",
            "home",
            "private",
            "22:00–07:00",
            "on",
            "never",
            "german"
        ]
    );
    assert!(
        config
            .set(ConfigKey::RecallLanguage, "klingon")
            .unwrap_err()
            .starts_with("must be one of english, german")
    );
    assert_eq!(
        config.render_line(ConfigKey::ForkIdleTimeout),
        "**fork_idle_timeout**: 15m"
    );
    config.set(ConfigKey::ThinkingMain, "off").unwrap();
    assert_eq!(
        config.render_line(ConfigKey::ThinkingMain),
        "**thinking.main**: off (default)"
    );
}

#[test]
fn thinking_names() {
    assert_eq!(thinking_label(Thinking::Budget(8000)), "8k budget");
    assert_eq!(thinking_label(Thinking::Budget(1500)), "1.5k budget");
    assert_eq!(thinking_label(Thinking::Budget(1024)), "1.024k budget");
    assert_eq!(thinking_label(Thinking::Adaptive), "adaptive");
    assert_eq!(thinking_choice_name(Thinking::Off), "off");
    assert_eq!(thinking_choice_name(Thinking::Adaptive), "adaptive");
    assert_eq!(thinking_choice_name(Thinking::Budget(8000)), "8k budget");
    assert_eq!(thinking_choice_name(Thinking::Budget(64000)), "64k budget");
    assert_eq!(
        thinking_choice_name(Thinking::Budget(16000)),
        "16000 tokens"
    );
    let names: Vec<_> = THINKING_PRESETS.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names,
        ["off", "adaptive", "8k budget", "32k budget", "64k budget"]
    );
    assert_eq!(thinking_from_choice("32000"), Some(Thinking::Budget(32000)));
    assert_eq!(
        thinking_from_choice("8k budget"),
        Some(Thinking::Budget(8000))
    );
    assert_eq!(thinking_from_choice("12345"), Some(Thinking::Budget(12345)));
    assert_eq!(thinking_from_choice("lots"), None);
}

/// The home channel is stored as a string id (exact past 2^53), a pasted `<#id>` mention
/// counts, and `off` is kept (it overrides `OLLIM_HOME_CHANNEL`); where the bot reaches out is
/// `dm` or `home` (CHN-1, CHN-5).
#[test]
fn the_home_channel_and_where_notices_go() {
    let mut config = RuntimeConfig::default();
    config
        .set(ConfigKey::HomeChannel, " 1234567890123456789 ")
        .unwrap();
    config.set(ConfigKey::NotifyIn, "home").unwrap();
    let json = config.to_json();
    assert_eq!(json["home_channel"], "1234567890123456789");
    assert_eq!(json["notify_in"], "home");
    assert_eq!(RuntimeConfig::from_json(&json), config);
    assert_eq!(
        config.set(ConfigKey::HomeChannel, "#general").unwrap_err(),
        "must be a channel id (digits) or off"
    );
    assert_eq!(
        config.set(ConfigKey::NotifyIn, "email").unwrap_err(),
        "must be dm or home"
    );
    config.set(ConfigKey::HomeChannel, "<#42>").unwrap();
    assert_eq!(config.home_channel, HomeSetting::Channel(42));
    config.set(ConfigKey::HomeChannel, "off").unwrap();
    assert_eq!(config.home_channel, HomeSetting::Off);
    assert_eq!(config.home_channel.channel(Some(7)), None);
    let json = config.to_json();
    assert_eq!(json["home_channel"], "off");
    assert_eq!(RuntimeConfig::from_json(&json), config);
    assert_eq!(HomeSetting::Unchosen.channel(Some(7)), Some(7));
    assert_eq!(HomeSetting::Channel(3).channel(Some(7)), Some(3));
    assert!(!ConfigKey::HomeChannel.in_dropdown());
    assert!(ConfigKey::NotifyIn.in_dropdown());
}

/// USE-6: the background budget in dollars a day, kept in cents; `off` lifts it.
#[test]
fn the_background_budget_is_dollars_a_day_or_off() {
    let mut config = RuntimeConfig::default();
    assert_eq!(config.bg_daily_budget_cents, Some(500));
    for (raw, cents) in [("5", 500), ("$2.50", 250), ("0.1", 10), (" 0.05 ", 5)] {
        config.set(ConfigKey::BgDailyBudget, raw).unwrap();
        assert_eq!(config.bg_daily_budget_cents, Some(cents), "{raw}");
    }
    let json = config.to_json();
    assert_eq!(json["bg_daily_budget"], "0.05");
    assert_eq!(RuntimeConfig::from_json(&json), config);
    config.set(ConfigKey::BgDailyBudget, "off").unwrap();
    assert_eq!(config.bg_daily_budget_cents, None);
    assert_eq!(RuntimeConfig::from_json(&config.to_json()), config);
    for bad in ["0", "-1", "1.234", "five", "$"] {
        assert_eq!(
            config.set(ConfigKey::BgDailyBudget, bad).unwrap_err(),
            "must be dollars a day (like 5 or 2.50) or off",
            "{bad}"
        );
    }
}
