//! tools-std through the executor, as a model would use it. One binary, a module per topic.

mod approval;
mod confine;
mod counts;
mod data;
mod execution;
mod files;
mod harness;
mod hostile;
mod hunks;
mod introspection;
mod safety;
mod sandbox;
