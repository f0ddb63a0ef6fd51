//! Test-side guild setup: guilds, roles, members, text channels and their permission
//! overwrites. Each change is dispatched (`GUILD_CREATE`, `GUILD_ROLE_*`,
//! `GUILD_MEMBER_*`, `CHANNEL_*`) when a gateway session exists, like Discord.

use std::collections::BTreeMap;

use serde_json::json;

use super::FakeDiscord;
use super::guild_json::{self, role};
use super::json::sid;
use super::model::{
    DEFAULT_EVERYONE_PERMISSIONS, FakeOverwrite, GuildState, MemberState, Place, RoleState,
    TextState,
};
use super::state::{Channel, INTENT_GUILD_MEMBERS, INTENT_GUILDS, Inner, now_ms};

fn check_guild(inner: &Inner, what: &str, guild: u64) {
    assert!(
        inner.guilds.contains_key(&guild),
        "fake Discord: {what}: no guild {guild} (make one with add_guild)"
    );
}

impl FakeDiscord {
    fn guild_change<T>(&self, what: &str, guild: u64, f: impl FnOnce(&mut Inner) -> T) -> T {
        let out = {
            let mut inner = self.shared.lock();
            check_guild(&inner, what, guild);
            f(&mut inner)
        };
        self.shared.notify();
        out
    }

    /// Creates a guild named `name` and returns its id (a fresh snowflake). Its `@everyone`
    /// role has the guild's id and [`DEFAULT_EVERYONE_PERMISSIONS`]; its owner is
    /// `cfg.owner_id` (see [`set_guild_owner`](Self::set_guild_owner)); the bot and the
    /// owner are members. A live session gets `GUILD_CREATE` (intent `GUILDS`); later
    /// READYs list it as unavailable and follow with its `GUILD_CREATE`.
    pub fn add_guild(&self, name: &str) -> u64 {
        let id = {
            let mut inner = self.shared.lock();
            let id = inner.snowflake();
            let now = now_ms();
            let (bot, owner) = (inner.cfg.bot_user_id, inner.cfg.owner_id);
            let mut members = BTreeMap::new();
            for user in [bot, owner] {
                let state = MemberState {
                    roles: Vec::new(),
                    joined_ms: now,
                };
                members.insert(user, state);
            }
            let everyone = RoleState {
                id,
                name: "@everyone".to_string(),
                permissions: DEFAULT_EVERYONE_PERMISSIONS,
                position: 0,
            };
            let guild = GuildState {
                name: name.to_string(),
                owner,
                roles: vec![everyone],
                members,
                commands: Vec::new(),
            };
            inner.guilds.insert(id, guild);
            let d = guild_json::guild_create(&inner, id);
            inner.dispatch("GUILD_CREATE", d, INTENT_GUILDS);
            id
        };
        self.shared.notify();
        id
    }

    /// Makes `user` the guild's owner (added as a member if needed); dispatches
    /// `GUILD_UPDATE`.
    pub fn set_guild_owner(&self, guild: u64, user: u64) {
        self.guild_change("set_guild_owner", guild, |inner| {
            let g = inner.guilds.get_mut(&guild).expect("checked");
            g.owner = user;
            g.members.entry(user).or_insert_with(|| MemberState {
                roles: Vec::new(),
                joined_ms: now_ms(),
            });
            let d = guild_json::guild(inner, guild);
            inner.dispatch("GUILD_UPDATE", d, INTENT_GUILDS);
        });
    }

    /// Adds a role with `permissions` (Discord's bits) and returns its id; dispatches
    /// `GUILD_ROLE_CREATE`.
    pub fn add_role(&self, guild: u64, name: &str, permissions: u64) -> u64 {
        self.guild_change("add_role", guild, |inner| {
            let id = inner.snowflake();
            let g = inner.guilds.get_mut(&guild).expect("checked");
            let position = u16::try_from(g.roles.len()).unwrap_or(u16::MAX);
            let state = RoleState {
                id,
                name: name.to_string(),
                permissions,
                position,
            };
            let d = json!({"guild_id": sid(guild), "role": role(&state)});
            g.roles.push(state);
            inner.dispatch("GUILD_ROLE_CREATE", d, INTENT_GUILDS);
            id
        })
    }

