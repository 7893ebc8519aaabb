//! MuranoPL: packages, classes, contracts, workflows, object model and core library.
