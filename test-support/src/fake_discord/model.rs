//! Guild-side state of the fake: guilds, roles, members, guild text channels and
//! threads, and Discord's permission arithmetic over them.

use std::collections::BTreeMap;

use serde_json::Value;

use super::state::{
    INTENT_DIRECT_MESSAGE_REACTIONS, INTENT_DIRECT_MESSAGE_TYPING, INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MESSAGE_REACTIONS, INTENT_GUILD_MESSAGE_TYPING, INTENT_GUILD_MESSAGES, Inner,
};

/// Discord's permission bits (developer docs, "Permissions").
pub(super) const ADMINISTRATOR: u64 = 1 << 3;
pub(super) const ADD_REACTIONS: u64 = 1 << 6;
pub(super) const VIEW_CHANNEL: u64 = 1 << 10;
pub(super) const SEND_MESSAGES: u64 = 1 << 11;
pub(super) const MANAGE_MESSAGES: u64 = 1 << 13;
pub(super) const EMBED_LINKS: u64 = 1 << 14;
pub(super) const ATTACH_FILES: u64 = 1 << 15;
pub(super) const READ_MESSAGE_HISTORY: u64 = 1 << 16;
pub(super) const USE_APPLICATION_COMMANDS: u64 = 1 << 31;
pub(super) const MANAGE_THREADS: u64 = 1 << 34;
pub(super) const CREATE_PUBLIC_THREADS: u64 = 1 << 35;
pub(super) const CREATE_PRIVATE_THREADS: u64 = 1 << 36;
pub(super) const SEND_MESSAGES_IN_THREADS: u64 = 1 << 38;
/// Every permission Discord defines (up to `USE_EXTERNAL_APPS`, `1 << 50`).
pub(super) const ALL_PERMISSIONS: u64 = (1 << 51) - 1;

/// `@everyone`'s permissions in a guild made by [`FakeDiscord::add_guild`](super::FakeDiscord::add_guild):
/// `VIEW_CHANNEL | SEND_MESSAGES | READ_MESSAGE_HISTORY | ADD_REACTIONS | EMBED_LINKS |
/// ATTACH_FILES | SEND_MESSAGES_IN_THREADS | CREATE_PUBLIC_THREADS | USE_APPLICATION_COMMANDS`.
pub const DEFAULT_EVERYONE_PERMISSIONS: u64 = VIEW_CHANNEL
    | SEND_MESSAGES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | EMBED_LINKS
    | ATTACH_FILES
    | SEND_MESSAGES_IN_THREADS
    | CREATE_PUBLIC_THREADS
    | USE_APPLICATION_COMMANDS;

/// Whom a [`FakeOverwrite`] applies to (`type` 0 role, 1 member on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverwriteKind {
    Role,
    Member,
}

/// A channel permission overwrite: `id` is a role id (the guild id for `@everyone`) or a
/// user id, per `kind`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FakeOverwrite {
    pub id: u64,
    pub kind: OverwriteKind,
    pub allow: u64,
    pub deny: u64,
}

impl FakeOverwrite {
    /// An overwrite for a role (`@everyone`'s role id is the guild id).
    pub fn role(id: u64, allow: u64, deny: u64) -> Self {
        FakeOverwrite {
            id,
            kind: OverwriteKind::Role,
            allow,
            deny,
        }
    }

    /// An overwrite for one member.
    pub fn member(id: u64, allow: u64, deny: u64) -> Self {
        FakeOverwrite {
            id,
            kind: OverwriteKind::Member,
            allow,
            deny,
        }
    }
}

/// A thread as the fake holds it (see [`FakeDiscord::thread`](super::FakeDiscord::thread)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FakeThread {
    pub id: u64,
    pub parent: u64,
    pub name: String,
    pub archived: bool,
    pub locked: bool,
    /// Channel type: 11 public thread, 12 private thread.
    pub kind: u8,
    /// Its members: the creator, the bot when it joined, users added or who posted.
    pub members: Vec<u64>,
}

pub(super) struct GuildState {
    pub name: String,
    pub owner: u64,
    /// `@everyone` (id = guild id) first, then in creation order.
    pub roles: Vec<RoleState>,
    pub members: BTreeMap<u64, MemberState>,
    /// Guild application commands, as last registered.
    pub commands: Vec<Value>,
}

pub(super) struct RoleState {
    pub id: u64,
    pub name: String,
    pub permissions: u64,
    pub position: u16,
}

pub(super) struct MemberState {
    pub roles: Vec<u64>,
    pub joined_ms: u64,
}

/// What kind of channel a stored channel is.
pub(super) enum Place {
    Dm { recipient: u64 },
    Text(TextState),
    Thread(ThreadState),
}

pub(super) struct TextState {
    pub guild: u64,
    pub name: String,
    pub position: u16,
    pub overwrites: Vec<FakeOverwrite>,
}

pub(super) struct ThreadState {
    pub guild: u64,
    pub parent: u64,
    pub name: String,
    /// 11 public, 12 private.
    pub kind: u8,
    pub owner: u64,
    pub archived: bool,
    pub locked: bool,
    pub invitable: bool,
    pub auto_archive: u64,
    /// When `archived` last changed (or the creation time).
    pub archive_ms: u64,
    pub created_ms: u64,
    /// Thread members: the creator, the bot when it joined, users who posted.
    pub members: Vec<u64>,
}

impl ThreadState {
    pub(super) fn public(&self, id: u64) -> FakeThread {
        FakeThread {
            id,
            parent: self.parent,
            name: self.name.clone(),
            archived: self.archived,
            locked: self.locked,
            kind: self.kind,
            members: self.members.clone(),
        }
    }
}

