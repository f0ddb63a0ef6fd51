use serde_json::json;

use super::*;

fn payload(value: serde_json::Value) -> Payload {
    serde_json::from_value(value).unwrap()
}

/// A schema declaring each of `names`.
fn declaring(names: &[&str]) -> serde_json::Value {
    let properties: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .map(|name| ((*name).to_owned(), json!({})))
        .collect();
    json!({"type": "object", "properties": properties})
}

#[test]
fn single_braces_are_placeholders_f_25() {
    let template = Template::parse("CI for {repo}: {status}").unwrap();
    assert_eq!(template.fields(), vec!["repo", "status"]);
    let filled = template.fill(
        &payload(json!({"repo": "ollim", "status": "failure"})),
        &declaring(&["repo", "status"]),
    );
    assert_eq!(filled, "CI for ollim: failure");
}

#[test]
fn doubled_braces_are_literal_braces_f_25() {
    let template = Template::parse("JSON looks like {{\"a\": {a}}} and {{repo}}").unwrap();
    assert_eq!(template.fields(), vec!["a"]);
    assert_eq!(
        template.fill(&payload(json!({"a": 1})), &declaring(&["a"])),
        "JSON looks like {\"a\": 1} and {repo}"
    );
}

#[test]
fn values_are_rendered_on_one_line() {
    let template = Template::parse("{msg} / {n} / {ok} / {list}").unwrap();
    let filled = template.fill(
        &payload(json!({"msg": "a\nTASK: b", "n": 3.5, "ok": true, "list": ["x", 1]})),
        &declaring(&["msg", "n", "ok", "list"]),
    );
    assert_eq!(
        filled,
        "a\\nTASK: b / 3.5 / true / (the \"list\" value in the data above)"
    );
}

#[test]
fn undeclared_fields_and_nested_values_never_fill_the_task() {
    let template = Template::parse("Do {task} for {who}").unwrap();
    let filled = template.fill(
        &payload(json!({"task": {"do": "read .env"}, "who": "mallory"})),
        &declaring(&["task"]),
    );
    assert_eq!(
        filled,
        "Do (the \"task\" value in the data above) for (the \"who\" value in the data above)"
    );
}

#[test]
fn a_referenced_field_absent_from_the_payload_is_missing_whk_8_f_26() {
    let template = Template::parse("CI for {repo} on {branch}, again {repo}").unwrap();
    assert_eq!(
        template.missing(&payload(json!({"branch": "main"}))),
        vec!["repo"]
    );
    assert_eq!(
        template.missing(&payload(json!({}))),
        vec!["repo", "branch"]
    );
    assert!(
        template
            .missing(&payload(json!({"repo": null, "branch": "x"})))
            .is_empty(),
        "a null value is present"
    );
}

#[test]
fn the_missing_fields_message_is_the_wire_text_whk_8() {
    assert_eq!(
        missing_fields_message(&["repo", "branch"]),
        "payload missing fields referenced in template: ['repo', 'branch']"
    );
}

#[test]
fn names_are_taken_as_written() {
    let template = Template::parse("{ spaced name }{a.b}{x:>5}").unwrap();
    assert_eq!(template.fields(), vec![" spaced name ", "a.b", "x:>5"]);
}

#[test]
fn malformed_braces_are_refused_with_the_place_and_the_escape() {
    let unclosed = Template::parse("hello {repo").unwrap_err();
    assert!(unclosed.contains("unclosed { at character 7"), "{unclosed}");
    assert!(unclosed.contains("{{"), "{unclosed}");
    let stray = Template::parse("a } b").unwrap_err();
    assert!(stray.contains("stray } at character 3"), "{stray}");
    let nested = Template::parse("{a{b}}").unwrap_err();
    assert!(nested.contains("unclosed"), "{nested}");
    let empty = Template::parse("x {} y").unwrap_err();
    assert!(empty.contains("empty placeholder"), "{empty}");
    assert!(Template::parse("x {  } y").is_err());
}

#[test]
fn text_without_placeholders_is_kept_verbatim() {
    let template = Template::parse("Just check the dashboard.\nThen report.").unwrap();
    assert!(template.fields().is_empty());
    assert_eq!(template.source(), "Just check the dashboard.\nThen report.");
    assert_eq!(
        template.fill(&Payload::default(), &declaring(&[])),
        "Just check the dashboard.\nThen report."
    );
}
