//! Who besides the owner can read the home channel, and which of the permissions the bot
//! needs there it lacks (CHN-3, CHN-9): the agent's replies may be personal, so the owner is
//! told when the channel is set and whenever its permissions change.
//!
//! Discord's own rule, per member: the permissions of `@everyone` and every role they hold,
//! then the channel's overwrite for `@everyone`, then the overwrites of their roles (all
//! denies, then all allows), then their own overwrite; `ADMINISTRATOR` and owning the server
//! see everything. The bot can't list who holds a role (that needs a privileged intent), so
//! it judges each role as if a member held that role alone, and names the roles that could
//! read: the owner knows who holds them.

use crate::config::runtime::ThreadKind;
use serenity::model::{
    channel::{PermissionOverwrite, PermissionOverwriteType},
    guild::Role,
    id::{GuildId, RoleId, UserId},
    permissions::Permissions,
};

/// Someone other than the owner and the bot who could read the channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reader {
    /// Everyone in the server.
    Everyone,
    /// Members holding this role.
    Role {
        /// The role's name, as the server shows it.
        name: String,
    },
    /// One member, through an overwrite of their own.
    Member(UserId),
    /// The server's owner, who sees every channel.
    ServerOwner(UserId),
}

impl Reader {
    /// How the owner is told: `everyone in the server`, `members with the role Friends`, …
    pub fn describe(&self) -> String {
        match self {
            Self::Everyone => "everyone in the server".to_owned(),
            Self::Role { name } => format!("members with the role **{name}**"),
            Self::Member(id) => format!("<@{id}>"),
            Self::ServerOwner(id) => format!("the server's owner, <@{id}>"),
        }
    }
}

/// The server and channel facts the judgement needs.
#[derive(Debug, Clone, Copy)]
pub struct ChannelFacts<'a> {
    /// The server.
    pub guild: GuildId,
    /// The server's owner.
    pub guild_owner: UserId,
    /// Every role of the server, `@everyone` included (its id is the server's).
    pub roles: &'a [Role],
    /// The channel's permission overwrites.
    pub overwrites: &'a [PermissionOverwrite],
}

/// Who besides `owner` and `bot` could read the channel (empty: only the owner).
pub fn other_readers(facts: &ChannelFacts<'_>, owner: UserId, bot: UserId) -> Vec<Reader> {
    let everyone_role = RoleId::new(facts.guild.get());
    let base_everyone = facts
        .roles
        .iter()
        .find(|role| role.id == everyone_role)
        .map_or(Permissions::empty(), |role| role.permissions);
    let overwrite = |kind: PermissionOverwriteType| {
        facts
            .overwrites
            .iter()
            .find(|o| o.kind == kind)
            .map_or((Permissions::empty(), Permissions::empty()), |o| {
                (o.allow, o.deny)
            })
    };
    let (everyone_allow, everyone_deny) = overwrite(PermissionOverwriteType::Role(everyone_role));
    let with_everyone = |base: Permissions| (base & !everyone_deny) | everyone_allow;
    let reads = |perms: Permissions| {
        perms.contains(Permissions::ADMINISTRATOR) || perms.contains(Permissions::VIEW_CHANNEL)
    };

    let mut readers = Vec::new();
    if facts.guild_owner != owner && facts.guild_owner != bot {
        readers.push(Reader::ServerOwner(facts.guild_owner));
    }
    let everyone_reads =
        base_everyone.contains(Permissions::ADMINISTRATOR) || reads(with_everyone(base_everyone));
    if everyone_reads {
        readers.push(Reader::Everyone);
    }
    for role in facts.roles.iter().filter(|role| role.id != everyone_role) {
        if role.managed && role.tags.bot_id == Some(bot) {
            continue;
        }
        let base = base_everyone | role.permissions;
        let (allow, deny) = overwrite(PermissionOverwriteType::Role(role.id));
        let can = base.contains(Permissions::ADMINISTRATOR)
            || reads((with_everyone(base) & !deny) | allow);
        if can && !everyone_reads {
            readers.push(Reader::Role {
                name: role.name.clone(),
            });
        }
    }
    for o in facts.overwrites {
        if let PermissionOverwriteType::Member(user) = o.kind
            && user != owner
            && user != bot
            && o.allow.contains(Permissions::VIEW_CHANNEL)
            && !everyone_reads
        {
            readers.push(Reader::Member(user));
        }
    }
    readers
}

/// What the owner is told about the home channel's readers: when it is set (`before` is
/// `None`), always; after a permission change, only when the readers changed (CHN-3).
pub fn readers_notice(before: Option<&[Reader]>, after: &[Reader]) -> Option<String> {
    let list = |readers: &[Reader]| {
        readers
            .iter()
            .map(Reader::describe)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match before {
        None if after.is_empty() => Some("Only you (and I) can read this channel.".to_owned()),
        None => Some(format!(
            "Heads-up: my replies here can be personal, and this channel can also be read by {}.",
            list(after)
        )),
        Some(before) if before == after => None,
        Some(_) if after.is_empty() => {
            Some("This channel's permissions changed: now only you (and I) can read it.".to_owned())
        }
        Some(_) => Some(format!(
            "This channel's permissions changed: it can now be read by {}.",
            list(after)
        )),
    }
}

/// The permissions the bot needs in the home channel, with the names Discord's settings show.
pub const NEEDED: [(Permissions, &str); 8] = [
    (Permissions::VIEW_CHANNEL, "View Channel"),
    (Permissions::SEND_MESSAGES, "Send Messages"),
    (
        Permissions::SEND_MESSAGES_IN_THREADS,
        "Send Messages in Threads",
    ),
    (Permissions::CREATE_PUBLIC_THREADS, "Create Public Threads"),
    (Permissions::READ_MESSAGE_HISTORY, "Read Message History"),
    (Permissions::ADD_REACTIONS, "Add Reactions"),
    (Permissions::EMBED_LINKS, "Embed Links"),
    (Permissions::ATTACH_FILES, "Attach Files"),
];

/// The needed permissions `granted` lacks, by name (none when it holds `ADMINISTRATOR`), where
/// forks get `threads` (private ones need Create Private Threads instead, issue 41 §1).
pub fn missing(granted: Permissions, threads: ThreadKind) -> Vec<&'static str> {
    if granted.contains(Permissions::ADMINISTRATOR) {
        return Vec::new();
    }
    NEEDED
        .iter()
        .map(|&(needed, name)| match threads {
            ThreadKind::Private if needed == Permissions::CREATE_PUBLIC_THREADS => (
                Permissions::CREATE_PRIVATE_THREADS,
                "Create Private Threads",
            ),
            ThreadKind::Public | ThreadKind::Private => (needed, name),
        })
        .filter(|(needed, _)| !granted.contains(*needed))
        .map(|(_, name)| name)
        .collect()
}

/// Every needed permission as one number, for the invite link's `permissions=`: private
/// fork threads included, so `fork_threads private` needs no new invite.
pub fn invite_permissions() -> u64 {
    NEEDED
        .iter()
        .fold(Permissions::CREATE_PRIVATE_THREADS, |all, (needed, _)| {
            all | *needed
        })
        .bits()
}

#[cfg(test)]
#[path = "privacy_tests.rs"]
mod tests;