/// Applies one overwrite to a permission set.
fn apply(perms: u64, allow: u64, deny: u64) -> u64 {
    (perms & !deny) | allow
}

impl Inner {
    /// The guild a channel or thread belongs to (`None` for DMs and unknown ids).
    pub(super) fn guild_of(&self, ch: u64) -> Option<u64> {
        match &self.channels.get(&ch)?.place {
            Place::Dm { .. } => None,
            Place::Text(t) => Some(t.guild),
            Place::Thread(t) => Some(t.guild),
        }
    }

    pub(super) fn text(&self, ch: u64) -> Option<&TextState> {
        match &self.channels.get(&ch)?.place {
            Place::Text(t) => Some(t),
            _ => None,
        }
    }

    pub(super) fn thread(&self, ch: u64) -> Option<&ThreadState> {
        match &self.channels.get(&ch)?.place {
            Place::Thread(t) => Some(t),
            _ => None,
        }
    }

    pub(super) fn thread_mut(&mut self, ch: u64) -> Option<&mut ThreadState> {
        match &mut self.channels.get_mut(&ch)?.place {
            Place::Thread(t) => Some(t),
            _ => None,
        }
    }

    pub(super) fn is_member(&self, guild: u64, user: u64) -> bool {
        self.guilds
            .get(&guild)
            .is_some_and(|g| g.members.contains_key(&user))
    }

    /// A member's guild-wide permissions (0 for non-members; all for the owner and
    /// administrators).
    pub(super) fn guild_permissions(&self, guild: u64, user: u64) -> u64 {
        let Some(g) = self.guilds.get(&guild) else {
            return 0;
        };
        let Some(member) = g.members.get(&user) else {
            return 0;
        };
        if g.owner == user {
            return ALL_PERMISSIONS;
        }
        let perms = g
            .roles
            .iter()
            .filter(|r| r.id == guild || member.roles.contains(&r.id))
            .fold(0, |acc, r| acc | r.permissions);
        if perms & ADMINISTRATOR != 0 {
            ALL_PERMISSIONS
        } else {
            perms
        }
    }

    /// A user's permissions in a guild channel or thread (threads use their parent's
    /// overwrites), computed like Discord: base, `@everyone` overwrite, role overwrites,
    /// member overwrite; without `VIEW_CHANNEL` nothing else counts. DMs: everything.
    pub(super) fn channel_permissions(&self, user: u64, ch: u64) -> u64 {
        let text_id = self.thread(ch).map_or(ch, |t| t.parent);
        let Some(text) = self.text(text_id) else {
            return if self.channels.contains_key(&ch) {
                ALL_PERMISSIONS
            } else {
                0
            };
        };
        let guild = text.guild;
        let base = self.guild_permissions(guild, user);
        if base & ADMINISTRATOR != 0 {
            return ALL_PERMISSIONS;
        }
        let roles: &[u64] = self
            .guilds
            .get(&guild)
            .and_then(|g| g.members.get(&user))
            .map_or(&[], |m| m.roles.as_slice());
        let mut perms = base;
        let of = |kind: OverwriteKind, pick: &dyn Fn(u64) -> bool| {
            text.overwrites
                .iter()
                .filter(|o| o.kind == kind && pick(o.id))
                .fold((0, 0), |(a, d), o| (a | o.allow, d | o.deny))
        };
        let (allow, deny) = of(OverwriteKind::Role, &|id| id == guild);
        perms = apply(perms, allow, deny);
        let (allow, deny) = of(OverwriteKind::Role, &|id| {
            id != guild && roles.contains(&id)
        });
        perms = apply(perms, allow, deny);
        let (allow, deny) = of(OverwriteKind::Member, &|id| id == user);
        perms = apply(perms, allow, deny);
        if perms & VIEW_CHANNEL == 0 { 0 } else { perms }
    }

    /// Whether the bot can see channel `ch` (always for DMs; for a private thread it
    /// must also be a thread member or have `MANAGE_THREADS`).
    pub(super) fn bot_sees(&self, ch: u64) -> bool {
        let bot = self.cfg.bot_user_id;
        let perms = self.channel_permissions(bot, ch);
        if perms & VIEW_CHANNEL == 0 {
            return false;
        }
        match self.thread(ch) {
            Some(t) if t.kind == 12 => t.members.contains(&bot) || perms & MANAGE_THREADS != 0,
            _ => true,
        }
    }

    /// The intent a message event in `ch` needs (`GUILD_MESSAGES` or `DIRECT_MESSAGES`).
    pub(super) fn message_intent(&self, ch: u64) -> u64 {
        if self.guild_of(ch).is_some() {
            INTENT_GUILD_MESSAGES
        } else {
            INTENT_DIRECT_MESSAGES
        }
    }

    /// The intent a reaction event in `ch` needs.
    pub(super) fn reaction_intent(&self, ch: u64) -> u64 {
        if self.guild_of(ch).is_some() {
            INTENT_GUILD_MESSAGE_REACTIONS
        } else {
            INTENT_DIRECT_MESSAGE_REACTIONS
        }
    }

    /// The intent a typing event in `ch` needs.
    pub(super) fn typing_intent(&self, ch: u64) -> u64 {
        if self.guild_of(ch).is_some() {
            INTENT_GUILD_MESSAGE_TYPING
        } else {
            INTENT_DIRECT_MESSAGE_TYPING
        }
    }

    /// Dispatches an event that happens in channel `ch`: withheld (`None`) when the bot
    /// cannot see the channel, like Discord.
    pub(super) fn dispatch_in(&mut self, ch: u64, t: &str, d: Value, intent: u64) -> Option<u64> {
        if !self.bot_sees(ch) {
            return None;
        }
        self.dispatch(t, d, intent)
    }
}
