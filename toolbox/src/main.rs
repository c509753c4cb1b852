#![doc = include_str!("../README.md")]

// The layers, lowest first (no module imports one listed after it): serve_discovery,
// code_mode, cli, ending, audit, docs, gateway, list, serve_config, shown, prompt, spinner,
// workspace, call, serve.
mod audit;
mod call;
mod cli;
mod code_mode;
mod docs;
mod ending;
mod gateway;
mod list;
mod prompt;
mod serve;
mod serve_config;
mod serve_discovery;
mod shown;
mod spinner;
mod workspace;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command, LogFormat};
use ending::{Outcome, Stop};

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    // `serve --config FILE`: the file's `[serve]` options join the command line's.
    if let Command::Serve(args) = &cli.command
        && let Some(config) = &args.config
    {
        let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
        match serve_config::reparse(&argv, config) {
            Ok(Some(with_file)) => cli = with_file,
            Ok(None) => {}
            Err(error) => {
                let _ = writeln!(std::io::stderr(), "error: {}", error.0);
                return ExitCode::from(2);
            }
        }
    }
    init_logging(cli.verbose, cli.log_format);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = writeln!(
                std::io::stderr(),
                "error: cannot start the async runtime: {error}"
            );
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::List(args) => list::list(args).await,
            Command::Schema(args) => list::schema(args).await,
            Command::Call(args) => call::call(*args).await,
            Command::Serve(args) => serve::serve(*args).await.map_err(Stop::from),
            Command::Completions(args) => docs::completions(&args),
            Command::Man(args) => docs::man(&args),
        }
    });
    // A sync tool that never returned must not keep the program alive.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::ToolFailed) => ExitCode::from(1),
        // Nobody reads the rest: not an error (and no message, which would only clutter the
        // terminal of `toolwright list | head`).
        Err(Stop::StdoutClosed) => ExitCode::SUCCESS,
        Err(stop @ Stop::Output(_)) => {
            let _ = writeln!(std::io::stderr(), "error: {stop}");
            ExitCode::FAILURE
        }
        Err(Stop::Usage(message)) => {
            let _ = writeln!(std::io::stderr(), "error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Logs go to stderr (stdout carries results, and the MCP protocol over stdio), as text or
/// one JSON object per line.
fn init_logging(verbose: u8, format: LogFormat) {
    // rmcp logs every error response it sends (an unknown tool, say) as a warning; for
    // toolwright those are answers, not problems.
    let default = match verbose {
        0 => "warn,rmcp=error",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init(),
        LogFormat::Json => builder.json().with_current_span(false).try_init(),
    };
}
