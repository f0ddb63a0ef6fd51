//! The Discord front end of the agent core: embeds and tool approvals in the owner's DM.

use std::sync::{Arc, OnceLock};

use serenity::{http::Http, model::id::ChannelId};

use super::{approval::Approvals, embeds::embed_message};
use crate::{
    agent::{Approval, FrontEnd, FrontEndError},
    claude::BoxFuture,
    mcp::embed::Embed,
    state::inquiries::InquiryStore,
};

/// Renders the agent's embeds and approval questions into the owner's DM channel.
pub struct DiscordFrontEnd {
    http: Arc<Http>,
    dm_channel: Arc<OnceLock<ChannelId>>,
    approvals: Arc<Approvals>,
    inquiries: Arc<InquiryStore>,
}

impl DiscordFrontEnd {
    /// A front end posting into the DM channel once it is known.
    pub fn new(
        http: Arc<Http>,
        dm_channel: Arc<OnceLock<ChannelId>>,
        approvals: Arc<Approvals>,
        inquiries: Arc<InquiryStore>,
    ) -> Self {
        Self {
            http,
            dm_channel,
            approvals,
            inquiries,
        }
    }

    fn channel(&self) -> Result<ChannelId, FrontEndError> {
        self.dm_channel
            .get()
            .copied()
            .ok_or_else(|| FrontEndError("no active channel".to_owned()))
    }
}

impl FrontEnd for DiscordFrontEnd {
    fn send_embed(&self, embed: Embed) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        Box::pin(async move {
            let channel = self.channel()?;
            let message = embed_message(&embed, &self.inquiries)
                .map_err(|error| FrontEndError(error.to_string()))?;
            let sent = channel
                .send_message(&self.http, message)
                .await
                .map_err(|error| FrontEndError(error.to_string()))?;
            Ok(Some(sent.id.get()))
        })
    }

    fn ask_approval(&self, label: String) -> BoxFuture<'_, Approval> {
        Box::pin(async move {
            match self.channel() {
                Ok(channel) => self.approvals.ask(&self.http, channel, &label).await,
                Err(_) => Approval::Deny,
            }
        })
    }

    fn cancel_approvals(&self) {
        self.approvals.cancel_all();
    }
}
