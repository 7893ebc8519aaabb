//! One module per subcommand; each exposes `Args` (clap) and `run`.

pub mod agent;
pub mod cloud;
pub mod db;
pub mod engine_task;
pub mod ir;
pub mod limits;
pub mod murano;
pub mod murano_model;
pub mod murano_test;
pub mod packages;
pub mod plugin;
pub mod policy;
pub mod quota_args;
pub mod run;
pub mod serve;
pub mod serve_auth;
pub mod serve_http;
pub mod service_runtime;
pub mod spec;
pub mod token;
pub mod tosca;
pub mod worker;
pub mod yaml;
pub mod yaql;
