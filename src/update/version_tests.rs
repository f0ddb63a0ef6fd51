use super::*;

#[test]
fn exactly_on_a_tag() {
    let version = RunningVersion::from_describe(Some("v0.3.0\n"), "0.1.0");
    assert_eq!(version, RunningVersion::Tagged("v0.3.0".into()));
    assert_eq!(version.reply(), "ollim-bot v0.3.0");
    assert_eq!(version.to_string(), "v0.3.0");
}

#[test]
fn past_a_tag_is_a_dev_build() {
    let version = RunningVersion::from_describe(Some("v0.3.0-5-gabc1234\n"), "0.1.0");
    assert_eq!(version.reply(), "ollim-bot v0.3.0+dev (abc1234)");
    let hyphenated = RunningVersion::from_describe(Some("v1.0.0-rc.1-12-g0123abcd"), "0.1.0");
    assert_eq!(
        hyphenated,
        RunningVersion::Dev {
            tag: "v1.0.0-rc.1".into(),
            sha: "0123abcd".into()
        }
    );
}

#[test]
fn a_hyphenated_tag_on_head_is_not_mistaken_for_dev() {
    let version = RunningVersion::from_describe(Some("v1.0.0-rc-1"), "0.1.0");
    assert_eq!(version, RunningVersion::Tagged("v1.0.0-rc-1".into()));
}

#[test]
fn without_git_or_tags_the_package_version() {
    for describe in [None, Some(""), Some(" \n")] {
        let version = RunningVersion::from_describe(describe, "0.1.0");
        assert_eq!(version.reply(), "ollim-bot v0.1.0", "{describe:?}");
    }
}

#[tokio::test]
async fn no_checkout_describes_as_the_package() {
    let version = describe(&SourceDir::Unavailable("none".into())).await;
    assert_eq!(
        version,
        RunningVersion::Package(env!("CARGO_PKG_VERSION").into())
    );
}
