//! The configured timezone: `OLLIM_TIMEZONE`, else the system zone (BOOT-3).

use std::path::Path;

use chrono_tz::Tz;

/// The system's timezone: `TZ`, `/etc/timezone`, the `/etc/localtime` link target, else UTC.
pub fn system_timezone() -> Tz {
    let from_env = super::environment::var("TZ")
        .and_then(|raw| raw.trim_start_matches(':').parse::<Tz>().ok());
    from_env
        .or_else(|| from_etc_timezone(Path::new("/etc/timezone")))
        .or_else(|| from_localtime_link(Path::new("/etc/localtime")))
        .unwrap_or(Tz::UTC)
}

fn from_etc_timezone(path: &Path) -> Option<Tz> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

fn from_localtime_link(path: &Path) -> Option<Tz> {
    let target = std::fs::read_link(path).ok()?;
    let target = target.to_string_lossy();
    let (_, name) = target.split_once("zoneinfo/")?;
    name.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_zone_names_from_files_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("timezone");
        std::fs::write(&file, "Europe/Berlin\n").unwrap();
        assert_eq!(from_etc_timezone(&file), Some(Tz::Europe__Berlin));
        let link = dir.path().join("localtime");
        std::os::unix::fs::symlink("/usr/share/zoneinfo/Asia/Tokyo", &link).unwrap();
        assert_eq!(from_localtime_link(&link), Some(Tz::Asia__Tokyo));
        assert_eq!(from_etc_timezone(&dir.path().join("missing")), None);
    }
}
