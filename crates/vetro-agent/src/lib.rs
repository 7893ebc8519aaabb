//! `vetro agent`: a replacement for murano-agent, the program on each
//! instance that runs the engine's execution plans. It reads murano-agent's
//! configuration file, consumes plans from RabbitMQ, writes their files,
//! runs their scripts and their Python-like `Body`, and answers in
//! murano-agent's result format. The engine side of the wire (queue
//! declarations, signatures) is shared from here.

pub mod amqp;
pub mod body;
pub mod config;
pub mod executors;
pub mod files;
pub mod plan;
pub mod queue;
pub mod runner;
pub mod service;
pub mod sign;

pub use config::AgentConfig;
pub use runner::{result_message, run_plan};
pub use service::Agent;

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("configuration: {0}")]
    Config(String),
}
