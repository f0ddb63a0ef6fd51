//! A reminder or routine that stays open until answered (issue 28 §1, NAG-1): the `until-done`,
//! `nag-every` and `max-nags` keys of a reminder file, and the [`NagPolicy`] they ask for.
//! Routines take the same keys: each fire of such a routine stays open until answered.

use std::time::Duration;

use crate::domain::frontmatter::Fields;
use crate::domain::nag::{NAG_CEILING, NagPolicy, parse_gap};

/// How a reminder with `until-done: true` nags until answered (NAG-1). A reminder without the
/// key has none: it fires once, as ever.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UntilDone {
    /// The wait before the first nag (`nag-every`, 1 minute to 24 hours); `None` is the
    /// policy's default, 10 minutes. Later gaps grow from it as [`NagPolicy`] says.
    pub nag_every: Option<Duration>,
    /// How many nags at most (`max-nags`, 1 to [`NAG_CEILING`]); `None` nags until answered,
    /// up to the ceiling.
    pub max_nags: Option<u32>,
}

impl UntilDone {
    /// The nag timing these keys ask for: the default policy with `nag-every` as its first gap
    /// and `max-nags` as its limit.
    pub fn policy(&self) -> NagPolicy {
        let default = NagPolicy::default();
        NagPolicy {
            first_gap: self.nag_every.unwrap_or(default.first_gap),
            max_nags: self.max_nags,
            ..default
        }
    }

    /// Why a `max-nags` value is refused, if it is (NAG-1): it must be 1 to [`NAG_CEILING`].
    pub fn check_max_nags(max_nags: u32) -> Result<u32, String> {
        if (1..=NAG_CEILING).contains(&max_nags) {
            Ok(max_nags)
        } else {
            Err(max_nags_range())
        }
    }

    /// Reads the keys from a reminder's frontmatter (NAG-1). `nag-every` and `max-nags` only
    /// mean something with `until-done: true`; without it they are a problem, not ignored, so
    /// a reminder the owner meant to stay open doesn't quietly fire once.
    pub(super) fn read(fields: &Fields) -> Result<Option<Self>, String> {
        let until_done = fields.flag("until-done", false)?;
        let nag_every = fields
            .text("nag-every")?
            .map(|text| parse_gap(&text).map_err(|error| format!("\"nag-every\": {error}")))
            .transpose()?;
        let max_nags = match fields.get("max-nags") {
            None => None,
            Some(value) => Some(
                value
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(max_nags_range)
                    .and_then(Self::check_max_nags)?,
            ),
        };
        if !until_done {
            let stray = [
                ("nag-every", nag_every.is_some()),
                ("max-nags", max_nags.is_some()),
            ];
            if let Some((key, _)) = stray.iter().find(|(_, given)| *given) {
                return Err(format!(
                    "\"{key}\" only applies to a reminder that stays open until answered; add \
                     until-done: true, or remove \"{key}\""
                ));
            }
            return Ok(None);
        }
        Ok(Some(Self {
            nag_every,
            max_nags,
        }))
    }
}

fn max_nags_range() -> String {
    format!("\"max-nags\" must be a whole number from 1 to {NAG_CEILING}")
}
