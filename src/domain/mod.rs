//! The ground floor: plain types and their texts that several layers share, with no I/O and no
//! imports from the rest of the crate. Embeds a tool or the bot shows, prompt tags, a job's
//! options and the frontmatter they are read from, and the switchboard between the fork tools and the session.
//! The arithmetic of following through (issue 28): quiet hours that hold pings, how a reminder
//! nags until answered, and wall-clock times read through daylight-saving changes.

pub mod embed;
pub mod fork_control;
pub mod frontmatter;
pub mod frontmatter_keys;
pub mod job_options;
pub mod model_name;
pub mod nag;
pub mod open_nag;
pub mod prompt_tag;
pub mod quiet_hours;
pub mod spelling;
pub mod wall_clock;
