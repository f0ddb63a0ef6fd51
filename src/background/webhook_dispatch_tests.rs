use super::*;
use crate::webhooks::payload::parse_body;

#[test]
fn a_held_payload_keeps_its_key_order_and_values() {
    let sent =
        br#"{"status": "failure", "repo": "ollim", "n": 3, "tags": ["a", "b"], "q": "say \"hi\""}"#;
    let payload = parse_body(sent).unwrap().payload.unwrap();
    let text = payload_text(&payload);
    assert_eq!(
        text,
        r#"{"status":"failure","repo":"ollim","n":3,"tags":["a","b"],"q":"say \"hi\""}"#
    );
    let again = parse_body(text.as_bytes()).unwrap().payload.unwrap();
    assert_eq!(again, payload);
}

#[test]
fn the_hold_notice_names_the_webhook_and_carries_both_buttons() {
    let embed = hold_notice("a1b2c3d4", "github-ci", "no JSON object in the answer");
    let description = embed.description.unwrap();
    assert!(description.contains("`github-ci`") && description.contains("no JSON object"));
    let actions: Vec<&str> = embed.buttons.iter().map(|b| b.action.as_str()).collect();
    assert_eq!(actions, ["hook_run:a1b2c3d4", "hook_drop:a1b2c3d4"]);
}
