//! A spinner on stderr while a call takes longer than a moment, when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long a call runs before the spinner shows.
const DELAY: Duration = Duration::from_millis(400);
const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

pub(crate) struct Spinner {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Spinner {
    /// Starts a spinner with `label`; it stays silent while `paused` is set.
    pub(crate) fn start(label: String, paused: Arc<AtomicBool>) -> Spinner {
        if !std::io::stderr().is_terminal() {
            return Spinner {
                stop: None,
                task: None,
            };
        }
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            tokio::select! {
                _ = &mut stopped => return,
                () = tokio::time::sleep(DELAY) => {}
            }
            let mut frame = 0;
            let mut shown = false;
            loop {
                if paused.load(Ordering::SeqCst) {
                    if shown {
                        eprint!("\r\x1b[2K");
                        shown = false;
                    }
                } else {
                    eprint!("\r{} {label}", FRAMES[frame % FRAMES.len()]);
                    let _ = std::io::stderr().flush();
                    shown = true;
                    frame += 1;
                }
                tokio::select! {
                    _ = &mut stopped => break,
                    () = tokio::time::sleep(Duration::from_millis(80)) => {}
                }
            }
            if shown {
                eprint!("\r\x1b[2K");
                let _ = std::io::stderr().flush();
            }
        });
        Spinner {
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Stops the spinner and clears its line.
    pub(crate) async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}
