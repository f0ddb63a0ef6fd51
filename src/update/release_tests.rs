use semver::Version;

use super::*;

#[test]
fn version_order_not_name_order() {
    let newest = newest("v0.9.0\nv0.10.0\nv0.2.1\n").unwrap();
    assert_eq!(newest.tag, "v0.10.0");
    assert_eq!(newest.version, Version::new(0, 10, 0));
}

#[test]
fn a_release_is_newer_than_its_release_candidate() {
    assert_eq!(newest("v1.0.0-rc.1\nv1.0.0\n").unwrap().tag, "v1.0.0");
    assert_eq!(
        newest("v1.0.0-rc.2\nv1.0.0-rc.10").unwrap().tag,
        "v1.0.0-rc.10"
    );
}

#[test]
fn tags_that_are_not_versions_are_ignored() {
    assert_eq!(newest("vnext\nv1\nrelease-2\n\n"), None);
    assert_eq!(newest("vnext\nv0.2.0\n").unwrap().tag, "v0.2.0");
}

#[test]
fn only_a_newer_release_is_an_update() {
    let running = Version::new(0, 3, 0);
    assert_eq!(update_over("v0.1.0\nv0.3.0\n", &running), None);
    assert_eq!(update_over("", &running), None);
    assert_eq!(
        update_over("v0.3.0\nv0.3.1\n", &running).unwrap().tag,
        "v0.3.1"
    );
    assert_eq!(update_over("v0.2.9", &running), None);
}

#[test]
fn the_running_version_is_the_package_version() {
    assert_eq!(running().to_string(), env!("CARGO_PKG_VERSION"));
}
