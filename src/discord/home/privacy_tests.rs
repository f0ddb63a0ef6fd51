use serde_json::json;

use super::*;
use crate::config::runtime::ThreadKind;

const GUILD: u64 = 500;
const OWNER: u64 = 1;
const BOT: u64 = 2;
const FRIEND: u64 = 3;

fn role(id: u64, name: &str, permissions: Permissions, bot_id: Option<u64>) -> Role {
    let mut value = json!({
        "id": id.to_string(), "guild_id": GUILD.to_string(), "name": name,
        "permissions": permissions.bits().to_string(), "position": 0, "color": 0,
        "hoist": false, "colors": { "primary_color": 0 }, "managed": bot_id.is_some(), "mentionable": false,
    });
    if let Some(bot) = bot_id {
        value["tags"] = json!({ "bot_id": bot.to_string() });
    }
    serde_json::from_value(value).unwrap()
}

fn overwrite(
    kind: PermissionOverwriteType,
    allow: Permissions,
    deny: Permissions,
) -> PermissionOverwrite {
    PermissionOverwrite { allow, deny, kind }
}

fn everyone(permissions: Permissions) -> Role {
    role(GUILD, "@everyone", permissions, None)
}

fn readers(guild_owner: u64, roles: &[Role], overwrites: &[PermissionOverwrite]) -> Vec<Reader> {
    let facts = ChannelFacts {
        guild: GuildId::new(GUILD),
        guild_owner: UserId::new(guild_owner),
        roles,
        overwrites,
    };
    other_readers(&facts, UserId::new(OWNER), UserId::new(BOT))
}

const VIEW: Permissions = Permissions::VIEW_CHANNEL;

#[test]
fn a_default_channel_is_read_by_everyone() {
    let roles = [everyone(VIEW | Permissions::SEND_MESSAGES)];
    assert_eq!(readers(OWNER, &roles, &[]), [Reader::Everyone]);
}

#[test]
fn a_channel_closed_to_everyone_but_the_owner_and_the_bot_is_private() {
    let roles = [
        everyone(VIEW),
        role(10, "ollim-bot", VIEW, Some(BOT)),
        role(11, "Muted", Permissions::empty(), None),
    ];
    let overwrites = [
        overwrite(
            PermissionOverwriteType::Role(RoleId::new(GUILD)),
            Permissions::empty(),
            VIEW,
        ),
        overwrite(
            PermissionOverwriteType::Member(UserId::new(OWNER)),
            VIEW,
            Permissions::empty(),
        ),
        overwrite(
            PermissionOverwriteType::Member(UserId::new(BOT)),
            VIEW,
            Permissions::empty(),
        ),
    ];
    assert_eq!(readers(OWNER, &roles, &overwrites), []);
}

#[test]
fn roles_members_admins_and_the_server_owner_are_named() {
    let roles = [
        everyone(VIEW),
        role(11, "Friends", Permissions::empty(), None),
        role(12, "Mods", Permissions::ADMINISTRATOR, None),
        role(13, "Lurkers", VIEW, None),
    ];
    let overwrites = [
        overwrite(
            PermissionOverwriteType::Role(RoleId::new(GUILD)),
            Permissions::empty(),
            VIEW,
        ),
        overwrite(
            PermissionOverwriteType::Role(RoleId::new(11)),
            VIEW,
            Permissions::empty(),
        ),
        overwrite(
            PermissionOverwriteType::Role(RoleId::new(13)),
            Permissions::empty(),
            VIEW,
        ),
        overwrite(
            PermissionOverwriteType::Member(UserId::new(FRIEND)),
            VIEW,
            Permissions::empty(),
        ),
    ];
    let found = readers(99, &roles, &overwrites);
    assert_eq!(
        found,
        [
            Reader::ServerOwner(UserId::new(99)),
            Reader::Role {
                name: "Friends".into()
            },
            Reader::Role {
                name: "Mods".into()
            },
            Reader::Member(UserId::new(FRIEND)),
        ]
    );
    assert_eq!(found[1].describe(), "members with the role **Friends**");
}

#[test]
fn the_missing_permissions_are_named_and_the_invite_asks_for_all() {
    assert!(missing(Permissions::ADMINISTRATOR, ThreadKind::Private).is_empty());
    let granted = VIEW | Permissions::SEND_MESSAGES | Permissions::READ_MESSAGE_HISTORY;
    assert_eq!(
        missing(granted, ThreadKind::Public),
        [
            "Send Messages in Threads",
            "Create Public Threads",
            "Add Reactions",
            "Embed Links",
            "Attach Files"
        ]
    );
    let private = missing(
        granted | Permissions::CREATE_PUBLIC_THREADS,
        ThreadKind::Private,
    );
    assert!(private.contains(&"Create Private Threads"), "{private:?}");
    let all = Permissions::from_bits_truncate(invite_permissions());
    assert!(missing(all, ThreadKind::Public).is_empty());
    assert!(
        missing(all, ThreadKind::Private).is_empty(),
        "either kind works"
    );
    assert!(!all.contains(Permissions::ADMINISTRATOR));
}

#[test]
fn the_owner_hears_the_readers_when_set_and_only_changes_after() {
    let friends = [Reader::Role {
        name: "Friends".into(),
    }];
    assert_eq!(
        readers_notice(None, &[]).as_deref(),
        Some("Only you (and I) can read this channel.")
    );
    let set = readers_notice(None, &friends).unwrap();
    assert!(set.contains("members with the role **Friends**"), "{set}");
    assert_eq!(readers_notice(Some(&friends), &friends), None);
    let opened = readers_notice(Some(&[]), &[Reader::Everyone]).unwrap();
    assert!(opened.contains("everyone in the server"), "{opened}");
    let closed = readers_notice(Some(&friends), &[]).unwrap();
    assert!(closed.contains("only you"), "{closed}");
}

#[test]
fn the_documented_invite_link_asks_for_exactly_what_the_channel_needs() {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/home-channel.md"))
            .expect("docs/home-channel.md");
    let wanted = format!("permissions={}", invite_permissions());
    assert!(
        page.contains(&wanted),
        "docs/home-channel.md's invite link should carry {wanted}"
    );
    for (_, name) in NEEDED {
        assert!(
            page.contains(name),
            "docs/home-channel.md should name {name}"
        );
    }
}
