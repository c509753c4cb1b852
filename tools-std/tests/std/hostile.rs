//! The file tools against an attacker: a second process racing the path checks, special
//! files, hard links, huge lines, names made to forge output, and `delete_path` on links.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::json;

use crate::harness::Harness;

/// Every name under `dir` (recursively, not following links) that starts with `prefix`.
fn names_with_prefix(dir: &Path, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix) {
            found.push(entry.path().display().to_string());
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(names_with_prefix(&entry.path(), prefix));
        }
    }
    found
}

/// A thread swaps the directory `d` and a symbolic link to an outside directory with
/// `renameat2(RENAME_EXCHANGE)` while read_file, write_file, edit_file and delete_path run
/// on paths under `d`. Nothing outside may be read, written or deleted, and no temporary
/// file may be left anywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_swapped_for_a_link_never_leads_outside() {
    const ROUNDS: usize = 400;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("f.txt"), "OUTSIDE SECRET state-a\n").unwrap();
    for i in 0..ROUNDS {
        std::fs::write(outside.path().join(format!("victim-{i}.txt")), "outside").unwrap();
    }
    let outside_before = std::fs::read_dir(outside.path()).unwrap().count();
    let h = Harness::new();
    h.write("d/f.txt", "inside state-a\n");
    for i in 0..ROUNDS {
        h.write(&format!("d/victim-{i}.txt"), "inside");
    }
    symlink(outside.path(), h.root().join("swap")).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let swapper = {
        let (stop, swaps) = (Arc::clone(&stop), Arc::clone(&swaps));
        let (d, swap) = (h.root().join("d"), h.root().join("swap"));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &d,
                    rustix::fs::CWD,
                    &swap,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    let (mut reads_ok, mut writes_ok, mut edits_ok, mut deletes_ok, mut refused) = (0, 0, 0, 0, 0);
    for i in 0..ROUNDS {
        let read = h.call("read_file", json!({"path": "d/f.txt"})).await;
        assert!(!read.content.contains("OUTSIDE"), "read outside: {read:?}");
        if read.success {
            reads_ok += 1;
        } else {
            refused += 1;
        }
        let write = h
            .call(
                "write_file",
                json!({"path": format!("d/new-{i}.txt"), "content": "written"}),
            )
            .await;
        if write.success {
            writes_ok += 1;
        } else {
            refused += 1;
        }
        let (from, to) = if i % 2 == 0 {
            ("state-a", "state-b")
        } else {
            ("state-b", "state-a")
        };
        let mut edit = h
            .call(
                "edit_file",
                json!({"path": "d/f.txt", "old_text": from, "new_text": to}),
            )
            .await;
        if !edit.success {
            edit = h
                .call(
                    "edit_file",
                    json!({"path": "d/f.txt", "old_text": to, "new_text": from}),
                )
                .await;
        }
        if edit.success {
            edits_ok += 1;
        } else {
            refused += 1;
        }
        let delete = h
            .call("delete_path", json!({"path": format!("d/victim-{i}.txt")}))
            .await;
        if delete.success {
            deletes_ok += 1;
        } else {
            refused += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    eprintln!(
        "race: {} swaps; {reads_ok} reads, {writes_ok} writes, {edits_ok} edits, \
         {deletes_ok} deletes succeeded inside, {refused} calls refused",
        swaps.load(Ordering::Relaxed)
    );

    // Zero outside reads (checked in the loop), writes, edits, deletions.
    assert_eq!(
        std::fs::read_to_string(outside.path().join("f.txt")).unwrap(),
        "OUTSIDE SECRET state-a\n",
        "an edit reached outside"
    );
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        outside_before,
        "a file was created or deleted outside: {:?}",
        std::fs::read_dir(outside.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect::<Vec<_>>()
    );
    for i in 0..ROUNDS {
        assert!(outside.path().join(format!("victim-{i}.txt")).exists());
    }
    // Zero temporary files left, inside or outside.
    assert_eq!(
        names_with_prefix(h.root(), ".tool-write-"),
        Vec::<String>::new()
    );
    assert_eq!(
        names_with_prefix(outside.path(), ".tool-write-"),
        Vec::<String>::new()
    );
    // The swap did not stop the tools from working inside.
    assert!(reads_ok > 0 && writes_ok > 0, "nothing succeeded inside");
}

#[tokio::test]
async fn fifos_sockets_and_devices_are_refused_at_once() {
    let h = Harness::new();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        h.root().join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(h.root().join("sock")).unwrap();
    symlink("/dev/zero", h.root().join("zero")).unwrap();
    // A device node inside the root, where the machine lets us make one (root can).
    let device = rustix::fs::mknodat(
        rustix::fs::CWD,
        h.root().join("null-device"),
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::from_raw_mode(0o666),
        rustix::fs::makedev(1, 3),
    )
    .is_ok();
    let mut paths = vec!["pipe", "sock", "zero"];
    if device {
        paths.push("null-device");
    }
    for path in paths {
        // Each refused without blocking: a blocked open would hang the test here.
        let error = h.err("read_file", json!({"path": path})).await;
        assert!(
            error.contains("not a regular file") || error.contains("outside the workspace"),
            "{path}: {error}"
        );
        let error = h
            .err(
                "edit_file",
                json!({"path": path, "old_text": "a", "new_text": "b"}),
            )
            .await;
        assert!(
            error.contains("not a regular file") || error.contains("outside the workspace"),
            "{path}: {error}"
        );
    }
    // A search walks past them (a FIFO would otherwise block it forever).
    h.write("a.txt", "needle\n");
    let found = h.ok("search_files", json!({"pattern": "needle"})).await;
    assert_eq!(found, "a.txt:1: needle\n");
    let listing = h.ok("list_directory", json!({})).await;
    assert!(
        listing.contains("pipe (FIFO, socket or device)"),
        "{listing}"
    );
}

/// Hard links: another link may be outside, so reads refuse files with more than one link;
/// a write replaces this link with a file of its own and never writes through it.
#[tokio::test]
async fn hard_links_are_not_read_and_never_written_through() {
    let outside = tempfile::tempdir().unwrap();
    let h = Harness::new();
    // Same file system: both temporary directories are under the same temp dir.
    std::fs::write(outside.path().join("secret.txt"), "TOP SECRET\n").unwrap();
    if std::fs::hard_link(outside.path().join("secret.txt"), h.root().join("link.txt")).is_err() {
        eprintln!("skipped: cannot hard-link between the temporary directories");
        return;
    }
    let error = h.err("read_file", json!({"path": "link.txt"})).await;
    assert!(error.contains("has 2 hard links"), "{error}");
    assert!(!error.contains("TOP SECRET"));
    let found = h.ok("search_files", json!({"pattern": "SECRET"})).await;
    assert!(found.starts_with("no matches"), "{found}");
    let error = h
        .err(
            "edit_file",
            json!({"path": "link.txt", "old_text": "TOP", "new_text": "NOT"}),
        )
        .await;
    assert!(error.contains("hard links"), "{error}");
    h.ok(
        "write_file",
        json!({"path": "link.txt", "content": "mine\n", "overwrite": true}),
    )
    .await;
    assert_eq!(h.read("link.txt"), "mine\n");
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "TOP SECRET\n",
        "the write went through the link"
    );
    assert_eq!(
        h.ok("read_file", json!({"path": "link.txt"})).await,
        "mine\n"
    );
}

/// A name with newlines cannot forge lines of output; control characters are escaped
/// everywhere a name is printed.
#[tokio::test]
async fn names_with_control_characters_cannot_forge_output() {
    let h = Harness::new();
    let evil = "evil\nname.txt\nfake:1: SECRET";
    std::fs::write(h.root().join(evil), "needle\n").unwrap();
    std::fs::write(h.root().join("bell\u{7}\u{1b}[31m.txt"), "x").unwrap();
    let escaped = "evil\\nname.txt\\nfake:1: SECRET";
    let found = h.ok("search_files", json!({"pattern": "needle"})).await;
    assert_eq!(found, format!("{escaped}:1: needle\n"));
    assert_eq!(found.lines().count(), 1);
    let listing = h.ok("list_directory", json!({})).await;
    assert!(
        listing.contains(&format!("{escaped} (7 bytes)")),
        "{listing}"
    );
    assert!(
        listing.contains("bell\\u{7}\\u{1b}[31m.txt (1 byte)"),
        "{listing}"
    );
    assert!(!listing.contains('\u{1b}'));
    assert_eq!(listing.lines().count(), 2);
    let files = h.ok("find_files", json!({"pattern": "*"})).await;
    assert_eq!(files.lines().count(), 2, "{files}");
    assert!(files.contains(escaped));
    let info = h.ok("file_info", json!({"path": evil})).await;
    assert!(
        info.contains(r#""path":"evil\\nname.txt\\nfake:1: SECRET""#),
        "{info}"
    );
}

/// A name that reads as another (`invoice_\u{202e}txt.exe` shows as `invoice_exe.txt`) or
/// hides text (zero-width, tag characters), and a line of a file with bidirectional
/// controls: escaped in every listing and in search results.
#[tokio::test]
async fn names_and_lines_with_bidi_or_invisible_characters_are_escaped() {
    let h = Harness::new();
    let evil = "invoice_\u{202e}txt.exe\u{200b}\u{e0041}\u{2028}";
    std::fs::write(
        h.root().join(evil),
        "needle \u{2066}hidden\u{2069}\u{feff}\n",
    )
    .unwrap();
    let escaped = "invoice_\\u{202e}txt.exe\\u{200b}\\u{e0041}\\u{2028}";
    let found = h.ok("search_files", json!({"pattern": "needle"})).await;
    assert_eq!(
        found,
        format!("{escaped}:1: needle \\u{{2066}}hidden\\u{{2069}}\\u{{feff}}\n")
    );
    let listing = h.ok("list_directory", json!({})).await;
    assert!(listing.contains(escaped), "{listing}");
    let files = h.ok("find_files", json!({"pattern": "*"})).await;
    assert!(files.contains(escaped), "{files}");
    for output in [&found, &listing, &files] {
        for c in [
            '\u{202e}',
            '\u{200b}',
            '\u{e0041}',
            '\u{2028}',
            '\u{2066}',
            '\u{feff}',
        ] {
            assert!(!output.contains(c), "{c:?} in {output:?}");
        }
    }
}

/// `delete_path` removes a link itself, with or without a trailing slash, including links
/// that point outside; the target is never touched.
#[tokio::test]
async fn delete_path_removes_links_never_their_targets() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("keep.txt"), "outside").unwrap();
    let h = Harness::new();
    h.write("target/inner.txt", "inside");
    symlink(h.root().join("target"), h.root().join("dirlink")).unwrap();
    symlink("target", h.root().join("rellink")).unwrap();
    symlink(outside.path(), h.root().join("outlink")).unwrap();
    symlink(outside.path().join("keep.txt"), h.root().join("outfile")).unwrap();
    for path in ["dirlink/", "rellink", "outlink/", "outfile"] {
        let mut state = toolwright_core::ToolState::new();
        state.insert(toolwright_std::Workspace::new(h.root()).unwrap());
        let ctx = toolwright_core::ToolContext::new().with_state(state);
        let preview = toolwright_std::files::delete_path_preview(&ctx, path, &Some(true)).unwrap();
        assert!(preview.contains("symbolic link"), "{path}: {preview}");
        let done = h
            .ok("delete_path", json!({"path": path, "recursive": true}))
            .await;
        assert!(
            done.starts_with("deleted the symbolic link"),
            "{path}: {done}"
        );
        let name = path.trim_end_matches('/');
        assert!(std::fs::symlink_metadata(h.root().join(name)).is_err());
    }
    assert_eq!(h.read("target/inner.txt"), "inside");
    assert_eq!(
        std::fs::read_to_string(outside.path().join("keep.txt")).unwrap(),
        "outside"
    );
}

