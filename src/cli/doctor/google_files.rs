//! GOOGLE (CMD-7, GOO-1): optional; set up, connected, revoked. Only file presence and the
//! token's usability are looked at; nothing is sent and no token is shown.

use super::{Check, Group};
use crate::{google::GoogleFiles, state::paths::DataDir};

/// The GOOGLE group for `data_dir`.
pub(super) fn google_checks(data_dir: &DataDir) -> Vec<Check> {
    let files = GoogleFiles::new(data_dir);
    let revoked = data_dir.google_auth_revoked_file().exists();
    let has_credentials = files.credentials_path().exists();
    let secrets = has_credentials.then(|| files.load_secrets().map_err(|e| e.to_string()));
    google_status(
        secrets.map(|s| s.map(|_| ())),
        files.is_connected(),
        revoked,
    )
}

/// The lines from what was found: `credentials` is `None` without `credentials.json`, else
/// whether it can be used.
pub(super) fn google_status(
    credentials: Option<Result<(), String>>,
    connected: bool,
    revoked: bool,
) -> Vec<Check> {
    let group = Group::Google;
    let mut checks = Vec::new();
    if revoked {
        checks.push(Check::warn(
            group,
            "Google access was revoked or expired: reconnect with `ollim-bot google auth`",
        ));
    }
    checks.push(match credentials {
        None => Check::pass(group, "not set up (optional)"),
        Some(Err(reason)) => Check::fail(
            group,
            format!(
                "{reason}: download a Desktop-app OAuth client from Google Cloud Console as \
                 state/credentials.json"
            ),
        ),
        Some(Ok(())) if connected => Check::pass(group, "connected"),
        Some(Ok(())) => Check::warn(
            group,
            "credentials.json is there but Google is not connected: run `ollim-bot google auth`",
        ),
    });
    checks
}