    /// Changes a role's permissions (the guild id names `@everyone`); dispatches
    /// `GUILD_ROLE_UPDATE`.
    #[allow(clippy::unused_async)] // async like the other injections that act on a live guild
    pub async fn set_role_permissions(&self, guild: u64, role: u64, permissions: u64) {
        self.guild_change("set_role_permissions", guild, |inner| {
            let g = inner.guilds.get_mut(&guild).expect("checked");
            let Some(state) = g.roles.iter_mut().find(|r| r.id == role) else {
                panic!("fake Discord: set_role_permissions: no role {role} in guild {guild}");
            };
            state.permissions = permissions;
            let d = json!({"guild_id": sid(guild), "role": guild_json::role(state)});
            inner.dispatch("GUILD_ROLE_UPDATE", d, INTENT_GUILDS);
        });
    }

    /// Adds `user` (named `name`, like [`add_user`](Self::add_user)) to the guild with
    /// `roles`, or replaces the roles of an existing member. Dispatches
    /// `GUILD_MEMBER_ADD` / `GUILD_MEMBER_UPDATE` (intent `GUILD_MEMBERS`).
    pub fn add_member(&self, guild: u64, user: u64, name: &str, roles: &[u64]) {
        self.guild_change("add_member", guild, |inner| {
            if user != inner.cfg.bot_user_id {
                inner.users.insert(user, name.to_string());
            }
            let g = inner.guilds.get_mut(&guild).expect("checked");
            let roles: Vec<u64> = roles.iter().copied().filter(|r| *r != guild).collect();
            for r in &roles {
                assert!(
                    g.roles.iter().any(|known| known.id == *r),
                    "fake Discord: add_member: no role {r} in guild {guild}"
                );
            }
            let existed = g.members.contains_key(&user);
            let joined_ms = g.members.get(&user).map_or_else(now_ms, |m| m.joined_ms);
            g.members.insert(user, MemberState { roles, joined_ms });
            let mut d = guild_json::member(inner, guild, user, true);
            d["guild_id"] = sid(guild);
            let t = if existed {
                "GUILD_MEMBER_UPDATE"
            } else {
                "GUILD_MEMBER_ADD"
            };
            inner.dispatch(t, d, INTENT_GUILD_MEMBERS);
        });
    }

    /// Adds a text channel (type 0) with permission `overwrites` and returns its id;
    /// dispatches `CHANNEL_CREATE`.
    pub fn add_text_channel(&self, guild: u64, name: &str, overwrites: Vec<FakeOverwrite>) -> u64 {
        self.guild_change("add_text_channel", guild, |inner| {
            let id = inner.snowflake();
            let count = guild_json::text_channels(inner, guild).len();
            let text = TextState {
                guild,
                name: name.to_string(),
                position: u16::try_from(count).unwrap_or(u16::MAX),
                overwrites,
            };
            let channel = Channel {
                place: Place::Text(text),
                messages: Vec::new(),
            };
            inner.channels.insert(id, channel);
            let d = guild_json::channel(inner, id, false);
            inner.dispatch("CHANNEL_CREATE", d, INTENT_GUILDS);
            id
        })
    }

    /// Replaces a text channel's permission overwrites; dispatches `CHANNEL_UPDATE`.
    #[allow(clippy::unused_async)] // async like the other injections that act on a live guild
    pub async fn set_overwrites(&self, channel: u64, overwrites: Vec<FakeOverwrite>) {
        {
            let mut inner = self.shared.lock();
            let Some(Place::Text(text)) = inner.channels.get_mut(&channel).map(|c| &mut c.place)
            else {
                panic!("fake Discord: set_overwrites: {channel} is not a guild text channel");
            };
            text.overwrites = overwrites;
            let d = guild_json::channel(&inner, channel, false);
            inner.dispatch("CHANNEL_UPDATE", d, INTENT_GUILDS);
        }
        self.shared.notify();
    }

    /// A text channel's current permission overwrites (`None` if it is not one).
    pub fn overwrites(&self, channel: u64) -> Option<Vec<FakeOverwrite>> {
        let inner = self.shared.lock();
        inner.text(channel).map(|t| t.overwrites.clone())
    }

    /// A user's permissions in a guild channel or thread, computed as Discord does
    /// (owner and `ADMINISTRATOR` get everything; no `VIEW_CHANNEL` → 0).
    pub fn permissions_in(&self, user: u64, channel: u64) -> u64 {
        self.shared.lock().channel_permissions(user, channel)
    }
}
