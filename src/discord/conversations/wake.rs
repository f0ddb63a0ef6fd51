//! Wake on intent (issue 29, REST-2): the conversation's CLI sleeps when idle, and the owner
//! starting to type where the bot listens (the DM, the home channel, a fork's thread), or
//! clicking and running commands there, starts the CLI the message would go to (main's, or
//! that fork's) at once, so it is usually ready when the message arrives. The router admits
//! only the owner's, through a door.

use super::Conversations;
use crate::agent::Target;
use crate::discord::doors::Door;

impl Conversations {
    /// Wakes the CLI a message through `door` would go to; nothing without a door.
    pub(crate) async fn wake_at(&self, door: Option<Door>) {
        match door {
            Some(Door::ForkThread(thread)) => {
                self.reach.session.wake(self.reach.target_of(thread)).await;
            }
            Some(Door::Dm | Door::HomeChannel) => self.reach.session.wake(Target::MainDoor).await,
            None => {}
        }
    }
}
