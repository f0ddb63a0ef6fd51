//! The chart of daily spend by kind (USE-5) through the real parts: `/cost` in Discord
//! attaches it, `ollim-bot usage --chart` writes it; both are PNGs with a bar of the work
//! that was done (a main turn and a reminder's run) and none of the work that wasn't.

use ollim_bot::usage::{UsageKind, chart::kind_rgb};
use serde_json::json;

use crate::{
    support::{
        bot::{BotHarness, ollim_command},
        cli::CliSandbox,
    },
    usage_ledger::a_turn_and_a_reminder_run,
};

/// How many pixels of `png` (an 800×400 RGB image) have exactly `kind`'s colour.
fn pixels_of(png: &[u8], kind: UsageKind) -> usize {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("one frame");
    assert_eq!((info.width, info.height), (800, 400));
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let rgb = kind_rgb(kind);
    pixels[..info.buffer_size()]
        .chunks_exact(3)
        .filter(|p| *p == rgb)
        .count()
}

fn assert_bars(png: &[u8], what: &str) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{what}: not a PNG");
    assert!(pixels_of(png, UsageKind::Main) > 0, "{what}: no main bar");
    assert!(
        pixels_of(png, UsageKind::Reminder) > 0,
        "{what}: no reminder bar"
    );
    assert_eq!(
        pixels_of(png, UsageKind::Webhook),
        0,
        "{what}: a webhook bar"
    );
}

#[tokio::test]
async fn cost_attaches_the_chart_and_usage_writes_it() {
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    a_turn_and_a_reminder_run(&h).await;

    let command = h.discord.slash(h.owner(), "cost", json!([])).await;
    h.discord.wait_for_callback(command).await;
    let answer = h
        .wait_for_bot_message("the /cost answer with its chart", |m| {
            !m.attachments.is_empty()
        })
        .await;
    assert!(answer.content.contains("**Spend**"), "{}", answer.content);
    let attachment = &answer.attachments[0];
    assert_eq!(attachment["filename"], "spend.png");
    let url = attachment["url"].as_str().expect("the attachment's url");
    let png = reqwest::get(url).await.unwrap().bytes().await.unwrap();
    assert_bars(&png, "/cost");
    h.terminate().await;

    let path = h.sandbox.home.path().join("spend.png");
    let out = ollim_command(&h.sandbox, &h.mock)
        .args(["usage", "--since", "30d", "--chart"])
        .arg(&path)
        .output()
        .await
        .expect("run ollim-bot usage");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_bars(&std::fs::read(&path).unwrap(), "usage --chart");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!(
            "chart of the last 30 days written to {}",
            path.display()
        )),
        "{said}"
    );

    // An empty window writes nothing and says why.
    let empty = CliSandbox::new();
    let out = ollim_command(&empty, &h.mock)
        .args(["usage", "--chart"])
        .arg(empty.home.path().join("none.png"))
        .output()
        .await
        .expect("run ollim-bot usage");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nothing was spent"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
