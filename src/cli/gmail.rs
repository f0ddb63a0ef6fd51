//! `ollim-bot gmail unread|search|read|labels` (GOO-7): read-only mail for the owner and the
//! `gmail-reader` subagent (SUB-3). Dates in `OLLIM_TIMEZONE`; `--json` on the listings.

use clap::{Args, Subcommand};
use serde_json::json;

use super::google::{Failure, GoogleContext, ensure_connected, missing, report};
use crate::google::gmail::{Message, sender_name, text_body, truncate_body};

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
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=500))]
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
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=500))]
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
    match execute(context, args).await {
        Ok(()) => 0,
        Err(failure) => report(context, &failure),
    }
}

async fn execute(context: &GoogleContext, args: GmailArgs) -> Result<(), Failure> {
    ensure_connected(context).await?;
    match args.action {
        GmailCommand::Unread { max, json } => list(context, "is:unread", max, json).await,
        GmailCommand::Search { query, max, json } => list(context, &query, max, json).await,
        GmailCommand::Read { id } => {
            let message = context
                .client
                .message_full(&id)
                .await
                .map_err(missing(format!("message {id}")))?;
            print!("{}", message_text(&message, context));
            Ok(())
        }
        GmailCommand::Labels { json } => {
            let labels = context.client.list_labels().await?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&labels).unwrap_or_default()
                );
            } else {
                for label in labels {
                    println!("  {}  {}", label.id, label.name);
                }
            }
            Ok(())
        }
    }
}

/// One line per message: `  <id>  <date>  <sender>  <subject>`, senders padded to the
/// longest so the subjects line up (GOO-7).
async fn list(context: &GoogleContext, query: &str, max: u32, json: bool) -> Result<(), Failure> {
    let ids = context.client.search_messages(query, max as usize).await?;
    let mut rows = Vec::with_capacity(ids.len());
    for id in ids {
        let message = context
            .client
            .message_metadata(&id)
            .await
            .map_err(missing(format!("message {id}")))?;
        let sender = sender_name(message.header("From").unwrap_or("(unknown)"));
        let subject = message
            .header("Subject")
            .filter(|s| !s.is_empty())
            .unwrap_or("(no subject)")
            .to_owned();
        rows.push((message, sender, subject));
    }
    if json {
        let items: Vec<_> = rows
            .iter()
            .map(|(message, sender, subject)| {
                json!({
                    "id": message.id,
                    "date": message.received().map(|at| at.to_rfc3339()),
                    "from": message.header("From"),
                    "sender": sender,
                    "subject": subject,
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&items).unwrap_or_default()
        );
        return Ok(());
    }
    if rows.is_empty() {
        println!("no messages");
        return Ok(());
    }
    let width = rows
        .iter()
        .map(|(_, sender, _)| sender.chars().count())
        .max()
        .unwrap_or(0);
    for (message, sender, subject) in &rows {
        let date = message.received_local(context.tz);
        println!("  {}  {date:<16}  {sender:<width$}  {subject}", message.id);
    }
    Ok(())
}

/// The `gmail read` text (GOO-7), newline-terminated.
fn message_text(message: &Message, context: &GoogleContext) -> String {
    let header = |name: &str, fallback: &'static str| {
        message
            .header(name)
            .filter(|v| !v.is_empty())
            .unwrap_or(fallback)
            .to_owned()
    };
    let body = text_body(&message.payload).map_or_else(
        || "(no text body)".to_owned(),
        |body| truncate_body(body.trim_end()),
    );
    format!(
        "from:    {}\nto:      {}\ndate:    {}\nsubject: {}\n\n{body}\n",
        header("From", "(unknown)"),
        header("To", "(unknown)"),
        message.received_local(context.tz),
        header("Subject", "(no subject)"),
    )
}