/// A line longer than the read limit is shown cut, with a marker, never skipped.
#[tokio::test]
async fn a_line_longer_than_the_limit_is_shown_cut() {
    let h = Harness::with(|ws| ws.max_read_bytes(1000));
    h.write("long.txt", &format!("{}\nsecond\n", "y".repeat(5000)));
    let out = h.ok("read_file", json!({"path": "long.txt"})).await;
    assert!(out.starts_with(&"y".repeat(1000)), "{}", &out[..50]);
    assert!(!out.starts_with(&"y".repeat(1001)));
    assert!(
        out.contains(
            "[line 1 is longer than 1000 bytes and was cut here; call read_file with offset=2"
        ),
        "{out}"
    );
    assert_eq!(
        h.ok("read_file", json!({"path": "long.txt", "offset": 2}))
            .await,
        "second\n"
    );
    // Lines that fill the budget exactly, then more: the note says where to read on.
    h.write("exact.txt", &format!("{}\nb\n", "a".repeat(999)));
    let out = h.ok("read_file", json!({"path": "exact.txt"})).await;
    assert!(
        out.ends_with("call read_file with offset=2 to read on]"),
        "{out}"
    );
    h.write("fits.txt", &format!("{}\n", "a".repeat(999)));
    let out = h.ok("read_file", json!({"path": "fits.txt"})).await;
    assert_eq!(out.len(), 1000, "a file that fits has no note");
    let found = h.ok("search_files", json!({"pattern": "y+"})).await;
    assert!(found.starts_with("long.txt:1: yyy"), "{found}");
    assert!(found.trim_end().ends_with("[line cut]"), "{found}");
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

const GIGABYTE_DIR: &str = "TOOLS_STD_GIGABYTE_DIR";

/// The measured part of `a_one_line_gigabyte_file_costs_bounded_memory`, in a process of
/// its own so that no other test's memory counts.
#[tokio::test]
#[ignore = "run in a child process by a_one_line_gigabyte_file_costs_bounded_memory"]
async fn gigabyte_child() {
    let Some(dir) = std::env::var_os(GIGABYTE_DIR) else {
        return;
    };
    let executor =
        toolwright_runtime::Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
            .state(toolwright_std::Workspace::new(dir).unwrap())
            .build();
    let before = peak_rss_kib();
    let read = executor
        .execute(toolwright_core::ToolCall::new(
            "1",
            "read_file",
            json!({"path": "huge.txt", "limit": 1}),
        ))
        .await;
    assert!(read.success, "{read:?}");
    assert!(read.content.contains("was cut here"));
    let search = executor
        .execute(toolwright_core::ToolCall::new(
            "2",
            "search_files",
            json!({"pattern": "xxxx"}),
        ))
        .await;
    assert!(search.success, "{search:?}");
    assert!(
        search.content.starts_with("huge.txt:1: xxxx"),
        "{}",
        search.content
    );
    println!("PEAK_KIB before={before} after={}", peak_rss_kib());
}

#[test]
fn a_one_line_gigabyte_file_costs_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join("huge.txt")).unwrap();
    // Text at the start (so it is not taken for binary), then a hole: 1 GiB, one line.
    std::io::Write::write_all(&mut &file, &b"x".repeat(16 * 1024)).unwrap();
    file.set_len(1 << 30).unwrap();
    drop(file);
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "hostile::gigabyte_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(GIGABYTE_DIR, dir.path())
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
    eprintln!("one-line 1 GiB file: {line}");
    assert!(after < 64 * 1024, "peak RSS {after} KiB");
}

