//! `ollim-bot gmail unread|search|read|labels` (GOO-7): read-only mail in the owner's terminal
//! (the agent and its `gmail-reader` subagent use the `gmail` tool, which runs the same
//! requests). Dates in `OLLIM_TIMEZONE`; `--json` on the listings.

use clap::{Args, Subcommand};
use serde_json::json;

use super::google::{GoogleContext, ensure_connected, pretty, print_outcome, report};
use crate::google::gmail::{DEFAULT_MAX_MESSAGES, GmailRequest, MAX_MESSAGES, UNREAD_QUERY};

/// `ollim-bot gmail …`
#[derive(Debug, Args)]
pub struct GmailArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: GmailCommand,
}

/// The `gmail` subcommands.
#[derive(Debug, Subcommand)]
pub enum GmailCommand {
    /// Unread messages, newest first.
    Unread {
        /// At most this many.
        #[arg(
            long,
            default_value_t = DEFAULT_MAX_MESSAGES,
            value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_MESSAGES))
        )]
        max: u32,
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Messages matching a Gmail search (e.g. "from:alice is:unread").
    Search {
        /// The Gmail search query.
        query: String,
        /// At most this many.
        #[arg(
            long,
            default_value_t = DEFAULT_MAX_MESSAGES,
            value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_MESSAGES))
        )]
        max: u32,
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Read one message.
    Read {
        /// Message id.
        id: String,
    },
    /// Every label, with its id.
    Labels {
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a `gmail` command; returns the exit code.
pub async fn run(context: &GoogleContext, args: GmailArgs) -> i32 {
    if let Err(error) = ensure_connected(context).await {
        return report(context, &error.into());
    }
    let request = match args.action {
        GmailCommand::Unread { max, json: true } => {
            return json_list(context, UNREAD_QUERY, max).await;
        }
        GmailCommand::Search {
            query,
            max,
            json: true,
        } => return json_list(context, &query, max).await,
        GmailCommand::Labels { json: true } => {
            let labels = context
                .client
                .list_labels()
                .await
                .map(|labels| pretty(&labels));
            return print_outcome(context, labels.map_err(Into::into));
        }
        GmailCommand::Unread { max, json: false } => GmailRequest::List {
            query: UNREAD_QUERY.to_owned(),
            max,
        },
        GmailCommand::Search {
            query,
            max,
            json: false,
        } => GmailRequest::List { query, max },
        GmailCommand::Read { id } => GmailRequest::Read { id },
        GmailCommand::Labels { json: false } => GmailRequest::Labels,
    };
    print_outcome(context, context.client.run_gmail(context.tz, request).await)
}

/// `unread --json` / `search --json`: the listing as JSON, for scripts.
async fn json_list(context: &GoogleContext, query: &str, max: u32) -> i32 {
    let rows = context.client.message_rows(query, max).await.map(|rows| {
        let items: Vec<_> = rows
            .iter()
            .map(|row| {
                json!({
                    "id": row.message.id,
                    "date": row.message.received().map(|at| at.to_rfc3339()),
                    "from": row.message.header("From"),
                    "sender": row.sender,
                    "subject": row.subject,
                })
            })
            .collect();
        pretty(&items)
    });
    print_outcome(context, rows)
}
