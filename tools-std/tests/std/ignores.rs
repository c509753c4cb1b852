//! Ignore files are input: `.gitignore` files made by an attacker (huge, with many rules, long
//! lines) cost bounded memory, and a call busy with them ends at its cancellation or timeout.
//! The rules within the caps still apply.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use toolwright_core::{CancellationToken, ToolCall};
use toolwright_runtime::{CallOptions, Executor};

use crate::harness::Harness;

/// How long a stopped call's thread may take to give itself back before the test fails. Far
/// more than it needs: the bound only turns a walk that never stops into a failure.
const STOP_DEADLINE: Duration = Duration::from_secs(60);

/// An ignore file of at least `size` bytes: `first`, then rules `pattern_<tag>_<n>_*.tmp`
/// (each a regular expression of its own in the `ignore` crate), then `last`.
fn huge_ignore_file(tag: &str, size: usize, first: &str, last: &str) -> String {
    let mut text = format!("{first}\n");
    let mut n = 0;
    while text.len() < size {
        let _ = writeln!(text, "pattern_{tag}_{n:06}_*.tmp");
        n += 1;
    }
    text.push_str(last);
    text.push('\n');
    text
}

fn executor(root: &Path, timeout: Option<Duration>) -> Executor {
    let mut builder = Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
        .state(toolwright_std::Workspace::new(root).unwrap());
    if let Some(timeout) = timeout {
        builder = builder.timeout(timeout);
    }
    builder.build()
}

