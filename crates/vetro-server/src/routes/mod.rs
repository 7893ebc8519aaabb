//! One module per resource family.

pub mod actions;
pub mod catalog;
pub mod deployments;
pub mod environments;
pub mod model;
pub mod services;
pub mod sessions;
pub mod templates;
pub mod vetro;
