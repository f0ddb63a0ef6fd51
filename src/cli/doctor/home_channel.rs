//! DISCORD, the home channel (CHN-9): when one is set, it can still be used, the bot holds the
//! permissions it needs there (each missing one named), and who else can read it. Read over
//! REST the way the bot reads it; offline is a warning, not a failure.

use std::time::Duration;

use super::{Check, Group};
use crate::{
    config::{
        Launch,
        runtime::{RuntimeConfig, channel_id},
    },
    discord::{
        client::rest_client,
        home::{HomeError, privacy::Reader, standing},
        owner::application_owner,
    },
    state::paths::DataDir,
};
use serenity::model::id::ChannelId;

/// How long the whole check may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The home channel's lines; none when no home channel is set.
pub(super) async fn home_channel_checks(launch: &Launch, data_dir: &DataDir) -> Vec<Check> {
    let from_env = launch
        .var("OLLIM_HOME_CHANNEL")
        .as_deref()
        .and_then(channel_id);
    let runtime = RuntimeConfig::load(&data_dir.config_file());
    let Some(home) = runtime.home_channel.channel(from_env) else {
        return Vec::new();
    };
    let home = ChannelId::new(home);
    let group = Group::Discord;
    let Some(token) = launch.var("DISCORD_TOKEN").filter(|t| !t.trim().is_empty()) else {
        return Vec::new();
    };
    let api_url = launch.var("OLLIM_DISCORD_API_URL");
    let http = match rest_client(token.trim(), api_url.as_deref()) {
        Ok(http) => http,
        Err(error) => return vec![Check::fail(group, format!("home channel: {error}"))],
    };
    let read = async {
        let owner = application_owner(&http).await.map_err(HomeError::from)?;
        let Some(owner) = owner else {
            return Ok(None);
        };
        standing(&http, home, owner, runtime.fork_threads)
            .await
            .map(Some)
    };
    match tokio::time::timeout(TIMEOUT, read).await {
        Err(_) => vec![Check::warn(
            group,
            "home channel: skipped: Discord took too long",
        )],
        Ok(Ok(None)) => vec![Check::warn(
            group,
            "home channel: skipped: the application has no owner",
        )],
        Ok(Ok(Some(standing))) => {
            let mut checks = vec![if standing.missing.is_empty() {
                Check::pass(
                    group,
                    format!("home channel {home}: every permission I need"),
                )
            } else {
                Check::fail(
                    group,
                    format!(
                        "home channel {home}: missing permissions: {}: add them to the bot's \
                         role or in the channel's settings",
                        standing.missing.join(", ")
                    ),
                )
            }];
            checks.push(Check::pass(group, readers_line(&standing.readers)));
            checks
        }
        Ok(Err(HomeError::NotATextChannel)) => vec![Check::fail(
            group,
            format!("home channel {home} is not a text channel: run /home in one"),
        )],
        Ok(Err(HomeError::Discord(error))) => vec![Check::fail(
            group,
            format!(
                "home channel {home} can't be used ({error}): run /home in a channel the bot \
                 can see, or /home off"
            ),
        )],
    }
}

fn readers_line(readers: &[Reader]) -> String {
    if readers.is_empty() {
        return "home channel: only you (and the bot) can read it".to_owned();
    }
    let names: Vec<String> = readers
        .iter()
        .map(|reader| match reader {
            Reader::Everyone => "everyone in the server".to_owned(),
            Reader::Role { name } => format!("role {name}"),
            Reader::Member(id) => format!("member {id}"),
            Reader::ServerOwner(id) => format!("the server's owner ({id})"),
        })
        .collect();
    format!("home channel: also readable by {}", names.join(", "))
}
