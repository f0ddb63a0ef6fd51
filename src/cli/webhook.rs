//! `ollim-bot webhook list|test` (WHK-2…12, E.3): the webhook specs from the terminal, without
//! a running bot. `list` shows each spec (or why its file is broken); `test` runs a payload
//! through the same checks the server makes after authentication and prints the prompt body
//! the run would get and the values screening would check.

use clap::Subcommand;
use std::fmt::Write as _;

use crate::{
    state::paths::DataDir,
    webhooks::{
        Signature, SpecStore, WebhookSpec,
        request::{MAX_BODY_BYTES, Rejection, accepted_body, lookup, prepare},
    },
};

/// `ollim-bot webhook …`
#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// List the webhook specs: id, file, payload fields, signed or not; broken files with why.
    List,
    /// Check a payload against a spec locally and print the prompt body it would produce.
    Test {
        /// The spec's id (the `<id>` of `POST /hook/<id>`).
        id: String,
        /// The JSON payload, e.g. '{"repo": "ollim-bot", "status": "failure"}'.
        #[arg(long)]
        data: String,
    },
}

/// Runs a webhook command; returns the exit code. What the store logs about a broken spec is
/// what these commands print themselves, so the log is silenced here (said once, issue 24 §8).
pub fn run(data_dir: &DataDir, command: WebhookCommand) -> i32 {
    tracing::dispatcher::with_default(&tracing::Dispatch::none(), || {
        run_quietly(data_dir, command)
    })
}

fn run_quietly(data_dir: &DataDir, command: WebhookCommand) -> i32 {
    let store = SpecStore::new(data_dir.webhooks_dir());
    match command {
        WebhookCommand::List => {
            for line in list_lines(&store) {
                println!("{line}");
            }
            0
        }
        WebhookCommand::Test { id, data } => match test_report(&store, &id, &data) {
            Ok(report) => {
                println!("{report}");
                0
            }
            Err(report) => {
                eprintln!("{report}");
                1
            }
        },
    }
}

/// One line per spec file, by file name.
pub fn list_lines(store: &SpecStore) -> Vec<String> {
    let specs = store.scan();
    if specs.is_empty() {
        return vec![format!("no webhook specs in {}", store.dir().display())];
    }
    specs
        .into_iter()
        .map(|parsed| match parsed {
            Ok(spec) => describe(&spec),
            Err(error) => format!("  BROKEN  {error}"),
        })
        .collect()
}

fn describe(spec: &WebhookSpec) -> String {
    let signed = match spec.signature {
        Signature::Bearer => "bearer",
        Signature::HmacSha256 => "signed (hmac-sha256)",
    };
    format!(
        "  {}  {}  {signed}  fields: {}",
        spec.id,
        spec.file_name(),
        field_summary(&spec.schema)
    )
}

/// `repo*, status*, branch` (`*` = required), or `(none declared)`.
fn field_summary(schema: &serde_json::Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(serde_json::Value::as_array)
        .map(|names| names.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default();
    let names: Vec<String> = schema
        .get("properties")
        .and_then(serde_json::Value::as_object)
        .map(|properties| {
            properties
                .keys()
                .map(|name| {
                    let star = if required.contains(&name.as_str()) {
                        "*"
                    } else {
                        ""
                    };
                    format!("{name}{star}")
                })
                .collect()
        })
        .unwrap_or_default();
    if names.is_empty() {
        "(none declared)".to_owned()
    } else {
        names.join(", ")
    }
}

/// What the server would do with `data` for `id` after authentication: `Ok` with the prompt
/// body and the screening list when it would be accepted, `Err` with the refusal.
pub fn test_report(store: &SpecStore, id: &str, data: &str) -> Result<String, String> {
    let refused = |rejection: &Rejection| {
        format!(
            "would be refused: {} {}",
            rejection.status(),
            rejection.body_text()
        )
    };
    let spec = lookup(store, id).map_err(|rejection| refused(&rejection))?;
    if data.len() > MAX_BODY_BYTES {
        return Err(refused(&Rejection::TooLarge));
    }
    let prepared = prepare(&spec, data.as_bytes()).map_err(|rejection| refused(&rejection))?;
    let mut report = format!("would be accepted: 202 {}\n", accepted_body());
    if spec.signature == Signature::HmacSha256 {
        report.push_str(
            "signed spec: the request also needs X-Ollim-Timestamp and X-Ollim-Signature \
             (HMAC-SHA256 of \"<timestamp>.<body>\" with WEBHOOK_SECRET)\n",
        );
    }
    let _ = write!(
        report,
        "\nprompt body (after the \"[webhook:{}] <preamble>\" line the run starts with):\n",
        spec.id
    );
    report.push_str(&prepared.body);
    report.push_str("\n\n");
    if prepared.to_screen.is_empty() {
        report.push_str("screening: nothing to check (no free text in the payload)");
    } else {
        let keys: Vec<&str> = prepared.to_screen.iter().map(|(k, _)| k.as_str()).collect();
        let _ = write!(
            report,
            "screening would check: {} (a flagged or unclear answer holds the request for you)",
            keys.join(", ")
        );
    }
    Ok(report)
}

#[cfg(test)]
#[path = "webhook_tests.rs"]
mod tests;
