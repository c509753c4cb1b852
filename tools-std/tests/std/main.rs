//! toolwright-std through the executor, as a model would use it. One binary, a module per topic.

mod approval;
mod code_mode;
mod confine;
mod counts;
mod data;
mod egress;
mod escape;
mod execution;
mod files;
mod harness;
mod hostile;
mod hunks;
mod ignores;
mod introspection;
mod limits;
mod links;
mod programs;
mod resources;
mod safety;
mod sandbox;
#[cfg(feature = "skills")]
mod skills;
