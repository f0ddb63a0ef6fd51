//! CMD-10: the printed comparison.

use serde_json::json;

use super::*;

fn header() -> Header {
    Header {
        session: "0123456789abcdef".into(),
        rewind: "fedcba9876543210".into(),
        message: "read   my\nnotes".into(),
        sent_instead: None,
    }
}

fn block(kind: Kind, text: &str) -> Block {
    Block {
        kind,
        text: text.into(),
        tools: Vec::new(),
        posted: Vec::new(),
        stats: Stats::default(),
    }
}

#[test]
fn plain_output_has_the_header_blocks_and_rules() {
    let mut original = block(Kind::Original, "It says pineapple.");
    original.tools = vec![ToolCall {
        name: "Read".into(),
        input: json!({"file_path": "/d/notes.md"}),
    }];
    original.stats = Stats {
        turns: Some(2),
        input: Some(1_234_567),
        output: Some(40),
        ..Stats::default()
    };
    let mut variant = block(Kind::Variant, "");
    variant.posted = vec!["[embed] Today".into()];
    variant.stats = Stats {
        turns: Some(5),
        cost: Some(0.012_345),
        stopped: Some(Stopped::MaxTurns),
        ..Stats::default()
    };
    let shown = render(&header(), &[original, variant], Style::Plain);
    let rule = "─".repeat(60);
    assert_eq!(
        shown,
        format!(
            "\nCounterfactual: 01234567 @ fedcba98\nMessage: read my notes\n\n\
             ORIGINAL (from transcript)\nIt says pineapple.\n\nTools (1):\n  Read /d/notes.md\n\
             turns=2 | in=1,234,567 | out=40\n{rule}\n\n\
             VARIANT (with intervention)\n(no text)\n[embed] Today\n\nTools: none\n\
             turns=5 | cost=$0.0123 (stopped: max turns)\n"
        )
    );
    assert!(!shown.contains('\x1b'));
}

#[test]
fn a_replaced_message_and_a_long_one_are_shown_cut() {
    let mut header = header();
    header.message = "m".repeat(130);
    header.sent_instead = Some("try this".into());
    let shown = render(&header, &[], Style::Plain);
    assert!(
        shown.contains(&format!("Message: {}[...]\n", "m".repeat(120))),
        "{shown}"
    );
    assert!(shown.contains("\nSent instead: try this\n"), "{shown}");
}

#[test]
fn ansi_only_when_styled_and_model_text_is_made_harmless() {
    let styled = render(&header(), &[block(Kind::Baseline, "hi")], Style::Ansi);
    assert!(styled.contains("\x1b[1m\x1b[32mBASELINE"), "{styled:?}");
    let plain = render(
        &header(),
        &[block(Kind::Baseline, "a\x1b]52;c;x\x07b")],
        Style::Plain,
    );
    assert!(!plain.contains('\x1b'), "{plain:?}");
    assert!(plain.contains("a␛]52;c;x␇b"), "{plain:?}");
    assert_eq!(Style::for_terminal(true, false), Style::Ansi);
    assert_eq!(Style::for_terminal(true, true), Style::Plain);
    assert_eq!(Style::for_terminal(false, false), Style::Plain);
}

#[test]
fn paragraphs_wrap_at_88_columns() {
    let word = "word ";
    let long = word.repeat(30);
    let wrapped = wrap(&format!("{long}\n\nnext"), 88);
    let lines: Vec<&str> = wrapped.lines().collect();
    assert_eq!(lines[0].len(), 89 - 5);
    assert!(lines.iter().all(|l| l.chars().count() <= 88));
    assert_eq!(&lines[lines.len() - 2..], ["", "next"]);
    assert_eq!(wrap(&"x".repeat(100), 88).len(), 100);
}

#[test]
fn stats_show_known_fields_and_why_a_run_stopped() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1000), "1,000");
    assert_eq!(thousands(12_345_678), "12,345,678");
    let budget = Stats {
        stopped: Some(Stopped::Budget),
        ..Stats::default()
    };
    assert_eq!(stats_line(&budget), "(stopped: budget)");
    assert_eq!(stats_line(&Stats::default()), "");
}
