//! `ollim-bot doctor` on the home channel (CHN-9), against the fake Discord's server.

use crate::doctor::{Install, write};
use crate::support::fake_discord::FakeOverwrite;

const EMBED_LINKS: u64 = 1 << 14;
const ATTACH_FILES: u64 = 1 << 15;

fn set_home(install: &Install, channel: u64) {
    write(
        install.data(),
        "state/config.json",
        &format!("{{\"home_channel\": \"{channel}\"}}"),
    );
}

/// CHN-9: a home channel where the bot holds what it needs passes and says who can read it.
#[tokio::test]
async fn a_usable_home_channel_passes_and_names_its_readers() {
    let install = Install::healthy().await;
    let guild = install.discord.add_guild("place");
    let channel = install
        .discord
        .add_text_channel(guild, "assistant", Vec::new());
    set_home(&install, channel);
    let report = install.doctor().await;
    let passes = report.lines("PASS").join("\n");
    assert!(
        passes.contains(&format!("home channel {channel}: every permission I need")),
        "{report}"
    );
    assert!(
        passes.contains("home channel: also readable by everyone in the server"),
        "{report}"
    );
}

/// CHN-9: the permissions the bot lacks there are named, each.
#[tokio::test]
async fn missing_permissions_in_the_home_channel_fail_by_name() {
    let install = Install::healthy().await;
    let guild = install.discord.add_guild("place");
    let bot = install.discord.config().bot_user_id;
    let channel = install.discord.add_text_channel(
        guild,
        "assistant",
        vec![FakeOverwrite::member(bot, 0, EMBED_LINKS | ATTACH_FILES)],
    );
    set_home(&install, channel);
    install
        .doctor()
        .await
        .assert_fails_on(&["missing permissions", "Embed Links", "Attach Files"]);
}

/// CHN-9: a home channel that is gone fails with what to do.
#[tokio::test]
async fn a_home_channel_that_is_gone_fails() {
    let install = Install::healthy().await;
    set_home(&install, 4242);
    install
        .doctor()
        .await
        .assert_fails_on(&["home channel 4242 can't be used", "/home"]);
}