/// 200 concurrent searches over a large tree with a 1 s timeout: every call comes back (a
/// result or a timeout), the pool never passes its limit, and once the last result is in,
/// the searches that timed out notice their cancellation and give their threads back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timed_out_searches_stop_and_give_their_threads_back() {
    let dir = tempfile::tempdir().unwrap();
    let line = "the quick brown fox jumps over the lazy dog, again and again\n".repeat(2000);
    for i in 0..200 {
        let sub = dir.path().join(format!("d{}", i % 10));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("f{i}.txt")), &line).unwrap();
    }
    let executor =
        toolwright_runtime::Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
            .state(
                toolwright_std::Workspace::new(dir.path())
                    .unwrap()
                    .max_matches(10_000),
            )
            .timeout(std::time::Duration::from_secs(1))
            .max_sync_threads(16)
            .concurrency(200)
            .build();
    let calls: Vec<_> = (0..200)
        .map(|i| {
            toolwright_core::ToolCall::new(
                format!("s{i}"),
                "search_files",
                json!({"pattern": "z+y+x+w", "case_insensitive": true}),
            )
        })
        .collect();
    let started = std::time::Instant::now();
    let results = executor.execute_batch(calls, Default::default()).await;
    let all_back = started.elapsed();
    let timed_out = results
        .iter()
        .filter(|r| {
            r.error
                .as_deref()
                .is_some_and(|e| e.contains("timed out") || e.contains("could not start"))
        })
        .count();
    for result in &results {
        assert!(
            result.success
                || result
                    .error
                    .as_deref()
                    .is_some_and(|e| e.contains("timed out") || e.contains("could not start")),
            "{result:?}"
        );
    }
    let peak = executor.metrics().sync_threads;
    assert!(peak.threads <= 16, "{peak:?}");
    // Wait for the event (every search saw its cancellation), not for a time.
    let after = std::time::Instant::now();
    while executor.metrics().sync_threads.busy > 0 {
        tokio::task::yield_now().await;
    }
    let threads = executor.metrics().sync_threads;
    assert_eq!((threads.busy, threads.abandoned), (0, 0));
    eprintln!(
        "200 searches: {timed_out} timed out; all back after {all_back:?}; threads idle \
         {:?} after the last result; pool {threads:?}",
        after.elapsed()
    );
}
