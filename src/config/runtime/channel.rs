//! The values of the channel keys (CHN-1, CHN-5): the home channel setting and where
//! unasked messages go, parsed from what the owner types or the file holds.

use super::keys::digits;

/// Error text for a bad channel id.
pub(crate) const CHANNEL_ERROR: &str = "must be a channel id (digits) or off";
/// Error text for a bad place.
pub(crate) const NOTIFY_ERROR: &str = "must be dm or home";

/// The `home_channel` setting (CHN-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HomeSetting {
    /// Never chosen with `/home`: `OLLIM_HOME_CHANNEL` from the `.env`, if set, stands in.
    #[default]
    Unchosen,
    /// Turned off with `/home off`: DMs only, whatever the `.env` says.
    Off,
    /// This channel.
    Channel(u64),
}

impl HomeSetting {
    /// The home channel, with `from_env` (`OLLIM_HOME_CHANNEL`) standing in while unchosen.
    pub fn channel(self, from_env: Option<u64>) -> Option<u64> {
        match self {
            Self::Unchosen => from_env,
            Self::Off => None,
            Self::Channel(id) => Some(id),
        }
    }
}

/// A channel id (digits, or `<#digits>`), `off` / `none`, or blank for unchosen.
pub(crate) fn parse_channel(raw: &str) -> Result<HomeSetting, &'static str> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "" => Ok(HomeSetting::Unchosen),
        "off" | "none" => Ok(HomeSetting::Off),
        other => channel_id(other)
            .map(HomeSetting::Channel)
            .ok_or(CHANNEL_ERROR),
    }
}

/// A channel id as typed or pasted: digits, or a `<#digits>` mention.
pub fn channel_id(raw: &str) -> Option<u64> {
    let raw = raw.trim();
    let raw = raw
        .strip_prefix("<#")
        .and_then(|rest| rest.strip_suffix('>'))
        .unwrap_or(raw);
    digits(raw)
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|n| *n > 0)
}

/// Where the bot reaches out on its own (CHN-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NotifyPlace {
    /// The owner's DM.
    #[default]
    Dm,
    /// The home channel (the DM while none is set).
    Home,
}

impl NotifyPlace {
    /// `dm` or `home`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dm => "dm",
            Self::Home => "home",
        }
    }
}

/// `dm` or `home` (case-insensitive).
pub(crate) fn parse_notify(raw: &str) -> Result<NotifyPlace, &'static str> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "dm" => Ok(NotifyPlace::Dm),
        "home" | "channel" => Ok(NotifyPlace::Home),
        _ => Err(NOTIFY_ERROR),
    }
}

/// Error text for a bad thread kind.
pub(crate) const THREADS_ERROR: &str = "must be public or private";

/// What kind of thread a fork opened in the home channel gets (issue 41 §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThreadKind {
    /// Anyone who can read the channel can read it.
    #[default]
    Public,
    /// Only those added to it (the bot adds the owner) and moderators can read it.
    Private,
}

impl ThreadKind {
    /// `public` or `private`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Private => "private",
        }
    }
}

/// `public` or `private` (case-insensitive).
pub(crate) fn parse_threads(raw: &str) -> Result<ThreadKind, &'static str> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "public" => Ok(ThreadKind::Public),
        "private" => Ok(ThreadKind::Private),
        _ => Err(THREADS_ERROR),
    }
}
