use serde_json::json;

use super::*;

#[allow(clippy::needless_pass_by_value)] // callers pass `json!` literals
fn validate(schema: serde_json::Value, payload: serde_json::Value) -> Vec<String> {
    PayloadSchema::compile(&schema).unwrap().validate(&payload)
}

#[test]
fn more_than_twenty_properties_fail_every_request_with_one_detail_whk_7() {
    let mut properties = serde_json::Map::new();
    for i in 0..21 {
        properties.insert(format!("p{i}"), json!({"type": "integer"}));
    }
    let schema = json!({"type": "object", "properties": properties});
    assert_eq!(
        validate(schema.clone(), json!({})),
        vec!["Too many properties (21, max 20)".to_owned()]
    );
    properties.remove("p0");
    let schema = json!({"type": "object", "properties": properties});
    assert!(validate(schema, json!({})).is_empty());
}

#[test]
fn strings_without_max_length_get_500_whk_7() {
    let schema = json!({"type": "object", "properties": {
        "short": {"type": "string"},
        "long": {"type": "string", "maxLength": 1000},
        "nullable": {"type": ["string", "null"]}
    }});
    assert!(validate(schema.clone(), json!({"short": "x".repeat(500)})).is_empty());
    let errors = validate(schema.clone(), json!({"short": "x".repeat(501)}));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("longer than 500"), "{errors:?}");
    assert!(validate(schema.clone(), json!({"long": "x".repeat(800)})).is_empty());
    assert_eq!(
        with_default_max_length(&schema)["properties"]["nullable"],
        json!({"type": ["string", "null"]})
    );
}

#[test]
fn failures_are_listed_one_message_each_whk_7() {
    let schema = json!({
        "type": "object",
        "required": ["repo"],
        "properties": {"repo": {"type": "string"}, "n": {"type": "integer"}},
        "additionalProperties": false
    });
    let errors = validate(schema, json!({"n": "seven", "extra": 1}));
    assert_eq!(errors.len(), 3, "{errors:?}");
    let all = errors.join("\n");
    assert!(all.contains("\"repo\" is a required property"), "{all}");
    assert!(all.contains("extra"), "{all}");
    assert!(
        all.contains("\"seven\" is not of type \"integer\""),
        "{all}"
    );
}

#[test]
fn references_inside_the_schema_work() {
    let schema = json!({
        "type": "object",
        "definitions": {"name": {"type": "string", "maxLength": 3}},
        "properties": {"who": {"$ref": "#/definitions/name"}}
    });
    assert!(validate(schema.clone(), json!({"who": "abc"})).is_empty());
    assert_eq!(validate(schema, json!({"who": "abcd"})).len(), 1);
}

#[test]
fn remote_references_are_refused_and_never_fetched() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/schema.json", listener.local_addr().unwrap());
    for schema in [
        json!({"$ref": url}),
        json!({"type": "object", "properties": {"a": {"$ref": url}}}),
    ] {
        let error = PayloadSchema::compile(&schema).unwrap_err();
        assert!(
            error.starts_with("fields is not a usable JSON Schema"),
            "{error}"
        );
    }
    let attempt = listener.accept();
    assert!(
        matches!(&attempt, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the schema compiler connected to {url}: {attempt:?}"
    );
}

#[test]
fn file_references_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("other.json");
    std::fs::write(&target, r#"{"type": "string"}"#).unwrap();
    let schema = json!({"type": "object", "properties": {
        "a": {"$ref": format!("file://{}", target.display())}
    }});
    let error = PayloadSchema::compile(&schema).unwrap_err();
    assert!(error.contains("not a usable JSON Schema"), "{error}");
}

#[test]
fn an_unusable_schema_is_an_error() {
    assert!(PayloadSchema::compile(&json!({"type": "objekt"})).is_err());
    assert!(PayloadSchema::compile(&json!({"properties": {"a": {"pattern": "("}}})).is_err());
}
