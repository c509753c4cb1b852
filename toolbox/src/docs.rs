//! `toolwright completions` and `toolwright man`: shell completion scripts and man pages, generated
//! from the command line's own definition so they never lag behind it.

use clap::CommandFactory;
use clap_complete::Generator;

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::ending::{Outcome, Stop, print};

/// The completion script of one shell, on stdout.
pub(crate) fn completions(args: &CompletionsArgs) -> Result<Outcome, Stop> {
    let mut command = Cli::command();
    command.set_bin_name("toolwright");
    command.build();
    // Rendered in memory first: the generators were written for files, and stdout is where
    // a closed pipe must end the command quietly.
    let mut script = Vec::new();
    args.shell
        .try_generate(&command, &mut script)
        .map_err(Stop::Output)?;
    print(|out| out.write_all(&script))?;
    Ok(Outcome::Success)
}

/// toolwright(1), or toolwright-SUBCOMMAND(1), in roff on stdout.
pub(crate) fn man(args: &ManArgs) -> Result<Outcome, Stop> {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    let page = match &args.subcommand {
        None => command,
        Some(name) => {
            let Some(sub) = command.find_subcommand(name) else {
                let names: Vec<&str> = command.get_subcommands().map(|s| s.get_name()).collect();
                return Err(Stop::Usage(format!(
                    "no subcommand `{name}`: give one of {}, or none for toolwright(1)",
                    names.join(", ")
                )));
            };
            sub.clone()
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .source(format!("toolwright {}", env!("CARGO_PKG_VERSION")))
        .render(&mut roff)
        .map_err(Stop::Output)?;
    print(|out| out.write_all(&roff))?;
    Ok(Outcome::Success)
}
