//! Who may talk to the bot: the application's owner, and nobody until the owner is known.

use std::sync::OnceLock;

use serenity::{http::Http, model::id::UserId};

/// The application's owner: its user, or the owner of its team (a team-owned app's `owner` is
/// the team's pseudo-user; the person is the team's owner).
pub async fn application_owner(http: &Http) -> Result<Option<UserId>, serenity::Error> {
    let info = http.get_current_application_info().await?;
    Ok(info
        .team
        .map(|team| team.owner_user_id)
        .or_else(|| info.owner.map(|user| user.id)))
}

/// The owner gate. Fails closed: before [`OwnerGate::resolve`] every user is refused (the
/// original let everyone in during that window; this port does not).
#[derive(Debug, Default)]
pub struct OwnerGate(OnceLock<UserId>);

impl OwnerGate {
    /// Records the owner (first call wins).
    pub fn resolve(&self, owner: UserId) {
        let _ = self.0.set(owner);
    }

    /// The owner, once known.
    pub fn owner(&self) -> Option<UserId> {
        self.0.get().copied()
    }

    /// Whether `user` is the owner (false while the owner is unknown).
    pub fn is_owner(&self, user: UserId) -> bool {
        self.owner() == Some(user)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nobody_is_the_owner_until_resolved() {
        let gate = OwnerGate::default();
        assert!(!gate.is_owner(UserId::new(1)));
        gate.resolve(UserId::new(1));
        gate.resolve(UserId::new(2));
        assert!(gate.is_owner(UserId::new(1)));
        assert!(!gate.is_owner(UserId::new(2)));
    }
}
