use super::*;

fn read(pairs: &[(&str, &str)]) -> Result<WebhookSetting, ConfigError> {
    WebhookSetting::read(|name| {
        pairs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    })
}

#[test]
fn no_port_means_no_server_whk_1() {
    assert_eq!(read(&[]).unwrap(), WebhookSetting::Off);
    assert_eq!(
        read(&[("WEBHOOK_SECRET", "s3cret")]).unwrap(),
        WebhookSetting::Off
    );
}

#[test]
fn a_port_without_a_secret_stays_off_whk_1() {
    assert_eq!(
        read(&[("WEBHOOK_PORT", "8420")]).unwrap(),
        WebhookSetting::MissingSecret { port: 8420 }
    );
    assert_eq!(
        read(&[("WEBHOOK_PORT", "8420"), ("WEBHOOK_SECRET", "  ")]).unwrap(),
        WebhookSetting::MissingSecret { port: 8420 }
    );
}

#[test]
fn port_and_secret_turn_it_on_and_debug_hides_the_secret() {
    let setting = read(&[("WEBHOOK_PORT", "8420"), ("WEBHOOK_SECRET", "s3cret-value")]).unwrap();
    assert_eq!(
        setting,
        WebhookSetting::On {
            port: 8420,
            secret: WebhookSecret::new("s3cret-value")
        }
    );
    let shown = format!("{setting:?}");
    assert!(!shown.contains("s3cret-value"), "{shown}");
    assert!(shown.contains("8420"), "{shown}");
}

#[test]
fn an_unparseable_port_is_a_config_error_naming_the_variable() {
    let error = read(&[("WEBHOOK_PORT", "84x0"), ("WEBHOOK_SECRET", "s")]).unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("WEBHOOK_PORT=\"84x0\" is invalid"),
        "{text}"
    );
    assert!(text.contains("WEBHOOK_PORT=8420"), "{text}");
    assert!(read(&[("WEBHOOK_PORT", "70000")]).is_err());
}

/// BOOT-11: `WEBHOOK_BIND` is where the server listens: loopback unless set, an IPv4 or IPv6
/// address when set, and anything else a configuration error naming the variable.
#[test]
fn the_bind_address_defaults_to_loopback() {
    let bind = |pairs: &[(&str, &str)]| {
        read_webhook_bind(|name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        })
    };
    assert_eq!(bind(&[]).unwrap(), DEFAULT_WEBHOOK_BIND);
    assert_eq!(
        bind(&[("WEBHOOK_BIND", "0.0.0.0")]).unwrap().to_string(),
        "0.0.0.0"
    );
    assert_eq!(bind(&[("WEBHOOK_BIND", "::")]).unwrap().to_string(), "::");
    let error = bind(&[("WEBHOOK_BIND", "localhost")])
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("WEBHOOK_BIND=\"localhost\" is invalid"),
        "{error}"
    );
}
