//! What the command line tests share: running `toolwright` as a user runs it, and its
//! output as text.

use std::process::{Command, Output, Stdio};

pub fn toolwright(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
