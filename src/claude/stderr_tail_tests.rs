use std::process::Stdio;

use super::*;

#[tokio::test]
async fn a_flood_without_newlines_or_utf8_is_drained_and_kept_small() {
    // 8 MB on one line, invalid UTF-8 in the middle, then 10,000 short lines: a real process
    // whose stderr must be read to the end, or it would block on the full pipe.
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(
            "head -c 8000000 /dev/zero | tr '\\0' 'x' >&2; printf '\\377\\376 bad bytes\\n' >&2; \
             i=0; while [ $i -lt 10000 ]; do echo \"line $i\"; i=$((i+1)); done >&2; \
             printf 'last without newline' >&2",
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let tail = new_tail();
    drain(stderr, Arc::clone(&tail)).await;
    assert!(
        child.wait().await.unwrap().success(),
        "the writer was never blocked"
    );
    let tail = tail.lock();
    assert_eq!(tail.len(), TAIL_LINES);
    assert_eq!(tail.back().unwrap(), "last without newline");
    assert_eq!(tail[TAIL_LINES - 2], "line 9999");
    assert!(
        tail.iter()
            .all(|line| line.len() <= MAX_LINE_BYTES + '…'.len_utf8())
    );
}

#[tokio::test]
async fn long_lines_are_cut_and_bad_bytes_replaced() {
    let mut input = vec![b'y'; MAX_LINE_BYTES * 3];
    input.extend_from_slice(b"\n\xff\xfeok\n");
    let tail = new_tail();
    drain(&input[..], Arc::clone(&tail)).await;
    let tail = tail.lock();
    assert_eq!(tail.len(), 2);
    assert_eq!(tail[0].len(), MAX_LINE_BYTES + '…'.len_utf8());
    assert!(tail[0].ends_with('…'));
    assert_eq!(tail[1], "\u{fffd}\u{fffd}ok");
}
