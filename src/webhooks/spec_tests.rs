use serde_json::json;

use super::*;
use crate::domain::job_options::{ToolRestriction, UpdateMode};

const FULL: &str = r#"---
id: github-ci
isolated: true
model: haiku
thinking: false
allow-ping: false
update-main-session: always
allowed-tools: ["Bash(git log:*)"]
skills: [triage]
subagent: ci-reader
reflect: false
signature: hmac-sha256
fields:
  type: object
  required: [repo, status]
  properties:
    repo: {type: string, maxLength: 200}
    status: {type: string, enum: [success, failure, cancelled]}
  additionalProperties: false
---
CI for {repo}: {status}.
"#;

fn parse(text: &str) -> Result<WebhookSpec, String> {
    WebhookSpec::parse(Path::new("/data/webhooks/x.md"), text)
}

#[test]
fn every_e3_key_is_read() {
    let spec = parse(FULL).unwrap();
    assert_eq!(spec.id, "github-ci");
    assert_eq!(spec.file_name(), "x.md");
    assert_eq!(spec.session, BgSession::Isolated);
    assert_eq!(spec.options.model.as_deref(), Some("haiku"));
    assert!(!spec.options.thinking);
    assert!(!spec.options.allow_ping);
    assert_eq!(spec.options.update_mode, UpdateMode::Always);
    assert_eq!(
        spec.options.tools,
        ToolRestriction::Allowed(vec!["Bash(git log:*)".into()])
    );
    assert_eq!(spec.options.skills, vec!["triage".to_owned()]);
    assert_eq!(spec.options.subagent.as_deref(), Some("ci-reader"));
    assert!(!spec.options.reflect);
    assert_eq!(spec.signature, Signature::HmacSha256);
    assert_eq!(spec.template.source(), "CI for {repo}: {status}.");
    assert_eq!(
        spec.schema["properties"]["status"]["enum"],
        json!(["success", "failure", "cancelled"])
    );
    assert_eq!(spec.schema["additionalProperties"], json!(false));
    assert!(
        spec.notes.is_empty(),
        "every E.3 key is known: {:?}",
        spec.notes
    );
}

#[test]
fn a_misspelt_key_is_noted_and_the_spec_still_loads() {
    let spec =
        parse("---\nid: plain\nisolted: true\nfields:\n  type: object\n---\nCheck.\n").unwrap();
    assert_eq!(spec.session, BgSession::Forked);
    assert_eq!(
        spec.notes,
        ["unknown key \"isolted\" is ignored (did you mean \"isolated\"?)"]
    );
}

#[test]
fn defaults_are_forked_bearer_and_the_shared_option_defaults() {
    let spec = parse("---\nid: plain\nfields:\n  type: object\n---\nCheck.\n").unwrap();
    assert_eq!(spec.session, BgSession::Forked);
    assert_eq!(spec.signature, Signature::Bearer);
    assert_eq!(spec.options, RunOptions::default());
}

#[test]
fn broken_specs_say_why() {
    let cases = [
        ("no YAML frontmatter", "just text"),
        (
            "missing required field \"id\"",
            "---\nfields: {type: object}\n---\nx",
        ),
        ("missing required field \"fields\"", "---\nid: a\n---\nx"),
        ("must be a mapping", "---\nid: a\nfields: [1]\n---\nx"),
        (
            "not a usable JSON Schema",
            "---\nid: a\nfields: {type: objekt}\n---\nx",
        ),
        ("body", "---\nid: a\nfields: {type: object}\n---\n  \n"),
        (
            "unclosed {",
            "---\nid: a\nfields: {type: object}\n---\nx {y",
        ),
        (
            "signature must be",
            "---\nid: a\nsignature: md5\nfields: {type: object}\n---\nx",
        ),
        (
            "URL path segment",
            "---\nid: a/b\nfields: {type: object}\n---\nx",
        ),
        (
            "URL path segment",
            "---\nid: \"..\"\nfields: {type: object}\n---\nx",
        ),
        (
            "update-main-session",
            "---\nid: a\nupdate-main-session: loud\nfields: {type: object}\n---\nx",
        ),
    ];
    for (expected, text) in cases {
        let error = parse(text).unwrap_err();
        assert!(error.contains(expected), "{text:?}: {error}");
    }
}

#[test]
fn the_declared_id_of_a_broken_spec_is_found_when_the_yaml_reads() {
    assert_eq!(
        declared_id("---\nid: a\nfields: [1]\n---\nx").as_deref(),
        Some("a")
    );
    assert_eq!(declared_id("---\nid: [unclosed\n---\nx"), None);
    // YAML broken elsewhere: the plain `id:` line still names the spec (issue 24 §8).
    assert_eq!(
        declared_id("---\nid: \"ci\"\nfields: {type: [\n---\nx").as_deref(),
        Some("ci")
    );
    assert_eq!(declared_id("no frontmatter"), None);
}

#[test]
fn the_example_specs_in_the_repository_load() {
    for (name, text) in [
        ("github-ci.md", include_str!("../../webhooks/github-ci.md")),
        (
            "deploy-signed.md",
            include_str!("../../webhooks/deploy-signed.md"),
        ),
    ] {
        let spec =
            WebhookSpec::parse(Path::new(name), text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!spec.template.fields().is_empty(), "{name}");
    }
}
