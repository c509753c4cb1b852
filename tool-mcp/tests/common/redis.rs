//! A `redis-server` of a test's own, on a Unix socket in a temporary directory.
//!
//! Without `redis-server` installed, [`Redis::start`] says so once and gives `None` (the
//! test passes without running), unless `TOOLWRIGHT_REQUIRE_SERVICES=1` (as in CI): then it
//! fails.

#![allow(dead_code)] // Each test binary uses part of it.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Once;
use std::time::Duration;

/// How long redis-server may take to answer before the test gives up.
const DEADLINE: Duration = Duration::from_secs(120);

/// A `redis-server`, killed on drop.
pub struct Redis {
    child: Child,
    dir: tempfile::TempDir,
}

impl Redis {
    /// Starts one and waits until it answers PING; `None` (after saying why) when
    /// `redis-server` is not installed and the environment does not require it.
    pub async fn start() -> Option<Redis> {
        let binary = redis_server_binary()?;
        let dir = tempfile::tempdir().unwrap();
        let log = std::fs::File::create(dir.path().join("redis.log")).unwrap();
        let child = Command::new(&binary)
            .args(["--port", "0", "--unixsocket"])
            .arg(dir.path().join("redis.sock"))
            .args([
                "--unixsocketperm",
                "700",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .args(["--daemonize", "no", "--logfile", ""])
            .arg("--dir")
            .arg(dir.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let mut redis = Redis { child, dir };
        redis.wait_until_ready().await;
        Some(redis)
    }

    pub fn url(&self) -> String {
        format!(
            "redis+unix://{}",
            self.dir.path().join("redis.sock").display()
        )
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("redis.log")).unwrap_or_default()
    }

    /// Polls PING on the socket until it answers (the event), failing at once if the
    /// server exits, or after the overall deadline.
    async fn wait_until_ready(&mut self) {
        let client = redis::Client::open(self.url()).unwrap();
        let started = tokio::time::Instant::now();
        loop {
            if let Ok(mut connection) = client.get_multiplexed_async_connection().await
                && let Ok(answer) = redis::cmd("PING")
                    .query_async::<String>(&mut connection)
                    .await
            {
                assert_eq!(answer, "PONG");
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "redis-server exited ({status}) before answering:\n{}",
                    self.log()
                );
            }
            assert!(
                started.elapsed() < DEADLINE,
                "redis-server did not answer PING at {}:\n{}",
                self.url(),
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// A plain connection, to look at what a store wrote.
    pub async fn connection(&self) -> redis::aio::MultiplexedConnection {
        redis::Client::open(self.url())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .unwrap()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn redis_server_binary() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .map(|dir| dir.join("redis-server"))
        .find(|candidate| candidate.is_file());
    if found.is_none() {
        if std::env::var("TOOLWRIGHT_REQUIRE_SERVICES").as_deref() == Ok("1") {
            panic!(
                "redis-server is not installed and TOOLWRIGHT_REQUIRE_SERVICES=1: install it \
                 (`apt-get install redis-server`) to run the Redis tests"
            );
        }
        // Straight to stderr, past the test harness's capture, once: a skip must be seen.
        static SAID: Once = Once::new();
        SAID.call_once(|| {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: redis-server is not installed, so the Redis tests that need it pass \
                 without running (`apt-get install redis-server`; TOOLWRIGHT_REQUIRE_SERVICES=1 \
                 makes this a failure)"
            );
        });
    }
    found
}
