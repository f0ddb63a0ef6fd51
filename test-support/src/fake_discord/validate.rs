//! Discord's validation of message bodies, and attachment handling for uploads.

use serde_json::Value;

use super::MultipartFile;
use super::json;
use super::rest::Reply;
use super::state::{Inner, StoredFile};

/// Discord's checks on a message body; `for_edit` allows an all-empty body.
#[allow(clippy::too_many_lines)] // one check per Discord rule, in a row
pub(super) fn validate(
    inner: &Inner,
    ch: u64,
    body: Option<&Value>,
    files: &[MultipartFile],
    for_edit: bool,
) -> Result<(), Reply> {
    let field = |k: &str| body.and_then(|b| b.get(k));
    let content = field("content").and_then(Value::as_str).unwrap_or("");
    if content.chars().count() > 2000 {
        return Err(Reply::with(
            400,
            json::form_error(
                "content",
                "BASE_TYPE_MAX_LENGTH",
                "Must be 2000 or fewer in length.",
            ),
        ));
    }
    let embeds = field("embeds")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if embeds.len() > 10 {
        return Err(Reply::with(
            400,
            json::form_error(
                "embeds",
                "BASE_TYPE_MAX_LENGTH",
                "Must be 10 or fewer in length.",
            ),
        ));
    }
    let mut total = 0;
    for (i, e) in embeds.iter().enumerate() {
        let len = |k: &str| {
            e.get(k)
                .and_then(Value::as_str)
                .map_or(0, |s| s.chars().count())
        };
        if len("description") > 4096 {
            let path = format!("embeds.{i}.description");
            return Err(Reply::with(
                400,
                json::form_error(
                    &path,
                    "BASE_TYPE_MAX_LENGTH",
                    "Must be 4096 or fewer in length.",
                ),
            ));
        }
        if len("title") > 256 {
            let path = format!("embeds.{i}.title");
            return Err(Reply::with(
                400,
                json::form_error(
                    &path,
                    "BASE_TYPE_MAX_LENGTH",
                    "Must be 256 or fewer in length.",
                ),
            ));
        }
        total += len("title") + len("description");
        for f in e
            .get("fields")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            total += f.to_string().len();
        }
    }
    if total > 6000 {
        return Err(Reply::error(
            400,
            "Embed size exceeds maximum size of 6000",
            50035,
        ));
    }
    let components = field("components")
        .and_then(Value::as_array)
        .is_some_and(|c| !c.is_empty());
    let stickers = field("sticker_ids")
        .and_then(Value::as_array)
        .is_some_and(|c| !c.is_empty());
    if !for_edit
        && content.is_empty()
        && embeds.is_empty()
        && files.is_empty()
        && !components
        && !stickers
    {
        return Err(Reply::error(400, "Cannot send an empty message", 50006));
    }
    if let Some(reference) = field("message_reference") {
        let target = reference
            .get("message_id")
            .and_then(json::parse_id)
            .unwrap_or(0);
        let must_exist = reference
            .get("fail_if_not_exists")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        if must_exist && inner.message(ch, target).is_none() {
            return Err(Reply::with(
                400,
                json::form_error(
                    "message_reference",
                    "MESSAGE_REFERENCE_UNKNOWN_MESSAGE",
                    "Unknown message",
                ),
            ));
        }
    }
    Ok(())
}

/// Attachment objects for a body's `attachments` list plus uploaded `files[N]` parts.
/// Existing attachments listed by id are kept; uploads get fresh ids.
pub(super) fn attachments(
    inner: &mut Inner,
    body: Option<&Value>,
    files: &[MultipartFile],
    existing: &[Value],
) -> Vec<Value> {
    let listed = body
        .and_then(|b| b.get("attachments"))
        .and_then(Value::as_array)
        .cloned();
    let mut out = Vec::new();
    let mut used = vec![false; files.len()];
    for entry in listed.iter().flatten() {
        let id = entry.get("id").and_then(json::parse_id);
        let upload = files
            .iter()
            .position(|f| Some(f.field.clone()) == id.map(|n| format!("files[{n}]")));
        match upload {
            Some(i) => {
                used[i] = true;
                out.push(store_upload(inner, &files[i], entry.get("description")));
            }
            None => out.extend(
                existing
                    .iter()
                    .filter(|a| a.get("id").and_then(json::parse_id) == id)
                    .cloned(),
            ),
        }
    }
    if listed.is_none() {
        out.extend(existing.iter().cloned());
    }
    for (i, file) in files.iter().enumerate() {
        if !used[i] {
            out.push(store_upload(inner, file, None));
        }
    }
    out
}

fn store_upload(inner: &mut Inner, file: &MultipartFile, description: Option<&Value>) -> Value {
    let id = inner.snowflake();
    let name = file.filename.clone().unwrap_or_else(|| "file".to_string());
    let content_type = file
        .content_type
        .clone()
        .unwrap_or_else(|| "application/octet-stream".to_string());
    let mut a = json::attachment(&inner.base_url, id, &name, &content_type, file.data.len());
    if let Some(d) = description {
        a["description"] = d.clone();
    }
    inner.files.insert(
        id,
        StoredFile {
            content_type,
            data: file.data.clone(),
        },
    );
    a
}
