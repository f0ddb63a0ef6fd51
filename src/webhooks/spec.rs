//! A webhook spec file, `webhooks/<slug>.md` (E.3): YAML frontmatter with the `id`, the payload
//! schema under `fields`, the run options webhooks share with routines and reminders, and the
//! optional `signature` mode; the body is the instruction template.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{schema::PayloadSchema, template::Template};
use crate::domain::{
    frontmatter::{Fields, line_of, split},
    frontmatter_keys::unknown_key_notes,
    job_options::{
        ApprovalScope, BgSession, JobKind, OPTION_KEYS, OPTION_TEXT_KEYS, RunMode, RunOptions,
        Schedule, Setting,
    },
};

/// How a request for a spec proves it comes from someone who holds the secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Signature {
    /// `Authorization: Bearer <secret>` only (the default).
    #[default]
    Bearer,
    /// The bearer header and an HMAC-SHA256 of `<timestamp>.<body>` with the secret
    /// (`signature: hmac-sha256`): a captured request can't be changed or replayed.
    HmacSha256,
}

impl Signature {
    /// The frontmatter spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bearer => "bearer",
            Self::HmacSha256 => "hmac-sha256",
        }
    }
}

/// One parsed webhook spec.
#[derive(Debug)]
pub struct WebhookSpec {
    /// The `id`: the request path is `POST /hook/<id>`.
    pub id: String,
    /// The file it was read from.
    pub file: PathBuf,
    /// The `fields` mapping as JSON (the payload schema as written).
    pub schema: Value,
    /// Forked (default) or isolated (`isolated: true`); webhooks always run in the background.
    pub session: BgSession,
    /// The run's options (`model`, `thinking`, `allow-ping`, `update-main-session`, tools,
    /// `skills`, `subagent`, `reflect`).
    pub options: RunOptions,
    /// Bearer only, or bearer plus HMAC signature.
    pub signature: Signature,
    /// The body: the instruction template.
    pub template: Template,
    /// What is off in a spec that still loads: a key the format doesn't have (issue 24 §4).
    pub notes: Vec<String>,
    payload_schema: PayloadSchema,
}

/// The keys of a spec's frontmatter (E.3): its own and the options jobs share.
fn spec_keys() -> Vec<&'static str> {
    let mut keys = vec!["id", "fields", "signature", "isolated"];
    keys.extend_from_slice(OPTION_KEYS);
    keys
}

impl WebhookSpec {
    /// Parses a spec file's text; the error is the reason, without the file name.
    pub fn parse(file: &Path, text: &str) -> Result<Self, String> {
        let (yaml, body) = split(text)?;
        let mut text_keys: Vec<&str> = vec!["id", "signature"];
        text_keys.extend_from_slice(OPTION_TEXT_KEYS);
        let fields = Fields::parse_at(yaml, &text_keys, line_of(text, yaml))?;
        let id = fields.required_text("id")?.trim().to_owned();
        check_id(&id)?;
        let schema = match fields.get("fields") {
            None => return Err("missing required field \"fields\" (the payload schema)".into()),
            Some(mapping @ serde_yaml::Value::Mapping(_)) => serde_json::to_value(mapping)
                .map_err(|error| format!("\"fields\" can't be read as a JSON Schema: {error}"))?,
            Some(_) => return Err("\"fields\" must be a mapping (a JSON Schema object)".into()),
        };
        let payload_schema = PayloadSchema::compile(&schema)?;
        let session = match RunMode::read(&fields, JobKind::Webhook)?.background() {
            Some(BgSession::Isolated) => BgSession::Isolated,
            _ => BgSession::Forked,
        };
        let options = RunOptions::read(&fields)?;
        let signature = match fields.text("signature")?.as_deref().map(str::trim) {
            None | Some("bearer") => Signature::Bearer,
            Some("hmac-sha256") => Signature::HmacSha256,
            Some(other) => {
                return Err(format!(
                    "signature must be hmac-sha256 (or bearer, the default), not \"{other}\""
                ));
            }
        };
        if body.trim().is_empty() {
            return Err("the body (the instruction template) is empty".into());
        }
        let template = Template::parse(body)?;
        Ok(Self {
            id,
            file: file.to_path_buf(),
            schema,
            session,
            options,
            signature,
            template,
            notes: unknown_key_notes(text, &spec_keys()),
            payload_schema,
        })
    }

    /// The compiled payload schema.
    pub fn payload_schema(&self) -> &PayloadSchema {
        &self.payload_schema
    }

    /// The file name, for messages (`github-ci.md`).
    pub fn file_name(&self) -> String {
        file_name(&self.file)
    }

    /// What the owner's tool approvals of this spec hold for (issue 39 §4): its template, its
    /// session kind and options, and the fields and signature that decide what a request may
    /// carry into the run. The payload of a request is not part of it.
    pub fn approval_scope(&self) -> ApprovalScope {
        ApprovalScope::new(
            self.template.source(),
            (RunMode::Background(self.session), Schedule::OnRequest),
            &self.options,
            vec![
                Setting::new("fields", self.schema.to_string(), false),
                Setting::new("signature", self.signature.as_str(), false),
            ],
        )
    }
}

/// A path's last component, for messages.
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// Ids are URL path segments: letters, digits, `-`, `_` and `.`, not only dots.
fn check_id(id: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if id.is_empty() || !id.chars().all(allowed) || id.chars().all(|c| c == '.') {
        return Err(format!(
            "id \"{id}\" can't be a URL path segment: use letters, digits, -, _ and ."
        ));
    }
    Ok(())
}

/// The `id` of a spec that failed to parse, when its frontmatter still names one: read as YAML,
/// or, when the YAML itself is broken, from a plain `id: value` line, so a request for it gets
/// the broken spec's 500 rather than a 404 (issue 24 §8).
pub fn declared_id(text: &str) -> Option<String> {
    let yaml = split(text).map_or(text, |(yaml, _)| yaml);
    if let Some(id) = Fields::parse(yaml, &["id"])
        .ok()
        .and_then(|fields| fields.text("id").ok().flatten())
    {
        return Some(id.trim().to_owned());
    }
    yaml.lines().find_map(|line| {
        let id = line.strip_prefix("id:")?.trim();
        if id.starts_with(['[', '{']) {
            return None;
        }
        let id = id.trim_matches(|c| c == '"' || c == '\'');
        (!id.is_empty()).then(|| id.to_owned())
    })
}

#[cfg(test)]
#[path = "spec_tests.rs"]
mod tests;