/// Waits until no thread of `executor` runs a call, or panics after [`STOP_DEADLINE`].
async fn wait_for_threads_back(executor: &Executor, what: &str) {
    let started = Instant::now();
    loop {
        let threads = executor.metrics().sync_threads;
        if threads.busy == 0 && threads.abandoned == 0 {
            return;
        }
        assert!(
            started.elapsed() < STOP_DEADLINE,
            "{what}: the call's thread still runs {STOP_DEADLINE:?} after the call ended: \
             {threads:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Peak memory (VmHWM) of this process, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

const HUGE_IGNORES_DIR: &str = "TOOLS_STD_HUGE_IGNORES_DIR";
/// Levels of the tree of `huge_ignore_files_cost_bounded_memory`, each with its 1 MiB
/// `.gitignore`; nested, so that a walker holds all their rules at once at the bottom.
const LEVELS: usize = 20;

/// The directory of level `level` (0: `d0`, 1: `d0/d1`, ...).
fn level_dir(level: usize) -> String {
    (0..=level)
        .map(|l| format!("d{l}"))
        .collect::<Vec<_>>()
        .join("/")
}

/// The measured part of `huge_ignore_files_cost_bounded_memory`, in a process of its own so
/// that no other test's memory counts.
#[tokio::test]
#[ignore = "run in a child process by huge_ignore_files_cost_bounded_memory"]
async fn huge_ignores_child() {
    let Some(dir) = std::env::var_os(HUGE_IGNORES_DIR) else {
        return;
    };
    let executor = executor(Path::new(&dir), None);
    let before = peak_rss_kib();
    let found = executor
        .execute(ToolCall::new("1", "find_files", json!({"pattern": "*"})))
        .await;
    assert!(found.success, "{found:?}");
    let files: Vec<&str> = found.content.lines().collect();
    for level in 0..LEVELS {
        let kept = format!("{}/kept-{level}.txt", level_dir(level));
        assert!(files.contains(&kept.as_str()), "{kept}: {files:?}");
    }
    // The first rule of a file applies; one past the file's caps does not.
    assert!(!files.contains(&"d0/early-0.log"), "{files:?}");
    assert!(files.contains(&"d0/late-0.log"), "{files:?}");
    let searched = executor
        .execute(ToolCall::new(
            "2",
            "search_files",
            json!({"pattern": "needle"}),
        ))
        .await;
    assert!(searched.success, "{searched:?}");
    assert!(
        searched.content.contains("d0/kept-0.txt:1: needle"),
        "{}",
        searched.content
    );
    assert!(!searched.content.contains("early-0.log"));
    println!("PEAK_KIB before={before} after={}", peak_rss_kib());
}

/// 20 nested `.gitignore` files of 1 MiB each (some 50,000 rules each): `find_files` and
/// `search_files` over them, in a child process whose peak memory is measured. Reading every
/// rule (the walker before the caps) cost some 420 MB a file, gigabytes in all; within the
/// caps the rules cost a few tens of MB.
#[test]
fn huge_ignore_files_cost_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    for level in 0..LEVELS {
        let at = dir.path().join(level_dir(level));
        std::fs::create_dir_all(&at).unwrap();
        let rules = huge_ignore_file(&level.to_string(), 1 << 20, "early-*.log", "late-*.log");
        std::fs::write(at.join(".gitignore"), rules).unwrap();
        std::fs::write(at.join(format!("kept-{level}.txt")), "needle\n").unwrap();
        std::fs::write(at.join(format!("early-{level}.log")), "needle\n").unwrap();
        std::fs::write(at.join(format!("late-{level}.log")), "late\n").unwrap();
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "ignores::huge_ignores_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HUGE_IGNORES_DIR, dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.find("PEAK_KIB").map(|at| &l[at..]))
        .unwrap_or_else(|| panic!("no measurement in {stdout}"));
    let after: u64 = line.rsplit('=').next().unwrap().parse().unwrap();
    eprintln!("20 nested 1 MiB .gitignore files: {line}");
    // 200 MiB: the process (some 20 MB) and the capped rules (tens of MB, at most some 40 MB
    // of compiled rules per walk whatever they are), with a wide margin; reading them all
    // took gigabytes.
    assert!(after < 200 * 1024, "peak RSS {after} KiB");
}

/// A root whose `.gitignore` and `.git/info/exclude` hold 1 MiB of rules each, and `files`
/// files that match them, so a walker that read every rule would spend minutes matching
/// entries it never shows (and so never looks at its cancellation).
fn busy_workspace(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    std::fs::write(
        root.join(".git/info/exclude"),
        huge_ignore_file("x", 1 << 20, "# exclude", "# end"),
    )
    .unwrap();
    std::fs::write(
        root.join(".gitignore"),
        huge_ignore_file("g", 1 << 20, "# gitignore", "# end"),
    )
    .unwrap();
    for i in 0..files {
        // Spread over all the rules: most of them past the caps.
        let n = i * 40;
        let tag = if i % 2 == 0 { "x" } else { "g" };
        std::fs::write(root.join(format!("pattern_{tag}_{n:06}_f.tmp")), "needle\n").unwrap();
    }
    dir
}

/// A `find_files` call busy with huge ignore files is cancelled once its thread runs: the
/// call reports the cancellation, and its thread stops and is given back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_busy_with_ignore_rules_stops_when_cancelled() {
    let dir = busy_workspace(1000);
    let executor = executor(dir.path(), None);
    let token = CancellationToken::new();
    let call = executor.execute_with(
        ToolCall::new("1", "find_files", json!({"pattern": "*.tmp"})),
        CallOptions::new().cancellation(token.clone()),
    );
    let cancel = async {
        // Cancelled once the tool runs on its thread, not at a guessed time.
        let started = Instant::now();
        while executor.metrics().sync_threads.busy == 0 {
            assert!(started.elapsed() < STOP_DEADLINE, "the call never started");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        token.cancel();
    };
    let (report, ()) = tokio::join!(call, cancel);
    let result = report.result;
    assert!(!result.success, "{result:?}");
    let error = result.error.unwrap_or_default();
    assert!(error.contains("cancelled"), "{error}");
    wait_for_threads_back(&executor, "find_files cancelled").await;
}

/// A `search_files` call busy with huge ignore files times out: the call reports the
/// timeout, and its thread stops and is given back rather than reading rules on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_busy_with_ignore_rules_stops_at_its_timeout() {
    let dir = busy_workspace(1000);
    // Even within the caps, matching the names against the rules takes over a second in a
    // release build (20 s in a debug one): the call cannot end before its timeout. A pattern
    // that matches nothing, so the search does not stop at its match limit.
    let executor = executor(dir.path(), Some(Duration::from_millis(100)));
    let result = executor
        .execute(ToolCall::new(
            "1",
            "search_files",
            json!({"pattern": "absent"}),
        ))
        .await;
    assert!(!result.success, "{result:?}");
    let error = result.error.unwrap_or_default();
    assert!(error.contains("timed out"), "{error}");
    wait_for_threads_back(&executor, "search_files timed out").await;
}

/// Within the caps, ignore files work as before: rules apply up to a file's rule cap, a line
/// too long is skipped (the rules after it still apply), the line the size cap cuts is left
/// out rather than taken cut, `.gitignore` overrides `.git/info/exclude`, and once a walk
/// has taken its budget of rules, deeper ignore files add none.
#[tokio::test]
async fn rules_within_the_caps_apply_and_those_past_them_do_not() {
    let h = Harness::new();
    // The rule cap: 1,000 rules a file.
    let mut rules = String::from("*.log\n");
    for n in 1..1000 {
        let _ = writeln!(rules, "filler-{n}");
    }
    rules.push_str("*.bak\n");
    h.write("cap/.gitignore", &rules);
    h.write("cap/a.log", "");
    h.write("cap/a.bak", "");
    // A line over 4 KiB is skipped, not the rest.
    h.write(
        "long/.gitignore",
        &format!("{}\n*.tmp\n", "x".repeat(5 * 1024)),
    );
    h.write("long/a.tmp", "");
    h.write("long/a.txt", "");
    // The size cap, 64 KiB, falls inside the line `*.txtcut`: taken cut, it would read
    // `*.txt` and hide `a.txt`.
    let mut text = String::new();
    while text.len() < 64 * 1024 - 5 {
        text.push_str("# comment\n");
    }
    text.truncate(64 * 1024 - 6);
    text.push('\n');
    text.push_str("*.txtcut\n");
    assert_eq!(text.find("*.txtcut"), Some(64 * 1024 - 5));
    h.write("cut/.gitignore", &text);
    h.write("cut/a.txt", "");
    // `.gitignore` overrides `.git/info/exclude`.
    h.write("repo/.git/info/exclude", "*.ex\n");
    h.write("repo/.gitignore", "!keep.ex\n");
    h.write("repo/drop.ex", "");
    h.write("repo/keep.ex", "");
    // Walked last (names sort): nine levels of 1,000 rules spend the rest of the walk's
    // 10,000 (the ignore files above took 1,003), the tenth adds none.
    let mut deep = String::new();
    for level in 0..10 {
        deep.push_str(&format!("zdeep{level}/"));
        let mut rules = format!("hide-me-{level}\n");
        for n in 1..1000 {
            let _ = writeln!(rules, "f{n}");
        }
        h.write(&format!("{deep}.gitignore"), &rules);
        h.write(&format!("{deep}hide-me-{level}"), "");
    }
    let level = |n: usize| (0..=n).map(|l| format!("zdeep{l}/")).collect::<String>();

    let found = h.ok("find_files", json!({"pattern": "*"})).await;
    let files: Vec<&str> = found.lines().collect();
    for shown in [
        "cap/a.bak",
        "long/a.txt",
        "cut/a.txt",
        "repo/keep.ex",
        &format!("{}hide-me-9", level(9)),
    ] {
        assert!(files.contains(&shown), "{shown} missing: {files:?}");
    }
    for hidden in [
        "cap/a.log",
        "long/a.tmp",
        "repo/drop.ex",
        &format!("{}hide-me-0", level(0)),
        &format!("{}hide-me-8", level(8)),
    ] {
        assert!(!files.contains(&hidden), "{hidden} shown: {files:?}");
    }
}
